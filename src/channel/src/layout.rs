//! The shape of a channel directory on disk, and channel.yaml's one rule.
//!
//! A channel holds `channel.yaml` and one directory per release, named by
//! its version and holding `release.yaml` and the artifacts. A directory
//! counts as a release only when its name is a valid version and it holds
//! a `release.yaml`; hidden entries (temporary files, `.<version>.partial`
//! staging directories) are never releases. channel.yaml names the newest
//! release present, and is rewritten atomically only when that changes.

use std::fs;
use std::io;
use std::path::Path;

use liken_api::Version;
use liken_documents::Channel;

use crate::atomic;

pub const CHANNEL_FILE: &str = "channel.yaml";
pub const VERSIONS_FILE: &str = "versions.yaml";
pub const RELEASE_FILE: &str = "release.yaml";
pub const NOTES_FILE: &str = "notes.md";
pub const INDEX_FILE: &str = "index.html";
pub const SOURCES_DIR: &str = "sources";

/// The releases present in `channel_dir`, oldest first. A missing channel
/// directory holds none.
pub fn releases_present(channel_dir: &Path) -> io::Result<Vec<Version>> {
    let entries = match fs::read_dir(channel_dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry?;
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        let Ok(version) = Version::parse(&name) else {
            continue;
        };
        if entry.path().join(RELEASE_FILE).is_file() {
            found.push(version);
        }
    }
    found.sort();
    Ok(found)
}

/// Rewrites `channel_dir/channel.yaml` to name the newest release present,
/// unless it already does. Returns that version (None: no release, and
/// channel.yaml is left as it is).
pub fn refresh_channel(channel_dir: &Path) -> io::Result<Option<Version>> {
    let Some(newest) = releases_present(channel_dir)?.pop() else {
        return Ok(None);
    };
    let path = channel_dir.join(CHANNEL_FILE);
    let current = fs::read(&path)
        .ok()
        .and_then(|b| Channel::from_yaml(CHANNEL_FILE, &b).ok());
    if current.is_none_or(|c| c.latest != newest) {
        atomic::write(&path, Channel::new(newest.clone()).to_yaml().as_bytes())?;
    }
    Ok(Some(newest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_release_with_a_document_wins() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert_eq!(refresh_channel(d).unwrap(), None);
        assert!(!d.join(CHANNEL_FILE).exists());
        for v in ["2026.07.20-001", "2026.07.21-001"] {
            fs::create_dir(d.join(v)).unwrap();
            fs::write(d.join(v).join(RELEASE_FILE), b"x").unwrap();
        }
        // Not releases: no document, a bad name, a staging directory.
        fs::create_dir(d.join("2026.08.01-001")).unwrap();
        fs::create_dir(d.join("2026.02.30-001")).unwrap();
        fs::write(d.join("2026.02.30-001").join(RELEASE_FILE), b"x").unwrap();
        fs::create_dir(d.join(".2026.09.01-001.partial")).unwrap();
        fs::write(d.join(".2026.09.01-001.partial").join(RELEASE_FILE), b"x").unwrap();

        assert_eq!(
            refresh_channel(d).unwrap().unwrap().as_str(),
            "2026.07.21-001"
        );
        let doc = Channel::from_yaml("c", &fs::read(d.join(CHANNEL_FILE)).unwrap()).unwrap();
        assert_eq!(doc.latest.as_str(), "2026.07.21-001");
    }
}
