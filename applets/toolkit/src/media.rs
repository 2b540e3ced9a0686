//! `liken media <release-dir> <deployment.cpio> <output.cpio>`: the
//! direct-kernel-boot initramfs, for QEMU (`-kernel vmlinuz -initrd`) and
//! PXE.
//!
//! What it reads: the release directory's `release.yaml` (strictly parsed)
//! and every artifact it names, each checked by size and sha256 before
//! anything is written: `boot.cpio` and `liken.sqfs`, which go into the
//! output, are hashed from the very bytes that go in, so a file that changes
//! during the run cannot slip through; the others through
//! `liken_channel::verify_file`. The deployment layer must be a newc cpio
//! (as `liken layer` writes it) whose every entry is under
//! `etc/liken/deployment/` or one of its parent directories: the kernel
//! unpacks the archives in order and a later one replaces an earlier one's
//! files, so a layer holding anything else could replace the image's own.
//!
//! What it writes: three newc archives concatenated, each starting on a
//! four-byte boundary (the kernel skips the zero padding between archives):
//! the release's `boot.cpio` as it is; an archive holding the release's
//! squashfs at [`SQUASHFS_PATH`] (0444, in a 0755 `liken/`), where init
//! finds the image on a boot from media; and the deployment layer as it is.
//! The same inputs give the same bytes. The output is written atomically,
//! so a refused or failed run leaves any earlier output as it was.
//!
//! It holds boot.cpio and the squashfs in memory while it builds the
//! output: a workstation tool, run on images of a few hundred MiB.

use std::ffi::OsString;
use std::fs;
use std::path::Path;

use liken_documents::canonical;
use liken_documents::release::Release;
use liken_formats::cpio::{self, Archive};

use crate::Error;
use crate::cli;

/// Where the squashfs sits in the initramfs, without the leading slash.
pub const SQUASHFS_PATH: &str = "liken/liken.sqfs";

/// The only tree a deployment layer may write into.
const DEPLOYMENT_DIR: &str = "etc/liken/deployment";

/// `liken media`.
pub fn run(args: &[OsString]) -> Result<(), Error> {
    let (_, [release_dir, deployment, output]) = cli::parse_exact::<3>("media", args, &[])?;
    let bytes = build(&release_dir, &deployment)?;
    liken_sys::atomic::write_mode(&output, &bytes, 0o644)
        .map_err(|e| cli::failed(format!("writing {}: {e}", output.display())))?;
    println!(
        "wrote {} ({} bytes): boot.cpio, liken.sqfs at /{SQUASHFS_PATH}, and the deployment layer {}",
        output.display(),
        bytes.len(),
        deployment.display()
    );
    Ok(())
}

/// The initramfs bytes, after every check.
pub fn build(release_dir: &Path, deployment: &Path) -> Result<Vec<u8>, Error> {
    let release = read_release(release_dir)?;
    let boot = verified(release_dir, &release, "boot.cpio")?;
    let squashfs = verified(release_dir, &release, "liken.sqfs")?;
    for artifact in &release.artifacts {
        if artifact.name == "boot.cpio" || artifact.name == "liken.sqfs" {
            continue;
        }
        let path = release_dir.join(&artifact.name);
        let ok = liken_channel::verify_file(&path, artifact)
            .map_err(|e| cli::failed(format!("reading {}: {e}", path.display())))?;
        if !ok {
            return Err(mismatch(&path));
        }
    }
    let layer = read_layer(deployment)?;

    let mut image = Archive::new();
    image
        .file(SQUASHFS_PATH, 0o444, squashfs)
        .map_err(|e| cli::failed(format!("{}: {e}", release_dir.join("liken.sqfs").display())))?;
    let mut out = boot;
    for part in [image.to_bytes(), layer] {
        out.resize(out.len().div_ceil(4) * 4, 0);
        out.extend_from_slice(&part);
    }
    Ok(out)
}

fn read_release(dir: &Path) -> Result<Release, Error> {
    let path = dir.join("release.yaml");
    let bytes = fs::read(&path).map_err(|e| {
        cli::failed(format!(
            "reading {}: {e}; give a release directory, as `liken fetch` or `liken bundle` lays it out",
            path.display()
        ))
    })?;
    Release::from_yaml(&path.display().to_string(), &bytes).map_err(cli::failed)
}

/// The bytes of `name`, checked against the release's record of it (the
/// record holds bare hex; `canonical::sha256` prefixes `sha256:`).
fn verified(dir: &Path, release: &Release, name: &str) -> Result<Vec<u8>, Error> {
    let path = dir.join(name);
    let artifact = release.artifact(name).ok_or_else(|| {
        cli::failed(format!(
            "{} names no {name}; this release cannot boot, so take a complete release",
            dir.join("release.yaml").display()
        ))
    })?;
    let bytes =
        fs::read(&path).map_err(|e| cli::failed(format!("reading {}: {e}", path.display())))?;
    if bytes.len() as u64 != artifact.size
        || canonical::sha256(&bytes).strip_prefix("sha256:") != Some(artifact.sha256.as_str())
    {
        return Err(mismatch(&path));
    }
    Ok(bytes)
}

fn mismatch(path: &Path) -> Error {
    cli::failed(format!(
        "{} does not match its size or sha256 in release.yaml; nothing was written: fetch the release again with `liken fetch`",
        path.display()
    ))
}

/// The deployment layer's bytes, once they read as a layer.
fn read_layer(path: &Path) -> Result<Vec<u8>, Error> {
    let bytes =
        fs::read(path).map_err(|e| cli::failed(format!("reading {}: {e}", path.display())))?;
    let entries = cpio::read(&bytes).map_err(|e| {
        cli::failed(format!(
            "{}: {e}; make the deployment layer with `liken layer`",
            path.display()
        ))
    })?;
    if entries.is_empty() {
        return Err(cli::failed(format!(
            "{} is an empty archive; make the deployment layer with `liken layer`",
            path.display()
        )));
    }
    for entry in &entries {
        let p = entry.path.as_str();
        let inside = p == DEPLOYMENT_DIR || p.starts_with(&format!("{DEPLOYMENT_DIR}/"));
        let parent = DEPLOYMENT_DIR.starts_with(p)
            && DEPLOYMENT_DIR.as_bytes().get(p.len()) == Some(&b'/')
            && matches!(entry.kind, cpio::Kind::Directory);
        if !(inside || parent) {
            return Err(cli::failed(format!(
                "{} holds {p:?}, outside {DEPLOYMENT_DIR}/, where it would replace the image's own files; make the deployment layer with `liken layer`",
                path.display()
            )));
        }
    }
    Ok(bytes)
}
