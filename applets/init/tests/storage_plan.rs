//! The storage decision, table-tested: claims, keeps, refusals and the
//! memory backing, on blank, liken and foreign disks.

use liken_documents::machine::{Storage, StorageRole};
use liken_formats::gpt::{Found, Partition, Table};
use liken_init::storage::observe;
use liken_init::storage::plan::{
    ALIGN, Action, Backing, Contents, FoundPartition, ObservedDisk, Plan, plan,
};

use StorageRole::*;

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// Roles as (role, device, size) for [`spec`].
type Roles<'a> = &'a [(StorageRole, &'a str, Option<&'a str>)];

fn spec(roles: Roles) -> Storage {
    let mut m = serde_json::Map::new();
    for (role, dev, size) in roles {
        let mut a = serde_json::json!({ "device": dev });
        if let Some(s) = size {
            a["size"] = serde_json::json!(s);
        }
        m.insert(role.as_str().to_owned(), a);
    }
    serde_json::from_value(serde_json::Value::Object(m)).unwrap()
}

fn disk(name: &str, size: u64, contents: Contents) -> ObservedDisk {
    ObservedDisk {
        names: vec![
            name.to_owned(),
            format!("/dev/disk/by-id/virtio-{}", &name[5..]),
        ],
        size_bytes: size,
        logical_sector_bytes: 512,
        contents,
    }
}

fn blank(name: &str, size: u64) -> ObservedDisk {
    disk(name, size, Contents::Blank)
}

/// A liken disk holding `roles` back to back from 1 MiB, at these sizes.
fn liken(name: &str, size: u64, roles: &[(StorageRole, u64)]) -> ObservedDisk {
    let mut at = MIB;
    let parts = roles
        .iter()
        .enumerate()
        .map(|(i, &(role, bytes))| {
            let p = FoundPartition {
                number: i as u32 + 1,
                role,
                start_bytes: at,
                size_bytes: bytes,
            };
            at += bytes;
            p
        })
        .collect();
    disk(name, size, Contents::Liken(parts))
}

/// The (role, start, size) of each partition a disk's claim writes.
fn claimed(p: &Plan, device: &str) -> Vec<(StorageRole, u64, u64)> {
    let d = p.disks.iter().find(|d| d.device == device).unwrap();
    match &d.action {
        Action::Claim(l) => l
            .partitions
            .iter()
            .map(|p| (p.role, p.start_bytes, p.size_bytes))
            .collect(),
        other => panic!("{device}: {other:?}"),
    }
}

fn refusal(p: &Plan, device: &str) -> String {
    let d = p.disks.iter().find(|d| d.device == device).unwrap();
    match &d.action {
        Action::Refuse(r) => r.join("; "),
        other => panic!("{device}: {other:?}"),
    }
}

fn memory(p: &Plan) -> Vec<StorageRole> {
    p.roles
        .iter()
        .filter(|(_, b)| **b == Backing::Memory)
        .map(|(r, _)| *r)
        .collect()
}

fn on(p: &Plan, role: StorageRole) -> (String, u32, u64) {
    match &p.roles[&role] {
        Backing::Partition {
            device,
            number,
            size_bytes,
        } => (device.clone(), *number, *size_bytes),
        other => panic!("{role:?}: {other:?}"),
    }
}

/// The end of the usable space on a 512-byte-sector disk, where the backup
/// GPT (33 sectors) begins.
fn usable_end(size: u64) -> u64 {
    size - 33 * 512
}

#[test]
fn no_storage_is_all_memory() {
    let p = plan(&Storage::default(), &[blank("/dev/vda", 8 * GIB)]);
    assert!(p.satisfied());
    assert_eq!(memory(&p), StorageRole::ALL);
    assert_eq!(
        p.disks[0].action,
        Action::Leave,
        "a blank disk nobody names"
    );
}

