//! `liken adopt <harvest-dir> <identity-dir>`: the identity of an existing
//! k3s cluster, from the files a person copied off one of its servers
//! (`token` and `tls/`, as `/var/lib/rancher/k3s/server/` holds them).
//!
//! Everything is checked before anything is written
//! ([`liken_identity::Identity::from_harvest`]: all missing files named at
//! once, each CA's key its own, the token pinned to the harvested server
//! CA, a bare password completed into the secure token); the identity is
//! then written like a minted one and never over an existing identity.

use std::ffi::OsString;

use liken_identity::Identity;

use crate::Error;
use crate::cli;

/// `liken adopt`.
pub fn run(args: &[OsString]) -> Result<(), Error> {
    let (_, [harvest, dir]) = cli::parse_exact::<2>("adopt", args, &[])?;
    let identity = Identity::from_harvest(&harvest).map_err(cli::failed)?;
    identity.write_new(&dir).map_err(cli::failed)?;
    print!(
        "{}",
        crate::mint::report(
            &format!("adopted the identity harvested in {}", harvest.display()),
            &dir,
            &identity,
        )
    );
    let given = std::fs::read_to_string(harvest.join(liken_identity::TOKEN)).unwrap_or_default();
    if !given.trim().starts_with("K10") {
        println!(
            "The harvested token was a bare password; the identity holds it in k3s's secure \
             form, K10{}::server:<password>, which pins the cluster's server CA.",
            identity.token.ca_hash
        );
    }
    println!(
        "Next: set spec.origin: Adopted and spec.endpoint to the cluster's join URL in \
         cluster.yaml, then build the layer with `liken layer`."
    );
    Ok(())
}
