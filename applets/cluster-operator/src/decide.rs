//! The sweep's decision: a pure function from what this program observed to
//! a [`Plan`]. It reads no clock (the caller passes `now`), makes no request
//! and keeps no state; the executor carries the plan out.
//!
//! Inputs: the Cluster (spec and the status it holds, the ledger included),
//! every Machine, when this program saw each heartbeat Lease's renewTime
//! change (on this program's clock), when it began watching the Leases, the
//! channel's last answer, and whether the machine operator's DaemonSet
//! template lags the target release.
//!
//! Guarantees of the plan:
//! - A machine is Lost when its Lease has not changed for `stale_after` on
//!   this program's clock (a Lease never seen counts from when the watch
//!   began); the machine's own renewTime is never compared with our clock.
//! - The ledger in the planned status never holds more turns, together with
//!   the machines down for any other reason, than spec.disruption
//!   .maxUnavailable, and never lets a second leader go down; grants go only
//!   to machines whose entry is in that ledger, so a grant is always
//!   preceded by its record.
//! - No new turn is planned while any held turn is older than `stall_after`
//!   (the rollout stalls), nor before this copy has watched the Leases for
//!   `stale_after` (a newly elected copy cannot yet tell a dead machine from
//!   a live one).
//! - Followers get no new turn while a leader waits for or holds one, nor
//!   while the machine operator's template lags the target.
//! - The planned status equals the held one when nothing changed, so a
//!   settled fleet plans no write.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use jiff::Timestamp;
use liken_api::condition::{self, Time};
use liken_api::{Condition, ConditionStatus, Phase, Role, Version};
use liken_documents::Cluster;
use liken_documents::cluster::{
    ClusterPhase, ClusterStatus, MachineCounts, RebootTurn, ReleasesStatus,
};

use crate::machine::{MachineView, REBOOT_APPROVED};

/// The condition types the sweep maintains on the Cluster.
pub const MACHINES_READY: &str = "MachinesReady";
pub const PROGRESSING: &str = "Progressing";

/// The judgement's time bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// Silence after which a heartbeat is stale (40 s).
    pub stale_after: Duration,
    /// How long a granted turn may stay out before the rollout stalls.
    pub stall_after: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            stale_after: Duration::from_secs(40),
            stall_after: Duration::from_secs(30 * 60),
        }
    }
}

/// What one sweep observed.
#[derive(Clone, Debug)]
pub struct Observation<'a> {
    pub cluster: &'a Cluster,
    pub machines: &'a [MachineView],
    /// Lease name -> when this program saw its renewTime change.
    pub heard: &'a BTreeMap<String, Timestamp>,
    /// When this copy began watching the Leases.
    pub watching_since: Timestamp,
    /// The release channel's last answer.
    pub available: Option<Version>,
    /// The machine operator's DaemonSet template runs an older release than
    /// spec.version (only a leader's boot advances it).
    pub template_lags: bool,
    pub now: Timestamp,
    pub timing: Timing,
}

/// A turn to grant on a Machine, guarded by the resourceVersion its ledger
/// entry recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    pub machine: String,
    pub resource_version: String,
    /// The Machine's conditions with RebootApproved added.
    pub conditions: Vec<Condition>,
}

/// A Lost verdict to write on a silent machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LostMark {
    pub machine: String,
    pub resource_version: String,
    /// The Machine's conditions with Ready replaced by Unknown/HeartbeatStale.
    pub conditions: Vec<Condition>,
    /// The MachineLost event's message.
    pub message: String,
}

/// What the executor is to do, in this order: write `status` when
/// `write_status`, then (only if the written ledger came back whole) the
/// grants, then the Lost marks.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub status: ClusterStatus,
    pub write_status: bool,
    pub grants: Vec<Grant>,
    /// Machines whose turn returned to the budget this sweep.
    pub reclaimed: Vec<String>,
    pub lost: Vec<LostMark>,
    /// Machines by effective phase, and how many wait for a person.
    pub phases: BTreeMap<Phase, usize>,
    pub awaiting_approval: usize,
}

