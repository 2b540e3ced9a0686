//! What the cluster operator reads of a Machine: a lenient view that takes
//! only the identity, the phase, the role and the conditions, and ignores
//! every other status field. The machine operator owns that status and may
//! grow it; the fleet's verdicts never depend on the rest, and a Lost mark
//! or a grant is a merge patch that leaves the rest exactly as written.

use liken_api::{Condition, ConditionStatus, Phase, Role, condition};
use serde::Deserialize;

/// The condition type of a reboot turn's grant.
pub const REBOOT_APPROVED: &str = "RebootApproved";
/// The reason a machine's operator reports while it waits for a turn.
pub const AWAITING_TURN: &str = "AwaitingTurn";

/// One Machine as the sweep judges it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineView {
    pub name: String,
    pub uid: String,
    pub resource_version: String,
    pub generation: i64,
    pub phase: Option<Phase>,
    pub role: Option<Role>,
    pub conditions: Vec<Condition>,
}

#[derive(Deserialize)]
struct Raw {
    metadata: kube::api::ObjectMeta,
    #[serde(default)]
    status: Option<RawStatus>,
}

#[derive(Deserialize, Default)]
struct RawStatus {
    #[serde(default)]
    phase: Option<Phase>,
    #[serde(default)]
    role: Option<Role>,
    #[serde(default)]
    conditions: Vec<Condition>,
}

impl MachineView {
    /// Reads the view out of a Machine as the API serves it.
    pub fn from_value(value: serde_json::Value) -> Result<Self, serde_json::Error> {
        let raw: Raw = serde_json::from_value(value)?;
        let status = raw.status.unwrap_or_default();
        Ok(MachineView {
            name: raw.metadata.name.unwrap_or_default(),
            uid: raw.metadata.uid.unwrap_or_default(),
            resource_version: raw.metadata.resource_version.unwrap_or_default(),
            generation: raw.metadata.generation.unwrap_or(0),
            phase: status.phase,
            role: status.role,
            conditions: status.conditions,
        })
    }

    /// The machine holds a granted reboot turn.
    pub fn holds_grant(&self) -> bool {
        condition::find(&self.conditions, REBOOT_APPROVED)
            .is_some_and(|c| c.status == ConditionStatus::True)
    }

    /// The machine's operator reports it waits for a turn.
    pub fn awaits_turn(&self) -> bool {
        self.conditions.iter().any(|c| c.reason == AWAITING_TURN)
    }

    /// The machine waits for a person (Manual reboot policy).
    pub fn awaits_approval(&self) -> bool {
        self.conditions
            .iter()
            .any(|c| c.reason == "RebootPending" || c.reason == "RestartPending")
    }
}
