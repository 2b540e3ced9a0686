//! Stamps the version into the binary: `LIKEN_VERSION` when set (a release
//! name, checked against the grammar), else the `git describe` that make
//! passes in `LIKEN_GIT_DESCRIBE`, else `git describe` run here (a plain
//! `cargo build`).
//!
//! make passes the description in the environment because cargo tracks an
//! environment value exactly, while file-change tracking of .git misses
//! commits when two checkouts share one target directory (as CI's clone and
//! a developer's tree do).

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=LIKEN_VERSION");
    println!("cargo:rerun-if-env-changed=LIKEN_GIT_DESCRIBE");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    for file in [".git/HEAD", ".git/index", ".git/refs"] {
        println!("cargo:rerun-if-changed={root}/{file}");
    }
    let set = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let version = match set("LIKEN_VERSION") {
        Some(v) => match liken_api::Version::parse(&v) {
            Ok(v) => v.to_string(),
            Err(e) => panic!("LIKEN_VERSION: {e}; unset it for a development build"),
        },
        None => set("LIKEN_GIT_DESCRIBE").unwrap_or_else(|| {
            Command::new("git")
                .args(["-C", root, "describe", "--always", "--dirty", "--tags"])
                .output()
                .ok()
                .filter(|o| o.status.success())
                .and_then(|o| String::from_utf8(o.stdout).ok())
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "unknown".to_owned())
        }),
    };
    println!("cargo:rustc-env=LIKEN_BUILD_VERSION={version}");
}
