//! Stamps the version into the binary: `LIKEN_VERSION` when set (a release
//! name, checked against the grammar), else `git describe` of the checkout.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=LIKEN_VERSION");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    for file in [".git/HEAD", ".git/index", ".git/refs"] {
        println!("cargo:rerun-if-changed={root}/{file}");
    }
    let version = match std::env::var("LIKEN_VERSION") {
        Ok(v) if !v.is_empty() => match liken_api::Version::parse(&v) {
            Ok(v) => v.to_string(),
            Err(e) => panic!("LIKEN_VERSION: {e}; unset it for a development build"),
        },
        _ => Command::new("git")
            .args(["-C", root, "describe", "--always", "--dirty", "--tags"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "unknown".to_owned()),
    };
    println!("cargo:rustc-env=LIKEN_BUILD_VERSION={version}");
}
