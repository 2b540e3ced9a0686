//! `liken mint <identity-dir>`: a fresh cluster identity, through
//! [`liken_identity::Identity::mint`] (whole or not at all, never over an
//! existing identity), then a list of what was written and the reminder
//! that the directory holds private keys.

use std::ffi::OsString;
use std::path::Path;
use std::time::SystemTime;

use liken_identity::Identity;

use crate::Error;
use crate::cli;

/// `liken mint`.
pub fn run(args: &[OsString]) -> Result<(), Error> {
    let (_, [dir]) = cli::parse_exact::<1>("mint", args, &[])?;
    let identity = Identity::mint(&dir, SystemTime::now()).map_err(cli::failed)?;
    print!(
        "{}",
        report("minted a new cluster identity", &dir, &identity)
    );
    Ok(())
}

/// What `mint` and `adopt` print after writing `identity` to `dir`.
pub fn report(what: &str, dir: &Path, identity: &Identity) -> String {
    let mut out = format!("{what} in {}:\n", dir.display());
    let files = identity.files();
    for (rel, _, mode) in &files {
        let kind = if *mode & 0o077 == 0 {
            "private"
        } else {
            "public"
        };
        out.push_str(&format!("  {rel:<28} {kind}\n"));
    }
    out.push_str(&format!(
        "The private files are the cluster's keys and join token: keep {} out of version \
         control (the .gitignore that `liken new` writes does).\n",
        dir.display()
    ));
    out
}
