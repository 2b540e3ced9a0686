//! The storage step against a fake /sys and /dev whose disks are image
//! files: observe, plan, claim, and the next boot (with the disks
//! enumerated the other way round) finding every role by name; a foreign
//! disk stays byte-for-byte; a refused plan claims nothing.

use std::fs::{self, File};
use std::io::Read;
use std::os::unix::fs::symlink;
use std::path::Path;

use liken_documents::machine::{Storage, StorageRole};
use liken_init::storage::disks::{self, Roots};
use liken_init::storage::plan::{Action, Backing, Contents, plan};
use sha2::{Digest, Sha256};

const MIB: u64 = 1 << 20;

/// Add disk `name` of `size` bytes, with a by-id link named `serial`.
fn add_disk(roots: &Roots, name: &str, size: u64, serial: &str) {
    let dir = roots.sys.join("block").join(name);
    fs::create_dir_all(dir.join("queue")).unwrap();
    fs::create_dir_all(dir.join("device")).unwrap();
    fs::write(dir.join("size"), format!("{}\n", size / 512)).unwrap();
    fs::write(dir.join("queue/logical_block_size"), "512\n").unwrap();
    File::create(roots.dev.join(name))
        .unwrap()
        .set_len(size)
        .unwrap();
    let by_id = roots.dev.join("disk/by-id");
    fs::create_dir_all(&by_id).unwrap();
    symlink(
        format!("../../{name}"),
        by_id.join(format!("virtio-{serial}")),
    )
    .unwrap();
}

fn roots(base: &Path) -> Roots {
    let r = Roots {
        sys: base.join("sys"),
        dev: base.join("dev"),
    };
    fs::create_dir_all(r.sys.join("block")).unwrap();
    fs::create_dir_all(&r.dev).unwrap();
    r
}

/// Swap the kernel's names of two disks, as a boot that probes them in the
/// other order does: their images, their sysfs entries, their links.
fn swap(roots: &Roots, a: &str, b: &str) {
    for dir in [roots.sys.join("block"), roots.dev.clone()] {
        fs::rename(dir.join(a), dir.join("swap")).unwrap();
        fs::rename(dir.join(b), dir.join(a)).unwrap();
        fs::rename(dir.join("swap"), dir.join(b)).unwrap();
    }
    let by_id = roots.dev.join("disk/by-id");
    for link in fs::read_dir(&by_id).unwrap() {
        let link = link.unwrap().path();
        let target = fs::read_link(&link).unwrap();
        let t = target.file_name().unwrap().to_str().unwrap();
        let new = if t == a { b } else { a };
        fs::remove_file(&link).unwrap();
        symlink(format!("../../{new}"), &link).unwrap();
    }
}

fn spec() -> Storage {
    serde_json::from_value(serde_json::json!({
        "machineState": { "device": "/dev/disk/by-id/virtio-sys", "size": "16Mi" },
        "clusterState": { "device": "/dev/disk/by-id/virtio-sys" },
        "podStorage": { "device": "/dev/disk/by-id/virtio-data" },
    }))
    .unwrap()
}

fn sha256(path: &Path) -> Vec<u8> {
    let mut b = Vec::new();
    File::open(path).unwrap().read_to_end(&mut b).unwrap();
    Sha256::digest(&b).to_vec()
}

#[test]
fn claims_then_finds_by_name_after_the_disks_trade_places() {
    let tmp = tempfile::tempdir().unwrap();
    let r = roots(tmp.path());
    add_disk(&r, "vda", 64 * MIB, "sys");
    add_disk(&r, "vdb", 128 * MIB, "data");
    // A virtual device with no `device` link is not a disk.
    fs::create_dir_all(r.sys.join("block/loop0")).unwrap();

    let seen = disks::observe(&r).unwrap();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].names, ["/dev/vda", "/dev/disk/by-id/virtio-sys"]);
    assert_eq!(seen[1].size_bytes, 128 * MIB);
    let first = plan(&spec(), &seen);
    let mut n = 0u8;
    disks::claim(&first, &r, || {
        n += 1;
        [n; 16]
    })
    .unwrap();

    swap(&r, "vda", "vdb");
    let seen = disks::observe(&r).unwrap();
    assert_eq!(seen[0].names, ["/dev/vda", "/dev/disk/by-id/virtio-data"]);
    assert!(matches!(seen[0].contents, Contents::Liken(_)));
    let next = plan(&spec(), &seen);
    assert!(
        next.satisfied(),
        "{:?}",
        next.refusals().collect::<Vec<_>>()
    );
    assert!(
        next.disks
            .iter()
            .all(|d| matches!(d.action, Action::Keep(_)))
    );
    let on = |role| match &next.roles[&role] {
        Backing::Partition { device, number, .. } => (device.clone(), *number),
        other => panic!("{other:?}"),
    };
    assert_eq!(on(StorageRole::PodStorage), ("/dev/vda".into(), 1));
    assert_eq!(on(StorageRole::MachineState), ("/dev/vdb".into(), 1));
    assert_eq!(on(StorageRole::ClusterState), ("/dev/vdb".into(), 2));
    // Claiming again changes nothing: nothing is left to claim.
    let before = sha256(&r.dev.join("vda"));
    disks::claim(&next, &r, || [9; 16]).unwrap();
    assert_eq!(sha256(&r.dev.join("vda")), before);
}

#[test]
fn a_refused_plan_claims_nothing_and_foreign_data_stays() {
    let tmp = tempfile::tempdir().unwrap();
    let r = roots(tmp.path());
    add_disk(&r, "vda", 64 * MIB, "sys");
    add_disk(&r, "vdb", 128 * MIB, "data");
    // Someone's ext4 on the data disk.
    let mut bytes = vec![0u8; 4096];
    bytes[0x438..0x43A].copy_from_slice(&[0x53, 0xEF]);
    let data = r.dev.join("vdb");
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = fs::OpenOptions::new().write(true).open(&data).unwrap();
        f.seek(SeekFrom::Start(0)).unwrap();
        f.write_all(&bytes).unwrap();
    }
    let (sys_before, data_before) = (sha256(&r.dev.join("vda")), sha256(&data));

    let p = plan(&spec(), &disks::observe(&r).unwrap());
    assert!(!p.satisfied());
    let err = disks::claim(&p, &r, || [1; 16]).unwrap_err().to_string();
    assert!(
        err.contains("/dev/vdb holds an ext2/3/4 filesystem"),
        "{err}"
    );
    assert_eq!(sha256(&r.dev.join("vda")), sys_before, "the blank disk too");
    assert_eq!(sha256(&data), data_before);
}

#[test]
fn a_disk_that_gained_data_since_it_was_read_is_not_claimed() {
    let tmp = tempfile::tempdir().unwrap();
    let r = roots(tmp.path());
    add_disk(&r, "vda", 64 * MIB, "sys");
    add_disk(&r, "vdb", 64 * MIB, "data");
    let p = plan(&spec(), &disks::observe(&r).unwrap());
    assert!(p.satisfied());
    fs::write(r.dev.join("vda"), b"late").unwrap();
    let err = disks::claim(&p, &r, || [1; 16]).unwrap_err().to_string();
    assert!(err.contains("/dev/vda is no longer blank"), "{err}");
    assert_eq!(fs::read(r.dev.join("vda")).unwrap(), b"late");
}
