//! Laying a new release out in a channel directory.
//!
//! Inputs: the nine build outputs (in [`ARTIFACT_NAMES`] order), the channel
//! directory, the version, the `component=version` pairs and the boot slot
//! size. Each input is copied under its channel name while it is hashed (one
//! pass), into a hidden staging directory; release.yaml, naming every copy
//! by size and sha256, is written last; the directory is then renamed to
//! `<channel>/<version>/` and channel.yaml is pointed at the newest release
//! present. Any refusal or failure leaves the channel as it was.
//!
//! Refused: a version outside the grammar; a version directory that already
//! exists (a version always names the same bytes, so a rebuilt release
//! takes the next serial); a slot payload that does not fit the slot; a
//! component pair that is not `name=version`, or a name given twice; an
//! input that is not a regular file.
//!
//! The slot payload is what a machine writes into its inactive boot slot
//! to boot the release: vmlinuz, liken.sqfs, boot.cpio and microcode.cpio
//! ([`SLOT_ARTIFACTS`]). The boot loaders are installed once outside the
//! slots, and the toolkit and license notices are never booted. The slot
//! must also keep [`headroom`] free: room for the filesystem's own metadata
//! and journal, the boot loader entry and environment written beside the
//! payload, and the temporary name an upgrade downloads under before its
//! rename; one sixteenth of the slot, and never less than 32 MiB.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use liken_api::Version;
use liken_api::version::VersionError;
use liken_documents::canonical;
use liken_documents::quantity;
use liken_documents::release::{Artifact, Component, Release, safe_file_name};
use sha2::{Digest, Sha256};

use crate::atomic::{self, AtomicFile, StagingDir, StagingError};
use crate::download::hex;
use crate::layout::{self, RELEASE_FILE};

/// The channel names of the nine inputs, in command-line order.
pub const ARTIFACT_NAMES: [&str; 9] = [
    "vmlinuz",
    "liken.sqfs",
    "boot.cpio",
    "microcode.cpio",
    "liken",
    "systemd-bootx64.efi",
    "grub-boot.img",
    "grub-core.img",
    "LICENSES.md",
];

/// The artifacts a boot slot holds.
pub const SLOT_ARTIFACTS: [&str; 4] = ["vmlinuz", "liken.sqfs", "boot.cpio", "microcode.cpio"];

/// The slot size `liken bundle` checks against unless told otherwise.
pub const DEFAULT_SLOT_SIZE: u64 = 1 << 30;

/// Reads a `-slot-size`: bytes, or a whole number of Ki/Mi/Gi/Ti.
pub fn parse_size(q: &str) -> Option<u64> {
    quantity::bytes(q)
}

/// Writes a size back the way [`parse_size`] reads it.
pub fn format_size(bytes: u64) -> String {
    quantity::format(bytes)
}

/// The part of a slot of `slot_size` bytes the payload may not use.
pub fn headroom(slot_size: u64) -> u64 {
    (slot_size / 16).max(32 << 20)
}

/// One `liken bundle`.
#[derive(Clone, Debug)]
pub struct BundleRequest {
    /// The nine inputs, in [`ARTIFACT_NAMES`] order.
    pub inputs: [PathBuf; 9],
    pub channel_dir: PathBuf,
    pub version: String,
    /// `name=version` pairs as given.
    pub components: Vec<String>,
    pub slot_size: u64,
}

/// What was bundled.
#[derive(Clone, Debug)]
pub struct Bundled {
    pub version: Version,
    pub dir: PathBuf,
    /// `sha256:<hex>` of the release.yaml written: the catalog entry's digest.
    pub digest: String,
    pub release: Release,
    pub slot_payload: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("{0}")]
    Version(#[from] VersionError),
    #[error(
        "{path} already exists: a version always names the same bytes, so bundle the new \
         build as the next serial"
    )]
    Exists { path: PathBuf },
    #[error(
        "the slot payload (vmlinuz, liken.sqfs, boot.cpio, microcode.cpio) is {payload} bytes; \
         with {headroom} bytes of headroom it does not fit a {slot} byte slot ({slot_q}); \
         shrink the image or pass a larger -slot-size"
    )]
    SlotTooSmall {
        payload: u64,
        headroom: u64,
        slot: u64,
        slot_q: String,
    },
    #[error("component {arg:?} is not name=version (for example k3s=v1.35.4+k3s1)")]
    Component { arg: String },
    #[error("component {name:?} is given twice")]
    DuplicateComponent { name: String },
    #[error("{path} is not a regular file (input for {name})")]
    NotAFile { path: PathBuf, name: &'static str },
    #[error("{0}")]
    Staging(#[from] StagingError),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> BundleError + '_ {
    move |source| BundleError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Parses `name=version` pairs. Both halves become path components of the
/// source mirror (`sources/<name>/<version>/`), so both must be plain names.
pub fn parse_components(args: &[String]) -> Result<Vec<Component>, BundleError> {
    let mut out: Vec<Component> = Vec::new();
    for arg in args {
        let bad = || BundleError::Component { arg: arg.clone() };
        let (name, version) = arg.split_once('=').ok_or_else(bad)?;
        let plain =
            |s: &str| safe_file_name(s) && !s.contains('=') && !s.contains(char::is_whitespace);
        if !plain(name) || !plain(version) {
            return Err(bad());
        }
        if out.iter().any(|c| c.name == name) {
            return Err(BundleError::DuplicateComponent {
                name: name.to_owned(),
            });
        }
        out.push(Component {
            name: name.to_owned(),
            version: version.to_owned(),
        });
    }
    Ok(out)
}

/// Copies `from` to `dest` atomically, hashing on the way.
fn copy_hashed(from: &Path, dest: &Path, name: &str) -> Result<Artifact, BundleError> {
    let mut input = File::open(from).map_err(io_err(from))?;
    let mut out = AtomicFile::create(dest).map_err(io_err(dest))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut size = 0u64;
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_err(from)(e)),
        };
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n]).map_err(io_err(dest))?;
        size += n as u64;
    }
    out.commit().map_err(io_err(dest))?;
    Ok(Artifact {
        name: name.to_owned(),
        sha256: hex(&hasher.finalize()),
        size,
    })
}

