//! What the build stamped into this binary.
//!
//! A release build (`LIKEN_VERSION=2026.07.20-001 make`) carries the release
//! name; a development build carries `git describe` of its checkout. Machines
//! report this as status.version.liken and compare it with the Cluster's
//! spec.version.

/// The stamped version.
pub const VERSION: &str = env!("LIKEN_BUILD_VERSION");

/// The stamp as a release version, or None for a development build.
pub fn release() -> Option<liken_api::Version> {
    liken_api::Version::parse(VERSION).ok()
}
