//! The operator's life: wait for the lead, open the watches, sweep on every
//! wake and at least every `sweep_every`, and stop.
//!
//! - Nothing is watched or written before this copy holds the election
//!   Lease. A background task renews it; when it cannot (another copy took
//!   it, or renewals failed past the deadline) the process exits with an
//!   error, so a later lead always starts from empty caches and an empty
//!   heartbeat record.
//! - SIGTERM or SIGINT ends the loop between sweeps, so the sweep in flight
//!   finishes its writes; the Events are flushed (bounded), and only then is
//!   the Lease released. If the flush does not finish, the Lease is left to
//!   expire, after any late write.

use std::sync::Arc;
use std::time::Duration;

use liken_kube::{Election, ElectionSettings};
use tokio::sync::{Notify, watch};

use crate::channel::Poller;
use crate::decide::Timing;
use crate::events::Events;
use crate::execute::{self, Context, SweepError};
use crate::metrics::Metrics;
use crate::watch as fleet_watch;

/// The election Lease's name.
pub const ELECTION_LEASE: &str = "liken-cluster-operator";

/// Everything the operator is configured with.
#[derive(Clone, Debug)]
pub struct Settings {
    pub namespace: String,
    pub identity: String,
    pub timing: Timing,
    pub sweep_every: Duration,
    pub lease_duration: Duration,
    pub renew_deadline: Duration,
    pub retry_every: Duration,
    pub channel_every: Duration,
    pub metrics_address: std::net::SocketAddr,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Client(#[from] liken_kube::ClientError),
    #[error("lost the election Lease {ELECTION_LEASE}; exiting so the next lead starts afresh")]
    LostLead,
    #[error("listening for signals: {0}")]
    Signals(std::io::Error),
    #[error("serving metrics on {address}: {source}")]
    Metrics {
        address: std::net::SocketAddr,
        source: std::io::Error,
    },
}

async fn stop_signal(tx: watch::Sender<bool>) -> Result<(), std::io::Error> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    tokio::spawn(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        let _ = tx.send(true);
    });
    Ok(())
}

pub async fn run(s: Settings) -> Result<(), RunError> {
    let (client, source) = liken_kube::connect().await?;
    println!(
        "liken-cluster-operator {} identity={} credentials={:?}",
        liken_buildinfo::VERSION,
        s.identity,
        source
    );
    let (stop_tx, mut stop) = watch::channel(false);
    stop_signal(stop_tx).await.map_err(RunError::Signals)?;
    let metrics = Metrics::default();
    let served = metrics
        .serve(s.metrics_address)
        .await
        .map_err(|source| RunError::Metrics {
            address: s.metrics_address,
            source,
        })?;
    println!("metrics=http://{served}/metrics");

    let mut es = ElectionSettings::new(&s.namespace, ELECTION_LEASE, &s.identity);
    es.lease_duration = s.lease_duration;
    es.renew_deadline = s.renew_deadline;
    es.retry_every = s.retry_every;
    let election = Arc::new(Election::new(client.clone(), es));
    loop {
        match election.try_lead().await {
            Ok(true) => break,
            Ok(false) => {}
            Err(e) => println!("election=error error=\"{e}\""),
        }
        tokio::select! {
            _ = stop.changed() => return Ok(()),
            _ = tokio::time::sleep(s.retry_every) => {}
        }
    }
    println!("election=acquired identity={}", s.identity);
    metrics.leading(true);

    let (lost_tx, mut lost) = watch::channel(false);
    let renewer = {
        let election = election.clone();
        let every = s.retry_every;
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                match election.try_lead().await {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => {
                        println!("election=renew-failed error=\"{e}\"");
                        if !election.may_write() {
                            break;
                        }
                    }
                }
            }
            let _ = lost_tx.send(true);
        })
    };

    let wake = Arc::new(Notify::new());
    let fleet = tokio::select! {
        f = fleet_watch::open(client.clone(), &s.namespace, wake.clone()) => f,
        _ = lost.changed() => return Err(RunError::LostLead),
    };
    metrics.watch_restarts_from(fleet.restarts.clone());
    let mut ctx = Context {
        client: client.clone(),
        namespace: s.namespace.clone(),
        election: election.clone(),
        events: Events::start(client, &s.identity, election.clone()),
        poller: Poller::new(s.channel_every, Duration::from_secs(60)).waking(wake.clone()),
        timing: s.timing,
    };
    let mut told_no_cluster = false;
    loop {
        if *lost.borrow() {
            return Err(RunError::LostLead);
        }
        let began = std::time::Instant::now();
        let result = execute::sweep(&ctx, &fleet).await;
        metrics.sweep(
            began.elapsed(),
            !matches!(result, Ok(_) | Err(SweepError::NoCluster)),
        );
        if let Ok(o) = &result
            && let Some(plan) = &o.plan
        {
            metrics.fleet(&plan.phases, plan.awaiting_approval);
        }
        match result {
            Ok(o) => {
                told_no_cluster = false;
                if o.wrote_status || o.granted > 0 || o.lost > 0 {
                    println!(
                        "sweep wrote_status={} granted={} lost={}",
                        o.wrote_status, o.granted, o.lost
                    );
                }
            }
            Err(SweepError::NoCluster) => {
                if !told_no_cluster {
                    println!("sweep waiting=\"no Cluster exists yet\"");
                    told_no_cluster = true;
                }
            }
            Err(e) => println!("sweep error=\"{e}\""),
        }
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(s.sweep_every) => {}
            _ = stop.changed() => break,
            _ = lost.changed() => return Err(RunError::LostLead),
        }
    }
    renewer.abort();
    if ctx.events.flush(Duration::from_secs(5)).await {
        if let Err(e) = election.release().await {
            println!("election=release-failed error=\"{e}\"");
        } else {
            println!("election=released identity={}", s.identity);
        }
    } else {
        println!("events=unflushed \"leaving the Lease to expire\"");
    }
    Ok(())
}
