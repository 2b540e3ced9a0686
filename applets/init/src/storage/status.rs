//! status.storage and status.boot.storage from a plan: what backs each of
//! the nine roles on this boot, and what the booted manifest declared. Pure;
//! the facts tree writer puts the result on disk.
//!
//! A partition-backed role reports its partition's device node as the
//! kernel names it (vda1; nvme0n1p1 for a disk whose name ends in a digit),
//! its GPT name and its size; a memory-backed role reports only that, with
//! no capacity (every memory role shares the one RAM root). A role the plan
//! refused reports nothing: the boot that refused its spec does not run it.
//! lastStopUnclean is the FAT reader's to fill, later.
//!
//! status.boot.storage ([`boot_storage`]) records each declared role as the
//! booted manifest wrote it, which is what the admission floor rules
//! compare an edit against. The one exception: a role declared larger than
//! the partition the boot found (growing in place is not built) records the
//! partition's size, so the record never claims room the machine lacks.

use liken_documents::machine::{
    ActuatedAllocation, BootStorage, RoleBacking, Storage, StorageRole, StorageStatus,
};
use liken_documents::quantity;

use super::plan::{Backing, Plan};

/// The kernel's node for partition `number` of the disk at `device`.
pub fn partition_node(device: &str, number: u32) -> String {
    let name = device.rsplit('/').next().unwrap_or(device);
    if name.ends_with(|c: char| c.is_ascii_digit()) {
        format!("{name}p{number}")
    } else {
        format!("{name}{number}")
    }
}

/// status.storage for `plan`.
pub fn status(plan: &Plan) -> StorageStatus {
    let mut out = StorageStatus::default();
    for (&role, backing) in &plan.roles {
        let entry = match backing {
            Backing::Memory => RoleBacking {
                backing: Some("Memory".to_owned()),
                ..RoleBacking::default()
            },
            Backing::Partition {
                device,
                number,
                size_bytes,
            } => RoleBacking {
                backing: Some("Partition".to_owned()),
                device: Some(partition_node(device, *number)),
                partition: Some(role.partition_name()),
                capacity_bytes: Some(*size_bytes),
                last_stop_unclean: None,
            },
            Backing::Unbacked => continue,
        };
        *slot(&mut out, role) = Some(entry);
    }
    out
}

/// status.boot.storage for the booted `spec` and its `plan`.
pub fn boot_storage(spec: &Storage, plan: &Plan) -> BootStorage {
    let mut out = BootStorage::default();
    for (role, alloc) in spec.declared() {
        let mut size = alloc.size.clone();
        if let (Some(Some(want)), Some(Backing::Partition { size_bytes, .. })) = (
            alloc.size.as_deref().map(quantity::bytes),
            plan.roles.get(&role),
        ) && want > *size_bytes
        {
            size = Some(quantity::format(*size_bytes));
        }
        *boot_slot(&mut out, role) = Some(ActuatedAllocation {
            device: Some(alloc.device.clone()),
            size,
        });
    }
    out
}

fn boot_slot(s: &mut BootStorage, role: StorageRole) -> &mut Option<ActuatedAllocation> {
    match role {
        StorageRole::BiosBoot => &mut s.bios_boot,
        StorageRole::BootHome => &mut s.boot_home,
        StorageRole::SystemA => &mut s.system_a,
        StorageRole::SystemB => &mut s.system_b,
        StorageRole::MachineState => &mut s.machine_state,
        StorageRole::MachineEphemeral => &mut s.machine_ephemeral,
        StorageRole::ClusterState => &mut s.cluster_state,
        StorageRole::PodStorage => &mut s.pod_storage,
        StorageRole::PodEphemeral => &mut s.pod_ephemeral,
    }
}

