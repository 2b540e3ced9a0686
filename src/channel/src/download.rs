//! Verified download of one artifact, and verification of one already on
//! disk.
//!
//! [`download`] streams `GET <url>` into a temporary file beside the
//! destination, counting and hashing every byte as it arrives. It refuses
//! as soon as the count passes the size the release document declares (and
//! before reading anything when the announced Content-Length already
//! disagrees), and at the end refuses a short body or a digest that is not
//! the declared one. Only bytes that match are renamed to the artifact's
//! name (fsync, rename, fsync directory); on every failure the temporary
//! file is removed, so the directory holds exactly what it held before.
//! Every error names the artifact; a mismatch names both digests.
//!
//! This is the code a machine runs to fill its inactive slot, so it takes
//! the release's [`Artifact`] entry and nothing from the server is trusted
//! until it has been hashed.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use liken_documents::release::{Artifact, safe_file_name};
use sha2::{Digest, Sha256};

use crate::atomic::AtomicFile;
use crate::http::{Client, HttpError};
use crate::progress::Progress;

/// Bytes read per step: large enough that hashing dominates, small enough
/// that progress moves.
const CHUNK: usize = 1 << 20;

/// Why an artifact is not where it should be.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    #[error("artifact {name:?} is not a plain file name; refusing to write it")]
    Name { name: String },
    #[error("artifact {name}: {source}")]
    Http { name: String, source: HttpError },
    #[error(
        "artifact {name}: the server announces {announced} bytes but release.yaml declares \
         {declared}; this is not the published file"
    )]
    Announced {
        name: String,
        announced: u64,
        declared: u64,
    },
    #[error(
        "artifact {name}: the server sent more than the {declared} bytes release.yaml declares; \
         stopped and discarded"
    )]
    Oversize { name: String, declared: u64 },
    #[error(
        "artifact {name}: the transfer ended after {received} of {declared} bytes; nothing was \
         kept, run the command again"
    )]
    Truncated {
        name: String,
        received: u64,
        declared: u64,
    },
    #[error(
        "artifact {name}: digest mismatch: release.yaml says sha256:{expected}, the bytes \
         received are sha256:{actual}; nothing was kept"
    )]
    Mismatch {
        name: String,
        expected: String,
        actual: String,
    },
    #[error("artifact {name}: writing {path}: {source}")]
    Write {
        name: String,
        path: PathBuf,
        source: io::Error,
    },
}

/// Lowercase hex of a finished sha256.
pub fn hex(digest: &[u8]) -> String {
    let mut s = String::with_capacity(digest.len() * 2);
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Hashes `reader` to the end, returning (bytes, hex sha256).
pub fn hash_reader(mut reader: impl Read) -> io::Result<(u64, String)> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        total += n as u64;
    }
    Ok((total, hex(&hasher.finalize())))
}

/// Whether `path` already holds exactly `artifact` (size, then sha256).
/// A missing file is `Ok(false)`; an unreadable one is an error.
pub fn verify_file(path: &Path, artifact: &Artifact) -> io::Result<bool> {
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() != artifact.size {
        return Ok(false);
    }
    let (_, actual) = hash_reader(file)?;
    Ok(actual == artifact.sha256)
}

/// Downloads `url` to `dir/<artifact.name>`, verified against `artifact`.
pub fn download(
    client: &Client,
    url: &str,
    dir: &Path,
    artifact: &Artifact,
    progress: &mut dyn Progress,
) -> Result<(), DownloadError> {
    let name = artifact.name.clone();
    if !safe_file_name(&name) {
        return Err(DownloadError::Name { name });
    }
    let dest = dir.join(&name);
    let write_err = |path: &Path, source| DownloadError::Write {
        name: artifact.name.clone(),
        path: path.to_owned(),
        source,
    };
    let response = client.get(url).map_err(|source| DownloadError::Http {
        name: name.clone(),
        source,
    })?;
    if let Some(announced) = response.content_length
        && announced != artifact.size
    {
        return Err(DownloadError::Announced {
            name,
            announced,
            declared: artifact.size,
        });
    }
    let mut out = AtomicFile::create(&dest).map_err(|e| write_err(&dest, e))?;
    let tmp = out.temp_path().to_owned();
    progress.begin(&name, artifact.size);
    let mut body = response.body;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    let mut received = 0u64;
    loop {
        let n = match body.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                progress.fail(&name);
                return Err(DownloadError::Http {
                    name,
                    source: client.describe_io(url, e),
                });
            }
        };
        received += n as u64;
        if received > artifact.size {
            progress.fail(&name);
            return Err(DownloadError::Oversize {
                name,
                declared: artifact.size,
            });
        }
        hasher.update(&buf[..n]);
        if let Err(e) = out.write_all(&buf[..n]) {
            progress.fail(&name);
            return Err(write_err(&tmp, e));
        }
        progress.advance(n as u64);
    }
    if received < artifact.size {
        progress.fail(&name);
        return Err(DownloadError::Truncated {
            name,
            received,
            declared: artifact.size,
        });
    }
    let actual = hex(&hasher.finalize());
    if actual != artifact.sha256 {
        progress.fail(&name);
        return Err(DownloadError::Mismatch {
            name,
            expected: artifact.sha256.clone(),
            actual,
        });
    }
    out.commit().map_err(|e| write_err(&dest, e))?;
    progress.done(&name);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_like_sha256sum() {
        let (n, h) = hash_reader(&b"abc"[..]).unwrap();
        assert_eq!(n, 3);
        assert_eq!(
            h,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            format!("sha256:{h}"),
            liken_documents::canonical::sha256(b"abc")
        );
    }

    #[test]
    fn verify_file_checks_size_then_digest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vmlinuz");
        let (_, sha256) = hash_reader(&b"kernel"[..]).unwrap();
        let artifact = Artifact {
            name: "vmlinuz".into(),
            sha256,
            size: 6,
        };
        assert!(!verify_file(&path, &artifact).unwrap());
        std::fs::write(&path, b"kernel").unwrap();
        assert!(verify_file(&path, &artifact).unwrap());
        std::fs::write(&path, b"kernal").unwrap();
        assert!(!verify_file(&path, &artifact).unwrap());
        std::fs::write(&path, b"kernel!").unwrap();
        assert!(!verify_file(&path, &artifact).unwrap());
    }
}
