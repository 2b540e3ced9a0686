//! spec.storage: the nine storage roles, where each one lives and how big it
//! is, and the rules a layout must keep.
//!
//! A layout is judged three ways, each as CEL in the CRD and as Rust here:
//! - on its own: each device is a path under /dev, each size a binary
//!   quantity; biosBoot comes with bootHome and systemA with systemB; at most
//!   one role per disk leaves out its size to take the rest.
//! - against what the running boot recorded (status.boot.storage, and
//!   status.storage for a role that took the rest of its disk): a size may
//!   grow but not drop below that, and biosBoot, systemA and systemB may not
//!   change at all. These rules sit at the object's root, where both spec and
//!   status are in reach, and judge only a role whose size the edit changes,
//!   so a status write or an unrelated edit never trips them. They compare
//!   with status rather than with the previous spec, so a size that failed to
//!   apply can still be edited back down to what the machine runs.
//! - by the machine itself at boot, which alone knows whether the disk has
//!   the room; a layout it cannot build is quarantined.

use kube::KubeSchema;
use kube::core::{Message, Rule};
use serde::{Deserialize, Serialize};

use super::MachineStatus;
use crate::patterns::{self, DEVICE, QUANTITY};
use crate::quantity;
use crate::validate::Checker;

/// The longest device path: PATH_MAX.
pub const MAX_DEVICE_LENGTH: usize = 4096;
/// The longest size string; 24 digits is far beyond any disk.
pub const MAX_SIZE_LENGTH: usize = 24;

/// The storage roles, in the standard partition order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StorageRole {
    BiosBoot,
    BootHome,
    SystemA,
    SystemB,
    MachineState,
    MachineEphemeral,
    ClusterState,
    PodStorage,
    PodEphemeral,
}

impl StorageRole {
    /// Every role, in partition order.
    pub const ALL: [StorageRole; 9] = [
        StorageRole::BiosBoot,
        StorageRole::BootHome,
        StorageRole::SystemA,
        StorageRole::SystemB,
        StorageRole::MachineState,
        StorageRole::MachineEphemeral,
        StorageRole::ClusterState,
        StorageRole::PodStorage,
        StorageRole::PodEphemeral,
    ];

    /// The role's field name.
    pub fn as_str(self) -> &'static str {
        match self {
            StorageRole::BiosBoot => "biosBoot",
            StorageRole::BootHome => "bootHome",
            StorageRole::SystemA => "systemA",
            StorageRole::SystemB => "systemB",
            StorageRole::MachineState => "machineState",
            StorageRole::MachineEphemeral => "machineEphemeral",
            StorageRole::ClusterState => "clusterState",
            StorageRole::PodStorage => "podStorage",
            StorageRole::PodEphemeral => "podEphemeral",
        }
    }

    /// The GPT partition name a claim writes and later boots find the role
    /// by.
    pub fn partition_name(self) -> String {
        format!("liken:{}", self.as_str())
    }

    /// Whether the role's size is fixed once claimed: the MBR points at the
    /// biosBoot partition's sectors, and the FAT32 system slots cannot grow
    /// in place.
    pub fn fixed_size(self) -> bool {
        matches!(
            self,
            StorageRole::BiosBoot | StorageRole::SystemA | StorageRole::SystemB
        )
    }
}

