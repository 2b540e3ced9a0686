//! cpio in the "newc" format (the SVR4 header without a checksum): the
//! format the kernel unpacks an initramfs from, and the deployment layer's.
//!
//! [`Archive`] collects directories, regular files and symbolic links by
//! relative path and [`Archive::to_bytes`] writes them in byte order of
//! their paths, so a parent always comes before what it holds and the same
//! contents always give the same bytes: every entry is owned by root
//! (uid and gid 0), has mtime 0, inode numbers count up from 1 in that
//! order, directories have two links and everything else one. Each header
//! and name is padded to four bytes, each file's data likewise, and the
//! archive ends with the `TRAILER!!!` entry. A file added under a directory
//! that was never added gets that directory, mode 0755.
//!
//! Paths are refused unless they are relative, free of `.`, `..` and empty
//! components, and free of NUL; one path cannot be added twice. [`read`]
//! parses an archive back (for tests, and for tools that inspect layers).

use std::collections::BTreeMap;

const MAGIC: &[u8; 6] = b"070701";
const HEADER_LEN: usize = 110;
const TRAILER: &str = "TRAILER!!!";

const S_IFDIR: u32 = 0o040000;
const S_IFREG: u32 = 0o100000;
const S_IFLNK: u32 = 0o120000;
const S_IFMT: u32 = 0o170000;

/// Why an entry cannot be added or an archive cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("{path:?} cannot be an archive path: {why}")]
    BadPath { path: String, why: &'static str },
    #[error("{0:?} is added twice")]
    Duplicate(String),
    #[error("{0:?} is a file, so nothing can be put under it")]
    NotADirectory(String),
    #[error("{0:?} is larger than newc's 4 GiB limit for one file")]
    TooLarge(String),
    #[error("not a newc cpio archive: {0}")]
    Malformed(String),
}

/// What an entry is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Directory,
    File(Vec<u8>),
    /// A symbolic link to the given target.
    Symlink(String),
}

/// One entry: its path, permission bits (the low twelve bits of the mode)
/// and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub path: String,
    pub permissions: u32,
    pub kind: Kind,
}

impl Entry {
    fn mode(&self) -> u32 {
        let kind = match self.kind {
            Kind::Directory => S_IFDIR,
            Kind::File(_) => S_IFREG,
            Kind::Symlink(_) => S_IFLNK,
        };
        kind | (self.permissions & 0o7777)
    }

    fn data(&self) -> &[u8] {
        match &self.kind {
            Kind::Directory => &[],
            Kind::File(bytes) => bytes,
            Kind::Symlink(target) => target.as_bytes(),
        }
    }
}

/// An archive being assembled.
#[derive(Debug, Clone, Default)]
pub struct Archive {
    entries: BTreeMap<String, Entry>,
}

fn check_path(path: &str) -> Result<(), Error> {
    let bad = |why| {
        Err(Error::BadPath {
            path: path.to_owned(),
            why,
        })
    };
    if path.is_empty() {
        return bad("it is empty");
    }
    if path.starts_with('/') {
        return bad("it is absolute");
    }
    if path.contains('\0') {
        return bad("it holds a NUL byte");
    }
    for part in path.split('/') {
        match part {
            "" => return bad("it has an empty component"),
            "." | ".." => return bad("it has a '.' or '..' component"),
            _ => {}
        }
    }
    Ok(())
}

impl Archive {
    pub fn new() -> Self {
        Archive::default()
    }

    /// Adds the directory `path` with `permissions`, or sets the permissions
    /// of one that was made implicitly for a file under it.
    pub fn dir(&mut self, path: &str, permissions: u32) -> Result<(), Error> {
        check_path(path)?;
        self.parents(path)?;
        match self.entries.get_mut(path) {
            Some(e) if e.kind == Kind::Directory => {
                e.permissions = permissions;
                Ok(())
            }
            Some(_) => Err(Error::Duplicate(path.to_owned())),
            None => {
                self.insert(path, permissions, Kind::Directory);
                Ok(())
            }
        }
    }