fn age(now: Timestamp, then: Timestamp) -> Duration {
    now.duration_since(then)
        .try_into()
        .unwrap_or(Duration::ZERO)
}

/// When this program last saw `name`'s heartbeat, counting a Lease never
/// seen from when the watch began.
fn last_heard(o: &Observation, name: &str) -> Timestamp {
    o.heard
        .get(name)
        .copied()
        .map_or(o.watching_since, |t| t.max(o.watching_since))
}

/// The phase the sweep judges a machine by: Lost once its heartbeat is
/// stale, else what it reports (Booting before its first report).
pub fn effective_phase(o: &Observation, m: &MachineView) -> Phase {
    if age(o.now, last_heard(o, &m.name)) >= o.timing.stale_after {
        Phase::Lost
    } else {
        m.phase.unwrap_or(Phase::Booting)
    }
}

/// A machine in this phase is down and counts against the budget: it is
/// silent, booting, rebooting into a change, or unwell in a way that may
/// mean its node is not serving.
pub fn is_down(p: Phase) -> bool {
    matches!(
        p,
        Phase::Lost | Phase::Booting | Phase::Unknown | Phase::Updating | Phase::Degraded
    )
}

fn is_leader(o: &Observation, m: &MachineView) -> bool {
    o.cluster.spec.is_leader(&m.name) || m.role == Some(Role::Leader)
}

fn join(names: &[String]) -> String {
    names.join(", ")
}

