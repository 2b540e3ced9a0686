//! The executor: gathers one sweep's observation from the watches' caches,
//! asks [`decide::sweep`] for the plan, and carries it out.
//!
//! Order: the Cluster's status first (it carries the ledger, and a grant
//! goes out only after the API server has stored its entry), then the
//! grants, then the Lost marks, then the feature janitor. Every write asks the election first. The
//! Cluster write is a replace guarded by its resourceVersion: a conflict
//! means another copy wrote since, so this sweep grants nothing. Grants and
//! Lost marks are merge patches guarded by the Machine's resourceVersion: a
//! conflict on a Lost mark means the machine came back, so it is skipped and
//! never retried. The only direct reads are the Machines whose ledger entry
//! shows no grant in the cache (a reclaim needs their current version) and
//! the machine operator's DaemonSet.

use std::sync::Arc;

use jiff::Timestamp;
use k8s_openapi::api::apps::v1::DaemonSet;
use kube::api::{Api, DynamicObject, PostParams};
use liken_api::condition;
use liken_documents::Cluster;
use liken_kube::{Election, WriteError, merge_status_guarded};
use serde_json::json;

use crate::channel::{CHECK_RELEASES, Poller};
use crate::decide::{self, Observation, Plan, Timing};
use crate::events::{self, Events};
use crate::machine::MachineView;
use crate::watch::{Fleet, machine_resource};

/// The machine operator's DaemonSet, and the template annotation that names
/// the release it runs.
pub const MACHINE_OPERATOR: &str = "liken-machine-operator";
pub const VERSION_ANNOTATION: &str = "liken.sh/version";

/// What a sweep needs besides the fleet.
pub struct Context {
    pub client: kube::Client,
    pub namespace: String,
    pub election: Arc<Election>,
    pub events: Events,
    pub poller: Poller,
    pub timing: Timing,
}

/// What a sweep did, for logs and tests.
#[derive(Debug, Default)]
pub struct Outcome {
    pub wrote_status: bool,
    pub granted: usize,
    pub lost: usize,
    /// DaemonSets of retracted features deleted.
    pub retracted: usize,
    pub plan: Option<Plan>,
}

#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error("no Cluster exists yet")]
    NoCluster,
    #[error("reading Machine {name}: {source}")]
    ReadMachine {
        name: String,
        #[source]
        source: kube::Error,
    },
    #[error("writing the Cluster's status: {0}")]
    WriteCluster(WriteError),
}

fn not_leading(name: &str) -> WriteError {
    WriteError::NotLeading {
        name: name.to_owned(),
    }
}