#[test]
fn claims_a_blank_disk_in_standard_order_with_exact_sizes() {
    // Declared out of order on purpose: the layout follows the role order.
    let s = spec(&[
        (PodStorage, "/dev/vda", None),
        (ClusterState, "/dev/vda", Some("10Gi")),
        (MachineState, "/dev/vda", Some("1Gi")),
        (SystemB, "/dev/vda", Some("1Gi")),
        (SystemA, "/dev/vda", Some("1Gi")),
    ]);
    let size = 32 * GIB;
    let p = plan(&s, &[blank("/dev/vda", size)]);
    assert!(p.satisfied(), "{:?}", p.refusals().collect::<Vec<_>>());
    let rest_start = MIB + 13 * GIB;
    assert_eq!(
        claimed(&p, "/dev/vda"),
        [
            (SystemA, MIB, GIB),
            (SystemB, MIB + GIB, GIB),
            (MachineState, MIB + 2 * GIB, GIB),
            (ClusterState, MIB + 3 * GIB, 10 * GIB),
            (
                PodStorage,
                rest_start,
                (usable_end(size) - rest_start) / MIB * MIB
            ),
        ]
    );
    assert_eq!(on(&p, ClusterState), ("/dev/vda".into(), 4, 10 * GIB));
    assert_eq!(
        memory(&p),
        [BiosBoot, BootHome, MachineEphemeral, PodEphemeral]
    );
}

#[test]
fn every_start_is_on_a_mib_and_every_size_exact() {
    let s = spec(&[
        (BiosBoot, "/dev/vda", Some("1Mi")),
        (BootHome, "/dev/vda", Some("64Mi")),
        (MachineState, "/dev/vda", Some("1536Ki")),
        (MachineEphemeral, "/dev/vda", Some("4097Ki")),
        (ClusterState, "/dev/vda", None),
    ]);
    let p = plan(&s, &[blank("/dev/vda", 4 * GIB)]);
    let parts = claimed(&p, "/dev/vda");
    assert_eq!(parts[0], (BiosBoot, MIB, MIB));
    assert_eq!(parts[1], (BootHome, 2 * MIB, 64 * MIB));
    assert_eq!(parts[2], (MachineState, 66 * MIB, 1536 * 1024));
    assert_eq!(parts[3], (MachineEphemeral, 68 * MIB, 4097 * 1024));
    assert_eq!(parts[4].1, 73 * MIB);
    for (role, start, size) in &parts {
        assert_eq!(start % ALIGN, 0, "{role:?}");
        assert!(start + size <= usable_end(4 * GIB));
    }
    for w in parts.windows(2) {
        assert!(w[0].1 + w[0].2 <= w[1].1, "no overlap");
    }
}

#[test]
fn the_rest_of_the_disk_may_sit_before_a_sized_role() {
    let s = spec(&[
        (ClusterState, "/dev/vda", None),
        (PodStorage, "/dev/vda", Some("4Gi")),
    ]);
    let size = 10 * GIB + 5 * 4096;
    let p = plan(&s, &[blank("/dev/vda", size)]);
    let parts = claimed(&p, "/dev/vda");
    let rest = (usable_end(size) - MIB - 4 * GIB) / MIB * MIB;
    assert_eq!(
        parts,
        [(ClusterState, MIB, rest), (PodStorage, MIB + rest, 4 * GIB)]
    );
    assert!(MIB + rest + 4 * GIB <= usable_end(size));
}

#[test]
fn a_4k_sector_disk_keeps_its_backup_table_clear() {
    let s = spec(&[(ClusterState, "/dev/vda", None)]);
    let mut d = blank("/dev/vda", GIB);
    d.logical_sector_bytes = 4096;
    let p = plan(&s, &[d]);
    // The backup is 4 sectors of entries and one header: 20 KiB.
    let rest = (GIB - 5 * 4096 - MIB) / MIB * MIB;
    assert_eq!(claimed(&p, "/dev/vda"), [(ClusterState, MIB, rest)]);
}

