//! `liken request-reboot [-server URL] <deployment-dir> <machine>`: ask a
//! machine to reboot when no staged change asks it to.
//!
//! It reads the Machine, names its running boot by the
//! [`boot_identity`] of `status.boot.time`, and writes the
//! `liken.sh/request-reboot` annotation with it. A machine that reports no
//! boot time has no running boot to name, and is refused with nothing
//! written. The request skips no coordination (turn, cordon, drain); on
//! rebootPolicy Manual it also waits for `liken approve-reboot`, and the
//! report says which of the two paths the machine is on. The request spends
//! itself: the boot that comes back has another identity.

use std::ffi::OsString;
use std::path::Path;

use liken_documents::Machine;
use liken_documents::annotations::{REQUEST_REBOOT, boot_identity};
use liken_documents::machine::RebootPolicy;

use crate::Error;
use crate::cli;

/// The identity of the boot to name, or why there is none.
pub fn boot_to_name(m: &Machine) -> Result<String, String> {
    let name = m.metadata.name.as_deref().unwrap_or("the machine");
    boot_identity(m.status.as_ref().and_then(|s| s.boot.as_ref())).ok_or_else(|| {
        format!(
            "{name} reports no boot time (status.boot.time), so there is no running boot to ask \
             a reboot of: the machine is still starting, or has never reported; nothing was \
             written (wait until `kubectl get machine {name}` shows its uptime)"
        )
    })
}

/// What the request set in motion.
pub fn report(m: &Machine, dir: &Path, identity: &str) -> String {
    let name = m.metadata.name.as_deref().unwrap_or("the machine");
    let mut out = format!("requested: {REQUEST_REBOOT}={identity}\n");
    match m.spec.reboot_policy {
        RebootPolicy::Auto => out.push_str(&format!(
            "{name} has rebootPolicy Auto: it takes a reboot turn from the cluster, drains its \
             workloads, and reboots.\n"
        )),
        RebootPolicy::Manual => out.push_str(&format!(
            "{name} has rebootPolicy Manual, so it reports RebootPending and waits for you; \
             release it with:\n  liken approve-reboot {} {name}\nthen it takes a reboot turn \
             from the cluster, drains its workloads, and reboots.\n",
            dir.display()
        )),
    }
    out.push_str("Nothing is staged, so it comes back on the documents it runs now.\n");
    out
}

/// `liken request-reboot`.
pub fn run(args: &[OsString]) -> Result<(), Error> {
    let (parsed, [dir, machine]) = cli::parse_exact::<2>("request-reboot", args, &[cli::SERVER])?;
    let server = cli::server("request-reboot", &parsed)?;
    let name = machine.to_string_lossy().into_owned();
    let session = crate::cluster::Session::open(&dir, server.as_deref())?;
    let m = session.machine(&name)?;
    let identity = boot_to_name(&m).map_err(cli::failed)?;
    session.annotate(&name, REQUEST_REBOOT, &identity)?;
    print!("{}", report(&m, &dir, &identity));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use liken_documents::MachineStatus;
    use liken_documents::machine::BootRecord;

    fn machine(boot_time: Option<&str>, policy: RebootPolicy) -> Machine {
        let mut m = Machine::new("big", Default::default());
        m.spec.reboot_policy = policy;
        m.status = Some(MachineStatus {
            boot: Some(BootRecord {
                time: boot_time.map(|t| t.parse().unwrap()),
                ..Default::default()
            }),
            ..Default::default()
        });
        m
    }

    #[test]
    fn the_running_boot_is_named_by_its_time() {
        let m = machine(Some("2026-12-01T07:00:00Z"), RebootPolicy::Manual);
        assert_eq!(
            boot_to_name(&m).unwrap(),
            liken_documents::canonical::sha256(b"2026-12-01T07:00:00Z")
        );
    }

    #[test]
    fn a_machine_without_a_boot_time_is_refused() {
        let err = boot_to_name(&machine(None, RebootPolicy::Auto)).unwrap_err();
        assert!(
            err.contains("status.boot.time") && err.contains("nothing was written"),
            "{err}"
        );
        let mut m = machine(None, RebootPolicy::Auto);
        m.status = None;
        assert!(boot_to_name(&m).is_err());
    }

    #[test]
    fn the_report_follows_the_reboot_policy() {
        let dir = Path::new("mycluster");
        let r = report(&machine(None, RebootPolicy::Manual), dir, "sha256:x");
        assert!(
            r.contains("requested: liken.sh/request-reboot=sha256:x"),
            "{r}"
        );
        assert!(r.contains("liken approve-reboot mycluster big"), "{r}");
        let r = report(&machine(None, RebootPolicy::Auto), dir, "sha256:x");
        assert!(r.contains("Auto") && !r.contains("approve-reboot"), "{r}");
    }
}
