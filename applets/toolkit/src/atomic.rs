//! Writing one file so that it appears whole or not at all: the bytes go to
//! a hidden temporary file beside the destination, created with the final
//! permissions (so a credential is never readable by others, not even for a
//! moment), are fsynced, renamed over the destination, and the directory is
//! fsynced so the rename survives a power cut. On an error the temporary
//! file is removed and the destination is untouched.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Writes `bytes` to `dest` with exactly `mode`.
pub fn write_file(dest: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let name = dest.file_name().ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, "the destination names no file")
    })?;
    let dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = dir.join(tmp_name);
    let _ = fs::remove_file(&tmp);
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)?;
        // The umask may have taken bits away; the mode is part of the contract.
        f.set_permissions(fs::Permissions::from_mode(mode))?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, dest)?;
        File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_with_the_mode_and_leaves_nothing_beside() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("kubeconfig");
        std::fs::write(&dest, "old").unwrap();
        write_file(&dest, b"new", 0o600).unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"new");
        let mode = std::fs::metadata(&dest).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let names: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_missing_directory_fails_and_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("no/such/file");
        assert!(write_file(&dest, b"x", 0o644).is_err());
        assert!(!dest.exists());
    }
}
