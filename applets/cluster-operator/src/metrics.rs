//! Prometheus metrics, in the text exposition format (version 0.0.4),
//! written by hand: the set is small and fixed. Served on `--metrics-address`
//! (:9200) by every copy, leading or not, at any path; each connection gets
//! one response and is closed.
//!
//! - `liken_cluster_operator_sweep_duration_seconds`: a histogram of sweeps.
//! - `liken_cluster_operator_sweep_errors_total`: sweeps that failed.
//! - `liken_cluster_operator_machines{phase}`: machines by effective phase,
//!   as of the last sweep that judged the fleet (every phase, zeros too).
//! - `liken_cluster_operator_machines_awaiting_approval`: machines whose
//!   staged change waits for a person.
//! - `liken_cluster_operator_watch_restarts_total`: watch errors after which
//!   a watch started over.
//! - `liken_cluster_operator_leading`: 1 while this copy holds the Lease.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use liken_api::Phase;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Upper bounds of the sweep duration buckets, in seconds.
const BUCKETS: [f64; 10] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0];

#[derive(Debug, Default)]
struct Sweeps {
    /// Count of sweeps at or under each bucket's bound (not cumulative).
    buckets: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
    errors: u64,
}

#[derive(Debug, Default)]
struct Fleet {
    phases: BTreeMap<Phase, usize>,
    awaiting_approval: usize,
}

/// The operator's metrics, shared between the loop and the server.
#[derive(Clone, Debug, Default)]
pub struct Metrics {
    sweeps: Arc<Mutex<Sweeps>>,
    fleet: Arc<Mutex<Fleet>>,
    watch_restarts: Arc<Mutex<Option<Arc<AtomicU64>>>>,
    leading: Arc<AtomicU64>,
}

impl Metrics {
    /// Records one sweep and whether it failed.
    pub fn sweep(&self, took: Duration, failed: bool) {
        let mut s = self.sweeps.lock().unwrap_or_else(|e| e.into_inner());
        let secs = took.as_secs_f64();
        if let Some(i) = BUCKETS.iter().position(|b| secs <= *b) {
            s.buckets[i] += 1;
        }
        s.count += 1;
        s.sum += secs;
        if failed {
            s.errors += 1;
        }
    }

    /// Records the fleet as the last sweep judged it.
    pub fn fleet(&self, phases: &BTreeMap<Phase, usize>, awaiting_approval: usize) {
        let mut f = self.fleet.lock().unwrap_or_else(|e| e.into_inner());
        f.phases = phases.clone();
        f.awaiting_approval = awaiting_approval;
    }

    /// Counts restarts from the watches' own counter.
    pub fn watch_restarts_from(&self, counter: Arc<AtomicU64>) {
        *self
            .watch_restarts
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(counter);
    }

    pub fn leading(&self, leading: bool) {
        self.leading.store(u64::from(leading), Ordering::Relaxed);
    }

