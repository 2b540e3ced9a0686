//! `liken kubeconfig [-server URL] <deployment-dir>`: writes the
//! administrator credential ([`crate::deployment`]) and says how to use it.

use std::ffi::OsString;
use std::time::SystemTime;

use crate::Error;
use crate::cli;

/// `liken kubeconfig`.
pub fn run(args: &[OsString]) -> Result<(), Error> {
    let (parsed, [dir]) = cli::parse_exact::<1>("kubeconfig", args, &[cli::SERVER])?;
    let server = cli::server("kubeconfig", &parsed)?;
    let c = crate::deployment::write_kubeconfig(&dir, server.as_deref(), SystemTime::now())?;
    println!(
        "wrote {}: cluster {} at {}, as system:admin",
        c.path.display(),
        c.name,
        c.endpoint
    );
    println!("  kubectl --kubeconfig {} get nodes", c.path.display());
    Ok(())
}