    /// Adds the regular file `path` holding `bytes`.
    pub fn file(&mut self, path: &str, permissions: u32, bytes: Vec<u8>) -> Result<(), Error> {
        if u32::try_from(bytes.len()).is_err() {
            return Err(Error::TooLarge(path.to_owned()));
        }
        self.leaf(path, permissions, Kind::File(bytes))
    }

    /// Adds the symbolic link `path` pointing at `target`.
    pub fn symlink(&mut self, path: &str, target: &str) -> Result<(), Error> {
        self.leaf(path, 0o777, Kind::Symlink(target.to_owned()))
    }

    fn leaf(&mut self, path: &str, permissions: u32, kind: Kind) -> Result<(), Error> {
        check_path(path)?;
        self.parents(path)?;
        if self.entries.contains_key(path) {
            return Err(Error::Duplicate(path.to_owned()));
        }
        self.insert(path, permissions, kind);
        Ok(())
    }

    fn insert(&mut self, path: &str, permissions: u32, kind: Kind) {
        self.entries.insert(
            path.to_owned(),
            Entry {
                path: path.to_owned(),
                permissions,
                kind,
            },
        );
    }

    /// Makes sure every ancestor of `path` is a directory, adding the
    /// missing ones with 0755.
    fn parents(&mut self, path: &str) -> Result<(), Error> {
        let mut end = 0;
        while let Some(i) = path[end..].find('/') {
            let parent = &path[..end + i];
            match self.entries.get(parent) {
                Some(e) if e.kind != Kind::Directory => {
                    return Err(Error::NotADirectory(parent.to_owned()));
                }
                Some(_) => {}
                None => self.insert(parent, 0o755, Kind::Directory),
            }
            end += i + 1;
        }
        Ok(())
    }

    /// The entries in the order they are written.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values()
    }

    /// The archive's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, entry) in self.entries.values().enumerate() {
            let nlink = if entry.kind == Kind::Directory { 2 } else { 1 };
            // The inode count cannot pass u32: each entry costs bytes, and a
            // file's size is already held under 4 GiB.
            let ino = u32::try_from(i + 1).unwrap_or(u32::MAX);
            write_entry(
                &mut out,
                ino,
                entry.mode(),
                nlink,
                &entry.path,
                entry.data(),
            );
        }
        write_entry(&mut out, 0, 0, 1, TRAILER, &[]);
        out
    }
}

fn pad4(out: &mut Vec<u8>) {
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
}

fn write_entry(out: &mut Vec<u8>, ino: u32, mode: u32, nlink: u32, name: &str, data: &[u8]) {
    // Lengths were bounded when the entry was added; a name longer than
    // u32 cannot come from a path that fits in memory next to it.
    let namesize = u32::try_from(name.len() + 1).unwrap_or(u32::MAX);
    let filesize = u32::try_from(data.len()).unwrap_or(u32::MAX);
    // ino, mode, uid, gid, nlink, mtime, filesize, devmajor, devminor,
    // rdevmajor, rdevminor, namesize, check.
    let fields = [ino, mode, 0, 0, nlink, 0, filesize, 0, 0, 0, 0, namesize, 0];
    out.extend_from_slice(MAGIC);
    for f in fields {
        out.extend_from_slice(format!("{f:08x}").as_bytes());
    }
    out.extend_from_slice(name.as_bytes());
    out.push(0);
    pad4(out);
    out.extend_from_slice(data);
    pad4(out);
}

fn field(header: &[u8], index: usize) -> Result<u32, Error> {
    let start = 6 + index * 8;
    let text = std::str::from_utf8(&header[start..start + 8])
        .map_err(|_| Error::Malformed("a header field is not hex".to_owned()))?;
    u32::from_str_radix(text, 16)
        .map_err(|_| Error::Malformed(format!("header field {text:?} is not hex")))
}

fn align4(n: usize) -> usize {
    n.div_ceil(4) * 4
}

