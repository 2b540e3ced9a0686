//! The host side of liken: what touches the local filesystem and kernel.
//!
//! So far this is [`atomic`], the one way any part of liken persists a file:
//! whole or not at all, surviving a power cut at any point. The mounts,
//! sysctls, modules and block devices that init and the machine operator
//! need land here too, every path resolved under a host root that tests
//! point at a temporary tree.

pub mod atomic;