/// Decides one sweep.
pub fn sweep(o: &Observation) -> Plan {
    let now = Time::new(o.now);
    let generation = o.cluster.metadata.generation.unwrap_or(0);
    let held = o.cluster.status.clone().unwrap_or_default();
    let by_name: BTreeMap<&str, &MachineView> =
        o.machines.iter().map(|m| (m.name.as_str(), m)).collect();
    let effective: BTreeMap<&str, Phase> = o
        .machines
        .iter()
        .map(|m| (m.name.as_str(), effective_phase(o, m)))
        .collect();

    // The headcount and the Lost verdicts.
    let mut phases = BTreeMap::new();
    let (mut ready, mut transitioning, mut unwell) = (0usize, vec![], vec![]);
    let mut lost = vec![];
    let mut awaiting_approval = 0;
    for m in o.machines {
        let p = effective[m.name.as_str()];
        *phases.entry(p).or_insert(0) += 1;
        if m.awaits_approval() {
            awaiting_approval += 1;
        }
        match p {
            Phase::Ready => ready += 1,
            Phase::Updating | Phase::UpdatePending | Phase::Downloading | Phase::Booting => {
                transitioning.push(m.name.clone())
            }
            _ => unwell.push(m.name.clone()),
        }
        if p == Phase::Lost && m.phase != Some(Phase::Lost) {
            lost.push(lost_mark(o, m, now));
        }
    }
    let total = o.machines.len();
    let summary = format!("{ready}/{total}");
    let (phase, machines_ready) = if !unwell.is_empty() {
        (
            ClusterPhase::Degraded,
            Condition::new(
                MACHINES_READY,
                ConditionStatus::False,
                "MachinesDegraded",
                format!("{summary} machines ready; unwell: {}", join(&unwell)),
                now,
            ),
        )
    } else if !transitioning.is_empty() {
        (
            ClusterPhase::Updating,
            Condition::new(
                MACHINES_READY,
                ConditionStatus::False,
                "MachinesUpdating",
                format!(
                    "{summary} machines ready; mid-transition: {}",
                    join(&transitioning)
                ),
                now,
            ),
        )
    } else {
        (
            ClusterPhase::Ready,
            Condition::new(
                MACHINES_READY,
                ConditionStatus::True,
                "AllMachinesReady",
                format!("all {total} machines are ready"),
                now,
            ),
        )
    };

    // The rollout: reclaim spent turns, judge a stall, grant within budget.
    let mut ledger = vec![];
    let mut reclaimed = vec![];
    for turn in &held.reboot_turns {
        match by_name.get(turn.machine.as_str()) {
            None => reclaimed.push(turn.machine.clone()),
            Some(m) if !m.holds_grant() && m.resource_version != turn.machine_resource_version => {
                reclaimed.push(turn.machine.clone())
            }
            Some(_) => ledger.push(turn.clone()),
        }
    }
    let stalled: Vec<&RebootTurn> = ledger
        .iter()
        .filter(|t| age(o.now, t.since.timestamp()) >= o.timing.stall_after)
        .collect();
    let stalled_message = stalled
        .iter()
        .map(|t| format!("{} (turn recorded {})", t.machine, t.since))
        .collect::<Vec<_>>();
    let stalled_any = !stalled.is_empty();

    let in_ledger: BTreeSet<String> = ledger.iter().map(|t| t.machine.clone()).collect();
    let mut used: BTreeSet<String> = in_ledger.clone();
    for m in o.machines {
        if is_down(effective[m.name.as_str()]) {
            used.insert(m.name.clone());
        }
    }
    let budget = o.cluster.spec.disruption.max_unavailable.max(1) as usize;
    let mut leader_out = used
        .iter()
        .any(|n| by_name.get(n.as_str()).is_some_and(|m| is_leader(o, m)));
    let waiting: Vec<&MachineView> = o
        .machines
        .iter()
        .filter(|m| m.awaits_turn() && !m.holds_grant() && !in_ledger.contains(&m.name))
        .filter(|m| !is_down(effective[m.name.as_str()]))
        .collect();
    let leaders_pending = leader_out || waiting.iter().any(|m| is_leader(o, m));
    let warming = age(o.now, o.watching_since) < o.timing.stale_after;
    let mut candidates = waiting.clone();
    candidates.sort_by_key(|m| (!is_leader(o, m), m.name.clone()));
    if !stalled_any && !warming {
        for m in candidates {
            if used.len() >= budget {
                break;
            }
            let leader = is_leader(o, m);
            if leader && leader_out {
                continue;
            }
            if !leader && (leaders_pending || o.template_lags) {
                continue;
            }
            ledger.push(RebootTurn {
                machine: m.name.clone(),
                machine_resource_version: m.resource_version.clone(),
                since: now,
            });
            used.insert(m.name.clone());
            leader_out |= leader;
        }
    }
    // Grants: every entry whose machine is still at the recorded version
    // and holds no grant, which covers new entries and entries a former
    // copy recorded but did not get to grant.
    let grants = ledger
        .iter()
        .filter_map(|t| {
            let m = by_name.get(t.machine.as_str())?;
            let up = effective[m.name.as_str()] != Phase::Lost;
            (up && !m.holds_grant() && m.resource_version == t.machine_resource_version)
                .then(|| grant(m, generation, now))
        })
        .collect();

    let holding: Vec<String> = ledger.iter().map(|t| t.machine.clone()).collect();
    let still_waiting: Vec<String> = waiting
        .iter()
        .filter(|m| !holding.contains(&m.name))
        .map(|m| m.name.clone())
        .collect();
    let progressing = if stalled_any {
        Condition::new(
            PROGRESSING,
            ConditionStatus::False,
            "RolloutStalled",
            format!(
                "a machine with a granted reboot turn has not come back within {}s: {}; no more turns are granted until it is examined",
                o.timing.stall_after.as_secs(),
                join(&stalled_message)
            ),
            now,
        )
    } else if !holding.is_empty() || !still_waiting.is_empty() {
        let mut parts = vec![];
        if !holding.is_empty() {
            parts.push(format!("holding a reboot turn: {}", join(&holding)));
        }
        if !still_waiting.is_empty() {
            parts.push(format!("waiting for a turn: {}", join(&still_waiting)));
        }
        if warming && !still_waiting.is_empty() {
            parts.push(format!(
                "no turn is granted until this copy has watched the heartbeats for {}s",
                o.timing.stale_after.as_secs()
            ));
        }
        Condition::new(
            PROGRESSING,
            ConditionStatus::True,
            "RollingOut",
            parts.join("; "),
            now,
        )
    } else {
        Condition::new(
            PROGRESSING,
            ConditionStatus::True,
            "RolloutComplete",
            "no machine holds or waits for a reboot turn",
            now,
        )
    };

    let mut status = held.clone();
    status.phase = Some(phase);
    status.observed_generation = Some(generation);
    condition::set(
        &mut status.conditions,
        machines_ready.at_generation(generation),
    );
    condition::set(
        &mut status.conditions,
        progressing.at_generation(generation),
    );
    status.machines = Some(MachineCounts {
        ready: ready as i64,
        total: total as i64,
        summary,
    });
    let newest = releases_newest(o.cluster);
    status.releases = (newest.is_some() || o.available.is_some()).then(|| ReleasesStatus {
        newest,
        available: o.available.clone(),
    });
    status.reboot_turns = ledger;
    let write_status = status != held;
    Plan {
        status,
        write_status,
        grants,
        reclaimed,
        lost,
        phases,
        awaiting_approval,
    }
}

