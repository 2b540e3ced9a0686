//! status.storage from a plan: what backs each of the nine roles on this
//! boot. Pure; the facts tree writer puts the result on disk.
//!
//! A partition-backed role reports its partition's device node as the
//! kernel names it (vda1; nvme0n1p1 for a disk whose name ends in a digit),
//! its GPT name and its size; a memory-backed role reports only that, with
//! no capacity (every memory role shares the one RAM root). A role the plan
//! refused reports nothing: the boot that refused its spec does not run it.
//! lastStopUnclean is the FAT reader's to fill, later.

use liken_documents::machine::{RoleBacking, StorageRole, StorageStatus};

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
