//! The Machine: one machine's declared disks, network, kernel settings,
//! node labels and taints, and the status the machine reports.

use kube::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

use crate::document::{Document, Spec};
use crate::validate::Checker;

/// A Machine as a file holds it.
pub type MachineDocument = Document<MachineSpec>;

/// One machine's declaration.
#[derive(CustomResource, KubeSchema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[kube(
    group = "liken.sh",
    version = "v1alpha1",
    kind = "Machine",
    status = "MachineStatus"
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MachineSpec {
    /// Extra kernel modules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<String>,
}

/// What the machine reports.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MachineStatus {
    /// The phase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<liken_api::Phase>,
}

impl Spec for MachineSpec {
    const KIND: &'static str = "Machine";
    type Status = MachineStatus;
    fn validate(&self, _status: Option<&MachineStatus>, _c: &mut Checker) {}
}
