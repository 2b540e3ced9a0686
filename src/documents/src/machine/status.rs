//! status: what a machine reports about itself. Init writes the facts into
//! the facts tree and the machine operator publishes them here, deriving the
//! whole status again on every pass; nothing here is remembered from an
//! earlier one.
//!
//! Every field is optional and kept exactly as written, so the operator can
//! publish a partial report and a status read back compares equal to what
//! was written. Lists keyed by a name are list-type maps, as the API server
//! merges them. The status schema carries no CEL rules, only the shapes of
//! conditions, the list keys and a bound on recorded sizes;
//! [`MachineStatus::validate`] checks the same, so a writer can know its
//! report will be taken before it sends it.

use std::collections::BTreeMap;

use kube::KubeSchema;
use liken_api::condition::Time;
use liken_api::{Condition, Phase, Role};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::boot::BootRecord;
use super::storage::{MAX_SIZE_LENGTH, StorageRole};
use crate::patterns::{self, REASON_PATTERN, TYPE_PATTERN};
use crate::validate::Checker;

/// What the machine observed about itself on the latest pass.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MachineStatus {
    /// The conditions in one word, derived from them on every pass: Ready
    /// (all hold), UpdatePending or Updating (a staged change waits for its
    /// reboot or is under way), Downloading (a release is fetched into the
    /// other slot), Blocked (drift liken will not or cannot stage; it takes
    /// another edit, not time), Degraded (any other fault), Booting (init
    /// has not published this boot yet), Unknown (the facts cannot be read).
    /// Lost is written by a leader when this machine's heartbeat lease in
    /// liken-system stops, since a machine that is down cannot say so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    /// The metadata.generation this status judged. Each condition carries it
    /// too; this copy answers "has my edit been seen" at a glance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// leader (runs a control plane) or follower (runs workloads), worked out
    /// at boot from the Cluster's leaders list. Nobody writes it directly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<Role>,
    /// What the machine runs: liken itself and each component its image
    /// carries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<VersionInventory>,
    /// What this boot's network came to. The top-level fields repeat the
    /// primary interface: the one in the Cluster's nodeCIDR, or else the
    /// first one up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<NetworkStatus>,
    /// The clock's state. It changes throughout the machine's life, since
    /// the clock is corrected continuously.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<TimeStatus>,
    /// What the machine is made of. Processors and memory are read at boot;
    /// disks and unclaimed devices follow the kernel's uevents as they come
    /// and go.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware: Option<Hardware>,
    /// The firmware's own state, which outlives a power cycle: its boot mode
    /// and boot menu. Entries read like "Boot0001 (liken slot A)".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub firmware: Option<Firmware>,
    /// What backs each storage role on this boot, declared or not: the link
    /// between spec.storage and hardware.blockDevices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<StorageStatus>,
    /// The record of the running boot, which the operator measures drift
    /// against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot: Option<BootRecord>,
    /// Every parameter liken sets, liken's own and spec.sysctls', as read
    /// back from the kernel. A parameter whose write failed is absent.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sysctls: BTreeMap<String, String>,
    /// The lines /etc/hosts holds below its fixed ones, read back on the pass
    /// that wrote them: the live view of spec.network.hostEntries.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub host_entries: Vec<HostEntryStatus>,
    /// The resource limits init holds, liken's own and spec.rlimits', read
    /// back from the kernel in spec.rlimits' own form. Every process inherits
    /// them (/proc/1/limits shows the same). A limit that failed is absent.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rlimits: BTreeMap<String, String>,
    /// What became of each module spec.modules names, at boot or at the load
    /// after an edit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend(
        "x-kubernetes-list-type" = "map",
        "x-kubernetes-list-map-keys" = ["name"]
    ))]
    pub modules: Vec<Module>,
    /// Each feature the Cluster enables, as it stands on this machine, whose
    /// booted image may or may not carry it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend(
        "x-kubernetes-list-type" = "map",
        "x-kubernetes-list-map-keys" = ["name"]
    ))]
    pub features: Vec<Feature>,
    /// What the machine wrote into k3s's registries.yaml, hosts and flags
    /// only; credentials never appear here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registries: Option<Registries>,
    /// The runtime settings init gave k3s, its kubelet and containerd on this
    /// boot, as resolved from the Cluster's spec.runtime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<RuntimeSettings>,
    /// The latest kernel crash the machine still keeps records of, not
    /// necessarily the last boot's. Absent when it keeps none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_crash: Option<KernelCrash>,
    /// The latest boot init refused to run, because it could not tell which
    /// configuration was its own or could not build a declared storage role,
    /// and powered off rather than run wrong. Only the next refusal replaces
    /// it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_fail_stop: Option<FailStop>,
    /// The operators' verdicts, one per type, rewritten on every pass. Ready
    /// is True when every other condition is. RebootApproved is the cluster
    /// operator's grant of a reboot turn: present or absent, never False, and
    /// Ready ignores it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend(
        "x-kubernetes-list-type" = "map",
        "x-kubernetes-list-map-keys" = ["type"]
    ))]
    pub conditions: Vec<Condition>,
    /// The staged changes that wait for a disruption, one per document, plus
    /// any reboot a person asked for. Setting liken.sh/approve-disruption to
    /// an entry's hash grants that one change on a Manual machine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<Pending>,
}

