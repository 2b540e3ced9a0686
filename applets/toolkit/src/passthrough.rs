//! `liken kubectl|stern|flux [-server URL] <deployment-dir> [args...]`: run
//! a tool the person already has against the deployment's cluster.
//!
//! The administrator kubeconfig is written first ([`crate::deployment`]),
//! then this process is replaced by the tool found on `PATH`, with
//! `KUBECONFIG` set to that file and every argument after the deployment
//! directory passed unchanged (the flags stop there, so the tool's own
//! flags reach it untouched). The tool owns the terminal and its exit code
//! is the command's. liken neither bundles nor reimplements these tools; a
//! tool missing from `PATH` is refused by name before anything runs.

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use crate::Error;
use crate::cli;

/// The first executable file called `name` in the directories of `path`.
pub fn find_on_path(name: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .map(|dir| {
            if dir.as_os_str().is_empty() {
                PathBuf::from(".").join(name)
            } else {
                dir.join(name)
            }
        })
        .find(|p| is_executable(p))
}

/// Whether `p` is a regular file someone may execute.
pub fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn passthrough(tool: &str, args: &[OsString]) -> Result<(), Error> {
    let parsed = crate::flags::parse(args, &[cli::SERVER], cli::synopsis(tool))?;
    let Some((dir, rest)) = parsed.positionals.split_first() else {
        return Err(cli::usage(tool, "the deployment directory is missing"));
    };
    let server = cli::server(tool, &parsed)?;
    let dir = PathBuf::from(dir);
    let credential =
        crate::deployment::write_kubeconfig(&dir, server.as_deref(), SystemTime::now())?;
    let Some(program) = find_on_path(tool, std::env::var_os("PATH").as_deref()) else {
        return Err(cli::failed(format!(
            "{tool} is not on your PATH; install {tool}, or add the directory that holds it \
             to PATH, and run this again (the kubeconfig is written: {})",
            credential.path.display()
        )));
    };
    let kubeconfig = std::path::absolute(&credential.path).unwrap_or(credential.path);
    let error = Command::new(&program)
        .arg0(tool)
        .args(rest)
        .env("KUBECONFIG", &kubeconfig)
        .exec();
    Err(cli::failed(format!(
        "running {}: {error}",
        program.display()
    )))
}

/// `liken kubectl`.
pub fn kubectl(args: &[OsString]) -> Result<(), Error> {
    passthrough("kubectl", args)
}

/// `liken stern`.
pub fn stern(args: &[OsString]) -> Result<(), Error> {
    passthrough("stern", args)
}

/// `liken flux`.
pub fn flux(args: &[OsString]) -> Result<(), Error> {
    passthrough("flux", args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_lookup_takes_the_first_executable() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        std::fs::write(a.join("kubectl"), "not executable").unwrap();
        std::fs::write(b.join("kubectl"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(b.join("kubectl"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        std::fs::create_dir(a.join("stern")).unwrap();
        let path = std::env::join_paths([&a, &b]).unwrap();
        assert_eq!(
            find_on_path("kubectl", Some(&path)),
            Some(b.join("kubectl"))
        );
        assert_eq!(find_on_path("stern", Some(&path)), None);
        assert_eq!(find_on_path("kubectl", None), None);
    }
}
