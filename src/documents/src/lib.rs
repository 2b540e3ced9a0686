//! The liken.sh/v1alpha1 documents: Cluster, Machine, Release, Channel and
//! Versions.
//!
//! Each document is a set of Rust types that are at once the strict parser
//! for files people write, the API object the operators read and write, and
//! the source the CRDs in manifests/ are generated from (their doc comments
//! become the schema's descriptions). Validation here mirrors every CRD rule,
//! so the toolkit can refuse a deployment before any machine or API server
//! sees it. Canonical rendering gives a document's identity: the same
//! meaning renders to the same bytes and so the same sha256.
//!
//! This crate does no I/O beyond the byte slices it is given.

pub mod annotations;
pub mod canonical;
pub mod cluster;
pub mod crd;
pub mod credentials;
pub mod document;
pub mod error;
pub mod machine;
pub mod patterns;
pub mod quantity;
pub mod refdoc;
pub mod release;
pub mod validate;

pub use cluster::{Cluster, ClusterDocument, ClusterSpec, ClusterStatus};
pub use document::Document;
pub use error::DocumentError;
pub use machine::{Machine, MachineDocument, MachineSpec, MachineStatus};
pub use release::{Channel, Release, Versions};
