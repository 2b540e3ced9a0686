//! The release channel: laying a release out (`bundle`), downloading one
//! verified (`fetch`, and the per-artifact [`download`] a machine reuses for
//! its inactive slot), sharing a channel over HTTP (`serve`), and rendering
//! its index pages and versions.yaml (`index`).
//!
//! The trust chain this crate enforces: a pinned sha256 of release.yaml's
//! exact bytes, release.yaml's sha256 and size of every artifact, and every
//! downloaded byte checked against them before it is given its name. What
//! the server says beyond those bytes (channel.yaml, Content-Length, the
//! index pages) only ever picks what to download or shows a person what is
//! there; it is never trusted in place of a digest.
//!
//! Every file this crate writes appears atomically ([`atomic`]), and every
//! refusal leaves the directories it works on as they were.

pub use liken_sys::atomic;
pub mod bundle;
pub mod download;
pub mod fetch;
pub mod http;
pub mod index;
pub mod layout;
pub mod progress;
pub mod serve;

pub use download::{DownloadError, download, verify_file};
pub use fetch::{FetchError, FetchRequest, Fetched, Wanted, fetch};
pub use http::{Client, ClientOptions, HttpError};
pub use progress::Progress;
