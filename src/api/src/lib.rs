//! The grammar every liken.sh/v1alpha1 document shares, and nothing else.
//!
//! This crate holds the group and version, the narrow object metadata liken
//! accepts, conditions and their transition rules, the phase and role
//! vocabularies, and the release version grammar. It is pure data: no I/O,
//! no clock (callers pass `now`), and no type that belongs to one document.

pub mod condition;
pub mod meta;
pub mod phase;
pub mod version;

pub use condition::{Condition, ConditionStatus};
pub use meta::ObjectMeta;
pub use phase::{Phase, Role};
pub use version::Version;

/// The API group every liken kind lives in.
pub const GROUP: &str = "liken.sh";
/// The one served version of that group.
pub const VERSION: &str = "v1alpha1";
/// `apiVersion` as documents spell it.
pub const API_VERSION: &str = "liken.sh/v1alpha1";