#[test]
fn sizes_the_disk_cannot_hold_refuse_the_disk() {
    let cases: &[(Roles, u64, &str)] = &[
        (
            &[(ClusterState, "/dev/vda", Some("20Gi"))],
            8 * GIB,
            "too small",
        ),
        (
            &[(ClusterState, "/dev/vda", Some("8Gi"))],
            8 * GIB,
            "too small",
        ),
        (
            &[
                (MachineState, "/dev/vda", Some("1Gi")),
                (ClusterState, "/dev/vda", None),
            ],
            GIB + 2 * MIB,
            "no whole MiB left for clusterState",
        ),
        (
            &[(ClusterState, "/dev/vda", Some("1000"))],
            GIB,
            "multiple of 512",
        ),
        (&[(ClusterState, "/dev/vda", Some("0"))], GIB, "is 0"),
    ];
    for (roles, size, want) in cases {
        let p = plan(&spec(roles), &[blank("/dev/vda", *size)]);
        assert!(!p.satisfied());
        let why = refusal(&p, "/dev/vda");
        assert!(why.contains(want) && why.contains("/dev/vda"), "{why}");
        assert_eq!(p.roles[&ClusterState], Backing::Unbacked);
    }
    // The size that exactly fits is accepted.
    let fits = usable_end(8 * GIB) - MIB;
    let roles = [(ClusterState, "/dev/vda", Some(fits.to_string()))];
    let roles: Vec<_> = roles
        .iter()
        .map(|(r, d, s)| (*r, *d, s.as_deref()))
        .collect();
    assert!(plan(&spec(&roles), &[blank("/dev/vda", 8 * GIB)]).satisfied());
}

#[test]
fn two_names_of_one_disk_cannot_both_take_the_rest() {
    let s = spec(&[
        (ClusterState, "/dev/vda", None),
        (PodStorage, "/dev/disk/by-id/virtio-vda", None),
    ]);
    let p = plan(&s, &[blank("/dev/vda", 8 * GIB)]);
    let why = refusal(&p, "/dev/vda");
    assert!(
        why.contains("clusterState, podStorage all leave out their size"),
        "{why}"
    );
}

#[test]
fn a_stable_name_selects_the_disk() {
    let s = spec(&[(ClusterState, "/dev/disk/by-id/virtio-vdb", None)]);
    let p = plan(&s, &[blank("/dev/vda", GIB), blank("/dev/vdb", GIB)]);
    assert_eq!(p.disks[0].action, Action::Leave);
    assert_eq!(claimed(&p, "/dev/vdb").len(), 1);
}

fn two_disk_spec() -> Storage {
    spec(&[
        (SystemA, "/dev/vda", Some("1Gi")),
        (SystemB, "/dev/vda", Some("1Gi")),
        (MachineState, "/dev/vda", None),
        (ClusterState, "/dev/vdb", Some("10Gi")),
        (PodStorage, "/dev/vdb", None),
    ])
}

#[test]
fn a_later_boot_finds_every_role_by_name_wherever_the_disk_is() {
    let system = [(SystemA, GIB), (SystemB, GIB), (MachineState, 6 * GIB)];
    let data = [(ClusterState, 10 * GIB), (PodStorage, 20 * GIB)];
    // The kernel enumerated the disks the other way round this boot.
    let disks = [
        liken("/dev/vda", 32 * GIB, &data),
        liken("/dev/vdb", 8 * GIB + 2 * MIB, &system),
    ];
    let p = plan(&two_disk_spec(), &disks);
    assert!(p.satisfied(), "{:?}", p.refusals().collect::<Vec<_>>());
    assert!(matches!(p.disks[0].action, Action::Keep(_)));
    assert!(matches!(p.disks[1].action, Action::Keep(_)));
    assert_eq!(on(&p, SystemA), ("/dev/vdb".into(), 1, GIB));
    assert_eq!(on(&p, ClusterState), ("/dev/vda".into(), 1, 10 * GIB));
    assert_eq!(on(&p, PodStorage), ("/dev/vda".into(), 2, 20 * GIB));
}