/// The disk layout: one optional allocation per role.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[x_kube(
    validation = Rule::new("has(self.biosBoot) == has(self.bootHome)").message("biosBoot and bootHome together make a BIOS boot: declare both or neither"),
    validation = Rule::new("has(self.systemA) == has(self.systemB)").message("systemA and systemB are the two slots an upgrade alternates between: declare both or neither"),
    validation = rest_of_disk_rule()
)]
pub struct Storage {
    /// GRUB's core image for a BIOS boot: a raw partition of about 1Mi, with
    /// no filesystem. Declaring it with bootHome makes the machine boot
    /// through liken's GRUB instead of UEFI. Its size never changes once
    /// claimed, because the MBR points at its sectors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bios_boot: Option<Allocation>,
    /// GRUB's configuration and environment block for a BIOS boot: a FAT32
    /// partition of about 64Mi, apart from both slots so either slot can be
    /// rewritten. Declared together with biosBoot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_home: Option<Allocation>,
    /// Boot slot A: a FAT32 EFI system partition holding one whole liken
    /// release. The machine runs from one slot and writes an upgrade into the
    /// other. Declared together with systemB; its size never changes once
    /// claimed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_a: Option<Allocation>,
    /// Boot slot B; see systemA.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_b: Option<Allocation>,
    /// liken's own durable state, above all the staged and proven manifests
    /// that carry an edit across a reboot. It is the first data partition, so
    /// a boot finds it before reading any spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_state: Option<Allocation>,
    /// Scratch space for the operating system itself (/tmp).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_ephemeral: Option<Allocation>,
    /// k3s's datastore, certificates and containerd's images. Kept across
    /// reboots, so the machine rejoins the same cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_state: Option<Allocation>,
    /// The pool PersistentVolumeClaims are served from, through the
    /// local-path provisioner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_storage: Option<Allocation>,
    /// The kubelet's working space: emptyDir volumes, container scratch space
    /// and the pod logs under /var/log/pods. Left out, all of it lives in RAM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_ephemeral: Option<Allocation>,
}

/// Where one role lives.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Allocation {
    /// The disk, as a path under /dev: /dev/vda, or a stable name under
    /// /dev/disk/by-id/ (follows the disk into another bay) or
    /// /dev/disk/by-path/ (follows the port). Read only on the boot that
    /// claims a blank disk.
    #[schemars(regex(pattern = DEVICE), length(max = MAX_DEVICE_LENGTH))]
    #[x_kube(validation = Rule::new("!self.split('/').exists(p, p == '..')").message("a device path may not climb out of /dev with '..'"))]
    pub device: String,
    /// The role's exact size, as a binary quantity (512Mi, 20Gi). Left out,
    /// the role takes the rest of its disk, which one role per disk may do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = QUANTITY), length(max = MAX_SIZE_LENGTH))]
    pub size: Option<String>,
}

impl Storage {
    /// Whether no role is declared: everything on the RAM root.
    pub fn is_empty(&self) -> bool {
        StorageRole::ALL.iter().all(|r| self.get(*r).is_none())
    }

