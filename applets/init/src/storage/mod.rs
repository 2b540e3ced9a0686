//! Storage at boot: what was observed of the disks ([`observe`]) and the
//! decision over it ([`plan`]). Neither reads nor writes a disk; the executor
//! that does is later work of init.

pub mod observe;
pub mod plan;
pub mod status;