#[test]
fn a_replaced_blank_system_disk_is_claimed_and_the_data_disk_kept() {
    let data = [(ClusterState, 10 * GIB), (PodStorage, 20 * GIB)];
    let disks = [
        blank("/dev/vda", 8 * GIB),
        liken("/dev/vdb", 32 * GIB, &data),
    ];
    let p = plan(&two_disk_spec(), &disks);
    assert!(p.satisfied());
    let roles: Vec<_> = claimed(&p, "/dev/vda").iter().map(|c| c.0).collect();
    assert_eq!(roles, [SystemA, SystemB, MachineState]);
    assert!(matches!(p.disks[1].action, Action::Keep(_)));
}

#[test]
fn first_boot_claims_both_blank_disks() {
    let p = plan(
        &two_disk_spec(),
        &[blank("/dev/vda", 8 * GIB), blank("/dev/vdb", 32 * GIB)],
    );
    assert!(p.satisfied());
    assert_eq!(claimed(&p, "/dev/vda").len(), 3);
    assert_eq!(claimed(&p, "/dev/vdb").len(), 2);
    assert_eq!(on(&p, PodStorage).0, "/dev/vdb");
}

#[test]
fn a_disk_with_foreign_data_is_never_touched() {
    let foreign = disk(
        "/dev/vdb",
        32 * GIB,
        Contents::Foreign("an MBR partition table".into()),
    );
    // Named by the spec for a role found nowhere: refused.
    let p = plan(
        &two_disk_spec(),
        &[blank("/dev/vda", 8 * GIB), foreign.clone()],
    );
    assert!(!p.satisfied());
    let why = refusal(&p, "/dev/vdb");
    assert!(
        why.contains("/dev/vdb holds an MBR partition table"),
        "{why}"
    );
    assert!(why.contains("never touched"), "{why}");
    assert_eq!(p.roles[&ClusterState], Backing::Unbacked);
    // Named by nobody: left alone, and the plan stands.
    let s = spec(&[(ClusterState, "/dev/vda", None)]);
    let p = plan(&s, &[foreign, blank("/dev/vda", GIB)]);
    assert!(p.satisfied());
    assert_eq!(p.disks[0].action, Action::Leave);
}

#[test]
fn a_claimed_disk_is_never_repartitioned_for_a_new_role() {
    let s = spec(&[
        (ClusterState, "/dev/vda", Some("10Gi")),
        (PodStorage, "/dev/vda", None),
    ]);
    let p = plan(
        &s,
        &[liken("/dev/vda", 32 * GIB, &[(ClusterState, 10 * GIB)])],
    );
    assert!(!p.satisfied());
    let why = refusal(&p, "/dev/vda");
    assert!(why.contains("holds no liken:podStorage"), "{why}");
    assert!(why.contains("`wipe and reinstall`"), "{why}");
    assert_eq!(
        p.roles[&ClusterState],
        Backing::Unbacked,
        "its disk is refused"
    );
}

#[test]
fn sizes_against_what_the_disk_holds() {
    let on_disk = [(SystemA, GIB), (SystemB, GIB), (ClusterState, 10 * GIB)];
    let cases: &[(StorageRole, &str, Option<&str>)] = &[
        (
            ClusterState,
            "8Gi",
            Some("cannot shrink, so declare at least 10Gi"),
        ),
        (ClusterState, "10Gi", None),
        (ClusterState, "12Gi", None),
        (
            SystemA,
            "2Gi",
            Some("cannot change once claimed; declare 1Gi"),
        ),
        (SystemA, "512Mi", Some("cannot change once claimed")),
    ];
    for (role, size, want) in cases {
        let mut roles = vec![
            (SystemA, "/dev/vda", Some("1Gi")),
            (SystemB, "/dev/vda", Some("1Gi")),
            (ClusterState, "/dev/vda", Some("10Gi")),
        ];
        for r in &mut roles {
            if r.0 == *role {
                r.2 = Some(size);
            }
        }
        let p = plan(&spec(&roles), &[liken("/dev/vda", 16 * GIB, &on_disk)]);
        match want {
            None => assert!(p.satisfied(), "{role:?} {size}"),
            Some(want) => {
                let why = refusal(&p, "/dev/vda");
                assert!(why.contains(want), "{role:?} {size}: {why}");
                assert!(why.contains(&format!("spec.storage.{}.size", role.as_str())));
            }
        }
    }
    // A role that took the rest of its disk stays as it is.
    let s = spec(&[(ClusterState, "/dev/vda", None)]);
    let p = plan(
        &s,
        &[liken("/dev/vda", 16 * GIB, &[(ClusterState, 15 * GIB)])],
    );
    assert!(p.satisfied());
}

