//! The GPT reader on a table sfdisk wrote, and the writer's
//! tables checked by them: names, sector ranges and types agree both ways,
//! and reading never changes a byte.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use liken_formats::gpt::{self, Found, Partition, Table};

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

fn bytes(path: &Path) -> Vec<u8> {
    let mut b = Vec::new();
    File::open(path).unwrap().read_to_end(&mut b).unwrap();
    b
}

#[test]
fn reads_what_sfdisk_wrote() {
    let tmp = tempfile::tempdir().unwrap();
    let img = tmp.path().join("disk.img");
    File::create(&img).unwrap().set_len(64 << 20).unwrap();
    // sgdisk's -c stops a name at its first colon, so sfdisk writes it.
    let script = format!(
        "label: gpt\n\nstart=2048, size=2048, type={}, name=\"liken:biosBoot\"\nstart=4096, size=16384, type={}, name=\"liken:systemA\"\n",
        gpt::BIOS_BOOT,
        gpt::EFI_SYSTEM
    );
    let mut child = Command::new("sfdisk")
        .arg("--quiet")
        .arg(&img)
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
    let before = bytes(&img);
    let Found::Gpt(t) = gpt::read(&mut File::open(&img).unwrap(), 512).unwrap() else {
        panic!("a GPT");
    };
    assert_eq!(bytes(&img), before, "reading changes nothing");
    let seen: Vec<(&str, u64, u64, String)> = t
        .partitions
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.first_lba,
                p.last_lba,
                gpt::guid_text(&p.type_guid),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("liken:biosBoot", 2048, 4095, gpt::BIOS_BOOT.to_owned()),
            ("liken:systemA", 4096, 20479, gpt::EFI_SYSTEM.to_owned()),
        ]
    );
}

#[test]
fn sgdisk_and_sfdisk_accept_what_it_wrote() {
    let tmp = tempfile::tempdir().unwrap();
    let img = tmp.path().join("disk.img");
    File::create(&img).unwrap().set_len(64 << 20).unwrap();
    let table = Table {
        sector_bytes: 512,
        disk_guid: gpt::guid("0F6B3B61-6C9F-4C0E-9A43-1B2B8E8C0D01").unwrap(),
        partitions: vec![Partition {
            name: "liken:podEphemeral".into(),
            type_guid: gpt::guid(gpt::LIKEN_DATA).unwrap(),
            unique_guid: gpt::guid("0F6B3B61-6C9F-4C0E-9A43-1B2B8E8C0D02").unwrap(),
            first_lba: 2048,
            last_lba: (63 << 11) - 1,
        }],
    };
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&img)
        .unwrap();
    gpt::write(&mut f, &table).unwrap();
    drop(f);
    assert!(tool("sgdisk", &["-v"], &img).contains("No problems found"));
    let info = tool("sgdisk", &["-i", "1"], &img);
    assert!(
        info.contains(&format!("Partition GUID code: {}", gpt::LIKEN_DATA)),
        "{info}"
    );
    assert!(
        info.contains("Partition name: 'liken:podEphemeral'"),
        "{info}"
    );
    assert!(info.contains("First sector: 2048"), "{info}");
    let p = tool("sgdisk", &["-p"], &img);
    assert!(p.contains("0F6B3B61-6C9F-4C0E-9A43-1B2B8E8C0D01"), "{p}");
    tool("sfdisk", &["--verify"], &img);
}
