//! The built `liken` file: static, and each name it is run under reaches its
//! applet.
//!
//! These tests run the release binary `make` leaves at out/liken (LIKEN_BIN
//! overrides the path), because that is the file that ships: a debug build
//! from `cargo test` is neither static nor stamped the same way.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn liken_bin() -> PathBuf {
    let path = std::env::var_os("LIKEN_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("out/liken"));
    assert!(
        path.is_file(),
        "{} does not exist: run `make` first (or set LIKEN_BIN)",
        path.display()
    );
    path
}

/// Runs the binary through a symlink called `name`.
fn run_as(name: &str, args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join(name);
    std::os::unix::fs::symlink(liken_bin(), &link).unwrap();
    Command::new(&link).args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_binary_is_static() {
    let bytes = std::fs::read(liken_bin()).unwrap();
    let elf = goblin::elf::Elf::parse(&bytes).unwrap();
    assert_eq!(elf.header.e_machine, goblin::elf::header::EM_X86_64);
    assert!(
        elf.interpreter.is_none(),
        "has a dynamic loader: {:?}",
        elf.interpreter
    );
    assert!(
        elf.libraries.is_empty(),
        "needs shared libraries: {:?}",
        elf.libraries
    );
}

/// The manual's synopsis of every toolkit command, as `liken` must print it.
const SYNOPSES: &[&str] = &[
    "liken new <directory>",
    "liken mint <identity-dir>",
    "liken adopt <harvest-dir> <identity-dir>",
    "liken kubeconfig [-server URL] <deployment-dir>",
    "liken approve-reboot [-server URL] <deployment-dir> <machine>",
    "liken request-reboot [-server URL] <deployment-dir> <machine>",
    "liken kubectl [-server URL] <deployment-dir> [args...]",
    "liken stern [-server URL] <deployment-dir> [args...]",
    "liken flux [-server URL] <deployment-dir> [args...]",
    "liken layer <manifests-dir> <identity-dir> <output.cpio>",
    "liken fetch [-digest sha256:<hex>] <source-url> <version|latest> <channel-dir>",
    "liken media <release-dir> <deployment.cpio> <output.cpio>",
    "liken stick [-console ttyS0] <release-dir> <deployment.cpio> <output.img>",
    "liken bundle [-slot-size 1Gi] <vmlinuz> <liken.sqfs> <boot.cpio> <microcode.cpio> <liken-cli> <systemd-boot.efi> <grub-boot.img> <grub-core.img> <licenses.md> <channel-dir> <version> [component=version ...]",
    "liken serve <channel-dir> [address]",
    "liken index -source <url> <output-dir> < keys",
    "liken version",
    "liken completion bash",
    "liken plugins sync|list|remove [-server URL] <deployment-dir>",
];

#[test]
fn bare_liken_prints_every_command_and_fails() {
    let out = run_as("liken", &[]);
    assert_eq!(out.status.code(), Some(2));
    let usage = text(&out.stderr);
    for synopsis in SYNOPSES {
        assert!(
            usage.lines().any(|l| l.trim() == *synopsis),
            "usage lacks {synopsis:?}:\n{usage}"
        );
    }
}

#[test]
fn unknown_command_prints_usage_and_exits_2() {
    let out = run_as("liken", &["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("unknown command \"frobnicate\""), "{err}");
    assert!(err.contains("liken mint <identity-dir>"), "{err}");
}

#[test]
fn version_prints_the_stamp() {
    let expected = match std::env::var("LIKEN_VERSION") {
        Ok(v) if !v.is_empty() => v,
        _ => {
            let git = Command::new("git")
                .args([
                    "-C",
                    env!("CARGO_MANIFEST_DIR"),
                    "describe",
                    "--always",
                    "--dirty",
                    "--tags",
                ])
                .output()
                .unwrap();
            text(&git.stdout).trim().to_owned()
        }
    };
    for name in ["liken", "kubectl-liken"] {
        let out = run_as(name, &["version"]);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let got = text(&out.stdout).trim().to_owned();
        // A tree edited after `make` reads -dirty in git but not in the binary.
        assert_eq!(
            got.trim_end_matches("-dirty"),
            expected.trim_end_matches("-dirty"),
            "{name}"
        );
    }
}

#[test]
fn unbuilt_applets_say_so_and_fail() {
    for name in ["init", "liken-machine-operator", "liken-dra-plugin"] {
        let out = run_as(name, &[]);
        assert!(!out.status.success(), "{name} exited 0");
        let err = text(&out.stderr);
        assert!(err.starts_with(name), "{name}: {err}");
        assert!(err.contains("not built yet"), "{name}: {err}");
        assert!(out.stdout.is_empty(), "{name} printed on stdout");
    }
}

#[test]
fn another_file_name_reaches_the_toolkit() {
    let out = run_as("liken-2026.07.20-001", &["version"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// glibc linked statically still has to resolve names (the operators dial
/// the API server and machines their channel by name): the static binary
/// fetches a release from its own server by the name `localhost`.
#[test]
fn the_static_binary_resolves_names() {
    let dir = tempfile::tempdir().unwrap();
    let mut artifacts = Vec::new();
    for name in [
        "vmlinuz",
        "liken.sqfs",
        "boot.cpio",
        "microcode.cpio",
        "liken",
        "sd.efi",
        "boot.img",
        "core.img",
        "LICENSES.md",
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, format!("{name} bytes")).unwrap();
        artifacts.push(path);
    }
    let channel = dir.path().join("channel");
    let mut bundle = Command::new(liken_bin());
    bundle
        .arg("bundle")
        .args(&artifacts)
        .arg(&channel)
        .arg("2026.07.20-001");
    let out = bundle.output().unwrap();
    assert!(out.status.success(), "bundle: {}", text(&out.stderr));

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut serve = Command::new(liken_bin())
        .args([
            "serve",
            channel.to_str().unwrap(),
            &format!("127.0.0.1:{port}"),
        ])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "liken serve did not listen"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let fetched = dir.path().join("fetched");
    let out = Command::new(liken_bin())
        .args([
            "fetch",
            &format!("http://localhost:{port}"),
            "latest",
            fetched.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let _ = serve.kill();
    let _ = serve.wait();
    assert!(out.status.success(), "fetch by name: {}", text(&out.stderr));
    assert_eq!(
        std::fs::read(fetched.join("2026.07.20-001/vmlinuz")).unwrap(),
        b"vmlinuz bytes"
    );
}
