//! Canonical rendering: the bytes a machine stages and the sha256 that names
//! them.
//!
//! A document renders from its typed form with metadata rebuilt from the name
//! alone and no status, so annotations, resourceVersion and server
//! bookkeeping never change the hash, and an annotation edit can never
//! reboot a machine. Defaults are materialized by the typed form (an absent
//! rebootPolicy and an explicit Manual render alike); maps are ordered. The
//! Cluster renders without spec.releases, which the operators read live, so
//! publishing a release stages nothing.

use liken_api::ObjectMeta;
use sha2::{Digest, Sha256};

use crate::cluster::ClusterSpec;
use crate::document::{Document, Spec};
use crate::machine::MachineSpec;

/// A canonical rendering and its identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    pub bytes: Vec<u8>,
    /// `sha256:<hex>` of `bytes`.
    pub hash: String,
}

/// `sha256:<hex>` of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

fn render<S: Spec>(name: &str, spec: S) -> Rendered {
    let doc = Document {
        api_version: liken_api::API_VERSION.to_owned(),
        kind: S::KIND.to_owned(),
        metadata: ObjectMeta::named(name),
        spec,
        status: None,
    };
    let bytes = doc.to_yaml().into_bytes();
    Rendered {
        hash: sha256(&bytes),
        bytes,
    }
}

/// The staged form of a Machine.
pub fn machine(name: &str, spec: &MachineSpec) -> Rendered {
    render(name, spec.clone())
}

/// The staged form of a Cluster: spec.version and spec.releases left out.
pub fn cluster(name: &str, spec: &ClusterSpec) -> Rendered {
    let mut spec = spec.clone();
    spec.version = None;
    spec.releases = None;
    render(name, spec)
}
