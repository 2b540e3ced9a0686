//! Fetching a published release into a local channel directory, verified
//! along the whole trust chain.
//!
//! Steps: resolve `latest` through the channel's channel.yaml (advisory: it
//! only picks the version); download `<version>/release.yaml`, hash its
//! exact bytes and, when a digest is pinned, refuse any other; parse it
//! strictly (artifact names are plain file names, listed once, with
//! well-formed digests) and check it names the version asked for; then
//! stream every artifact through [`download`], which checks size and sha256
//! while the bytes arrive.
//!
//! A release that is not yet in the channel directory is assembled in a
//! hidden staging directory and renamed to `<version>/` only when every
//! artifact and release.yaml are in it, so a failed fetch leaves the channel
//! directory exactly as it was. A release that is already there is checked
//! file by file against its release.yaml (which must be byte-identical to
//! the one served): what verifies is left alone, and only a missing or
//! damaged artifact is downloaded again, atomically. A second fetch of a
//! complete release therefore downloads nothing. Last, the local
//! channel.yaml is pointed at the newest release present, so the directory
//! is itself a channel that `serve` can share.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use liken_api::Version;
use liken_api::version::VersionError;
use liken_documents::canonical;
use liken_documents::error::Problems;
use liken_documents::{Channel, Release};

use crate::atomic::{self, StagingDir, StagingError};
use crate::download::{self, DownloadError};
use crate::http::{self, Client, HttpError};
use crate::layout::{self, CHANNEL_FILE, RELEASE_FILE};
use crate::progress::Progress;

/// Which release to fetch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wanted {
    /// Whatever the channel's channel.yaml names.
    Latest,
    Exact(Version),
}

impl Wanted {
    /// `latest` or a version.
    pub fn parse(s: &str) -> Result<Self, VersionError> {
        if s == "latest" {
            Ok(Wanted::Latest)
        } else {
            Version::parse(s).map(Wanted::Exact)
        }
    }
}

/// One fetch.
#[derive(Clone, Debug)]
pub struct FetchRequest<'a> {
    /// The channel's base URL.
    pub source: &'a str,
    pub wanted: Wanted,
    /// `sha256:<hex>` that release.yaml must have.
    pub digest: Option<&'a str>,
    pub channel_dir: &'a Path,
}

