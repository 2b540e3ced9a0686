//! The `init` personality of the liken binary.
//!
//! Not built in this version: invoked under this name, the binary says so on
//! standard error and exits non-zero, so nothing ever mistakes it for a
//! working init. Its parts are built and tested one by one: [`storage`].

pub mod storage;

use std::ffi::OsString;
use std::process::ExitCode;

/// Entry point under the name `init`.
pub fn main(_args: Vec<OsString>) -> ExitCode {
    eprintln!(
        "init: this applet is not built yet in liken {}; nothing was started",
        liken_buildinfo::VERSION
    );
    ExitCode::FAILURE
}
