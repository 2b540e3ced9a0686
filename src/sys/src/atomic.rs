//! Atomic writes: a file or a whole directory appears under its final name
//! complete, or not at all.
//!
//! [`AtomicFile`] writes to a hidden temporary name in the destination's own
//! directory (so the rename never crosses a filesystem), and on
//! [`AtomicFile::commit`] fsyncs the file, renames it over the destination
//! and fsyncs the directory, so the rename itself survives a power cut.
//! [`StagingDir`] does the same for a directory: a release is assembled in
//! `.<name>.partial` and renamed into place when every file in it is there.
//!
//! Dropping either without committing removes what it wrote, so an error
//! path (`?`) never leaves a half-written file behind. A process killed
//! outright can leave a hidden temporary entry (a leading dot, which the
//! channel server never serves and no scan reads); a staging directory is
//! reused and emptied by the next run for the same name.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes temporary names made by one process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// The directory `path` lives in (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Makes a directory's entries (a rename, a new file) durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// A file being written under a temporary name beside its destination.
#[derive(Debug)]
pub struct AtomicFile {
    dest: PathBuf,
    tmp: PathBuf,
    file: Option<File>,
}

impl AtomicFile {
    /// Starts writing `dest`. Nothing under `dest`'s name changes until
    /// [`commit`](Self::commit).
    pub fn create(dest: &Path) -> io::Result<Self> {
        Self::create_with_mode(dest, 0o644)
    }

    /// Starts writing `dest`, which will have exactly `mode` (the temporary
    /// file has it from its creation, so a credential is never readable by
    /// others, not even for a moment).
    pub fn create_with_mode(dest: &Path, mode: u32) -> io::Result<Self> {
        let name = dest.file_name().ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "destination has no file name")
        })?;
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".tmp-{}-{n}", std::process::id()));
        let tmp = parent_of(dest).join(tmp_name);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)?;
        // The umask may have taken bits away; the mode is part of the contract.
        if let Err(e) = file.set_permissions(fs::Permissions::from_mode(mode)) {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        Ok(AtomicFile {
            dest: dest.to_owned(),
            tmp,
            file: Some(file),
        })
    }

    /// The temporary path being written (for messages and tests).
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    /// fsync, rename over the destination, fsync the directory.
    pub fn commit(mut self) -> io::Result<()> {
        if let Some(file) = self.file.take() {
            file.sync_all()?;
        }
        fs::rename(&self.tmp, &self.dest)?;
        sync_dir(parent_of(&self.dest))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(io::Error::other("file already committed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` to `dest` atomically (mode 0644).
pub fn write(dest: &Path, bytes: &[u8]) -> io::Result<()> {
    write_mode(dest, bytes, 0o644)
}

/// Writes `bytes` to `dest` atomically with exactly `mode`.
pub fn write_mode(dest: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let mut f = AtomicFile::create_with_mode(dest, mode)?;
    f.write_all(bytes)?;
    f.commit()
}

/// Why a staging directory could not be had.
#[derive(Debug, thiserror::Error)]
pub enum StagingError {
    #[error("{path}: another run is assembling this directory right now; wait for it to finish")]
    Busy { path: PathBuf },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// A directory assembled under `.<name>.partial` beside its destination,
/// locked against a second run for the same name, and renamed into place
/// whole.
#[derive(Debug)]
pub struct StagingDir {
    path: PathBuf,
    dest: PathBuf,
    /// Held open for its advisory lock until commit or drop.
    lock: Option<File>,
}

impl StagingDir {
    /// Creates (or takes over and empties, after a killed run) the staging
    /// directory for `dest`. `dest` itself is not touched.
    pub fn create(dest: &Path) -> Result<Self, StagingError> {
        let parent = parent_of(dest);
        let name = dest.file_name().ok_or_else(|| StagingError::Io {
            path: dest.to_owned(),
            source: io::Error::new(io::ErrorKind::InvalidInput, "no directory name"),
        })?;
        let mut staged = std::ffi::OsString::from(".");
        staged.push(name);
        staged.push(".partial");
        let path = parent.join(staged);
        let io_err = |source| StagingError::Io {
            path: path.clone(),
            source,
        };
        match fs::create_dir(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io_err(e)),
        }
        let lock = File::open(&path).map_err(io_err)?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => return Err(StagingError::Busy { path }),
            Err(fs::TryLockError::Error(e)) => return Err(io_err(e)),
        }
        // Whatever is here was left by a run that was killed: start afresh.
        for entry in fs::read_dir(&path).map_err(io_err)? {
            let entry = entry.map_err(io_err)?;
            let p = entry.path();
            let removed = if entry.file_type().map_err(io_err)?.is_dir() {
                fs::remove_dir_all(&p)
            } else {
                fs::remove_file(&p)
            };
            removed.map_err(io_err)?;
        }
        Ok(StagingDir {
            path,
            dest: dest.to_owned(),
            lock: Some(lock),
        })
    }

    /// Where to write the directory's files.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// fsync the directory, rename it to its destination, fsync the parent.
    /// Fails, leaving the destination untouched, when the destination exists
    /// and is not empty.
    pub fn commit(mut self) -> io::Result<()> {
        sync_dir(&self.path)?;
        if self.dest.exists() {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} appeared while it was being assembled",
                    self.dest.display()
                ),
            ));
        }
        fs::rename(&self.path, &self.dest)?;
        self.lock = None;
        sync_dir(parent_of(&self.dest))
    }
}

impl Drop for StagingDir {
    fn drop(&mut self) {
        if self.lock.take().is_some() {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn commit_replaces_and_drop_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("channel.yaml");
        write(&dest, b"one").unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"one");

        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"two, half").unwrap();
        assert_eq!(names(dir.path()).len(), 2);
        drop(f);
        assert_eq!(names(dir.path()), ["channel.yaml"]);
        assert_eq!(fs::read(&dest).unwrap(), b"one");

        write(&dest, b"three").unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"three");
        assert_eq!(names(dir.path()), ["channel.yaml"]);
    }

    #[test]
    fn staging_is_locked_emptied_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("2026.07.20-001");
        // A killed run's leftovers are cleared.
        fs::create_dir(dir.path().join(".2026.07.20-001.partial")).unwrap();
        fs::write(dir.path().join(".2026.07.20-001.partial/junk"), b"x").unwrap();
        let s = StagingDir::create(&dest).unwrap();
        assert!(names(s.path()).is_empty());
        assert!(matches!(
            StagingDir::create(&dest),
            Err(StagingError::Busy { .. })
        ));
        fs::write(s.path().join("a"), b"a").unwrap();
        drop(s);
        assert!(names(dir.path()).is_empty());

        let s = StagingDir::create(&dest).unwrap();
        fs::write(s.path().join("a"), b"a").unwrap();
        s.commit().unwrap();
        assert_eq!(names(dir.path()), ["2026.07.20-001"]);
        assert_eq!(names(&dest), ["a"]);
    }

    #[test]
    fn staging_refuses_an_existing_destination() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("v");
        let s = StagingDir::create(&dest).unwrap();
        fs::create_dir(&dest).unwrap();
        assert!(s.commit().is_err());
        assert_eq!(names(dir.path()), ["v"]);
    }

    #[test]
    fn write_mode_replaces_whole_with_the_mode_and_leaves_nothing_beside() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("kubeconfig");
        std::fs::write(&dest, "old").unwrap();
        write_mode(&dest, b"new", 0o600).unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"new");
        let mode = std::fs::metadata(&dest).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_missing_directory_fails_and_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("no/such/file");
        assert!(write_mode(&dest, b"x", 0o644).is_err());
        assert!(!dest.exists());
    }
}
