//! The storage plan written as a GPT onto disk images and read back by the
//! standard tools (sfdisk, sgdisk; both read an image file as 512-byte
//! sectors, so 4096-byte disks are covered by liken-formats' own round trip),
//! and disks of foreign data classified as
//! such and left byte-for-byte as they were.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use liken_documents::machine::Storage;
use liken_formats::gpt::{self, Found};
use liken_init::storage::observe;
use liken_init::storage::plan::{Action, Contents, ObservedDisk, Plan, plan};
use sha2::{Digest, Sha256};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

fn spec(json: serde_json::Value) -> Storage {
    serde_json::from_value(json).unwrap()
}

fn sparse(path: &Path, size: u64) {
    File::create(path).unwrap().set_len(size).unwrap();
}

/// Observe the images as a boot would: read each table, classify it.
fn observe_all(images: &[(&str, &Path, u64)]) -> Vec<ObservedDisk> {
    images
        .iter()
        .map(|(name, path, ss)| {
            let mut f = File::open(path).unwrap();
            let found = gpt::read(&mut f, *ss).unwrap();
            ObservedDisk {
                names: vec![(*name).to_owned()],
                size_bytes: f.metadata().unwrap().len(),
                logical_sector_bytes: *ss,
                contents: observe::contents(&found),
            }
        })
        .collect()
}

/// The smallest executor: write each claimed disk's table, only when the
/// whole plan is satisfied.
fn apply(p: &Plan, images: &[(&str, &Path, u64)]) {
    assert!(p.satisfied(), "{:?}", p.refusals().collect::<Vec<_>>());
    for (d, (_, path, _)) in p.disks.iter().zip(images) {
        if let Action::Claim(layout) = &d.action {
            let mut f = OpenOptions::new()
                .read(true)
                .write(true)
                .open(path)
                .unwrap();
            gpt::write(&mut f, &observe::table(layout, [0x5A; 16])).unwrap();
        }
    }
}

fn tool(cmd: &str, args: &[&str], path: &Path) -> String {
    let out = Command::new(cmd)
        .args(args)
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("{cmd} is installed (gdisk, fdisk): {e}"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

fn sha256(path: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    File::open(path).unwrap().read_to_end(&mut bytes).unwrap();
    Sha256::digest(&bytes).to_vec()
}

/// sfdisk's view of a table: (name, start sector, sectors, type GUID).
fn sfdisk_json(path: &Path) -> Vec<(String, u64, u64, String)> {
    let text = tool("sfdisk", &["--json"], path);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let t = &v["partitiontable"];
    assert_eq!(t["label"], "gpt");
    assert_eq!(t["sectorsize"], 512);
    t["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_owned(),
                p["start"].as_u64().unwrap(),
                p["size"].as_u64().unwrap(),
                p["type"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn the_standard_tools_read_a_claimed_layout() {
    let tmp = tempfile::tempdir().unwrap();
    let img = tmp.path().join("vda.img");
    sparse(&img, 8 * GIB);
    let s = spec(serde_json::json!({
        "biosBoot": { "device": "/dev/vda", "size": "1Mi" },
        "bootHome": { "device": "/dev/vda", "size": "64Mi" },
        "systemA": { "device": "/dev/vda", "size": "1Gi" },
        "systemB": { "device": "/dev/vda", "size": "1Gi" },
        "machineState": { "device": "/dev/vda", "size": "1536Ki" },
        "clusterState": { "device": "/dev/vda" },
        "podStorage": { "device": "/dev/vda", "size": "2Gi" },
    }));
    let images = [("/dev/vda", img.as_path(), 512)];
    let p = plan(&s, &observe_all(&images));
    apply(&p, &images);

    let verify = tool("sgdisk", &["-v"], &img);
    assert!(verify.contains("No problems found"), "{verify}");
    tool("sfdisk", &["--verify"], &img);
    let print = tool("sgdisk", &["-p"], &img);
    assert!(
        print.contains("liken:biosBoot") && print.contains(" EF02 "),
        "{print}"
    );
    assert!(print.contains(" EF00  liken:systemA"), "{print}");

    let parts = sfdisk_json(&img);
    let names: Vec<&str> = parts.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "liken:biosBoot",
            "liken:bootHome",
            "liken:systemA",
            "liken:systemB",
            "liken:machineState",
            "liken:clusterState",
            "liken:podStorage"
        ]
    );
    let sizes: Vec<u64> = parts.iter().map(|p| p.2 * 512).collect();
    assert_eq!(&sizes[..5], [MIB, 64 * MIB, GIB, GIB, 1536 * 1024]);
    assert_eq!(sizes[6], 2 * GIB);
    for (name, start, _, _) in &parts {
        assert_eq!(start * 512 % MIB, 0, "{name} starts on a MiB");
    }
    let (_, last_start, last_size, _) = parts[6];
    assert!((last_start + last_size) * 512 <= 8 * GIB - 33 * 512);
    assert!(
        8 * GIB - 33 * 512 - (last_start + last_size) * 512 < MIB,
        "the rest was taken"
    );
    assert_eq!(parts[0].3, gpt::BIOS_BOOT);
    assert_eq!(parts[2].3, gpt::EFI_SYSTEM);
    assert_eq!(parts[5].3, gpt::LIKEN_DATA);

    // The next boot reads the same disk back as liken's, every role found.
    let again = plan(&s, &observe_all(&images));
    assert!(again.satisfied());
    match &again.disks[0].action {
        Action::Keep(found) => assert_eq!(found.len(), 7),
        other => panic!("{other:?}"),
    }
}

#[test]
fn disks_other_tools_wrote_are_foreign_and_left_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let scripts = [
        ("label: dos\n,32M,L\n", "an MBR partition table"),
        (
            "label: gpt\n\nsize=32M, type=L, name=\"Linux filesystem\"\n",
            "a partition named \"Linux filesystem\"",
        ),
    ];
    for (script, want) in scripts {
        let foreign = tmp.path().join("foreign.img");
        let blank = tmp.path().join("blank.img");
        sparse(&foreign, 64 * MIB);
        sparse(&blank, 64 * MIB);
        let mut child = Command::new("sfdisk")
            .arg("--quiet")
            .arg(&foreign)
            .stdin(Stdio::piped())
            .spawn()
            .expect("sfdisk is installed (fdisk)");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success());
        let before = sha256(&foreign);

        let images = [
            ("/dev/vda", foreign.as_path(), 512),
            ("/dev/vdb", blank.as_path(), 512),
        ];
        let disks = observe_all(&images);
        match &disks[0].contents {
            Contents::Foreign(what) => assert!(what.contains(want), "{what}"),
            other => panic!("{script}: {other:?}"),
        }

        // Named by the spec: refused, and nothing is claimed anywhere.
        let s = spec(serde_json::json!({
            "clusterState": { "device": "/dev/vda" },
            "podStorage": { "device": "/dev/vdb" },
        }));
        let p = plan(&s, &disks);
        assert!(!p.satisfied());
        assert!(
            p.refusals()
                .any(|r| r.contains("/dev/vda") && r.contains("never touched"))
        );

        // Named by nobody: the blank disk is claimed, the foreign one left.
        let s = spec(serde_json::json!({ "podStorage": { "device": "/dev/vdb" } }));
        let p = plan(&s, &disks);
        assert_eq!(p.disks[0].action, Action::Leave);
        apply(&p, &images);
        assert_eq!(sha256(&foreign), before, "byte-for-byte unchanged");
        assert!(matches!(
            gpt::read(&mut File::open(&blank).unwrap(), 512).unwrap(),
            Found::Gpt(_)
        ));
    }
}
