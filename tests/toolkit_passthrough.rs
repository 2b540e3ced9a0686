//! `liken kubectl|stern|flux`: the tool from PATH replaces liken, with
//! KUBECONFIG pointing at the freshly written credential and the arguments
//! after the deployment directory unchanged; its exit code is liken's.

mod toolkit_support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;

use toolkit_support::*;

/// A fake tool that reports its name, pid, arguments and KUBECONFIG.
fn fake_tool(bin: &Path, name: &str) {
    let script = "#!/bin/sh\necho \"tool=$(basename \"$0\") pid=$$\"\nfor a in \"$@\"; do echo \"arg=$a\"; done\necho \"KUBECONFIG=$KUBECONFIG\"\nexit 7\n";
    let path = bin.join(name);
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn the_tool_replaces_liken_with_the_credential() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = deployment(tmp.path(), "home", &["big"], Some("https://10.10.0.1:6443"));
    let bin = tmp.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    for tool in ["kubectl", "stern", "flux"] {
        fake_tool(&bin, tool);
    }
    let path = format!("{}:/usr/bin:/bin", bin.display());
    for tool in ["kubectl", "stern", "flux"] {
        let child = liken()
            .args([tool, "-server", "https://127.0.0.1:16443"])
            .arg(&dir)
            .args(["get", "pods", "-A", "--server=x", "two words"])
            .env("PATH", &path)
            .env("KUBECONFIG", "/somewhere/else")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(7), "{}", text(&out.stderr));
        let said = text(&out.stdout);
        let lines: Vec<&str> = said.lines().collect();
        assert_eq!(
            lines[0],
            format!("tool={tool} pid={pid}"),
            "exec keeps the pid"
        );
        assert_eq!(
            &lines[1..6],
            [
                "arg=get",
                "arg=pods",
                "arg=-A",
                "arg=--server=x",
                "arg=two words"
            ]
        );
        let kubeconfig = dir.join("identity/kubeconfig");
        assert_eq!(lines[6], format!("KUBECONFIG={}", kubeconfig.display()));
        let config = std::fs::read_to_string(&kubeconfig).unwrap();
        assert!(
            config.contains("server: https://127.0.0.1:16443"),
            "{config}"
        );
    }
}

#[test]
fn a_missing_tool_is_named_with_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = deployment(tmp.path(), "home", &["big"], Some("https://10.10.0.1:6443"));
    let out = liken()
        .args(["stern"])
        .arg(&dir)
        .arg("web")
        .env("PATH", tmp.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = failure(&out, 1);
    assert!(
        err.contains("stern is not on your PATH; install stern"),
        "{err}"
    );

    let err = failure(&run(&["kubectl"]), 2);
    assert!(
        err.contains("usage: liken kubectl [-server URL] <deployment-dir> [args...]"),
        "{err}"
    );
    let err = failure(
        &run(&["flux", tmp.path().join("none").to_str().unwrap()]),
        1,
    );
    assert!(err.contains("cluster.yaml"), "{err}");
}
