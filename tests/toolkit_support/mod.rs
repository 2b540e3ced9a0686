//! What the toolkit's CLI tests share: running the built `liken`, and
//! making a deployment directory to run it on.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The `liken` binary cargo built for these tests.
pub fn liken() -> Command {
    Command::new(env!("CARGO_BIN_EXE_liken"))
}

/// Runs `liken args...` with no standard input.
pub fn run(args: &[&str]) -> Output {
    liken()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("liken runs")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts that `out` failed with `code`, printed one error line that
/// starts `liken:` (plus the usage line for a usage error), and nothing
/// on stdout; returns stderr.
pub fn failure(out: &Output, code: i32) -> String {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(err.starts_with("liken: "), "{err}");
    assert_eq!(
        err.matches("liken: ").count(),
        1,
        "printed more than once: {err}"
    );
    err
}

/// Asserts success and returns stdout.
pub fn success(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        text(&out.stderr)
    );
    text(&out.stdout)
}

pub fn openssl(args: &[&str]) -> String {
    let out = Command::new("openssl")
        .args(args)
        .output()
        .expect("openssl runs");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// A cluster document named `name`, with `leaders` and an optional endpoint.
pub fn cluster_yaml(name: &str, leaders: &[&str], endpoint: Option<&str>) -> String {
    let mut s = format!(
        "apiVersion: liken.sh/v1alpha1\nkind: Cluster\nmetadata:\n  name: {name}\nspec:\n  leaders: [{}]\n",
        leaders.join(", ")
    );
    if let Some(e) = endpoint {
        s.push_str(&format!("  endpoint: {e}\n"));
    }
    s
}

/// A machine manifest named `name` with one interface.
pub fn machine_yaml(name: &str) -> String {
    format!(
        "apiVersion: liken.sh/v1alpha1\nkind: Machine\nmetadata:\n  name: {name}\nspec:\n  network:\n    interfaces:\n      - name: eth0\n"
    )
}

/// A deployment in `root/<name>`: cluster.yaml, a manifest per machine
/// (the first is the one leader) and a minted identity.
pub fn deployment(root: &Path, name: &str, machines: &[&str], endpoint: Option<&str>) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("cluster.yaml"),
        cluster_yaml(name, &machines[..1], endpoint),
    )
    .unwrap();
    for m in machines {
        std::fs::write(dir.join(format!("{m}.yaml")), machine_yaml(m)).unwrap();
    }
    success(&run(&["mint", dir.join("identity").to_str().unwrap()]));
    dir
}
