//! The envelope every spec-shaped document shares (apiVersion, kind, narrow
//! metadata, spec, optional status) and its strict YAML parser.
//!
//! A file is refused before any field is judged when it is too large, not
//! UTF-8, not exactly one YAML document, or of the wrong apiVersion or kind.
//! Then the typed parse refuses unknown fields and wrong types, naming the
//! path, and validation reports every rule the CRD would enforce. Nothing
//! here panics on input.

use std::fmt::Debug;

use liken_api::ObjectMeta;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{DocumentError, Problems};
use crate::validate::Checker;

/// The largest document file accepted. Real manifests are a few KiB; the
/// bound keeps a hostile file from costing memory.
pub const MAX_BYTES: usize = 1 << 20;

/// What a spec type tells the envelope about its document.
pub trait Spec: Serialize + DeserializeOwned + Default + Clone + PartialEq + Debug {
    /// The document's kind.
    const KIND: &'static str;
    /// Its status type.
    type Status: Serialize + DeserializeOwned + Clone + PartialEq + Debug;
    /// Every rule the CRD enforces on one object, with fields named from the
    /// document's root (`spec.version`).
    fn validate(&self, status: Option<&Self::Status>, c: &mut Checker);
}

/// A whole document as a file holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[serde(bound(
    serialize = "S: Serialize, S::Status: Serialize",
    deserialize = "S: DeserializeOwned, S::Status: DeserializeOwned"
))]
pub struct Document<S: Spec> {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: S,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<S::Status>,
}

impl<S: Spec> Document<S> {
    /// A document of this kind named `name`.
    pub fn new(name: &str, spec: S) -> Self {
        Document {
            api_version: liken_api::API_VERSION.to_owned(),
            kind: S::KIND.to_owned(),
            metadata: ObjectMeta::named(name),
            spec,
            status: None,
        }
    }

    /// `Kind name`, as errors name the document.
    pub fn label(&self) -> String {
        format!("{} {}", S::KIND, self.metadata.name)
    }

    /// Parses `bytes` read from `file` strictly and validates the result.
    pub fn from_yaml(file: &str, bytes: &[u8]) -> Result<Self, Problems> {
        let value = read_one_yaml(file, bytes).map_err(|e| Problems(vec![e]))?;
        let doc = Self::from_value(file, value).map_err(|e| Problems(vec![e]))?;
        doc.check(file)?;
        Ok(doc)
    }

    /// Parses an already-read YAML value strictly, without validation.
    pub fn from_value(file: &str, value: serde_yaml::Value) -> Result<Self, DocumentError> {
        let label = label_of(&value, S::KIND);
        envelope(file, &label, &value, S::KIND)?;
        serde_path_to_error::deserialize(value).map_err(|e| {
            let field = e.path().to_string();
            let field = if field == "." { String::new() } else { field };
            DocumentError::new(file, &label, &field, tidy(e.into_inner().to_string()))
        })
    }

    /// Reads an object the API server returned. The server's own metadata
    /// (managedFields, creationTimestamp...) is narrowed to what liken reads;
    /// spec and status stay strict.
    pub fn from_api(source: &str, mut value: serde_json::Value) -> Result<Self, DocumentError> {
        if let Some(meta) = value.get_mut("metadata").and_then(|m| m.as_object_mut()) {
            meta.retain(|k, _| liken_api::meta::FIELDS.contains(&k.as_str()));
        }
        let yaml = serde_yaml::to_value(&value)
            .map_err(|e| DocumentError::new(source, S::KIND, "", e.to_string()))?;
        Self::from_value(source, yaml)
    }

    /// Every CRD rule, judged on this document.
    pub fn check(&self, file: &str) -> Result<(), Problems> {
        let mut c = Checker::new();
        if !liken_api::meta::valid_name(&self.metadata.name) {
            c.fault(
                "metadata.name",
                format!(
                    "{:?} is not a valid name: use lowercase letters, digits and '-', \
                     starting and ending with a letter or digit",
                    self.metadata.name
                ),
            );
        }
        self.spec.validate(self.status.as_ref(), &mut c);
        if c.is_empty() {
            Ok(())
        } else {
            Err(Problems(c.finish(file, &self.label())))
        }
    }

    /// The document as YAML.
    pub fn to_yaml(&self) -> String {
        // Serializing these types cannot fail: every map key is a string.
        serde_yaml::to_string(self).unwrap_or_default()
    }
}

