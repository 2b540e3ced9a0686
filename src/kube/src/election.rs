//! Leader election on a coordination.k8s.io Lease, written by hand because
//! kube-rs has none.
//!
//! Contract:
//! - A copy takes a Lease that does not exist, that names no holder (a
//!   holder released it), or whose record (holder and renewTime) this copy
//!   has watched stay unchanged for the holder's leaseDurationSeconds, timed
//!   on this copy's own monotonic clock. The holder's clock is never read.
//! - Every take and renewal is a replace guarded by the resourceVersion, so
//!   of two copies that judge the same record only one wins.
//! - [`Election::may_write`] answers true only until `renew_deadline` after
//!   the start of the last successful renewal. The deadline is shorter than
//!   the lease duration, so a copy stops writing before another can take the
//!   Lease, as long as the two clocks run at about the same rate. It is not a
//!   fence: a write already in flight can still land late, and callers keep
//!   their own guard against that (the cluster operator's grant ledger).
//! - [`Election::release`] empties the holder so a waiting copy takes over at
//!   its next try, instead of after a full lease duration.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use kube::api::{Api, PostParams};

use crate::write::{WriteError, status_code};

/// The Lease and this copy's timings.
#[derive(Clone, Debug)]
pub struct ElectionSettings {
    pub namespace: String,
    pub name: String,
    /// This copy's identity in holderIdentity (the pod name).
    pub identity: String,
    /// How long an unrenewed Lease keeps its holder.
    pub lease_duration: Duration,
    /// How long after a successful renewal this copy still writes.
    pub renew_deadline: Duration,
    /// How often the holder renews and a waiting copy retries.
    pub retry_every: Duration,
}

impl ElectionSettings {
    /// client-go's customary timings (15 s, 10 s, 2 s).
    pub fn new(namespace: &str, name: &str, identity: &str) -> Self {
        ElectionSettings {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            identity: identity.to_owned(),
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_every: Duration::from_secs(2),
        }
    }
}

/// What a Lease says, as far as the election is concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub holder: String,
    pub renew_time: Option<jiff::Timestamp>,
    pub lease_duration: Duration,
}

/// The record this copy last saw, and when (on its own clock) it changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sighting {
    pub holder: String,
    pub renew_time: Option<jiff::Timestamp>,
    pub since: Instant,
}

/// What to do on this try.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// No Lease: create it naming this copy.
    Create,
    /// This copy holds it: renew.
    Renew,
    /// Released, or silent for its duration on this copy's clock: take it.
    Take,
    /// Another copy holds a live Lease.
    Wait,
}

/// The election's decision, pure: what to do given the Lease as read
/// (`None`: absent), what this copy saw before, and now. It answers the
/// sighting to keep.
pub fn judge(
    lease: Option<&Record>,
    seen: Option<&Sighting>,
    me: &str,
    now: Instant,
) -> (Step, Option<Sighting>) {
    let Some(r) = lease else {
        return (Step::Create, None);
    };
    let sighting = match seen {
        Some(s) if s.holder == r.holder && s.renew_time == r.renew_time => s.clone(),
        _ => Sighting {
            holder: r.holder.clone(),
            renew_time: r.renew_time,
            since: now,
        },
    };
    let step = if r.holder == me {
        Step::Renew
    } else if r.holder.is_empty() || now.duration_since(sighting.since) >= r.lease_duration {
        Step::Take
    } else {
        Step::Wait
    };
    (step, Some(sighting))
}

/// One copy's part in the election.
pub struct Election {
    api: Api<Lease>,
    settings: ElectionSettings,
    seen: Mutex<Option<Sighting>>,
    valid_until: Mutex<Option<Instant>>,
}

impl std::fmt::Debug for Election {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Election")
            .field("settings", &self.settings)
            .finish()
    }
}

fn record(lease: &Lease) -> Record {
    let spec = lease.spec.clone().unwrap_or_default();
    Record {
        holder: spec.holder_identity.unwrap_or_default(),
        renew_time: spec.renew_time.map(|t| t.0),
        lease_duration: Duration::from_secs(spec.lease_duration_seconds.unwrap_or(15).max(1) as u64),
    }
}

impl Election {
    pub fn new(client: kube::Client, settings: ElectionSettings) -> Self {
        Election {
            api: Api::namespaced(client, &settings.namespace),
            settings,
            seen: Mutex::new(None),
            valid_until: Mutex::new(None),
        }
    }

    pub fn settings(&self) -> &ElectionSettings {
        &self.settings
    }

    /// Whether this copy may write now: it renewed within the deadline.
    pub fn may_write(&self) -> bool {
        let until = *self.valid_until.lock().unwrap_or_else(|e| e.into_inner());
        until.is_some_and(|u| Instant::now() < u)
    }

    fn held_from(&self, started: Instant) {
        *self.valid_until.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(started + self.settings.renew_deadline);
    }

