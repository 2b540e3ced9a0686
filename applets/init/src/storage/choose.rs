//! Which Machine spec's storage this boot runs: the staged one if the disks
//! can satisfy it, else the proven one, else (on a first boot, with no
//! proven spec) the seed from the deployment layer. Pure: the candidates'
//! hashes, their storage, the disks as observed and the time are inputs.
//!
//! - A staged spec the disks cannot satisfy is quarantined: the choice
//!   carries a [`Rejection`] (its hash, the plan's refusals as the reason,
//!   `now`) and the proven spec boots. The caller moves the staged bytes to
//!   `rejected/` and reports the rejection in status.boot.
//! - The seed boots only when there is no proven spec: a machine that has
//!   proven a spec never goes back to the image's copy.
//! - When nothing that may boot can be satisfied, the choice is
//!   [`Choice::Stop`] with the reason to print, to record for
//!   status.lastFailStop, and to power off on.

use liken_api::condition::Time;
use liken_documents::machine::{ManifestSource, Rejection, Storage};

use super::plan::{ObservedDisk, Plan, plan};

/// One copy of the Machine manifest.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// `sha256:<hex>` of the exact bytes.
    pub hash: String,
    pub storage: Storage,
}

/// The copies present this boot.
#[derive(Clone, Debug, Default)]
pub struct Candidates {
    pub staged: Option<Candidate>,
    pub proven: Option<Candidate>,
    pub seed: Option<Candidate>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Choice {
    Boot {
        source: ManifestSource,
        hash: String,
        plan: Plan,
        /// The staged spec this boot refused, if it refused one.
        rejection: Option<Rejection>,
    },
    Stop {
        reason: String,
        rejection: Option<Rejection>,
    },
}

/// Decide which spec boots.
pub fn choose(c: &Candidates, disks: &[ObservedDisk], now: Time) -> Choice {
    let mut rejection = None;
    if let Some(staged) = &c.staged {
        let p = plan(&staged.storage, disks);
        if p.satisfied() {
            return boot(ManifestSource::Staged, staged, p, None);
        }
        rejection = Some(Rejection {
            hash: Some(staged.hash.clone()),
            reason: format!(
                "the staged manifest {} cannot be satisfied, so it is quarantined: {}",
                staged.hash,
                reasons(&p)
            ),
            rejected_at: now,
        });
    }
    let (source, fallback) = match (&c.proven, &c.seed) {
        (Some(p), _) => (ManifestSource::Proven, p),
        (None, Some(s)) => (ManifestSource::Seed, s),
        (None, None) => {
            return Choice::Stop {
                reason: "no proven manifest and no seed in the deployment layer: boot the machine from media made with `liken media` or `liken stick`".to_owned(),
                rejection,
            };
        }
    };
    let p = plan(&fallback.storage, disks);
    if p.satisfied() {
        return boot(source, fallback, p, rejection);
    }
    let which = match source {
        ManifestSource::Proven => "the proven manifest",
        _ => "the seed manifest",
    };
    Choice::Stop {
        reason: format!(
            "{which} {} cannot be satisfied, and no other may boot: {}",
            fallback.hash,
            reasons(&p)
        ),
        rejection,
    }
}

fn boot(source: ManifestSource, c: &Candidate, plan: Plan, rejection: Option<Rejection>) -> Choice {
    Choice::Boot {
        source,
        hash: c.hash.clone(),
        plan,
        rejection,
    }
}

fn reasons(p: &Plan) -> String {
    p.refusals().collect::<Vec<_>>().join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::plan::{Contents, FoundPartition};
    use liken_documents::machine::StorageRole;

    const GIB: u64 = 1 << 30;

    fn cand(hash: &str, cluster_state: &str) -> Candidate {
        Candidate {
            hash: hash.into(),
            storage: serde_json::from_value(serde_json::json!({
                "clusterState": { "device": "/dev/vda", "size": cluster_state },
            }))
            .unwrap(),
        }
    }

    /// A disk holding clusterState at 10Gi.
    fn claimed() -> Vec<ObservedDisk> {
        vec![ObservedDisk {
            names: vec!["/dev/vda".into()],
            size_bytes: 32 * GIB,
            logical_sector_bytes: 512,
            contents: Contents::Liken(vec![FoundPartition {
                number: 1,
                role: StorageRole::ClusterState,
                start_bytes: 1 << 20,
                size_bytes: 10 * GIB,
            }]),
        }]
    }

    fn now() -> Time {
        Time::from_unix(1_780_000_000).unwrap()
    }

    fn source(c: &Choice) -> Option<ManifestSource> {
        match c {
            Choice::Boot { source, .. } => Some(*source),
            Choice::Stop { .. } => None,
        }
    }

    #[test]
    fn a_satisfiable_staged_spec_boots() {
        let c = Candidates {
            staged: Some(cand("sha256:s", "12Gi")),
            proven: Some(cand("sha256:p", "10Gi")),
            seed: None,
        };
        let choice = choose(&c, &claimed(), now());
        assert_eq!(source(&choice), Some(ManifestSource::Staged));
    }

    #[test]
    fn a_staged_shrink_is_quarantined_and_the_proven_boots() {
        let c = Candidates {
            staged: Some(cand("sha256:s", "8Gi")),
            proven: Some(cand("sha256:p", "10Gi")),
            seed: Some(cand("sha256:seed", "10Gi")),
        };
        let Choice::Boot {
            source,
            hash,
            rejection: Some(r),
            ..
        } = choose(&c, &claimed(), now())
        else {
            panic!("expected the proven boot with a rejection");
        };
        assert_eq!(
            (source, hash.as_str()),
            (ManifestSource::Proven, "sha256:p")
        );
        assert_eq!(r.hash.as_deref(), Some("sha256:s"));
        assert!(r.reason.contains("cannot shrink"), "{}", r.reason);
        assert_eq!(r.rejected_at, now());
    }

    #[test]
    fn the_seed_boots_only_without_a_proven_spec() {
        let first = Candidates {
            seed: Some(cand("sha256:seed", "10Gi")),
            ..Candidates::default()
        };
        assert_eq!(
            source(&choose(&first, &claimed(), now())),
            Some(ManifestSource::Seed)
        );
        let later = Candidates {
            proven: Some(cand("sha256:p", "10Gi")),
            seed: Some(cand("sha256:seed", "10Gi")),
            ..Candidates::default()
        };
        assert_eq!(
            source(&choose(&later, &claimed(), now())),
            Some(ManifestSource::Proven)
        );
    }

    #[test]
    fn stops_when_nothing_that_may_boot_is_satisfiable() {
        let c = Candidates {
            staged: Some(cand("sha256:s", "8Gi")),
            proven: Some(cand("sha256:p", "9Gi")),
            // The seed would fit, but a proven machine never returns to it.
            seed: Some(cand("sha256:seed", "10Gi")),
        };
        let Choice::Stop { reason, rejection } = choose(&c, &claimed(), now()) else {
            panic!("expected a stop");
        };
        assert!(
            reason.starts_with("the proven manifest sha256:p"),
            "{reason}"
        );
        assert!(rejection.is_some(), "the staged one is still quarantined");

        let none = choose(&Candidates::default(), &claimed(), now());
        assert!(matches!(
            none,
            Choice::Stop {
                rejection: None,
                ..
            }
        ));
    }
}