/// serde's messages name Rust-side details; say them in the manifest's terms.
fn tidy(message: String) -> String {
    match message.strip_prefix("unknown field `") {
        Some(rest) => {
            let expected = rest.split_once("`, ").map(|(_, e)| e).unwrap_or("");
            format!("is not a field here; remove it or check its spelling ({expected})")
        }
        None => message,
    }
}

/// Reads `bytes` as exactly one YAML document, refusing oversized, non-UTF-8
/// and multi-document input.
pub fn read_one_yaml(file: &str, bytes: &[u8]) -> Result<serde_yaml::Value, DocumentError> {
    if bytes.len() > MAX_BYTES {
        return Err(DocumentError::new(
            file,
            "",
            "",
            format!(
                "is {} bytes; a document may be at most {MAX_BYTES} bytes",
                bytes.len()
            ),
        ));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        DocumentError::new(
            file,
            "",
            "",
            format!("is not UTF-8 text (bad byte at offset {})", e.valid_up_to()),
        )
    })?;
    if flow_depth(text) > MAX_DEPTH {
        return Err(DocumentError::new(
            file,
            "",
            "",
            format!("nests more than {MAX_DEPTH} levels deep; no liken document does"),
        ));
    }
    let mut values = Vec::new();
    for doc in serde_yaml::Deserializer::from_str(text) {
        let value = serde_yaml::Value::deserialize(doc)
            .map_err(|e| DocumentError::new(file, "", "", format!("is not valid YAML: {e}")))?;
        if !value.is_null() {
            values.push(value);
        }
        if values.len() > 1 {
            return Err(DocumentError::new(
                file,
                "",
                "",
                "holds more than one YAML document; put each document in its own file",
            ));
        }
    }
    values
        .pop()
        .ok_or_else(|| DocumentError::new(file, "", "", "holds no YAML document"))
}

/// The deepest nesting a document may have. Real documents stay under ten;
/// the YAML parser slows down sharply on deep flow nesting, so deeper input
/// is refused before it is parsed.
pub const MAX_DEPTH: usize = 64;

/// The deepest nesting of flow collections (`[`, `{`) in `text`, outside
/// quoted scalars and comments. An over-estimate is harmless: it only has to
/// bound what the parser will face.
fn flow_depth(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut quote: Option<char> = None;
    let mut comment = false;
    let mut prev = '\n';
    for ch in text.chars() {
        if comment {
            comment = ch != '\n';
        } else if let Some(q) = quote {
            if ch == q {
                quote = None;
            }
        } else {
            match ch {
                '"' | '\'' if !prev.is_alphanumeric() => quote = Some(ch),
                '#' if prev.is_whitespace() => comment = true,
                '[' | '{' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        prev = ch;
    }
    deepest
}

/// `Kind name` read from a value, as far as it goes.
pub fn label_of(value: &serde_yaml::Value, kind: &str) -> String {
    match value
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(|n| n.as_str())
    {
        Some(name) => format!("{kind} {name}"),
        None => kind.to_owned(),
    }
}

/// Checks apiVersion and kind before anything else, so a file of the wrong
/// kind gets one clear answer instead of a list of unknown fields.
pub fn envelope(
    file: &str,
    label: &str,
    value: &serde_yaml::Value,
    kind: &str,
) -> Result<(), DocumentError> {
    if !value.is_mapping() {
        return Err(DocumentError::new(
            file,
            label,
            "",
            "is not a mapping of fields",
        ));
    }
    match value.get("apiVersion").and_then(|v| v.as_str()) {
        Some(liken_api::API_VERSION) => {}
        Some(other) => {
            return Err(DocumentError::new(
                file,
                label,
                "apiVersion",
                format!("is {other:?}; write {:?}", liken_api::API_VERSION),
            ));
        }
        None => {
            return Err(DocumentError::new(
                file,
                label,
                "apiVersion",
                format!("is missing; write apiVersion: {}", liken_api::API_VERSION),
            ));
        }
    }
    match value.get("kind").and_then(|v| v.as_str()) {
        Some(k) if k == kind => Ok(()),
        Some(other) => Err(DocumentError::new(
            file,
            label,
            "kind",
            format!("is {other:?}; this file must hold a {kind}"),
        )),
        None => Err(DocumentError::new(
            file,
            label,
            "kind",
            format!("is missing; write kind: {kind}"),
        )),
    }
}
