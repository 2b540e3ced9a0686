//! Heartbeat Leases: each machine's operator renews the Lease named after
//! its machine in liken-system. A reader takes renewTime only as a token
//! that changes on every renewal; it is written from the machine's clock,
//! so it is never subtracted from the reader's clock.

use k8s_openapi::api::coordination::v1::Lease;

/// The namespace of the OS's own objects and every heartbeat Lease.
pub const NAMESPACE: &str = "liken-system";

/// A Lease's renewTime as written (the renewal token), if it has one.
pub fn renewal(lease: &Lease) -> Option<jiff::Timestamp> {
    lease.spec.as_ref()?.renew_time.as_ref().map(|t| t.0)
}