#[test]
fn an_absent_device_and_a_role_on_two_disks_are_problems() {
    let s = spec(&[(ClusterState, "/dev/vdc", None)]);
    let p = plan(&s, &[blank("/dev/vda", GIB)]);
    assert!(!p.satisfied());
    assert!(
        p.problems[0].contains("no disk named /dev/vdc"),
        "{:?}",
        p.problems
    );

    let s = spec(&[(ClusterState, "/dev/vda", None)]);
    let both = [
        liken("/dev/vda", GIB, &[(ClusterState, GIB / 2)]),
        liken("/dev/vdb", GIB, &[(ClusterState, GIB / 2)]),
    ];
    let p = plan(&s, &both);
    assert!(!p.satisfied());
    assert!(p.problems[0].contains("more than one disk (/dev/vda, /dev/vdb)"));
    assert_eq!(p.roles[&ClusterState], Backing::Unbacked);
}

#[test]
fn a_found_role_the_spec_drops_is_memory_backed_and_its_disk_kept() {
    let p = plan(
        &Storage::default(),
        &[liken("/dev/vda", GIB, &[(PodStorage, GIB / 2)])],
    );
    assert!(p.satisfied());
    assert_eq!(memory(&p), StorageRole::ALL);
    assert!(matches!(p.disks[0].action, Action::Keep(_)));
}

#[test]
fn the_same_input_gives_the_same_plan() {
    let disks = [blank("/dev/vda", 8 * GIB), blank("/dev/vdb", 32 * GIB)];
    assert_eq!(
        plan(&two_disk_spec(), &disks),
        plan(&two_disk_spec(), &disks)
    );
}

#[test]
fn only_liken_named_gpts_are_liken_disks() {
    let part = |name: &str, first: u64| Partition {
        name: name.into(),
        type_guid: [0; 16],
        unique_guid: [first as u8; 16],
        first_lba: first,
        last_lba: first + 2047,
    };
    let gpt = |parts: Vec<Partition>| {
        Found::Gpt(Table {
            sector_bytes: 512,
            disk_guid: [1; 16],
            partitions: parts,
        })
    };
    assert_eq!(observe::contents(&Found::Blank), Contents::Blank);
    let ours = observe::contents(&gpt(vec![
        part("liken:machineState", 2048),
        part("liken:clusterState", 4096),
    ]));
    assert_eq!(
        ours,
        Contents::Liken(vec![
            FoundPartition {
                number: 1,
                role: MachineState,
                start_bytes: MIB,
                size_bytes: MIB
            },
            FoundPartition {
                number: 2,
                role: ClusterState,
                start_bytes: 2 * MIB,
                size_bytes: MIB
            },
        ])
    );
    for parts in [
        vec![part("liken:clusterState", 2048), part("EFI System", 4096)],
        vec![part("liken:cluster", 2048)],
        vec![
            part("liken:podStorage", 2048),
            part("liken:podStorage", 4096),
        ],
        vec![],
    ] {
        assert!(
            matches!(observe::contents(&gpt(parts.clone())), Contents::Foreign(_)),
            "{parts:?}"
        );
    }
}
