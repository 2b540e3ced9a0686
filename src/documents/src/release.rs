//! The release channel's documents: Release (release.yaml, every artifact of
//! one release by digest), Channel (channel.yaml, the latest version) and
//! Versions (versions.yaml, every release by the digest of its release.yaml).
//!
//! These are read from a network peer that is not trusted by itself, so the
//! parsers refuse anything a downloader could be tricked by: an artifact name
//! that is a path (`/`, `..`), a duplicate name, a malformed digest.

use liken_api::{ObjectMeta, Version};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::document::{envelope, label_of, read_one_yaml};
use crate::error::{DocumentError, Problems};
use crate::patterns::{self, DIGEST};
use crate::validate::Checker;

/// The name the Channel and Versions documents carry.
pub const CHANNEL_NAME: &str = "liken";

/// release.yaml: one release's artifacts and what is inside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Release {
    pub api_version: String,
    pub kind: String,
    /// Named after the release's version.
    pub metadata: ObjectMeta,
    /// Every file of the release.
    pub artifacts: Vec<Artifact>,
    /// The upstream projects inside, by their own versions.
    #[serde(default)]
    pub components: Vec<Component>,
}

/// One file of a release.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Artifact {
    /// The file's name inside the release directory; never a path.
    pub name: String,
    /// 64 lowercase hex digits of the file's sha256.
    pub sha256: String,
    /// The file's size in bytes.
    pub size: u64,
}

/// An upstream project in a release.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Component {
    pub name: String,
    pub version: String,
}

/// channel.yaml: the one object in a channel that changes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Channel {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    /// The newest published release.
    pub latest: Version,
}

/// versions.yaml: every release in the channel, newest first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Versions {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latest: Option<Version>,
    /// Entries shaped like the Cluster's catalog entries.
    #[serde(default)]
    pub releases: Vec<crate::cluster::CatalogEntry>,
}

fn parse<T: DeserializeOwned>(file: &str, bytes: &[u8], kind: &str) -> Result<T, DocumentError> {
    let value = read_one_yaml(file, bytes)?;
    let label = label_of(&value, kind);
    envelope(file, &label, &value, kind)?;
    serde_path_to_error::deserialize(value).map_err(|e| {
        let field = e.path().to_string();
        DocumentError::new(
            file,
            &label,
            if field == "." { "" } else { &field },
            e.into_inner().to_string(),
        )
    })
}

fn finish<T>(doc: T, c: Checker, file: &str, label: String) -> Result<T, Problems> {
    if c.is_empty() {
        Ok(doc)
    } else {
        Err(Problems(c.finish(file, &label)))
    }
}

/// Whether `name` can be an artifact's file name: one path component, no
/// traversal, nothing hidden, printable.
pub fn safe_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && name != "."
        && name != ".."
        && !name.starts_with('.')
        && !name.contains(['/', '\\', '\0'])
        && !name.chars().any(char::is_control)
}

impl Release {
    /// A release document for `version`.
    pub fn new(version: &Version, artifacts: Vec<Artifact>, components: Vec<Component>) -> Self {
        Release {
            api_version: liken_api::API_VERSION.to_owned(),
            kind: "Release".to_owned(),
            metadata: ObjectMeta::named(version.as_str()),
            artifacts,
            components,
        }
    }

    /// Parses and checks release.yaml.
    pub fn from_yaml(file: &str, bytes: &[u8]) -> Result<Self, Problems> {
        let doc: Release = parse(file, bytes, "Release").map_err(|e| Problems(vec![e]))?;
        let mut c = Checker::new();
        if let Err(e) = Version::parse(&doc.metadata.name) {
            c.fault("metadata.name", e.to_string());
        }
        c.check(!doc.artifacts.is_empty(), "artifacts", "lists no artifact");
        for (i, a) in doc.artifacts.iter().enumerate() {
            c.check(
                safe_file_name(&a.name),
                format!("artifacts[{i}].name"),
                format!("{:?} is not a plain file name", a.name),
            );
            c.check(
                !doc.artifacts[..i].iter().any(|b| b.name == a.name),
                format!("artifacts[{i}].name"),
                format!("{:?} is listed twice", a.name),
            );
            c.check(
                a.sha256.len() == 64
                    && a.sha256
                        .bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
                format!("artifacts[{i}].sha256"),
                format!("{:?} is not 64 lowercase hex digits", a.sha256),
            );
        }
        for (i, comp) in doc.components.iter().enumerate() {
            c.check(
                !comp.name.is_empty() && !comp.version.is_empty(),
                format!("components[{i}]"),
                "needs a name and a version",
            );
        }
        let label = format!("Release {}", doc.metadata.name);
        finish(doc, c, file, label)
    }

    /// The release's version (its metadata name, checked by the parser).
    pub fn version(&self) -> Option<Version> {
        Version::parse(&self.metadata.name).ok()
    }

    /// The artifact called `name`.
    pub fn artifact(&self, name: &str) -> Option<&Artifact> {
        self.artifacts.iter().find(|a| a.name == name)
    }

    pub fn to_yaml(&self) -> String {
        serde_yaml::to_string(self).unwrap_or_default()
    }
}

impl Channel {
    pub fn new(latest: Version) -> Self {
        Channel {
            api_version: liken_api::API_VERSION.to_owned(),
            kind: "Channel".to_owned(),
            metadata: ObjectMeta::named(CHANNEL_NAME),
            latest,
        }
    }

    pub fn from_yaml(file: &str, bytes: &[u8]) -> Result<Self, Problems> {
        parse(file, bytes, "Channel").map_err(|e| Problems(vec![e]))
    }

    pub fn to_yaml(&self) -> String {
        serde_yaml::to_string(self).unwrap_or_default()
    }
}

impl Versions {
    pub fn new(releases: Vec<crate::cluster::CatalogEntry>, latest: Option<Version>) -> Self {
        Versions {
            api_version: liken_api::API_VERSION.to_owned(),
            kind: "Versions".to_owned(),
            metadata: ObjectMeta::named(CHANNEL_NAME),
            latest,
            releases,
        }
    }

    pub fn from_yaml(file: &str, bytes: &[u8]) -> Result<Self, Problems> {
        let doc: Versions = parse(file, bytes, "Versions").map_err(|e| Problems(vec![e]))?;
        let mut c = Checker::new();
        for (i, e) in doc.releases.iter().enumerate() {
            c.check(
                patterns::matches(DIGEST, &e.digest),
                format!("releases[{i}].digest"),
                format!("{:?} is not sha256: and 64 hex digits", e.digest),
            );
            c.check(
                doc.releases[..i].iter().all(|x| x.version > e.version),
                format!("releases[{i}].version"),
                "releases must be listed newest first, once each",
            );
        }
        finish(doc, c, file, "Versions liken".to_owned())
    }

    pub fn to_yaml(&self) -> String {
        serde_yaml::to_string(self).unwrap_or_default()
    }
}
