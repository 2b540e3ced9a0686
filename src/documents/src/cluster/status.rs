//! What the cluster operator publishes about the fleet: the Cluster's
//! status, the fleet phase and the ledger of reboot turns.

use kube::KubeSchema;
use liken_api::condition::Time;
use liken_api::{Condition, Version};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the cluster operator observes about the fleet.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClusterStatus {
    /// The conditions in one word: Ready (every machine Ready), Updating (the
    /// rest are in a planned transition) or Degraded (a machine is Lost,
    /// Blocked or otherwise unwell). A lost quorum cannot be shown: it shows
    /// as a status that stops changing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<ClusterPhase>,
    /// The metadata.generation this status judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// MachinesReady (the tally, naming machines that are not Ready) and
    /// Progressing (the reboot rollout; False with RolloutStalled when a
    /// machine holding a turn did not come back).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["type"]))]
    pub conditions: Vec<Condition>,
    /// Ready machines out of all machines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machines: Option<MachineCounts>,
    /// The flux feature's deploy key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flux: Option<FluxStatus>,
    /// The catalog's newest release and the channel's latest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub releases: Option<ReleasesStatus>,
    /// The ledger of reboot turns: each machine that holds one, recorded
    /// before the grant is written on the Machine, so a copy of the operator
    /// that stopped between the two writes never lets the budget be
    /// exceeded. Each entry counts against spec.disruption.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["machine"]))]
    pub reboot_turns: Vec<RebootTurn>,
}

/// The fleet's state in one word: the machine phases' words that make sense
/// for a whole fleet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum ClusterPhase {
    /// Every machine is Ready.
    Ready,
    /// The machines that are not Ready are all in a planned transition.
    Updating,
    /// A machine is Lost, Blocked or otherwise unwell.
    Degraded,
}

impl From<ClusterPhase> for liken_api::Phase {
    fn from(p: ClusterPhase) -> Self {
        match p {
            ClusterPhase::Ready => liken_api::Phase::Ready,
            ClusterPhase::Updating => liken_api::Phase::Updating,
            ClusterPhase::Degraded => liken_api::Phase::Degraded,
        }
    }
}

/// The fleet's headcount.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MachineCounts {
    /// Machines in phase Ready with a current heartbeat.
    #[serde(default)]
    pub ready: i64,
    /// Machine resources found, up or not.
    #[serde(default)]
    pub total: i64,
    /// "ready/total", for the MACHINES column.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summary: String,
}

/// The flux feature's observable half.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FluxStatus {
    /// The deploy key's public half, one authorized_keys line, to register at
    /// the forge with write access. Empty until the key exists. Deleting the
    /// flux-system Secret rotates it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub public_key: String,
}

/// What the sweep knows of releases.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReleasesStatus {
    /// The highest version in the catalog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newest: Option<Version>,
    /// The channel's latest, from its channel.yaml. Advisory: running it
    /// still takes a catalog entry with its digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available: Option<Version>,
}

/// One reboot turn in the ledger.
#[derive(KubeSchema, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RebootTurn {
    /// The Machine that holds the turn.
    pub machine: String,
    /// The Machine's resourceVersion when the turn was recorded; a machine
    /// with no grant whose resourceVersion moved on has spent its turn.
    pub machine_resource_version: String,
    /// When the turn was recorded.
    pub since: Time,
}