impl MachineStatus {
    /// The status schema's constraints, named from the document's root.
    pub fn validate(&self, c: &mut Checker) {
        for (i, cond) in self.conditions.iter().enumerate() {
            let field = format!("status.conditions[{i}]");
            c.check(
                cond.type_.len() <= 316 && patterns::matches(TYPE_PATTERN, &cond.type_),
                format!("{field}.type"),
                format!("{:?} is not a condition type: one CamelCase word, optionally behind a DNS prefix and a slash", cond.type_),
            );
            c.check(
                (1..=1024).contains(&cond.reason.len())
                    && patterns::matches(REASON_PATTERN, &cond.reason),
                format!("{field}.reason"),
                format!("{:?} is not a reason: one CamelCase word", cond.reason),
            );
            c.check(
                cond.message.len() <= 32768,
                format!("{field}.message"),
                "is longer than 32768 bytes; shorten it",
            );
            c.check(
                cond.observed_generation.is_none_or(|g| g >= 0),
                format!("{field}.observedGeneration"),
                "may not be negative",
            );
        }
        unique(
            c,
            "status.conditions",
            "type",
            self.conditions.iter().map(|x| x.type_.as_str()),
        );
        unique(
            c,
            "status.modules",
            "name",
            self.modules.iter().map(|x| x.name.as_str()),
        );
        unique(
            c,
            "status.features",
            "name",
            self.features.iter().map(|x| x.name.as_str()),
        );
        if let Some(n) = &self.network {
            unique(
                c,
                "status.network.interfaces",
                "name",
                n.interfaces.iter().map(|x| x.name.as_str()),
            );
        }
        if let Some(h) = &self.hardware {
            unique(
                c,
                "status.hardware.blockDevices",
                "name",
                h.block_devices.iter().map(|x| x.name.as_str()),
            );
            unique(
                c,
                "status.hardware.unclaimed",
                "modalias",
                h.unclaimed.iter().map(|x| x.modalias.as_str()),
            );
        }
        if let Some(storage) = self.boot.as_ref().and_then(|b| b.storage.as_ref()) {
            for role in StorageRole::ALL {
                if let Some(size) = storage.get(role).and_then(|a| a.size.as_deref()) {
                    c.check(
                        size.len() <= MAX_SIZE_LENGTH,
                        format!("status.boot.storage.{}.size", role.as_str()),
                        format!("is longer than {MAX_SIZE_LENGTH} characters"),
                    );
                }
            }
        }
    }
}

/// Faults every entry of the list at `list` whose `key` repeats an earlier
/// one, as the API server refuses a duplicate key of a list-type map.
fn unique<'a>(c: &mut Checker, list: &str, key: &str, keys: impl Iterator<Item = &'a str>) {
    let mut seen = std::collections::BTreeSet::new();
    for (i, k) in keys.enumerate() {
        if !seen.insert(k) {
            c.fault(
                format!("{list}[{i}].{key}"),
                format!("{k:?} appears twice; keep one entry"),
            );
        }
    }
}