/// One sweep.
pub async fn sweep(ctx: &Context, fleet: &Fleet) -> Result<Outcome, SweepError> {
    let mut clusters = fleet.clusters.state();
    clusters.sort_by_key(|c| c.metadata.name.clone());
    let cluster = clusters
        .first()
        .ok_or(SweepError::NoCluster)?
        .as_ref()
        .clone();
    let name = cluster.metadata.name.clone().unwrap_or_default();

    let machine_api: Api<DynamicObject> = Api::all_with(ctx.client.clone(), &machine_resource());
    let mut machines: Vec<MachineView> = vec![];
    for obj in fleet.machines.state() {
        match serde_json::to_value(obj.as_ref()).map(MachineView::from_value) {
            Ok(Ok(m)) => machines.push(m),
            Ok(Err(e)) | Err(e) => println!("machine=? error=\"unreadable Machine: {e}\""),
        }
    }
    machines.sort_by(|a, b| a.name.cmp(&b.name));
    // A reclaim compares the Machine's version with the entry's, and the
    // cache may lag the copy the entry was recorded from.
    let ledger = cluster
        .status
        .as_ref()
        .map(|s| s.reboot_turns.clone())
        .unwrap_or_default();
    for turn in &ledger {
        if let Some(m) = machines.iter_mut().find(|m| m.name == turn.machine)
            && !m.holds_grant()
        {
            let fresh = machine_api.get_opt(&turn.machine).await.map_err(|source| {
                SweepError::ReadMachine {
                    name: turn.machine.clone(),
                    source,
                }
            })?;
            match fresh.map(|o| serde_json::to_value(o).map(MachineView::from_value)) {
                Some(Ok(Ok(view))) => *m = view,
                None => machines.retain(|x| x.name != turn.machine),
                _ => {}
            }
        }
    }

    let now = Timestamp::now();
    let annotations = cluster.metadata.annotations.clone().unwrap_or_default();
    let source = cluster
        .spec
        .releases
        .as_ref()
        .and_then(|r| r.source.clone());
    ctx.poller.observe(
        source.as_deref(),
        annotations.get(CHECK_RELEASES).map(String::as_str),
        now,
    );
    let heard = fleet
        .sightings
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .heard();
    let template_lags = template_lags(ctx, &cluster).await;
    let observation = Observation {
        cluster: &cluster,
        machines: &machines,
        heard: &heard,
        watching_since: fleet.watching_since,
        available: ctx.poller.available(),
        template_lags,
        now,
        timing: ctx.timing,
    };
    let plan = decide::sweep(&observation);
    let mut outcome = Outcome::default();

    // The Cluster's status, then the grants it records.
    let held = cluster.status.clone().unwrap_or_default();
    let uid = cluster.metadata.uid.clone().unwrap_or_default();
    let stored_ledger = if plan.write_status {
        if !ctx.election.may_write() {
            return Err(SweepError::WriteCluster(not_leading(&name)));
        }
        let api: Api<Cluster> = Api::all(ctx.client.clone());
        let mut updated = cluster.clone();
        updated.status = Some(plan.status.clone());
        let stored = api
            .replace_status(&name, &PostParams::default(), &updated)
            .await
            .map_err(|e| SweepError::WriteCluster(WriteError::from_api(&name, e)))?;
        outcome.wrote_status = true;
        let reference = events::reference("Cluster", &name, &uid);
        for t in condition::transitions(&held.conditions, &plan.status.conditions) {
            let warning = matches!(t.reason.as_str(), "MachinesDegraded" | "RolloutStalled");
            ctx.events.post(
                reference.clone(),
                warning,
                &t.reason,
                format!("{}: {}", t.type_, t.message),
            );
        }
        for m in &plan.reclaimed {
            let uid = machines
                .iter()
                .find(|x| &x.name == m)
                .map(|x| x.uid.as_str())
                .unwrap_or("");
            ctx.events.post(
                events::reference("Machine", m, uid),
                false,
                events::TURN_RECLAIMED,
                "the reboot turn was spent and returned to the disruption budget".into(),
            );
        }
        let kept = stored.status.clone().unwrap_or_default().reboot_turns;
        if !decide::ledger_kept(&plan.status.reboot_turns, &kept) {
            println!(
                "cluster={name} rebootTurns=pruned \"the served Cluster schema does not store status.rebootTurns; granting no reboot turn\""
            );
            let mut again = stored.clone();
            let generation = stored.metadata.generation.unwrap_or(0);
            again.status = Some(decide::schema_pruned(
                &stored.status.clone().unwrap_or_default(),
                generation,
                now,
            ));
            if ctx.election.may_write() && again.status != stored.status {
                let _ = api
                    .replace_status(&name, &PostParams::default(), &again)
                    .await;
            }
            None
        } else {
            Some(kept)
        }
    } else {
        Some(held.reboot_turns.clone())
    };

    if let Some(stored_ledger) = stored_ledger {
        for g in &plan.grants {
            let recorded = stored_ledger.iter().any(|t| {
                t.machine == g.machine && t.machine_resource_version == g.resource_version
            });
            if !recorded || !ctx.election.may_write() {
                continue;
            }
            let patch = json!({"conditions": g.conditions});
            match merge_status_guarded(&machine_api, &g.machine, &g.resource_version, patch).await {
                Ok(_) => {
                    outcome.granted += 1;
                    println!("machine={} turn=granted", g.machine);
                    let uid = machines
                        .iter()
                        .find(|x| x.name == g.machine)
                        .map(|x| x.uid.as_str())
                        .unwrap_or("");
                    ctx.events.post(
                        events::reference("Machine", &g.machine, uid),
                        false,
                        events::TURN_GRANTED,
                        format!(
                            "a reboot turn was granted within spec.disruption.maxUnavailable={}",
                            cluster.spec.disruption.max_unavailable
                        ),
                    );
                }
                Err(WriteError::Conflict { .. } | WriteError::NotFound { .. }) => {}
                Err(e) => println!("machine={} turn=grant-failed error=\"{e}\"", g.machine),
            }
        }
    }

    for l in &plan.lost {
        if !ctx.election.may_write() {
            break;
        }
        let patch = json!({"phase": "Lost", "conditions": l.conditions});
        match merge_status_guarded(&machine_api, &l.machine, &l.resource_version, patch).await {
            Ok(_) => {
                outcome.lost += 1;
                println!("machine={} phase=Lost \"{}\"", l.machine, l.message);
                let uid = machines
                    .iter()
                    .find(|x| x.name == l.machine)
                    .map(|x| x.uid.as_str())
                    .unwrap_or("");
                ctx.events.post(
                    events::reference("Machine", &l.machine, uid),
                    true,
                    events::MACHINE_LOST,
                    l.message.clone(),
                );
            }
            // The machine wrote first: it is back. Never retried.
            Err(WriteError::Conflict { .. } | WriteError::NotFound { .. }) => {}
            Err(e) => println!("machine={} lost-mark=failed error=\"{e}\"", l.machine),
        }
    }
    outcome.retracted = crate::janitor::sweep(
        &ctx.client,
        &ctx.namespace,
        &cluster.spec.features,
        &fleet.daemonsets,
        || ctx.election.may_write(),
    )
    .await;
    outcome.plan = Some(plan);
    Ok(outcome)
}

/// Whether the machine operator's DaemonSet template names a release other
/// than spec.version. No DaemonSet, no annotation or no target: it does not
/// lag (nothing to wait for).
async fn template_lags(ctx: &Context, cluster: &Cluster) -> bool {
    let Some(target) = cluster.spec.version.as_ref() else {
        return false;
    };
    let api: Api<DaemonSet> = Api::namespaced(ctx.client.clone(), &ctx.namespace);
    let Ok(Some(ds)) = api.get_opt(MACHINE_OPERATOR).await else {
        return false;
    };
    let running = ds
        .spec
        .and_then(|s| s.template.metadata)
        .and_then(|m| m.annotations)
        .and_then(|a| a.get(VERSION_ANNOTATION).cloned());
    running.is_some_and(|v| v != target.as_str())
}
