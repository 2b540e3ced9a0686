//! On-disk formats liken writes and reads itself, each checked against the
//! standard tool that reads it.
//!
//! Every writer here is deterministic (the same input gives the same bytes)
//! and works in memory: it never touches the filesystem, so callers decide
//! how the bytes reach a disk.

pub mod cpio;
pub mod gpt;