/// liken's version and the versions of what its image carries.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VersionInventory {
    /// liken's version, stamped into the binary: a release's name, or the
    /// git description of a development build. Compared with the Cluster's
    /// spec.version to decide on an upgrade.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liken: Option<String>,
    /// The running kernel's release (uname -r).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// iptables' version and variant (legacy or nft), as iptables -V says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xtables: Option<String>,
    /// The k3s release the image carries; the Node reports the kubelet that
    /// actually runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k3s: Option<String>,
    /// The date of the Mozilla root certificates the machine trusts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<String>,
    /// e2fsprogs, whose mke2fs formats the ext4 roles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e2fsprogs: Option<String>,
    /// open-iscsi, for the iscsi feature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_iscsi: Option<String>,
    /// nfs-utils, for the nfs feature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nfs_utils: Option<String>,
    /// systemd-boot, the install media's boot menu.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub systemd_boot: Option<String>,
    /// GRUB, written into a BIOS machine's biosBoot partition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grub: Option<String>,
    /// The PCI ID database that names devices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hwdata: Option<String>,
    /// The IANA time zone database (2026c), which a CronJob's timeZone is
    /// resolved with; it changes only with an upgrade.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tzdata: Option<String>,
    /// linux-firmware, the driver blobs under /lib/firmware.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linux_firmware: Option<String>,
    /// The CPU microcode release in the boot slot's early cpio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microcode: Option<String>,
    /// The microcode revision the CPUs report: on hardware, proof the early
    /// cpio applied; under a hypervisor, the hypervisor's word.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microcode_revision: Option<String>,
}

/// What this boot's network came to.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NetworkStatus {
    /// The primary interface's kernel name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface: Option<String>,
    /// Its hardware address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
    /// Its addresses, with prefix lengths (10.10.0.5/24).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub addresses: Vec<String>,
    /// Its default gateway; absent without a default route.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<String>,
    /// Its nameservers, first choice first: the lease's, then the declared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nameservers: Vec<String>,
    /// When its DHCP lease runs out; absent for a static address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_expires: Option<Time>,
    /// Every interface this boot configured.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend(
        "x-kubernetes-list-type" = "map",
        "x-kubernetes-list-map-keys" = ["name"]
    ))]
    pub interfaces: Vec<InterfaceStatus>,
}

/// One configured interface.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InterfaceStatus {
    /// The kernel's name for it; the key of the list.
    pub name: String,
    /// Its hardware address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
    /// Its address, with prefix length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// How it got the address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<AddressMethod>,
    /// Its default gateway; absent without a default route.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gateway: Option<String>,
    /// Its nameservers, first choice first: the lease's, then the declared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nameservers: Vec<String>,
    /// When its DHCP lease runs out; absent for a static address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_expires: Option<Time>,
}

/// How an interface got its address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum AddressMethod {
    /// From a DHCP lease.
    #[serde(rename = "DHCP")]
    Dhcp,
    /// Declared in spec.network.
    Static,
}

/// The clock.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TimeStatus {
    /// Synchronized: corrected against a source that is itself synchronized.
    /// FreeRunning: no sources declared, so the hardware clock runs on
    /// purpose (a fleet may agree with itself and still be wrong, which
    /// certificates care about). Unsynchronized: sources declared, none
    /// answering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<ClockState>,
    /// The source followed: an upstream server on a leader, a leader on a
    /// follower.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// NTP's distance from a reference clock: the source's stratum plus one;
    /// 10 for a server free-running on purpose, 16 for unsynchronized.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stratum: Option<u32>,
    /// The error the last exchange measured, as a duration ("1.28ms");
    /// positive when this machine is behind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<String>,
    /// When the clock last agreed with its source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_sync: Option<Time>,
}

/// A clock's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ClockState {
    Synchronized,
    FreeRunning,
    Unsynchronized,
}

/// The machine's hardware.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Hardware {
    /// Logical processors the kernel offers, each hardware thread counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpus: Option<u32>,
    /// Usable memory in bytes, as the kernel counts it: less than installed,
    /// after the firmware's and the kernel's reservations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_bytes: Option<u64>,
    /// Every physical disk the kernel found, declared or not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend(
        "x-kubernetes-list-type" = "map",
        "x-kubernetes-list-map-keys" = ["name"]
    ))]
    pub block_devices: Vec<BlockDevice>,
    /// Devices no driver has claimed because spec.modules lacks their
    /// module; a machine with a driver for everything lists none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend(
        "x-kubernetes-list-type" = "map",
        "x-kubernetes-list-map-keys" = ["modalias"]
    ))]
    pub unclaimed: Vec<Unclaimed>,
}

