//! The collector validation passes write into: each check names the dotted
//! path of the field it judged, and every fault of a document is reported at
//! once, so one edit can fix them all.

use crate::error::DocumentError;
use crate::patterns;

/// Faults found so far in one document.
#[derive(Debug, Default)]
pub struct Checker {
    found: Vec<(String, String)>,
}

impl Checker {
    pub fn new() -> Self {
        Checker::default()
    }

    /// Records a fault of `field`.
    pub fn fault(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.found.push((field.into(), message.into()));
    }

    /// Records a fault unless `ok`.
    pub fn check(&mut self, ok: bool, field: impl Into<String>, message: impl Into<String>) {
        if !ok {
            self.fault(field, message);
        }
    }

    /// Checks `value` against one of the [`patterns`], with `example` shown
    /// as the shape to write instead.
    pub fn pattern(&mut self, field: &str, value: &str, pattern: &'static str, example: &str) {
        if !patterns::matches(pattern, value) {
            self.fault(field, format!("{value:?} is not {example}"));
        }
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }

    /// The faults as errors of `file` and `document`.
    pub fn finish(self, file: &str, document: &str) -> Vec<DocumentError> {
        self.found
            .into_iter()
            .map(|(field, message)| DocumentError::new(file, document, &field, message))
            .collect()
    }
}
