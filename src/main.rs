//! The `liken` executable: one file that is init, both operators, the DRA
//! plugin, or the workstation toolkit, chosen by the basename of argv[0].
//!
//! The table below is the whole contract. A name that is not in it (the bare
//! file renamed, say) falls back to the toolkit, and the toolkit lists the
//! names. Any process that runs as PID 1 is init, whatever it was called,
//! because a kernel that execs a misnamed file still needs an init.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

/// An applet's entry point: the whole argv (argv[0] included).
type Entry = fn(Vec<OsString>) -> ExitCode;

/// argv[0] basename -> applet. `liken` and `kubectl-liken` both reach the
/// toolkit; kubectl runs plugins under their file name, and completes
/// `kubectl liken ...` by running `kubectl_complete-liken`.
const APPLETS: &[(&str, Entry)] = &[
    ("init", liken_init::main),
    ("liken-machine-operator", liken_machine_operator::main),
    ("liken-cluster-operator", liken_cluster_operator::main),
    ("liken-dra-plugin", liken_dra_plugin::main),
    ("liken", liken_toolkit::main),
    ("kubectl-liken", liken_toolkit::main),
    ("kubectl_complete-liken", liken_toolkit::complete_main),
];

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if std::process::id() == 1 {
        return liken_init::main(args);
    }
    let name = args
        .first()
        .and_then(|a| Path::new(a).file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("liken");
    let entry = APPLETS
        .iter()
        .find(|(applet, _)| *applet == name)
        .map(|(_, entry)| *entry)
        .unwrap_or(liken_toolkit::main);
    entry(args)
}
