//! The newc writer, read by GNU cpio: the listing, an extraction with the
//! modes and contents, and the same bytes from the same contents.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use liken_formats::cpio::Archive;

fn sample() -> Archive {
    let mut a = Archive::new();
    a.dir("etc/liken/deployment/identity", 0o700).unwrap();
    a.file(
        "etc/liken/deployment/cluster.yaml",
        0o644,
        b"kind: Cluster\n".to_vec(),
    )
    .unwrap();
    a.file(
        "etc/liken/deployment/identity/token",
        0o600,
        b"K10abc\n".to_vec(),
    )
    .unwrap();
    a.file("etc/liken/deployment/odd", 0o644, b"123".to_vec())
        .unwrap();
    a.symlink("etc/liken/link", "deployment/odd").unwrap();
    a
}

#[test]
fn gnu_cpio_lists_and_extracts_it() {
    let tmp = tempfile::tempdir().unwrap();
    let archive = tmp.path().join("a.cpio");
    std::fs::write(&archive, sample().to_bytes()).unwrap();

    let list = Command::new("cpio")
        .args(["-t", "--quiet", "-F"])
        .arg(&archive)
        .output()
        .expect("cpio is installed");
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );
    let names: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        names,
        [
            "etc",
            "etc/liken",
            "etc/liken/deployment",
            "etc/liken/deployment/cluster.yaml",
            "etc/liken/deployment/identity",
            "etc/liken/deployment/identity/token",
            "etc/liken/deployment/odd",
            "etc/liken/link",
        ]
    );

    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let x = Command::new("cpio")
        .args(["-idv", "--quiet", "-F"])
        .arg(&archive)
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(x.status.success(), "{}", String::from_utf8_lossy(&x.stderr));
    let d = out.join("etc/liken/deployment");
    let mode = |p: &std::path::Path| std::fs::symlink_metadata(p).unwrap().permissions().mode();
    assert_eq!(
        std::fs::read(d.join("cluster.yaml")).unwrap(),
        b"kind: Cluster\n"
    );
    assert_eq!(std::fs::read(d.join("odd")).unwrap(), b"123");
    assert_eq!(mode(&d.join("cluster.yaml")) & 0o7777, 0o644);
    assert_eq!(mode(&d.join("identity/token")) & 0o7777, 0o600);
    assert_eq!(mode(&d.join("identity")) & 0o7777, 0o700);
    assert_eq!(
        std::fs::read_link(out.join("etc/liken/link")).unwrap(),
        std::path::Path::new("deployment/odd")
    );
}

#[test]
fn the_same_contents_give_the_same_bytes() {
    assert_eq!(sample().to_bytes(), sample().to_bytes());
}