/// Parses a newc archive up to its trailer, in archive order.
pub fn read(bytes: &[u8]) -> Result<Vec<Entry>, Error> {
    let mut entries = Vec::new();
    let mut at = 0;
    loop {
        let header = bytes
            .get(at..at + HEADER_LEN)
            .ok_or_else(|| Error::Malformed(format!("it ends inside a header at {at}")))?;
        if &header[..6] != MAGIC {
            return Err(Error::Malformed(format!("no 070701 magic at {at}")));
        }
        let mode = field(header, 1)?;
        let filesize = field(header, 6)? as usize;
        let namesize = field(header, 11)? as usize;
        let name_start = at + HEADER_LEN;
        let name = bytes
            .get(name_start..name_start + namesize)
            .and_then(|n| n.strip_suffix(&[0]))
            .ok_or_else(|| Error::Malformed(format!("a name at {name_start} is cut short")))?;
        let name = String::from_utf8(name.to_vec())
            .map_err(|_| Error::Malformed(format!("the name at {name_start} is not UTF-8")))?;
        let data_start = align4(name_start + namesize);
        let data = bytes
            .get(data_start..data_start + filesize)
            .ok_or_else(|| Error::Malformed(format!("{name:?}'s data is cut short")))?;
        at = align4(data_start + filesize);
        if name == TRAILER {
            return Ok(entries);
        }
        let kind = match mode & S_IFMT {
            S_IFDIR => Kind::Directory,
            S_IFREG => Kind::File(data.to_vec()),
            S_IFLNK => Kind::Symlink(String::from_utf8_lossy(data).into_owned()),
            other => {
                return Err(Error::Malformed(format!(
                    "{name:?} has file type {other:o}, which this reader does not take"
                )));
            }
        };
        entries.push(Entry {
            path: name,
            permissions: mode & 0o7777,
            kind,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_archive_is_only_the_trailer() {
        let bytes = Archive::new().to_bytes();
        let expected = format!(
            "070701{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}TRAILER!!!\0",
            0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 11, 0
        );
        // 110 + 11 = 121, padded to 124.
        assert_eq!(bytes.len(), 124);
        assert_eq!(&bytes[..121], expected.as_bytes());
        assert_eq!(&bytes[121..], &[0, 0, 0]);
    }

    #[test]
    fn entries_are_sorted_padded_and_read_back() {
        let mut a = Archive::new();
        a.file("etc/b", 0o600, b"12345".to_vec()).unwrap();
        a.dir("etc", 0o700).unwrap();
        a.file("etc/a.yaml", 0o644, Vec::new()).unwrap();
        a.symlink("init", "bin/liken").unwrap();
        let bytes = a.to_bytes();
        assert_eq!(bytes.len() % 4, 0);
        let back = read(&bytes).unwrap();
        let paths: Vec<&str> = back.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["etc", "etc/a.yaml", "etc/b", "init"]);
        assert_eq!(back[0].permissions, 0o700);
        assert_eq!(back[2].kind, Kind::File(b"12345".to_vec()));
        assert_eq!(back[3].kind, Kind::Symlink("bin/liken".to_owned()));
        let again: Archive = {
            let mut b = Archive::new();
            b.symlink("init", "bin/liken").unwrap();
            b.file("etc/a.yaml", 0o644, Vec::new()).unwrap();
            b.file("etc/b", 0o600, b"12345".to_vec()).unwrap();
            b.dir("etc", 0o700).unwrap();
            b
        };
        assert_eq!(again.to_bytes(), bytes, "order of adding changes nothing");
    }

    #[test]
    fn bad_paths_and_duplicates_are_refused() {
        let mut a = Archive::new();
        for bad in ["", "/etc", "a//b", "a/./b", "../x", "a/", "nul\0"] {
            assert!(
                matches!(a.file(bad, 0o644, Vec::new()), Err(Error::BadPath { .. })),
                "{bad:?}"
            );
        }
        a.file("f", 0o644, Vec::new()).unwrap();
        assert_eq!(
            a.file("f", 0o644, Vec::new()),
            Err(Error::Duplicate("f".into()))
        );
        assert_eq!(a.dir("f", 0o755), Err(Error::Duplicate("f".into())));
        assert_eq!(
            a.file("f/g", 0o644, Vec::new()),
            Err(Error::NotADirectory("f".into()))
        );
    }

    #[test]
    fn truncated_input_is_malformed_not_a_panic() {
        let mut a = Archive::new();
        a.file("x", 0o644, b"data".to_vec()).unwrap();
        let bytes = a.to_bytes();
        for cut in 0..bytes.len() - 4 {
            assert!(read(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }
}