/// What a fetch did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetched {
    pub version: Version,
    /// `sha256:<hex>` of the release.yaml fetched.
    pub digest: String,
    /// `<channel-dir>/<version>`.
    pub dir: PathBuf,
    /// Artifacts downloaded, and artifacts found already verified on disk.
    pub downloaded: usize,
    pub present: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("-digest {given:?} is not sha256: followed by 64 lowercase hex digits")]
    DigestArgument { given: String },
    #[error("{0}")]
    Http(#[from] HttpError),
    #[error("{0}")]
    Document(Problems),
    #[error(
        "channel.yaml names {version} as the latest release, but {url} answers 404: the \
         channel is incomplete; nothing was written"
    )]
    LatestMissing { version: Version, url: String },
    #[error("the channel has no release {version}: {url} answers 404")]
    NoSuchRelease { version: Version, url: String },
    #[error(
        "{url} has digest {actual}, but -digest pins {pinned}: this is not the release document \
         you trust; nothing was written"
    )]
    DigestMismatch {
        url: String,
        pinned: String,
        actual: String,
    },
    #[error("{url} describes release {named}, not {wanted}")]
    VersionMismatch {
        url: String,
        named: String,
        wanted: Version,
    },
    #[error(
        "{path} has digest {local}, but the channel serves {remote}: a version always names \
         the same bytes, so one of them is not the published release; move the local \
         directory away to fetch it again"
    )]
    LocalDiffers {
        path: PathBuf,
        local: String,
        remote: String,
    },
    #[error("{path} exists but holds no release.yaml; move it away to fetch this release")]
    LocalNotRelease { path: PathBuf },
    #[error("{0}")]
    Download(#[from] DownloadError),
    #[error("{0}")]
    Staging(#[from] StagingError),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> FetchError + '_ {
    move |source| FetchError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Whether `s` is `sha256:` and 64 lowercase hex digits.
pub fn is_digest(s: &str) -> bool {
    s.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Resolves `latest` through the channel's channel.yaml.
pub fn resolve_latest(client: &Client, source: &str) -> Result<Version, FetchError> {
    let url = http::join(source, &[CHANNEL_FILE]);
    let bytes = client.get_document(&url)?;
    let channel = Channel::from_yaml(&url, &bytes).map_err(FetchError::Document)?;
    Ok(channel.latest)
}

/// Downloads, pins and parses `<source>/<version>/release.yaml`. Returns the
/// document, its exact bytes and their digest.
pub fn fetch_release_document(
    client: &Client,
    source: &str,
    version: &Version,
    pinned: Option<&str>,
    from_latest: bool,
) -> Result<(Release, Vec<u8>, String), FetchError> {
    let url = http::join(source, &[version.as_str(), RELEASE_FILE]);
    let bytes = match client.get_document(&url) {
        Ok(b) => b,
        Err(e) if e.status() == Some(404) && from_latest => {
            return Err(FetchError::LatestMissing {
                version: version.clone(),
                url,
            });
        }
        Err(e) if e.status() == Some(404) => {
            return Err(FetchError::NoSuchRelease {
                version: version.clone(),
                url,
            });
        }
        Err(e) => return Err(e.into()),
    };
    let actual = canonical::sha256(&bytes);
    if let Some(pinned) = pinned
        && pinned != actual
    {
        return Err(FetchError::DigestMismatch {
            url,
            pinned: pinned.to_owned(),
            actual,
        });
    }
    let release = Release::from_yaml(&url, &bytes).map_err(FetchError::Document)?;
    if release.metadata.name != version.as_str() {
        return Err(FetchError::VersionMismatch {
            url,
            named: release.metadata.name.clone(),
            wanted: version.clone(),
        });
    }
    Ok((release, bytes, actual))
}

/// Fetches one release; see the module documentation.
pub fn fetch(
    client: &Client,
    request: &FetchRequest<'_>,
    progress: &mut dyn Progress,
) -> Result<Fetched, FetchError> {
    http::check_scheme(request.source)?;
    if let Some(d) = request.digest
        && !is_digest(d)
    {
        return Err(FetchError::DigestArgument {
            given: d.to_owned(),
        });
    }
    let (version, from_latest) = match &request.wanted {
        Wanted::Latest => (resolve_latest(client, request.source)?, true),
        Wanted::Exact(v) => (v.clone(), false),
    };
    let (release, bytes, digest) = fetch_release_document(
        client,
        request.source,
        &version,
        request.digest,
        from_latest,
    )?;

    let channel_dir = request.channel_dir;
    let dest = channel_dir.join(version.as_str());
    let url_of = |name: &str| http::join(request.source, &[version.as_str(), name]);
    let (mut downloaded, mut present) = (0, 0);

    if dest.exists() {
        let local_doc = dest.join(RELEASE_FILE);
        let local = match fs::read(&local_doc) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(FetchError::LocalNotRelease { path: dest });
            }
            Err(e) => return Err(io_err(&local_doc)(e)),
        };
        let local = canonical::sha256(&local);
        if local != digest {
            return Err(FetchError::LocalDiffers {
                path: local_doc,
                local,
                remote: digest,
            });
        }
        for artifact in &release.artifacts {
            let path = dest.join(&artifact.name);
            if download::verify_file(&path, artifact).map_err(io_err(&path))? {
                progress.present(&artifact.name, artifact.size);
                present += 1;
            } else {
                download::download(client, &url_of(&artifact.name), &dest, artifact, progress)?;
                downloaded += 1;
            }
        }
    } else {
        fs::create_dir_all(channel_dir).map_err(io_err(channel_dir))?;
        let staging = StagingDir::create(&dest)?;
        for artifact in &release.artifacts {
            download::download(
                client,
                &url_of(&artifact.name),
                staging.path(),
                artifact,
                progress,
            )?;
            downloaded += 1;
        }
        let doc = staging.path().join(RELEASE_FILE);
        atomic::write(&doc, &bytes).map_err(io_err(&doc))?;
        staging.commit().map_err(io_err(&dest))?;
    }
    layout::refresh_channel(channel_dir).map_err(io_err(&channel_dir.join(CHANNEL_FILE)))?;
    Ok(Fetched {
        version,
        digest,
        dir: dest,
        downloaded,
        present,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wanted_and_digest_arguments() {
        assert_eq!(Wanted::parse("latest").unwrap(), Wanted::Latest);
        assert!(matches!(
            Wanted::parse("2026.07.20-001").unwrap(),
            Wanted::Exact(_)
        ));
        assert!(Wanted::parse("newest").is_err());
        assert!(is_digest(&canonical::sha256(b"x")));
        assert!(!is_digest("sha256:abc"));
        assert!(!is_digest(&canonical::sha256(b"x").to_uppercase()));
        assert!(!is_digest(&canonical::sha256(b"x")[7..]));
    }
}
