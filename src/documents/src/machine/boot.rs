//! status.boot: the record each boot writes of itself: when it started, from
//! which slot, under which copies of which documents, what it was asked to
//! build (storage, network, modules, rlimits), and what it refused.
//!
//! The operator compares the spec with this record to measure drift, so the
//! declared parts are kept as the boot's manifest stated them, not as they
//! turned out; status.storage and status.network say how they turned out.

use std::collections::BTreeMap;

use kube::KubeSchema;
use liken_api::condition::Time;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::storage::StorageRole;

/// The record of the running boot.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BootRecord {
    /// When the machine booted, worked out from the kernel's uptime. A k3s
    /// restart leaves it alone; the UPTIME column shows its age.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<Time>,
    /// Which copy of the Machine manifest this boot ran under: Staged (on
    /// trial), Proven (the last one that worked), or Seed (the image's own,
    /// on a first boot only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest_source: Option<ManifestSource>,
    /// sha256 of the exact bytes of that manifest; the operator compares it
    /// with the manifest the cluster holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest_hash: Option<String>,
    /// Which copy of the Cluster document this boot ran under. It stages and
    /// proves apart from the Machine manifest, so either can drift alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_manifest_source: Option<ManifestSource>,
    /// sha256 of the exact bytes of that Cluster document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_manifest_hash: Option<String>,
    /// Which copy of the registry-credentials document registries.yaml was
    /// last written from, by this boot or a later k3s restart. Absent on a
    /// machine that never had credentials and pulls anonymously.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials_source: Option<TrackedSource>,
    /// sha256 of the exact bytes of that credentials document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials_hash: Option<String>,
    /// Which imported-images record this boot used: Staged while the
    /// container store has yet to prove it serves the tarballs, Proven once
    /// it has. Absent when machineState or the container store is ephemeral.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imports_source: Option<TrackedSource>,
    /// sha256 of the exact bytes of that imported-images record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imports_hash: Option<String>,
    /// True when this boot found an earlier imports trial that never proved
    /// and discarded the container store rather than trust it; images unpack
    /// and pull again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imports_discarded: Option<bool>,
    /// In-place k3s restarts so far in this boot, each applying a change that
    /// needs no reboot. A reboot sets it back to zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restarts: Option<u64>,
    /// The system slot this boot came from, from liken.slot= on the kernel
    /// command line. Absent for a direct-kernel boot or install media.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot: Option<Slot>,
    /// The whole kernel command line of this boot: the one input a machine
    /// reads before any file, and the first thing to compare when one machine
    /// behaves unlike its peers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_line: Option<String>,
    /// The storage this boot's manifest declared, whatever came of it: the
    /// reference spec.storage is compared with, and the floor its sizes may
    /// not drop below.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<BootStorage>,
    /// The network this boot's manifest declared, whatever came of it.
    /// Absent when the boot reported no network; empty when it declared no
    /// interface and took the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<BootNetwork>,
    /// The modules this boot's manifest declared, whatever came of each load.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modules: Vec<String>,
    /// The resource limits this boot's manifest declared (not liken's own,
    /// which ship with the release).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rlimits: BTreeMap<String, String>,
    /// The quarantined Machine manifest: a staged manifest this machine
    /// refused, and why. It stands until a different edit proves out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejection: Option<Rejection>,
    /// The quarantined Cluster document, as rejection is for the Machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_rejection: Option<Rejection>,
    /// A release whose proving boot never completed, so the firmware fell
    /// back to the proven slot. No later boot tries it again; it stands until
    /// the catalog names another release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_rejection: Option<Rejection>,
    /// A staged registry-credentials document the machine could not parse.
    /// It stands until an edit of the Secret renders something else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials_rejection: Option<Rejection>,
}

/// Which copy of a document a boot used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ManifestSource {
    /// Waiting for its proving boot.
    Staged,
    /// The last copy that booted well.
    Proven,
    /// The image's own copy; a first boot only.
    Seed,
}

/// Which copy of a document that has no seed a boot used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum TrackedSource {
    /// On trial.
    Staged,
    /// Proven.
    Proven,
}

/// A system slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum Slot {
    A,
    B,
}

/// A document, or a release, a machine refused.
#[derive(KubeSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Rejection {
    /// sha256 of the exact bytes refused. The same bytes are never staged
    /// again, so only a different edit clears the rejection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    /// Why, in the words the boot printed on the console.
    pub reason: String,
    /// When the machine refused it.
    pub rejected_at: Time,
}

/// The storage a boot's manifest declared, role by role.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BootStorage {
    /// biosBoot, as this boot's manifest declared it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bios_boot: Option<ActuatedAllocation>,
    /// bootHome, as this boot's manifest declared it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_home: Option<ActuatedAllocation>,
    /// systemA, as this boot's manifest declared it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_a: Option<ActuatedAllocation>,
    /// systemB, as this boot's manifest declared it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_b: Option<ActuatedAllocation>,
    /// machineState, as this boot's manifest declared it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_state: Option<ActuatedAllocation>,
    /// machineEphemeral, as this boot's manifest declared it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_ephemeral: Option<ActuatedAllocation>,
    /// clusterState, as this boot's manifest declared it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_state: Option<ActuatedAllocation>,
    /// podStorage, as this boot's manifest declared it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_storage: Option<ActuatedAllocation>,
    /// podEphemeral, as this boot's manifest declared it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_ephemeral: Option<ActuatedAllocation>,
}

impl BootStorage {
    /// The record of `role`, if the boot's manifest declared it.
    pub fn get(&self, role: StorageRole) -> Option<&ActuatedAllocation> {
        match role {
            StorageRole::BiosBoot => self.bios_boot.as_ref(),
            StorageRole::BootHome => self.boot_home.as_ref(),
            StorageRole::SystemA => self.system_a.as_ref(),
            StorageRole::SystemB => self.system_b.as_ref(),
            StorageRole::MachineState => self.machine_state.as_ref(),
            StorageRole::MachineEphemeral => self.machine_ephemeral.as_ref(),
            StorageRole::ClusterState => self.cluster_state.as_ref(),
            StorageRole::PodStorage => self.pod_storage.as_ref(),
            StorageRole::PodEphemeral => self.pod_ephemeral.as_ref(),
        }
    }
}

/// One role as a boot's manifest declared it.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActuatedAllocation {
    /// The device, exactly as the manifest wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// The size as the manifest wrote it; empty or absent, the rest of the
    /// disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = super::storage::MAX_SIZE_LENGTH))]
    pub size: Option<String>,
}

/// The network a boot's manifest declared.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BootNetwork {
    /// The interfaces the manifest declared; status.network.interfaces says
    /// what each one got.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub interfaces: Vec<BootInterface>,
}

/// One interface as a boot's manifest declared it.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BootInterface {
    /// The interface's kernel name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The static address declared; empty for DHCP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// The gateway declared; empty for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<String>,
    /// The nameservers declared, first choice first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nameservers: Vec<String>,
}
