//! `liken approve-reboot [-server URL] <deployment-dir> <machine>`: report
//! what a machine waits for and grant it one disruption.
//!
//! It reads the Machine's `status.pending`, prints every entry (its
//! condition and that condition's reason, its summary, its hash, and what
//! applies it), and writes the `liken.sh/approve-disruption` annotation
//! with the chosen entry's hash ([`choose`]: the reboot-class entry when
//! there is one, since a reboot applies every staged change; else the first,
//! and running again approves the next). The grant spends itself when the
//! change applies, and writing it twice is the same grant. With nothing
//! pending it says so and writes nothing.

use std::ffi::OsString;

use liken_documents::Machine;
use liken_documents::annotations::APPROVE_DISRUPTION;
use liken_documents::machine::{Pending, PendingKind, RebootPolicy};

use crate::Error;
use crate::cli;

/// The entry to approve.
pub fn choose(pending: &[Pending]) -> Option<&Pending> {
    pending
        .iter()
        .find(|p| p.kind == PendingKind::Reboot)
        .or_else(|| pending.first())
}

fn name_of(m: &Machine) -> &str {
    m.metadata.name.as_deref().unwrap_or("the machine")
}

/// What the machine waits for, as the person reads it before granting.
pub fn report(m: &Machine) -> String {
    let name = name_of(m);
    let status = m.status.as_ref();
    let pending = status.map(|s| s.pending.as_slice()).unwrap_or_default();
    if pending.is_empty() {
        return format!(
            "{name} has nothing pending, so there is nothing to approve; nothing was written\n"
        );
    }
    let count = match pending.len() {
        1 => "one change".to_owned(),
        n => format!("{n} changes"),
    };
    let mut out = format!("{name} waits on {count}:\n");
    for p in pending {
        let reason = status
            .and_then(|s| liken_api::condition::find(&s.conditions, &p.condition))
            .map(|c| format!(" ({})", c.reason))
            .unwrap_or_default();
        let applies = match p.kind {
            PendingKind::Reboot => "a reboot applies it, and every other staged change with it",
            PendingKind::Restart => {
                "a k3s restart in place applies it; the machine does not reboot"
            }
        };
        out.push_str(&format!(
            "  {}{reason}: {}\n    hash {}\n    {applies}\n",
            p.condition, p.summary, p.hash
        ));
    }
    out
}

/// What follows the grant of `chosen`.
pub fn granted(m: &Machine, chosen: &Pending) -> String {
    let name = name_of(m);
    let mut out = format!(
        "approved: {APPROVE_DISRUPTION}={} ({})\n{name} now waits for its turn from the cluster, \
         drains, and applies it.\n",
        chosen.hash, chosen.condition
    );
    if m.spec.reboot_policy == RebootPolicy::Auto {
        out.push_str(&format!(
            "{name} has rebootPolicy Auto, so it would have gone ahead without this.\n"
        ));
    }
    out
}

/// `liken approve-reboot`.
pub fn run(args: &[OsString]) -> Result<(), Error> {
    let (parsed, [dir, machine]) = cli::parse_exact::<2>("approve-reboot", args, &[cli::SERVER])?;
    let server = cli::server("approve-reboot", &parsed)?;
    let name = machine.to_string_lossy().into_owned();
    let session = crate::cluster::Session::open(&dir, server.as_deref())?;
    let m = session.machine(&name)?;
    print!("{}", report(&m));
    let pending = m
        .status
        .as_ref()
        .map(|s| s.pending.as_slice())
        .unwrap_or_default();
    let Some(chosen) = choose(pending) else {
        return Ok(());
    };
    session.annotate(&name, APPROVE_DISRUPTION, &chosen.hash)?;
    print!("\n{}", granted(&m, chosen));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use liken_api::{Condition, ConditionStatus};
    use liken_documents::MachineStatus;

    fn pending(condition: &str, kind: PendingKind, hash: &str) -> Pending {
        Pending {
            condition: condition.into(),
            kind,
            hash: hash.into(),
            summary: format!("{condition} changed"),
        }
    }

    fn machine(entries: Vec<Pending>) -> Machine {
        let mut m = Machine::new("big", Default::default());
        let mut status = MachineStatus {
            pending: entries,
            ..Default::default()
        };
        let now: liken_api::condition::Time = "2026-12-01T07:00:00Z".parse().unwrap();
        liken_api::condition::set(
            &mut status.conditions,
            Condition::new(
                "MachineConverged",
                ConditionStatus::False,
                "RebootPending",
                "storage changed",
                now,
            ),
        );
        m.status = Some(status);
        m
    }

    #[test]
    fn the_reboot_class_change_is_chosen_else_the_first() {
        let restart = pending("CredentialsConverged", PendingKind::Restart, "sha256:aa");
        let reboot = pending("MachineConverged", PendingKind::Reboot, "sha256:bb");
        let both = [restart.clone(), reboot.clone()];
        assert_eq!(choose(&both), Some(&reboot));
        let restarts = [
            restart.clone(),
            pending("ClusterConverged", PendingKind::Restart, "c"),
        ];
        assert_eq!(choose(&restarts), Some(&restart));
        assert_eq!(choose(&[]), None);
    }

    #[test]
    fn the_report_names_each_change_and_what_applies_it() {
        let m = machine(vec![
            pending("CredentialsConverged", PendingKind::Restart, "sha256:aa"),
            pending("MachineConverged", PendingKind::Reboot, "sha256:bb"),
        ]);
        let r = report(&m);
        assert!(r.starts_with("big waits on 2 changes:\n"), "{r}");
        assert!(r.contains("  MachineConverged (RebootPending): MachineConverged changed\n    hash sha256:bb\n    a reboot applies it"), "{r}");
        assert!(r.contains("  CredentialsConverged: CredentialsConverged changed\n    hash sha256:aa\n    a k3s restart in place"), "{r}");
        let g = granted(&m, choose(&m.status.as_ref().unwrap().pending).unwrap());
        assert!(
            g.starts_with("approved: liken.sh/approve-disruption=sha256:bb (MachineConverged)"),
            "{g}"
        );
    }

    #[test]
    fn nothing_pending_says_so() {
        let r = report(&machine(Vec::new()));
        assert!(
            r.contains("nothing pending") && r.contains("nothing was written"),
            "{r}"
        );
        let mut m = machine(Vec::new());
        m.status = None;
        assert!(report(&m).contains("nothing pending"));
    }
}