fn releases_newest(c: &Cluster) -> Option<Version> {
    c.spec
        .releases
        .as_ref()?
        .catalog
        .iter()
        .map(|e| e.version.clone())
        .max()
}

fn grant(m: &MachineView, cluster_generation: i64, now: Time) -> Grant {
    let mut conditions = m.conditions.clone();
    condition::set(
        &mut conditions,
        Condition::new(
            REBOOT_APPROVED,
            ConditionStatus::True,
            "RebootTurnGranted",
            format!(
                "the cluster operator granted a reboot turn within the disruption budget (Cluster generation {cluster_generation})"
            ),
            now,
        )
        .at_generation(m.generation),
    );
    Grant {
        machine: m.name.clone(),
        resource_version: m.resource_version.clone(),
        conditions,
    }
}

fn lost_mark(o: &Observation, m: &MachineView, now: Time) -> LostMark {
    let mut conditions = m.conditions.clone();
    condition::set(
        &mut conditions,
        Condition::new(
            "Ready",
            ConditionStatus::Unknown,
            "HeartbeatStale",
            "the machine's operator has stopped renewing its heartbeat lease; the machine is presumed down",
            now,
        )
        .at_generation(m.generation),
    );
    let message = match o.heard.get(&m.name) {
        Some(t) => format!(
            "the heartbeat lease was last seen renewed at {} (on the cluster operator's clock); marked Lost",
            Time::new(*t)
        ),
        None => format!(
            "no heartbeat lease renewal was seen since the cluster operator began watching at {}; marked Lost",
            Time::new(o.watching_since)
        ),
    };
    LostMark {
        machine: m.name.clone(),
        resource_version: m.resource_version.clone(),
        conditions,
        message,
    }
}

/// The status to write back after a Cluster write came back without the
/// ledger it sent: the served CRD prunes status.rebootTurns, so no grant
/// goes out, and Progressing says why. The reason stays RollingOut.
pub fn schema_pruned(stored: &ClusterStatus, generation: i64, now: Timestamp) -> ClusterStatus {
    let mut status = stored.clone();
    condition::set(
        &mut status.conditions,
        Condition::new(
            PROGRESSING,
            ConditionStatus::True,
            "RollingOut",
            "reboot turns are waiting for a Cluster schema that stores status.rebootTurns; the served CustomResourceDefinition comes from an older release",
            Time::new(now),
        )
        .at_generation(generation),
    );
    status
}

/// Whether a written ledger came back as sent.
pub fn ledger_kept(sent: &[RebootTurn], stored: &[RebootTurn]) -> bool {
    sent == stored
}
