//! Storage at boot: the disks as read and the claims written ([`disks`],
//! under a fake-able /sys and /dev), what a partition table means
//! ([`observe`]), the decision over it ([`plan`], pure), which of the
//! staged, proven and seed specs boots on it ([`choose`], pure), and
//! status.storage and status.boot.storage from that decision ([`status`],
//! pure). Making filesystems on the claimed partitions and mounting them are
//! later steps of init.

pub mod choose;
pub mod disks;
pub mod observe;
pub mod plan;
pub mod status;
