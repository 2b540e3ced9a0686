//! The one error every parser and validator here returns: it names the file,
//! the document (kind and name, as far as they could be read) and the field,
//! and says what is wrong in words that point at the correction.

use std::fmt;

/// A document that could not be read or does not hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentError {
    /// The file (or other source, such as an API object path) it came from.
    pub file: String,
    /// `Kind name`, `Kind`, or empty when not even the kind could be read.
    pub document: String,
    /// The dotted path of the field at fault (`spec.storage.systemA.size`),
    /// empty for a fault of the whole document.
    pub field: String,
    /// What is wrong, and what to do about it.
    pub message: String,
}

impl DocumentError {
    pub fn new(file: &str, document: &str, field: &str, message: impl Into<String>) -> Self {
        DocumentError {
            file: file.to_owned(),
            document: document.to_owned(),
            field: field.to_owned(),
            message: message.into(),
        }
    }
}

impl fmt::Display for DocumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if !self.document.is_empty() {
            write!(f, ": {}", self.document)?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for DocumentError {}

/// Several faults in one document, reported together so one edit can fix
/// them all. Never empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problems(pub Vec<DocumentError>);

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Problems {}