/// One disk.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BlockDevice {
    /// The kernel's name for it this boot (vda, nvme0n1), given in probe
    /// order and so good for this boot only; the key of the list.
    pub name: String,
    /// Its capacity in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// The model it reports, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The serial number it reports, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serial: Option<String>,
    /// The names that find it on every boot, any of which spec.storage
    /// accepts. Prefer the first by-id name: it follows the disk into another
    /// bay, where a by-path name would not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stable_names: Vec<String>,
}

/// A device without a driver.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Unclaimed {
    /// The identifier the kernel matches driver aliases against; the key of
    /// the list, and the exact name of the device.
    pub modalias: String,
    /// pci or usb.
    pub bus: String,
    /// The device in words: a USB device's own strings, or the PCI database's
    /// names, or else its vendor and device IDs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its kind, from the bus's class code (mass-storage, display, network).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// The modules whose aliases match, in the kernel build's preference
    /// order. Often more than one (uas and usb_storage); the choice is for
    /// whoever edits spec.modules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<String>,
    /// The correction: declare a candidate the image carries, or move to a
    /// release that carries one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The firmware's lasting state.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Firmware {
    /// UEFI: boot variables liken reads and writes. BIOS: no such variables,
    /// as on a legacy server or a direct-kernel boot under a hypervisor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FirmwareMode>,
    /// The entry this boot came from: UEFI's BootCurrent, or liken.slot= on
    /// BIOS. Absent when neither names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_current: Option<String>,
    /// The one-shot entry armed for the next boot (UEFI's BootNext, GRUB's
    /// try_slot): a proving boot that has yet to happen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_next: Option<String>,
    /// The standing order of preference, first choice first (UEFI's
    /// BootOrder, or GRUB's default_slot alone).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boot_order: Vec<String>,
}

/// The kind of firmware that started the machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum FirmwareMode {
    #[serde(rename = "UEFI")]
    Uefi,
    #[serde(rename = "BIOS")]
    Bios,
}

/// What backs each role on this boot.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StorageStatus {
    /// What backs biosBoot now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bios_boot: Option<RoleBacking>,
    /// What backs bootHome now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_home: Option<RoleBacking>,
    /// What backs systemA now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_a: Option<RoleBacking>,
    /// What backs systemB now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_b: Option<RoleBacking>,
    /// What backs machineState now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_state: Option<RoleBacking>,
    /// What backs machineEphemeral now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_ephemeral: Option<RoleBacking>,
    /// What backs clusterState now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_state: Option<RoleBacking>,
    /// What backs podStorage now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_storage: Option<RoleBacking>,
    /// What backs podEphemeral now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_ephemeral: Option<RoleBacking>,
}

impl StorageStatus {
    /// What backs `role`, if reported.
    pub fn get(&self, role: StorageRole) -> Option<&RoleBacking> {
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

/// What holds one role's data.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RoleBacking {
    /// Partition: the role's partition was found. Memory: the role stays on
    /// the RAM root, as every undeclared role does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backing: Option<String>,
    /// The partition's device node this boot (vda1), in probe order and so
    /// good for this boot only. Absent for memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// The partition's GPT name, liken: and the role, by which every boot
    /// after the claim finds it. Absent for memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    /// The partition's size in bytes. Absent for memory: the memory-backed
    /// roles share one RAM root, and a figure for each would count it many
    /// times over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_bytes: Option<u64>,
    /// Whether this boot found the filesystem still marked in use, so the
    /// previous stop was not clean. Only the FAT32 roles (the slots and
    /// bootHome) carry such a mark; ext4 replays its journal instead. It
    /// holds until the next boot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_stop_unclean: Option<bool>,
}

/// One line of /etc/hosts.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HostEntryStatus {
    /// The address, as the file holds it.
    pub address: String,
    /// Its names, as the file holds them.
    pub names: Vec<String>,
}

/// What became of one declared module.
#[derive(KubeSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Module {
    /// The name spec.modules declares; the key of the list.
    pub name: String,
    /// Loaded or Builtin are good. Missing: this kernel has no such module,
    /// most often a misspelling; correct the name or take a release whose
    /// kernel has it. Failed: the kernel refused a module it has, which
    /// usually points at the hardware.
    pub state: ModuleState,
    /// For Missing or Failed, the console's words and the correction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A module's state on this boot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ModuleState {
    /// The kernel took it, or held it already.
    Loaded,
    /// Compiled into the kernel; nothing to load.
    Builtin,
    /// The booted image has no such module.
    Missing,
    /// The image has it and the kernel refused it.
    Failed,
}