    /// The metrics in the text exposition format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let p = "liken_cluster_operator";
        {
            let s = self.sweeps.lock().unwrap_or_else(|e| e.into_inner());
            let _ = writeln!(
                out,
                "# HELP {p}_sweep_duration_seconds How long a sweep took."
            );
            let _ = writeln!(out, "# TYPE {p}_sweep_duration_seconds histogram");
            let mut cumulative = 0;
            for (bound, n) in BUCKETS.iter().zip(s.buckets) {
                cumulative += n;
                let _ = writeln!(
                    out,
                    "{p}_sweep_duration_seconds_bucket{{le=\"{bound}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                out,
                "{p}_sweep_duration_seconds_bucket{{le=\"+Inf\"}} {}",
                s.count
            );
            let _ = writeln!(out, "{p}_sweep_duration_seconds_sum {}", s.sum);
            let _ = writeln!(out, "{p}_sweep_duration_seconds_count {}", s.count);
            let _ = writeln!(out, "# HELP {p}_sweep_errors_total Sweeps that failed.");
            let _ = writeln!(out, "# TYPE {p}_sweep_errors_total counter");
            let _ = writeln!(out, "{p}_sweep_errors_total {}", s.errors);
        }
        {
            let f = self.fleet.lock().unwrap_or_else(|e| e.into_inner());
            let _ = writeln!(out, "# HELP {p}_machines Machines by effective phase.");
            let _ = writeln!(out, "# TYPE {p}_machines gauge");
            for phase in Phase::ALL {
                let n = f.phases.get(&phase).copied().unwrap_or(0);
                let _ = writeln!(out, "{p}_machines{{phase=\"{phase}\"}} {n}");
            }
            let _ = writeln!(
                out,
                "# HELP {p}_machines_awaiting_approval Machines whose staged change waits for a person."
            );
            let _ = writeln!(out, "# TYPE {p}_machines_awaiting_approval gauge");
            let _ = writeln!(
                out,
                "{p}_machines_awaiting_approval {}",
                f.awaiting_approval
            );
        }
        let restarts = self
            .watch_restarts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map_or(0, |c| c.load(Ordering::Relaxed));
        let _ = writeln!(
            out,
            "# HELP {p}_watch_restarts_total Watch errors after which a watch started over."
        );
        let _ = writeln!(out, "# TYPE {p}_watch_restarts_total counter");
        let _ = writeln!(out, "{p}_watch_restarts_total {restarts}");
        let _ = writeln!(
            out,
            "# HELP {p}_leading Whether this copy holds the election Lease."
        );
        let _ = writeln!(out, "# TYPE {p}_leading gauge");
        let _ = writeln!(out, "{p}_leading {}", self.leading.load(Ordering::Relaxed));
        out
    }

    /// Binds `address` and serves the metrics on a task of its own.
    pub async fn serve(&self, address: SocketAddr) -> std::io::Result<SocketAddr> {
        let listener = TcpListener::bind(address).await?;
        let bound = listener.local_addr()?;
        let me = self.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut conn, _)) = listener.accept().await else {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                };
                let me = me.clone();
                tokio::spawn(async move {
                    // Read the request head (bounded in size and time); its
                    // content does not matter.
                    let mut head = Vec::new();
                    let mut buf = [0u8; 1024];
                    let read = tokio::time::timeout(Duration::from_secs(5), async {
                        while head.len() < 16 * 1024 && !head.windows(4).any(|w| w == b"\r\n\r\n") {
                            match conn.read(&mut buf).await {
                                Ok(0) | Err(_) => break,
                                Ok(n) => head.extend_from_slice(&buf[..n]),
                            }
                        }
                    })
                    .await;
                    if read.is_err() {
                        return;
                    }
                    let body = me.render();
                    let response = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = conn.write_all(response.as_bytes()).await;
                    let _ = conn.shutdown().await;
                });
            }
        });
        Ok(bound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exposition_counts_sweeps_phases_and_restarts() {
        let m = Metrics::default();
        m.sweep(Duration::from_millis(3), false);
        m.sweep(Duration::from_millis(300), true);
        m.fleet(&BTreeMap::from([(Phase::Ready, 4), (Phase::Lost, 1)]), 2);
        let restarts = Arc::new(AtomicU64::new(3));
        m.watch_restarts_from(restarts);
        let text = m.render();
        for line in [
            "liken_cluster_operator_sweep_duration_seconds_bucket{le=\"0.005\"} 1",
            "liken_cluster_operator_sweep_duration_seconds_bucket{le=\"0.25\"} 1",
            "liken_cluster_operator_sweep_duration_seconds_bucket{le=\"0.5\"} 2",
            "liken_cluster_operator_sweep_duration_seconds_bucket{le=\"+Inf\"} 2",
            "liken_cluster_operator_sweep_duration_seconds_count 2",
            "liken_cluster_operator_sweep_errors_total 1",
            "liken_cluster_operator_machines{phase=\"Ready\"} 4",
            "liken_cluster_operator_machines{phase=\"Lost\"} 1",
            "liken_cluster_operator_machines{phase=\"Booting\"} 0",
            "liken_cluster_operator_machines_awaiting_approval 2",
            "liken_cluster_operator_watch_restarts_total 3",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        }
    }
}
