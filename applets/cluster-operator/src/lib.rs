//! The `liken-cluster-operator` personality of the liken binary.
//!
//! Not built in this version: invoked under this name, the binary says so on
//! standard error and exits non-zero, so nothing ever mistakes it for a
//! working cluster-operator.

use std::ffi::OsString;
use std::process::ExitCode;

/// Entry point under the name `liken-cluster-operator`.
pub fn main(_args: Vec<OsString>) -> ExitCode {
    eprintln!(
        "liken-cluster-operator: this applet is not built yet in liken {}; nothing was started",
        liken_buildinfo::VERSION
    );
    ExitCode::FAILURE
}
