//! The slice of object metadata liken reads: name, uid, resourceVersion,
//! generation and annotations.
//!
//! Parsing is strict: a hand-written manifest that carries labels, owner
//! references or any other metadata is refused, naming the field, because
//! liken would otherwise ignore it silently. Objects read back from the API
//! server carry more (managedFields, creationTimestamp...); the documents
//! crate narrows those to this shape before parsing, so the strictness stays
//! aimed at what people write.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The metadata keys [`ObjectMeta`] accepts.
pub const FIELDS: [&str; 5] = [
    "name",
    "uid",
    "resourceVersion",
    "generation",
    "annotations",
];

/// Object metadata as liken uses it. Every liken kind is cluster-scoped, so
/// there is no namespace.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ObjectMeta {
    /// The object's name: for a Machine, the machine's hostname and node name.
    pub name: String,
    /// The server's name for this one instance of the object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// The server's optimistic-concurrency token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
    /// How many spec edits the server has seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    /// Signals that are requests, not desired state (liken.sh/request-reboot...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

impl ObjectMeta {
    /// Metadata that holds the name alone: the form canonical renderings use,
    /// so annotations and server bookkeeping never change a document's hash.
    pub fn named(name: &str) -> Self {
        ObjectMeta {
            name: name.to_owned(),
            ..ObjectMeta::default()
        }
    }
}

/// Whether `name` is a DNS-1123 subdomain: what Kubernetes requires of an
/// object name, and what a hostname can carry.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            let b = label.as_bytes();
            !b.is_empty()
                && b.len() <= 63
                && b.iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
                && b[0] != b'-'
                && b[b.len() - 1] != b'-'
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_labels_and_owner_references() {
        for field in ["labels", "ownerReferences", "namespace", "finalizers"] {
            let json = format!(r#"{{"name": "big", "{field}": {{}}}}"#);
            let err = serde_json::from_str::<ObjectMeta>(&json).unwrap_err();
            assert!(err.to_string().contains(field), "{err}");
        }
    }

    #[test]
    fn reads_the_five_fields() {
        let m: ObjectMeta = serde_json::from_str(
            r#"{"name":"big","uid":"u","resourceVersion":"7","generation":2,"annotations":{"a":"b"}}"#,
        )
        .unwrap();
        assert_eq!(m.generation, Some(2));
        assert_eq!(m.annotations["a"], "b");
        assert_eq!(
            serde_json::to_string(&ObjectMeta::named("big")).unwrap(),
            r#"{"name":"big"}"#
        );
    }

    #[test]
    fn names_are_dns_subdomains() {
        for ok in ["big", "node-1", "a.b.c", "0"] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in ["", "Big", "-a", "a-", "a..b", "a_b", &"x".repeat(64)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }
}
