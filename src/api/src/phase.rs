//! The one-word vocabularies: a document's Phase and a machine's Role.
//!
//! A phase summarizes conditions and is derived from them on every pass; it
//! is never a fact of its own. Lost is the exception: a machine that cannot
//! write reports nothing, so the cluster operator writes Lost for it. The
//! Cluster reuses the same words (Ready, Updating, Degraded) for the fleet.
//! Roles are leader and follower; k3s's words (server, agent) appear only
//! where init execs k3s.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A document's state in one word, from most to least severe.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum Phase {
    /// The facts cannot be read, so the state cannot be judged.
    Unknown,
    /// init has not finished publishing this boot's record.
    Booting,
    /// The heartbeat stopped; written by the cluster operator.
    Lost,
    /// Drift the system cannot stage; it needs a different edit, not time.
    Blocked,
    /// A reboot is under way to apply a staged change.
    Updating,
    /// A change is staged and waits for a person to approve its reboot.
    UpdatePending,
    /// Something is wrong that no more specific phase names.
    Degraded,
    /// A release downloads into the inactive slot while workloads run.
    Downloading,
    /// Every condition holds.
    Ready,
}

impl Phase {
    /// Every phase, in the order above.
    pub const ALL: [Phase; 9] = [
        Phase::Unknown,
        Phase::Booting,
        Phase::Lost,
        Phase::Blocked,
        Phase::Updating,
        Phase::UpdatePending,
        Phase::Degraded,
        Phase::Downloading,
        Phase::Ready,
    ];

    /// The phase as the API spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Unknown => "Unknown",
            Phase::Booting => "Booting",
            Phase::Lost => "Lost",
            Phase::Blocked => "Blocked",
            Phase::Updating => "Updating",
            Phase::UpdatePending => "UpdatePending",
            Phase::Degraded => "Degraded",
            Phase::Downloading => "Downloading",
            Phase::Ready => "Ready",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A machine's part in its cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Runs a control plane: API server, scheduler, datastore (k3s server).
    Leader,
    /// Runs workloads under the leaders (k3s agent).
    Follower,
}

impl Role {
    /// The role as the API spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Leader => "leader",
            Role::Follower => "follower",
        }
    }
    /// The k3s subcommand that runs this role.
    pub fn k3s_subcommand(self) -> &'static str {
        match self {
            Role::Leader => "server",
            Role::Follower => "agent",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_round_trip_by_name() {
        for p in Phase::ALL {
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(json, format!("\"{p}\""));
            assert_eq!(serde_json::from_str::<Phase>(&json).unwrap(), p);
        }
        assert!(serde_json::from_str::<Phase>("\"Fine\"").is_err());
    }

    #[test]
    fn roles_are_lowercase_and_map_to_k3s() {
        assert_eq!(serde_json::to_string(&Role::Leader).unwrap(), "\"leader\"");
        assert_eq!(
            serde_json::from_str::<Role>("\"follower\"").unwrap(),
            Role::Follower
        );
        assert!(serde_json::from_str::<Role>("\"server\"").is_err());
        assert_eq!(Role::Leader.k3s_subcommand(), "server");
        assert_eq!(Role::Follower.k3s_subcommand(), "agent");
    }
}
