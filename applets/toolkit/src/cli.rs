//! Small helpers the deployment commands share for reading their command
//! line and reporting: the usage line from the command table, an exact
//! count of positional arguments, and the mapping of a failure to
//! [`Error::Failed`]. Nothing here does I/O.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::Error;
use crate::flags::{self, Flag};

/// The synopsis of `name` from the command table.
pub fn synopsis(name: &str) -> &'static str {
    crate::commands::find(name).map_or("", |c| c.synopsis)
}

/// A usage error for `name` naming the problem and the usage line.
pub fn usage(name: &str, problem: &str) -> Error {
    Error::Usage(format!("{problem}\nusage: liken {}", synopsis(name)))
}

/// A failure whose message already names the correction.
pub fn failed(e: impl std::fmt::Display) -> Error {
    Error::Failed(e.to_string())
}

/// Parses `flags` and exactly `N` positional arguments, as paths.
pub fn parse_exact<const N: usize>(
    name: &str,
    args: &[OsString],
    flags: &[Flag],
) -> Result<(flags::Parsed, [PathBuf; N]), Error> {
    let parsed = flags::parse(args, flags, synopsis(name))?;
    let got = parsed.positionals.len();
    let paths: [PathBuf; N] = parsed
        .positionals
        .iter()
        .map(PathBuf::from)
        .collect::<Vec<_>>()
        .try_into()
        .map_err(|_| {
            usage(
                name,
                &format!(
                    "{} takes {N} argument{}, not {got}",
                    name,
                    if N == 1 { "" } else { "s" }
                ),
            )
        })?;
    Ok((parsed, paths))
}

/// The `-server` flag every cluster command takes.
pub const SERVER: Flag = Flag::value("server");

/// The `-server` value, checked to be an https URL.
pub fn server(name: &str, parsed: &flags::Parsed) -> Result<Option<String>, Error> {
    let Some(url) = parsed.text("server", synopsis(name))? else {
        return Ok(None);
    };
    if !liken_documents::patterns::matches(liken_documents::patterns::HTTPS_URL, url) {
        return Err(usage(
            name,
            &format!(
                "-server {url:?} is not an https URL; write one such as https://203.0.113.5:6443"
            ),
        ));
    }
    Ok(Some(url.to_owned()))
}