/// Bundles one release; see the module documentation.
pub fn bundle(request: &BundleRequest) -> Result<Bundled, BundleError> {
    let version = Version::parse(&request.version)?;
    let components = parse_components(&request.components)?;
    let dest = request.channel_dir.join(version.as_str());
    if dest.exists() {
        return Err(BundleError::Exists { path: dest });
    }

    let mut payload = 0u64;
    for (path, name) in request.inputs.iter().zip(ARTIFACT_NAMES) {
        let meta = fs::metadata(path).map_err(io_err(path))?;
        if !meta.is_file() {
            return Err(BundleError::NotAFile {
                path: path.clone(),
                name,
            });
        }
        if SLOT_ARTIFACTS.contains(&name) {
            payload += meta.len();
        }
    }
    let room = headroom(request.slot_size);
    if payload.saturating_add(room) > request.slot_size {
        return Err(BundleError::SlotTooSmall {
            payload,
            headroom: room,
            slot: request.slot_size,
            slot_q: quantity::format(request.slot_size),
        });
    }

    fs::create_dir_all(&request.channel_dir).map_err(io_err(&request.channel_dir))?;
    let staging = StagingDir::create(&dest)?;
    let mut artifacts = Vec::with_capacity(ARTIFACT_NAMES.len());
    let mut copied_payload = 0u64;
    for (path, name) in request.inputs.iter().zip(ARTIFACT_NAMES) {
        let artifact = copy_hashed(path, &staging.path().join(name), name)?;
        if SLOT_ARTIFACTS.contains(&name) {
            copied_payload += artifact.size;
        }
        artifacts.push(artifact);
    }
    // An input that grew while it was copied is judged by what was copied.
    if copied_payload.saturating_add(room) > request.slot_size {
        return Err(BundleError::SlotTooSmall {
            payload: copied_payload,
            headroom: room,
            slot: request.slot_size,
            slot_q: quantity::format(request.slot_size),
        });
    }
    let release = Release::new(&version, artifacts, components);
    let yaml = release.to_yaml();
    let doc = staging.path().join(RELEASE_FILE);
    atomic::write(&doc, yaml.as_bytes()).map_err(io_err(&doc))?;
    staging.commit().map_err(io_err(&dest))?;
    layout::refresh_channel(&request.channel_dir).map_err(io_err(&request.channel_dir))?;
    Ok(Bundled {
        version,
        dir: dest,
        digest: canonical::sha256(yaml.as_bytes()),
        release,
        slot_payload: copied_payload,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headroom_is_a_sixteenth_but_at_least_32_mib() {
        assert_eq!(headroom(1 << 30), 64 << 20);
        assert_eq!(headroom(256 << 20), 32 << 20);
        assert_eq!(headroom(0), 32 << 20);
    }

    #[test]
    fn component_pairs() {
        let ok = parse_components(&["linux=6.12.41".into(), "k3s=v1.35.4+k3s1".into()]).unwrap();
        assert_eq!(ok[1].name, "k3s");
        assert_eq!(ok[1].version, "v1.35.4+k3s1");
        for bad in [
            "k3s", "=1", "k3s=", "k3s=1 2", "a/b=1", "k3s=../1", "x==", ".x=1",
        ] {
            let err = parse_components(&[bad.into()]).unwrap_err();
            assert!(matches!(err, BundleError::Component { .. }), "{bad}: {err}");
        }
        let err = parse_components(&["a=1".into(), "a=2".into()]).unwrap_err();
        assert!(err.to_string().contains("twice"), "{err}");
    }
}
