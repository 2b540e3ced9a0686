//! `liken layer`, run on a deployment and read back with GNU cpio: the
//! paths of ARCHITECTURE.md, the exact bytes and modes, the same bytes on
//! every run, and refusals that write nothing.

mod toolkit_support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use toolkit_support::*;

fn cpio(args: &[&str], archive: &Path, cwd: &Path) -> String {
    let out = Command::new("cpio")
        .args(args)
        .arg("-F")
        .arg(archive)
        .current_dir(cwd)
        .output()
        .expect("cpio is installed");
    assert!(out.status.success(), "cpio {args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

fn layer(dir: &Path, out: &Path) -> std::process::Output {
    run(&[
        "layer",
        dir.to_str().unwrap(),
        dir.join("identity").to_str().unwrap(),
        out.to_str().unwrap(),
    ])
}

#[test]
fn the_layer_holds_the_deployment_at_its_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = deployment(
        tmp.path(),
        "home",
        &["big", "little"],
        Some("https://10.10.0.1:6443"),
    );
    // Neither the admin credential nor stray files go in.
    success(&run(&["kubeconfig", dir.to_str().unwrap()]));
    std::fs::write(dir.join(".gitignore"), "identity/\n").unwrap();
    std::fs::write(dir.join("notes.txt"), "hello\n").unwrap();
    let out = dir.join("deployment.cpio");
    let said = success(&layer(&dir, &out));
    assert!(said.contains("machines big (leader), little"), "{said}");

    let list = cpio(&["-t", "--quiet"], &out, tmp.path());
    let mut expected = vec![
        "etc",
        "etc/liken",
        "etc/liken/deployment",
        "etc/liken/deployment/cluster.yaml",
        "etc/liken/deployment/identity",
        "etc/liken/deployment/identity/client-ca.crt",
        "etc/liken/deployment/identity/client-ca.key",
        "etc/liken/deployment/identity/etcd",
        "etc/liken/deployment/identity/etcd/peer-ca.crt",
        "etc/liken/deployment/identity/etcd/peer-ca.key",
        "etc/liken/deployment/identity/etcd/server-ca.crt",
        "etc/liken/deployment/identity/etcd/server-ca.key",
        "etc/liken/deployment/identity/request-header-ca.crt",
        "etc/liken/deployment/identity/request-header-ca.key",
        "etc/liken/deployment/identity/server-ca.crt",
        "etc/liken/deployment/identity/server-ca.key",
        "etc/liken/deployment/identity/service.key",
        "etc/liken/deployment/identity/token",
        "etc/liken/deployment/machines",
        "etc/liken/deployment/machines/big.yaml",
        "etc/liken/deployment/machines/little.yaml",
    ];
    expected.sort();
    assert_eq!(list.lines().collect::<Vec<_>>(), expected);

    // Owned by root, dated the epoch.
    let verbose = cpio(&["-tv", "--quiet"], &out, tmp.path());
    for line in verbose.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert_eq!((cols[2], cols[3]), ("root", "root"), "{line}");
        assert!(line.contains("1970"), "{line}");
    }

    let x = tmp.path().join("x");
    std::fs::create_dir(&x).unwrap();
    cpio(&["-id", "--quiet"], &out, &x);
    let d = x.join("etc/liken/deployment");
    assert_eq!(
        std::fs::read(d.join("cluster.yaml")).unwrap(),
        std::fs::read(dir.join("cluster.yaml")).unwrap()
    );
    assert_eq!(
        std::fs::read(d.join("machines/little.yaml")).unwrap(),
        std::fs::read(dir.join("little.yaml")).unwrap()
    );
    for rel in ["server-ca.crt", "etcd/peer-ca.key", "service.key", "token"] {
        assert_eq!(
            std::fs::read(d.join("identity").join(rel)).unwrap(),
            std::fs::read(dir.join("identity").join(rel)).unwrap(),
            "{rel}"
        );
    }
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&d.join("identity")), 0o700);
    assert_eq!(mode(&d.join("identity/server-ca.key")), 0o600);
    assert_eq!(mode(&d.join("identity/server-ca.crt")), 0o644);
    assert_eq!(mode(&d.join("machines/big.yaml")), 0o644);

    // The same inputs, the same bytes.
    let first = std::fs::read(&out).unwrap();
    success(&layer(&dir, &out));
    assert_eq!(std::fs::read(&out).unwrap(), first);
    let elsewhere = tmp.path().join("again.cpio");
    success(&layer(&dir, &elsewhere));
    assert_eq!(std::fs::read(&elsewhere).unwrap(), first);
}

#[test]
fn a_deployment_that_does_not_agree_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = deployment(tmp.path(), "home", &["big"], None);
    let out = dir.join("deployment.cpio");
    success(&layer(&dir, &out));
    let good = std::fs::read(&out).unwrap();

    // A leader with no manifest and a follower with no endpoint.
    std::fs::write(
        dir.join("cluster.yaml"),
        cluster_yaml("home", &["big", "gone"], None),
    )
    .unwrap();
    std::fs::write(dir.join("little.yaml"), machine_yaml("little")).unwrap();
    let err = failure(&layer(&dir, &out), 1);
    assert!(err.contains("nothing was written"), "{err}");
    assert!(err.contains("\"gone\", which has no manifest"), "{err}");
    assert!(err.contains("spec.endpoint"), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), good, "the old layer stays");

    // A manifest named for another machine, and an identity from another cluster.
    std::fs::write(
        dir.join("cluster.yaml"),
        cluster_yaml("home", &["big"], None),
    )
    .unwrap();
    std::fs::remove_file(dir.join("little.yaml")).unwrap();
    std::fs::write(dir.join("spare.yaml"), machine_yaml("big")).unwrap();
    let other = tmp.path().join("other");
    success(&run(&["mint", other.to_str().unwrap()]));
    std::fs::copy(other.join("token"), dir.join("identity/token")).unwrap();
    let err = failure(&layer(&dir, &out), 1);
    assert!(
        err.contains("spare.yaml") && err.contains("must be named big.yaml"),
        "{err}"
    );
    assert!(err.contains("2 manifests"), "{err}");
    assert!(err.contains("another cluster"), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), good);

    let err = failure(&run(&["layer", dir.to_str().unwrap()]), 2);
    assert!(
        err.contains("usage: liken layer <manifests-dir> <identity-dir> <output.cpio>"),
        "{err}"
    );
}
