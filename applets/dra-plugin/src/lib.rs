//! The `liken-dra-plugin` personality of the liken binary.
//!
//! Not built in this version: invoked under this name, the binary says so on
//! standard error and exits non-zero, so nothing ever mistakes it for a
//! working dra-plugin.

use std::ffi::OsString;
use std::process::ExitCode;

/// Entry point under the name `liken-dra-plugin`.
pub fn main(_args: Vec<OsString>) -> ExitCode {
    eprintln!(
        "liken-dra-plugin: this applet is not built yet in liken {}; nothing was started",
        liken_buildinfo::VERSION
    );
    ExitCode::FAILURE
}
