//! The `liken-cluster-operator` personality: the fleet's observer. It writes
//! the verdicts no single machine can: Lost on a machine whose heartbeat
//! stopped, the Cluster's status (phase, headcount, releases, the reboot
//! turn ledger), and the reboot turns themselves, within the disruption
//! budget. One copy acts at a time (leader election on the Lease
//! liken-cluster-operator in liken-system).
//!
//! Layout: [`decide`] is the pure sweep (observation in, plan out);
//! [`execute`] carries a plan out against the API; [`watch`] keeps the
//! caches and the heartbeat [`sightings`]; [`run`] is the loop, the election
//! and the shutdown; [`channel`] polls the release channel; [`events`] posts
//! Events; [`janitor`] deletes the DaemonSets of retracted features;
//! [`metrics`] serves the Prometheus metrics (:9200). In a pod it uses the in-cluster credentials, elsewhere the
//! kubeconfig as kubectl reads it.

pub mod channel;
pub mod decide;
pub mod events;
pub mod execute;
pub mod janitor;
pub mod machine;
pub mod metrics;
pub mod run;
pub mod sightings;
pub mod watch;

use std::ffi::OsString;
use std::process::ExitCode;
use std::time::Duration;

use argh::FromArgs;

/// Watch the fleet: mark silent machines Lost, publish the Cluster's status
/// and grant reboot turns within the disruption budget.
#[derive(FromArgs, Debug)]
struct Flags {
    /// the namespace of the election and heartbeat Leases (liken-system)
    #[argh(option, default = "String::from(\"liken-system\")")]
    namespace: String,
    /// this copy's election identity (default: POD_NAME, else the hostname)
    #[argh(option)]
    identity: Option<String>,
    /// seconds of heartbeat silence, on this program's clock, before a machine is Lost (40)
    #[argh(option, default = "40.0")]
    heartbeat_stale_after: f64,
    /// the longest time between two sweeps, in seconds (10)
    #[argh(option, default = "10.0")]
    sweep_interval: f64,
    /// seconds a granted reboot turn may stay out before the rollout stalls (1800)
    #[argh(option, default = "1800.0")]
    stall_after: f64,
    /// seconds an unrenewed election Lease keeps its holder (15)
    #[argh(option, default = "15.0")]
    lease_duration: f64,
    /// seconds after its last renewal that the leader still writes (10)
    #[argh(option, default = "10.0")]
    renew_deadline: f64,
    /// seconds between election tries and renewals (2)
    #[argh(option, default = "2.0")]
    retry_period: f64,
    /// seconds between two polls of the release channel (21600)
    #[argh(option, default = "21600.0")]
    channel_poll_interval: f64,
    /// where to serve the Prometheus metrics (0.0.0.0:9200)
    #[argh(option, default = "String::from(\"0.0.0.0:9200\")")]
    metrics_address: String,
}

fn secs(name: &str, v: f64) -> Result<Duration, String> {
    Duration::try_from_secs_f64(v)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("--{name} must be a positive number of seconds, not {v}"))
}

fn identity(flag: Option<String>) -> String {
    flag.or_else(|| std::env::var("POD_NAME").ok().filter(|s| !s.is_empty()))
        .or_else(|| {
            std::fs::read_to_string("/proc/sys/kernel/hostname")
                .ok()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(|| format!("liken-cluster-operator-{}", std::process::id()))
}

fn settings(f: Flags) -> Result<run::Settings, String> {
    let settings = run::Settings {
        namespace: f.namespace,
        identity: identity(f.identity),
        timing: decide::Timing {
            stale_after: secs("heartbeat-stale-after", f.heartbeat_stale_after)?,
            stall_after: secs("stall-after", f.stall_after)?,
        },
        sweep_every: secs("sweep-interval", f.sweep_interval)?,
        lease_duration: secs("lease-duration", f.lease_duration)?,
        renew_deadline: secs("renew-deadline", f.renew_deadline)?,
        retry_every: secs("retry-period", f.retry_period)?,
        channel_every: secs("channel-poll-interval", f.channel_poll_interval)?,
        metrics_address: f.metrics_address.parse().map_err(|e| {
            format!(
                "--metrics-address must be an address and port such as 0.0.0.0:9200, not {:?}: {e}",
                f.metrics_address
            )
        })?,
    };
    if settings.renew_deadline >= settings.lease_duration {
        return Err("--renew-deadline must be shorter than --lease-duration, so a leader stops writing before another copy can take the Lease".into());
    }
    Ok(settings)
}

/// Entry point under the name `liken-cluster-operator`.
pub fn main(args: Vec<OsString>) -> ExitCode {
    let strings: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let rest: Vec<&str> = strings.iter().skip(1).map(String::as_str).collect();
    let flags = match Flags::from_args(&["liken-cluster-operator"], &rest) {
        Ok(f) => f,
        Err(early) => {
            return if early.status.is_ok() {
                println!("{}", early.output);
                ExitCode::SUCCESS
            } else {
                eprintln!("{}", early.output);
                ExitCode::from(2)
            };
        }
    };
    let settings = match settings(flags) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("liken-cluster-operator: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("liken-cluster-operator: starting the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run::run(settings)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("liken-cluster-operator: {e}");
            ExitCode::FAILURE
        }
    }
}
