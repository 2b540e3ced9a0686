//! `liken media`, run on a bundled release and a real deployment layer and
//! read back with GNU cpio: the three archives in order (boot.cpio, the
//! squashfs at /liken/liken.sqfs, the deployment), on four-byte boundaries
//! with zero padding as the kernel's unpacker expects, the same bytes on
//! every run, and refusals that write nothing.

mod toolkit_support;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use toolkit_support::*;

const VERSION: &str = "2026.07.20-001";

/// A newc archive GNU cpio writes (padded to 512-byte blocks, as the
/// image build's boot.cpio may be) of `files` made under `dir`.
fn gnu_cpio(dir: &Path, files: &[(&str, &[u8])]) -> Vec<u8> {
    fs::create_dir_all(dir).unwrap();
    for (name, bytes) in files {
        let p = dir.join(name);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
    }
    let mut child = Command::new("cpio")
        .args(["-o", "-H", "newc", "--quiet"])
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cpio is installed");
    let list: String = files.iter().map(|(n, _)| format!("{n}\n")).collect();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(list.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    out.stdout
}

/// A release directory as `liken bundle` lays it out, with a real
/// boot.cpio; returns it and the boot.cpio bytes.
fn release(w: &Path) -> (PathBuf, Vec<u8>) {
    let boot = gnu_cpio(&w.join("bootroot"), &[("init", b"#!liken\n")]);
    let mut inputs = Vec::new();
    for (i, name) in [
        "vmlinuz",
        "liken.sqfs",
        "boot.cpio",
        "microcode.cpio",
        "liken",
        "efi",
        "gb",
        "gc",
        "lic",
    ]
    .iter()
    .enumerate()
    {
        let path = w.join("in").join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let bytes = match *name {
            "boot.cpio" => boot.clone(),
            // An odd length, so the archive after it needs padding.
            "liken.sqfs" => b"hsqs-stand-in".repeat(77),
            _ => vec![i as u8 + 1; 300 + i],
        };
        fs::write(&path, bytes).unwrap();
        inputs.push(path.to_str().unwrap().to_owned());
    }
    let channel = w.join("channel");
    let mut args: Vec<&str> = vec!["bundle"];
    args.extend(inputs.iter().map(String::as_str));
    args.extend([channel.to_str().unwrap(), VERSION]);
    success(&run(&args));
    (channel.join(VERSION), boot)
}

fn layer(w: &Path) -> PathBuf {
    let dir = deployment(w, "home", &["big"], None);
    let out = w.join("layer.cpio");
    success(&run(&[
        "layer",
        dir.to_str().unwrap(),
        dir.join("identity").to_str().unwrap(),
        out.to_str().unwrap(),
    ]));
    out
}

fn media(release: &Path, layer: &Path, out: &Path) -> std::process::Output {
    run(&[
        "media",
        release.to_str().unwrap(),
        layer.to_str().unwrap(),
        out.to_str().unwrap(),
    ])
}

/// GNU cpio stops at an archive's trailer, so each archive is unpacked on
/// its own, in order, into `into`; returns the listings.
fn unpack(segment: &[u8], into: &Path) -> Vec<String> {
    let mut child = Command::new("cpio")
        .args(["-idv", "--quiet"])
        .current_dir(into)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(segment).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stderr).lines().map(str::to_owned).collect()
}

#[test]
fn the_initramfs_is_boot_then_image_then_deployment() {
    let tmp = tempfile::tempdir().unwrap();
    let w = tmp.path();
    let (release, boot) = release(w);
    let layer = layer(w);
    let out = w.join("media.cpio");
    let said = success(&media(&release, &layer, &out));
    assert!(said.contains("/liken/liken.sqfs"), "{said}");

    let bytes = fs::read(&out).unwrap();
    let deployment = fs::read(&layer).unwrap();
    assert!(bytes.starts_with(&boot));
    assert!(bytes.ends_with(&deployment));
    let image_start = boot.len().div_ceil(4) * 4;
    let layer_start = bytes.len() - deployment.len();
    assert_eq!(layer_start % 4, 0, "each archive starts on four bytes");
    let image = &bytes[image_start..layer_start];
    let trailer = image.windows(10).rposition(|x| x == b"TRAILER!!!").unwrap();
    assert!(
        image[trailer + 10..].iter().all(|&b| b == 0),
        "only zeros between archives"
    );

    let root = w.join("root");
    fs::create_dir(&root).unwrap();
    let mut listed = unpack(&bytes[..boot.len()], &root);
    listed.extend(unpack(image, &root));
    listed.extend(unpack(&bytes[layer_start..], &root));
    let pos = |p: &str| listed.iter().position(|l| l == p);
    let (init, sqfs, cluster) = (
        pos("init").unwrap(),
        pos("liken/liken.sqfs").unwrap(),
        pos("etc/liken/deployment/cluster.yaml").unwrap(),
    );
    assert!(init < sqfs && sqfs < cluster, "{listed:?}");
    assert!(pos("etc/liken/deployment/machines/big.yaml").is_some());
    assert_eq!(
        fs::read(root.join("liken/liken.sqfs")).unwrap(),
        fs::read(release.join("liken.sqfs")).unwrap()
    );
    assert_eq!(fs::read(root.join("init")).unwrap(), b"#!liken\n");

    let again = w.join("again.cpio");
    success(&media(&release, &layer, &again));
    assert_eq!(fs::read(&again).unwrap(), bytes, "the same bytes every run");
}

#[test]
fn refusals_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let w = tmp.path();
    let (release, _) = release(w);
    let layer = layer(w);
    let out = w.join("media.cpio");

    let not_cpio = w.join("not.cpio");
    fs::write(&not_cpio, b"cluster.yaml\n").unwrap();
    let err = failure(&media(&release, &not_cpio, &out), 1);
    assert!(
        err.contains("not a newc cpio archive") && err.contains("liken layer"),
        "{err}"
    );

    let sneaky = w.join("sneaky.cpio");
    fs::write(&sneaky, gnu_cpio(&w.join("sneak"), &[("init", b"evil")])).unwrap();
    let err = failure(&media(&release, &sneaky, &out), 1);
    assert!(
        err.contains("\"init\"") && err.contains("replace the image"),
        "{err}"
    );

    let err = failure(&media(&w.join("nowhere"), &layer, &out), 1);
    assert!(err.contains("release.yaml"), "{err}");

    // A squashfs changed after the release was made, at the same size.
    let sqfs = release.join("liken.sqfs");
    let mut bytes = fs::read(&sqfs).unwrap();
    bytes[0] ^= 1;
    fs::write(&sqfs, &bytes).unwrap();
    let err = failure(&media(&release, &layer, &out), 1);
    assert!(err.contains("liken.sqfs does not match"), "{err}");
    assert!(err.contains("liken fetch"), "{err}");
    bytes[0] ^= 1;
    fs::write(&sqfs, &bytes).unwrap();

    // Any other artifact is checked too.
    fs::write(release.join("vmlinuz"), b"short").unwrap();
    let err = failure(&media(&release, &layer, &out), 1);
    assert!(err.contains("vmlinuz does not match"), "{err}");

    assert!(!out.exists(), "nothing was written");
    let names: Vec<_> = fs::read_dir(w)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        !names.iter().any(|n| n.to_string_lossy().contains("media")),
        "no temporary left: {names:?}"
    );
}
