//! How a long transfer reports itself: a small trait the caller implements
//! (a progress bar on a terminal, a line per artifact in a log, nothing in a
//! test). The library never writes to a terminal itself.

/// Receives the steps of a release download, one artifact at a time.
pub trait Progress {
    /// An artifact of `size` bytes starts downloading.
    fn begin(&mut self, _name: &str, _size: u64) {}
    /// `bytes` more arrived and were hashed and written.
    fn advance(&mut self, _bytes: u64) {}
    /// The artifact verified and is in place.
    fn done(&mut self, _name: &str) {}
    /// The artifact failed; the error follows from the call that failed.
    fn fail(&mut self, _name: &str) {}
    /// The artifact was already on disk and verified; nothing was downloaded.
    fn present(&mut self, _name: &str, _size: u64) {}
}

/// Reports nothing.
#[derive(Debug, Default)]
pub struct Quiet;

impl Progress for Quiet {}