/// One feature on this machine.
#[derive(KubeSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Feature {
    /// The feature, as the Cluster's spec.features names it (iscsi); the key
    /// of the list.
    pub name: String,
    /// Active: this boot applied all of it. Missing: the booted image lacks
    /// it; a release whose image carries it corrects that. Failed: the image
    /// carries it and applying it failed (a module refused, a hook erred).
    pub state: FeatureState,
    /// For Missing or Failed, the console's words and the correction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A feature's state on this boot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum FeatureState {
    Active,
    Missing,
    Failed,
}

/// What registries.yaml holds, without secrets.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Registries {
    /// The hosts with a mirror entry, sorted, and "*" while the embedded
    /// registry shares every registry's images.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mirrors: Vec<String>,
    /// The hosts with a credential, sorted. The credentials themselves stay
    /// in the registry-credentials Secret.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub credentialed_hosts: Vec<String>,
    /// True when this boot turned on k3s's embedded mirror (Spegel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedded: Option<bool>,
}

/// The runtime settings in force on this boot.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RuntimeSettings {
    /// The k3s process's Go environment and log level (containerd and the
    /// shims share the environment). Absent when init set none of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k3s: Option<K3sSettings>,
    /// The kubelet configuration init wrote. Absent when there was none to
    /// write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kubelet: Option<KubeletSettings>,
    /// The containerd configuration init wrote. Absent when there was none
    /// to write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub containerd: Option<ContainerdSettings>,
}

/// k3s's Go runtime and log level.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct K3sSettings {
    /// The memory ceiling resolved to MiB ("256Mi"); absent for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub go_memory_limit: Option<String>,
    /// The collector's GOGC; absent for Go's own.
    #[serde(default, rename = "goGC", skip_serializing_if = "Option::is_none")]
    pub go_gc: Option<i64>,
    /// True when k3s logs at debug; absent for info.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debug: Option<bool>,
}

/// The kubelet's configuration as written.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KubeletSettings {
    /// The image collector's settings. Each field is present only when the
    /// Cluster names it; an absent one is the kubelet's default.
    #[serde(default, rename = "imageGC", skip_serializing_if = "Option::is_none")]
    pub image_gc: Option<ImageGcSettings>,
}

/// The kubelet's image collector as configured.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageGcSettings {
    /// Disk use, in percent of the image store's filesystem, that starts a
    /// collection (the kubelet's default is 85).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub high_threshold_percent: Option<i64>,
    /// Disk use that ends one (default 80).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low_threshold_percent: Option<i64>,
    /// How long an unused image may stay whatever the disk use; absent for no
    /// age limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum_age: Option<String>,
    /// How long an unused image stays at least (default two minutes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum_age: Option<String>,
}

/// containerd's configuration as written.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContainerdSettings {
    /// Its log level; absent for info.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<String>,
}

/// A kernel crash the machine keeps records of.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KernelCrash {
    /// The machine's clock at the crash; usually the hardware clock, before
    /// any synchronization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<Time>,
    /// The kernel's word for it (Panic, Oops); the kernel's vocabulary, so
    /// free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The kernel's first line about it ("Kernel panic - not syncing: ..." or
    /// "BUG: ...").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Where the full log tail is kept: a directory of the crash store in
    /// machineState, or /sys/fs/pstore when machineState is in RAM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records: Option<String>,
}

/// A boot init refused to run.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FailStop {
    /// The machine's clock at the refusal, the hardware clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<Time>,
    /// What init printed on the console before powering off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A staged change waiting for a disruption.
#[derive(KubeSchema, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Pending {
    /// The condition that reported it, such as CredentialsConverged, or
    /// RebootRequestHonored for a reboot a person asked for.
    pub condition: String,
    /// What applies it.
    pub kind: PendingKind,
    /// The staged document's identity, which liken.sh/approve-disruption
    /// names to grant it. A requested reboot has no document and carries the
    /// running boot's identity instead. A grant is spent once the change
    /// applies, since the next change hashes differently.
    pub hash: String,
    /// One line on what the change does.
    pub summary: String,
}

/// The disruption a pending change needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum PendingKind {
    /// A reboot, which applies everything staged at once.
    Reboot,
    /// A k3s restart in place, for what k3s reads when it starts.
    Restart,
}
