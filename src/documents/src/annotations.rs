//! The annotations a person (or the toolkit) writes on liken's objects to
//! ask for something, and the values they carry. Each is a one-shot request
//! whose value names exactly what it is for, so a stale one asks for
//! nothing and none ever needs clearing:
//!
//! - [`APPROVE_DISRUPTION`] on a Machine: the `hash` of one
//!   `status.pending` entry, verbatim. It grants that change its
//!   disruption; once the change applies, no pending entry carries that
//!   hash any more.
//! - [`REQUEST_REBOOT`] on a Machine: the [`boot_identity`] of the boot the
//!   machine runs now. A machine whose running boot has that identity
//!   reboots (after its turn and drain); the boot that comes back has
//!   another identity, so the request is spent.
//!
//! The toolkit writes these values and the machine operator compares them,
//! so both take them from here.

use liken_api::condition::Time;

use crate::machine::BootRecord;

/// Grants one staged change its disruption.
pub const APPROVE_DISRUPTION: &str = "liken.sh/approve-disruption";
/// Asks a machine to reboot although nothing is staged.
pub const REQUEST_REBOOT: &str = "liken.sh/request-reboot";
/// Asks the operators to poll the release channel now.
pub const CHECK_RELEASES: &str = "liken.sh/check-releases";
/// Marks an object liken planted for a feature.
pub const FEATURE: &str = "liken.sh/feature";

/// The identity of the boot that started at `time` (status.boot.time):
/// `sha256:<hex>` of the time as RFC 3339 text, the way status prints it.
pub fn boot_identity_at(time: &Time) -> String {
    crate::canonical::sha256(time.to_string().as_bytes())
}

/// The identity of the boot `boot` records, when it records when it began.
pub fn boot_identity(boot: Option<&BootRecord>) -> Option<String> {
    boot.and_then(|b| b.time.as_ref()).map(boot_identity_at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_boot_is_named_by_its_time() {
        let t: Time = "2026-12-01T07:00:00Z".parse().unwrap();
        let record = BootRecord {
            time: Some(t),
            ..BootRecord::default()
        };
        let id = boot_identity(Some(&record)).unwrap();
        assert_eq!(
            id,
            crate::canonical::sha256(b"2026-12-01T07:00:00Z"),
            "the RFC 3339 text"
        );
        let later: Time = "2026-12-01T07:05:00Z".parse().unwrap();
        assert_ne!(boot_identity_at(&later), id);
        assert_eq!(boot_identity(Some(&BootRecord::default())), None);
        assert_eq!(boot_identity(None), None);
    }
}