fn slot(s: &mut StorageStatus, role: StorageRole) -> &mut Option<RoleBacking> {
    match role {
        StorageRole::BiosBoot => &mut s.bios_boot,
        StorageRole::BootHome => &mut s.boot_home,
        StorageRole::SystemA => &mut s.system_a,
        StorageRole::SystemB => &mut s.system_b,
        StorageRole::MachineState => &mut s.machine_state,
        StorageRole::MachineEphemeral => &mut s.machine_ephemeral,
        StorageRole::ClusterState => &mut s.cluster_state,
        StorageRole::PodStorage => &mut s.pod_storage,
        StorageRole::PodEphemeral => &mut s.pod_ephemeral,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::plan::{Contents, ObservedDisk, plan};

    #[test]
    fn partition_nodes_follow_the_kernel() {
        assert_eq!(partition_node("/dev/vda", 3), "vda3");
        assert_eq!(partition_node("/dev/nvme0n1", 1), "nvme0n1p1");
        assert_eq!(partition_node("/dev/mmcblk0", 2), "mmcblk0p2");
        assert_eq!(partition_node("/dev/sdb", 10), "sdb10");
    }

    #[test]
    fn every_role_reports_its_backing() {
        let spec = serde_json::from_value(serde_json::json!({
            "machineState": { "device": "/dev/nvme0n1", "size": "1Gi" },
            "clusterState": { "device": "/dev/nvme0n1" },
        }))
        .unwrap();
        let disk = ObservedDisk {
            names: vec!["/dev/nvme0n1".into()],
            size_bytes: 8 << 30,
            logical_sector_bytes: 4096,
            contents: Contents::Blank,
        };
        let s = status(&plan(&spec, &[disk]));
        let ms = s.machine_state.as_ref().unwrap();
        assert_eq!(ms.backing.as_deref(), Some("Partition"));
        assert_eq!(ms.device.as_deref(), Some("nvme0n1p1"));
        assert_eq!(ms.partition.as_deref(), Some("liken:machineState"));
        assert_eq!(ms.capacity_bytes, Some(1 << 30));
        assert_eq!(
            s.cluster_state.as_ref().unwrap().device.as_deref(),
            Some("nvme0n1p2")
        );
        let mem = s.pod_storage.as_ref().unwrap();
        assert_eq!(mem.backing.as_deref(), Some("Memory"));
        assert_eq!((mem.device.as_ref(), mem.capacity_bytes), (None, None));
        for role in StorageRole::ALL {
            assert!(s.get(role).is_some(), "{role:?}");
        }
    }

    #[test]
    fn the_boot_record_is_the_manifest_but_never_more_than_the_disk() {
        use crate::storage::plan::FoundPartition;
        let spec: Storage = serde_json::from_value(serde_json::json!({
            "machineState": { "device": "/dev/vda", "size": "2Gi" },
            "clusterState": { "device": "/dev/vda", "size": "12Gi" },
            "podStorage": { "device": "/dev/vda" },
        }))
        .unwrap();
        let part = |number, role, size_bytes| FoundPartition {
            number,
            role,
            start_bytes: 0,
            size_bytes,
        };
        let disk = ObservedDisk {
            names: vec!["/dev/vda".into()],
            size_bytes: 64 << 30,
            logical_sector_bytes: 512,
            contents: Contents::Liken(vec![
                part(1, StorageRole::MachineState, 2 << 30),
                part(2, StorageRole::ClusterState, 10 << 30),
                part(3, StorageRole::PodStorage, 40 << 30),
            ]),
        };
        let p = plan(&spec, &[disk]);
        assert!(p.satisfied());
        let b = boot_storage(&spec, &p);
        let size = |role| b.get(role).unwrap().size.as_deref();
        assert_eq!(size(StorageRole::MachineState), Some("2Gi"));
        assert_eq!(
            size(StorageRole::ClusterState),
            Some("10Gi"),
            "not grown yet"
        );
        assert_eq!(size(StorageRole::PodStorage), None, "the rest of the disk");
        assert_eq!(
            b.get(StorageRole::PodStorage).unwrap().device.as_deref(),
            Some("/dev/vda")
        );
        assert!(b.get(StorageRole::SystemA).is_none());
    }

    #[test]
    fn a_refused_role_reports_nothing() {
        let spec = serde_json::from_value(serde_json::json!({
            "clusterState": { "device": "/dev/vdz" },
        }))
        .unwrap();
        let s = status(&plan(&spec, &[]));
        assert!(s.cluster_state.is_none());
        assert!(s.pod_storage.is_some());
    }
}