    /// The allocation of `role`, if declared.
    pub fn get(&self, role: StorageRole) -> Option<&Allocation> {
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

    /// The declared roles, in partition order.
    pub fn declared(&self) -> impl Iterator<Item = (StorageRole, &Allocation)> {
        StorageRole::ALL
            .into_iter()
            .filter_map(|r| self.get(r).map(|a| (r, a)))
    }

    /// The Rust twin of the layout's own rules.
    pub(super) fn validate(&self, c: &mut Checker) {
        for (role, a) in self.declared() {
            let field = format!("spec.storage.{}", role.as_str());
            c.check(
                a.device.len() <= MAX_DEVICE_LENGTH && patterns::matches(DEVICE, &a.device),
                format!("{field}.device"),
                format!(
                    "{:?} is not a device: write a path under /dev, such as /dev/vda or /dev/disk/by-id/<name>",
                    a.device
                ),
            );
            c.check(
                !a.device.split('/').any(|p| p == ".."),
                format!("{field}.device"),
                format!(
                    "{:?} climbs out of /dev with '..'; name the device itself",
                    a.device
                ),
            );
            if let Some(size) = &a.size {
                c.check(
                    size.len() <= MAX_SIZE_LENGTH && patterns::matches(QUANTITY, size),
                    format!("{field}.size"),
                    format!(
                        "{size:?} is not a binary quantity: write a whole number of bytes or of Ki, Mi, Gi or Ti (such as 20Gi), or leave size out to take the rest of the disk"
                    ),
                );
            }
        }
        for (first, second, why) in [
            (
                StorageRole::BiosBoot,
                StorageRole::BootHome,
                "together they make a BIOS boot",
            ),
            (
                StorageRole::SystemA,
                StorageRole::SystemB,
                "an upgrade alternates between the two slots",
            ),
        ] {
            for (this, other) in [(first, second), (second, first)] {
                c.check(
                    self.get(this).is_none() || self.get(other).is_some(),
                    format!("spec.storage.{}", other.as_str()),
                    format!(
                        "is missing while {} is declared: {why}, so declare both or neither",
                        this.as_str()
                    ),
                );
            }
        }
        let sizeless: Vec<(StorageRole, &str)> = self
            .declared()
            .filter(|(_, a)| a.size.is_none())
            .map(|(r, a)| (r, a.device.as_str()))
            .collect();
        for (i, (role, device)) in sizeless.iter().enumerate() {
            if let Some((earlier, _)) = sizeless[..i].iter().find(|(_, d)| d == device) {
                c.fault(
                    format!("spec.storage.{}.size", role.as_str()),
                    format!(
                        "is left out, but {} already takes the rest of {device}; only one role per disk may, so give this one a size",
                        earlier.as_str()
                    ),
                );
            }
        }
    }

    /// The Rust twin of [`floor_rule`]: each role whose size differs from
    /// `old` is judged against what `status` recorded.
    pub(super) fn validate_floors(&self, old: &Storage, status: &MachineStatus, c: &mut Checker) {
        for (role, a) in self.declared() {
            let new = a.size.as_deref().unwrap_or("");
            let before = old.get(role).and_then(|o| o.size.as_deref()).unwrap_or("");
            let Some(recorded) = status
                .boot
                .as_ref()
                .and_then(|b| b.storage.as_ref())
                .and_then(|s| s.get(role))
            else {
                continue;
            };
            let new_bytes = size_bytes(new);
            if new == before || (!new.is_empty() && new_bytes.is_none()) {
                continue;
            }
            let rec = recorded.size.as_deref().unwrap_or("");
            let floor = if rec.is_empty() {
                status
                    .storage
                    .as_ref()
                    .and_then(|s| s.get(role))
                    .and_then(|b| b.capacity_bytes)
                    .map(|bytes| (bytes, format!("{bytes} bytes")))
            } else {
                size_bytes(rec).map(|bytes| (bytes, rec.to_owned()))
            };
            let Some((floor, shown)) = floor else {
                continue;
            };
            let field = format!("spec.storage.{}.size", role.as_str());
            if role.fixed_size() {
                let same = match new_bytes {
                    None => rec.is_empty(),
                    Some(b) => b == floor,
                };
                let kept = if rec.is_empty() {
                    "the rest of its disk"
                } else {
                    rec
                };
                c.check(
                    same,
                    field,
                    format!(
                        "cannot change once claimed: it stays {kept}, the size this machine booted with"
                    ),
                );
            } else if let Some(b) = new_bytes {
                c.check(
                    b >= floor,
                    field,
                    format!(
                        "{new} is below {shown}, the size this machine booted with; a partition cannot shrink, so declare at least {shown}"
                    ),
                );
            }
        }
    }
}

/// The bytes a size names when it has the binary-quantity shape, saturating
/// where it would overflow (as CEL's arbitrary-precision quantities
/// compare); None for "" and for any other shape.
fn size_bytes(size: &str) -> Option<u64> {
    if !patterns::matches(QUANTITY, size) {
        return None;
    }
    Some(quantity::bytes(size).unwrap_or(u64::MAX))
}

/// The CEL for "at most one role per disk takes the rest": the devices of
/// the sizeless roles must be distinct. CEL has no let, so the list is bound
/// by iterating over a one-element list of it.
fn rest_of_disk_rule() -> Rule {
    let devices: Vec<String> = StorageRole::ALL
        .iter()
        .map(|r| {
            let r = r.as_str();
            format!("has(self.{r}) && !has(self.{r}.size) ? self.{r}.device : ''")
        })
        .collect();
    Rule::new(format!(
        "[[{}].filter(d, d != '')].all(l, l.all(d, l.exists_one(e, e == d)))",
        devices.join(", ")
    ))
    .message("only one role per disk may leave out its size and take the rest of the disk; give the others a size")
}

/// The CEL that keeps `role`'s declared size from dropping below what the
/// running boot recorded, or, for a fixed-size role, from changing at all.
/// It sits at the object's root, so it reaches both spec and status.
///
/// - It judges only an edit of this role's size (oldSelf differs), so status
///   writes and other edits pass.
/// - A recorded size is the floor. A role recorded as taking the rest of its
///   disk has status.storage.<role>.capacityBytes as its floor, when known.
/// - A declared size left out (the rest of the disk) never shrinks a growable
///   role; for a fixed role it is a change unless the record took the rest
///   too.
/// - Sizes that are not binary quantities pass here: the spec field's own
///   pattern refuses them, and a status size of another shape is no floor.
pub fn floor_rule(role: StorageRole) -> Rule {
    let r = role.as_str();
    // Plain has() chains, not optionals: a value read through orValue()
    // loses its maxLength, and the API server's cost estimate with it.
    let new = format!("self.spec.storage.{r}.size");
    let old = format!("oldSelf.spec.storage.{r}.size");
    let rec = format!("self.status.boot.storage.{r}.size");
    let cap = format!("self.status.storage.{r}.capacityBytes");
    let has_new = format!("has({new})");
    let unchanged = format!(
        "(has(oldSelf.spec.storage) && has(oldSelf.spec.storage.{r}) && (has({old}) ? {has_new} && {new} == {old} : !{has_new}))"
    );
    let skip = format!(
        "!has(self.spec.storage) || !has(self.spec.storage.{r}) || {unchanged} || !has(self.status) || !has(self.status.boot) || !has(self.status.boot.storage) || !has(self.status.boot.storage.{r}) || ({has_new} && !{new}.matches(r'{QUANTITY}'))"
    );
    let recorded = format!("has({rec}) && {rec} != ''");
    let rec_ok = format!("{rec}.matches(r'{QUANTITY}')");
    let has_cap = format!("has(self.status.storage) && has(self.status.storage.{r}) && has({cap})");
    let (rule, message) = if role.fixed_size() {
        (
            format!(
                "{skip} || ({recorded} ? (!{rec_ok} || ({has_new} && quantity({new}).compareTo(quantity({rec})) == 0)) : (!{has_new} || !({has_cap}) || (quantity({new}).isInteger() && quantity({new}).asInteger() == {cap})))"
            ),
            format!(
                "'spec.storage.{r}.size cannot change once claimed: it stays ' + ({recorded} ? {rec} : 'the rest of its disk') + ', the size this machine booted with'"
            ),
        )
    } else {
        (
            format!(
                "{skip} || !{has_new} || ({recorded} ? (!{rec_ok} || !quantity({new}).isLessThan(quantity({rec}))) : (!({has_cap}) || !quantity({new}).isInteger() || quantity({new}).asInteger() >= {cap}))"
            ),
            format!(
                "'spec.storage.{r}.size may not drop below ' + ({recorded} ? {rec} : 'the partition it has now (status.storage.{r}.capacityBytes)') + ', the size this machine booted with: a partition cannot shrink'"
            ),
        )
    };
    Rule::new(rule)
        .message(Message::Expression(message))
        .field_path(format!(".spec.storage.{r}.size"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_name_their_fields_and_partitions() {
        let names: Vec<&str> = StorageRole::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(names.len(), 9);
        assert_eq!(StorageRole::SystemA.as_str(), "systemA");
        assert_eq!(
            StorageRole::PodEphemeral.partition_name(),
            "liken:podEphemeral"
        );
        let fixed: Vec<&str> = StorageRole::ALL
            .iter()
            .filter(|r| r.fixed_size())
            .map(|r| r.as_str())
            .collect();
        assert_eq!(fixed, ["biosBoot", "systemA", "systemB"]);
    }

    #[test]
    fn the_field_names_match_the_roles() {
        let mut s = Storage::default();
        let a = Allocation {
            device: "/dev/vda".into(),
            size: None,
        };
        s.system_a = Some(a.clone());
        s.pod_ephemeral = Some(a);
        let json = serde_json::to_value(&s).unwrap();
        assert!(json.get("systemA").is_some());
        assert!(json.get("podEphemeral").is_some());
        let declared: Vec<StorageRole> = s.declared().map(|(r, _)| r).collect();
        assert_eq!(declared, [StorageRole::SystemA, StorageRole::PodEphemeral]);
    }

    #[test]
    fn every_role_has_a_floor_rule_on_its_own_field() {
        for role in StorageRole::ALL {
            let rule = floor_rule(role);
            assert_eq!(
                rule.field_path.as_deref(),
                Some(format!(".spec.storage.{}.size", role.as_str()).as_str())
            );
            assert!(rule.rule.contains("oldSelf"), "a transition rule");
        }
    }
}