    fn spec_for_me(&self, old: Option<&LeaseSpec>, taking: bool) -> LeaseSpec {
        let now = MicroTime(jiff::Timestamp::now());
        let mut spec = old.cloned().unwrap_or_default();
        spec.holder_identity = Some(self.settings.identity.clone());
        spec.lease_duration_seconds = Some(self.settings.lease_duration.as_secs().max(1) as i32);
        spec.renew_time = Some(now.clone());
        if taking || spec.acquire_time.is_none() {
            spec.acquire_time = Some(now);
        }
        if taking {
            spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + 1);
        }
        spec
    }

    /// One try: create, renew or take the Lease as [`judge`] says. Answers
    /// whether this copy holds it afterwards.
    pub async fn try_lead(&self) -> Result<bool, WriteError> {
        let started = Instant::now();
        let name = &self.settings.name;
        let current = self
            .api
            .get_opt(name)
            .await
            .map_err(|e| WriteError::from_api(name, e))?;
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let (step, sighting) = judge(
            current.as_ref().map(record).as_ref(),
            seen.as_ref(),
            &self.settings.identity,
            started,
        );
        *self.seen.lock().unwrap_or_else(|e| e.into_inner()) = sighting;
        let result = match (step, current) {
            (Step::Wait, _) => return Ok(false),
            (Step::Create, _) => {
                let lease = Lease {
                    metadata: ObjectMeta {
                        name: Some(name.clone()),
                        namespace: Some(self.settings.namespace.clone()),
                        ..Default::default()
                    },
                    spec: Some(self.spec_for_me(None, true)),
                };
                self.api.create(&PostParams::default(), &lease).await
            }
            (step, Some(mut lease)) => {
                lease.spec = Some(self.spec_for_me(lease.spec.as_ref(), step == Step::Take));
                self.api.replace(name, &PostParams::default(), &lease).await
            }
            (_, None) => return Ok(false),
        };
        match result {
            Ok(_) => {
                self.held_from(started);
                Ok(true)
            }
            // Another copy wrote first (409 on replace, or on create the
            // Lease already exists).
            Err(e) if status_code(&e) == Some(409) => Ok(false),
            Err(e) => Err(WriteError::from_api(name, e)),
        }
    }

    /// Stops writing at once and empties the holder, if this copy still
    /// holds the Lease, so a waiting copy takes it at its next try.
    pub async fn release(&self) -> Result<(), WriteError> {
        *self.valid_until.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let name = &self.settings.name;
        let Some(mut lease) = self
            .api
            .get_opt(name)
            .await
            .map_err(|e| WriteError::from_api(name, e))?
        else {
            return Ok(());
        };
        let mut spec = lease.spec.clone().unwrap_or_default();
        if spec.holder_identity.as_deref() != Some(self.settings.identity.as_str()) {
            return Ok(());
        }
        spec.holder_identity = None;
        spec.renew_time = Some(MicroTime(jiff::Timestamp::now()));
        lease.spec = Some(spec);
        match self.api.replace(name, &PostParams::default(), &lease).await {
            Ok(_) => Ok(()),
            Err(e) if status_code(&e) == Some(409) => Ok(()),
            Err(e) => Err(WriteError::from_api(name, e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(holder: &str, renew: i64) -> Record {
        Record {
            holder: holder.into(),
            renew_time: Some(jiff::Timestamp::from_second(renew).unwrap()),
            lease_duration: Duration::from_secs(15),
        }
    }

    #[test]
    fn absent_lease_is_created() {
        assert_eq!(judge(None, None, "a", Instant::now()).0, Step::Create);
    }

    #[test]
    fn own_lease_is_renewed() {
        let now = Instant::now();
        assert_eq!(judge(Some(&rec("a", 1)), None, "a", now).0, Step::Renew);
    }

    #[test]
    fn released_lease_is_taken_at_once() {
        let now = Instant::now();
        assert_eq!(judge(Some(&rec("", 1)), None, "a", now).0, Step::Take);
    }

    #[test]
    fn live_lease_waits_until_silent_for_its_duration_on_our_clock() {
        let t0 = Instant::now();
        let (step, seen) = judge(Some(&rec("b", 1)), None, "a", t0);
        assert_eq!(step, Step::Wait);
        let at = |s| t0 + Duration::from_secs(s);
        // Unchanged for 14 s: still waits.
        let (step, seen) = judge(Some(&rec("b", 1)), seen.as_ref(), "a", at(14));
        assert_eq!(step, Step::Wait);
        // A renewal restarts the count, whatever its renewTime says.
        let (step, seen) = judge(Some(&rec("b", -1_000)), seen.as_ref(), "a", at(14));
        assert_eq!(step, Step::Wait);
        let (step, seen) = judge(Some(&rec("b", -1_000)), seen.as_ref(), "a", at(28));
        assert_eq!(step, Step::Wait);
        let (step, _) = judge(Some(&rec("b", -1_000)), seen.as_ref(), "a", at(29));
        assert_eq!(step, Step::Take);
    }

    #[test]
    fn a_renew_time_far_in_the_past_is_not_expiry() {
        // The holder's clock is an hour behind ours: it is still live.
        let t0 = Instant::now();
        let (step, _) = judge(Some(&rec("b", 0)), None, "a", t0);
        assert_eq!(step, Step::Wait);
    }
}
