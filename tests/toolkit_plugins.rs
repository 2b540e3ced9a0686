//! Completion and plugins, run as the shell and a person run them: the bash
//! script completing through `__complete`, kubectl's completion helper name,
//! the walk from a domain word to `kubectl-liken-<domain>`, and
//! `plugins list|remove|sync` (list also against a real API server).

mod toolkit_support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use toolkit_support::*;

/// A directory holding the binary under `names`, for PATH and argv[0].
fn links(root: &Path, names: &[&str]) -> PathBuf {
    let bin = root.join("links");
    std::fs::create_dir_all(&bin).unwrap();
    for n in names {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_liken"), bin.join(n)).unwrap();
    }
    bin
}

fn script(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn bash_completes_through_the_hidden_verb() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = links(
        tmp.path(),
        &["liken", "kubectl-liken", "kubectl_complete-liken"],
    );
    let script = success(&run(&["completion", "bash"]));
    assert!(script.contains("complete -o default -F _liken_complete liken kubectl-liken"));
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let complete = |words: &str| -> String {
        let program = format!(
            "source <(liken completion bash)\nCOMP_WORDS=({words})\nCOMP_CWORD=$((${{#COMP_WORDS[@]}}-1))\n_liken_complete\necho \"${{COMPREPLY[*]}}\""
        );
        let out = Command::new("bash")
            .args(["-c", &program])
            .env("PATH", &path)
            .env("HOME", tmp.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout).trim().to_owned()
    };
    assert_eq!(complete("liken ap"), "approve-reboot");
    assert_eq!(complete("liken plugins ''"), "list remove sync");
    assert_eq!(complete("kubectl-liken kubeconfig -s"), "-server");
    assert_eq!(complete("liken re"), "request-reboot");

    // The protocol itself, under liken and under kubectl's helper name.
    let direct = success(&run(&["__complete", "mi"]));
    assert_eq!(direct, "mint\n:4\n");
    let helper = Command::new(bin.join("kubectl_complete-liken"))
        .args(["mi"])
        .output()
        .unwrap();
    assert_eq!(text(&helper.stdout), direct);
    let path_word = success(&run(&["__complete", "layer", "some/"]));
    assert_eq!(path_word, ":0\n");
    let err = failure(&run(&["completion", "zsh"]), 2);
    assert!(err.contains("completes bash"), "{err}");
}

#[test]
fn a_domain_word_runs_its_plugin() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let plugin_dir = home.join(".liken/plugins/bin");
    script(
        &plugin_dir.join("kubectl-liken-audio"),
        "if [ \"$1\" = --version ]; then echo 2026.07.20-001; exit 0; fi\necho \"audio $(basename \"$0\") $*\"\nexit 3\n",
    );
    let bin = links(tmp.path(), &["liken", "kubectl-liken"]);
    for name in ["liken", "kubectl-liken"] {
        let out = Command::new(bin.join(name))
            .args(["audio", "capture", "--seconds=5"])
            .env("HOME", &home)
            .env("PATH", "/usr/bin:/bin")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{name}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            "audio kubectl-liken-audio capture --seconds=5\n",
            "{name}"
        );
    }
    // PATH wins over the plugin directory.
    let path_bin = tmp.path().join("path");
    script(&path_bin.join("kubectl-liken-audio"), "echo from-path\n");
    let out = liken()
        .args(["audio"])
        .env("HOME", &home)
        .env("PATH", format!("{}:/usr/bin:/bin", path_bin.display()))
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), "from-path\n");
    // A word with no plugin is still an unknown command.
    let out = liken().args(["video"]).env("HOME", &home).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("liken: unknown command \"video\""), "{err}");

    // Completion offers the installed domain and plugins remove offers it.
    let out = liken()
        .args(["__complete", "plugins", "remove", ""])
        .env("HOME", &home)
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), "audio\n:4\n");

    // list, remove, and sync's refusal.
    let out = liken()
        .args(["plugins", "list"])
        .env("HOME", &home)
        .output()
        .unwrap();
    let listed = success(&out);
    assert!(
        listed.contains("kubectl-liken-audio") && listed.contains("2026.07.20-001"),
        "{listed}"
    );
    let out = liken()
        .args(["plugins", "remove", "audio"])
        .env("HOME", &home)
        .output()
        .unwrap();
    assert!(success(&out).contains("removed"));
    assert!(!plugin_dir.join("kubectl-liken-audio").exists());
    let out = liken()
        .args(["plugins", "remove", "audio"])
        .env("HOME", &home)
        .output()
        .unwrap();
    let err = failure(&out, 1);
    assert!(
        err.contains("not installed") && err.contains("plugins list"),
        "{err}"
    );
    let err = failure(&run(&["plugins", "sync", "dir"]), 1);
    assert!(err.contains("not built yet"), "{err}");
    let err = failure(&run(&["plugins"]), 2);
    assert!(
        err.contains("usage: liken plugins sync|list|remove"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn plugins_list_compares_with_the_cluster() {
    use k8s_openapi::api::apps::v1::Deployment;
    use kube::api::{Api, PostParams};

    let cp = tokio::task::spawn_blocking(liken_testenv::ControlPlane::shared)
        .await
        .unwrap();
    let _logs = cp.logs_on_failure();
    let deployments: Api<Deployment> = Api::namespaced(cp.client().await, "default");
    for (name, domain, image) in [
        (
            "audio-operator",
            "audio",
            "reg.example:5000/liken/audio-operator:2026.07.20-001",
        ),
        (
            "display-operator",
            "display",
            "reg.example:5000/liken/display-operator:2026.08.01-001",
        ),
    ] {
        let d: Deployment = serde_json::from_value(serde_json::json!({
            "metadata": {"name": name, "labels": {"liken.sh/plugin": domain}},
            "spec": {
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {"containers": [{"name": "operator", "image": image}]},
                },
            },
        }))
        .unwrap();
        deployments
            .create(&PostParams::default(), &d)
            .await
            .unwrap();
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("lab");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("cluster.yaml"),
        cluster_yaml("lab", &["big"], None),
    )
    .unwrap();
    cp.identity().write_new(&dir.join("identity")).unwrap();
    let home = tmp.path().join("home");
    script(
        &home.join(".liken/plugins/bin/kubectl-liken-audio"),
        "echo 2026.07.20-001\n",
    );
    let out = liken()
        .args(["plugins", "list", "-server", cp.server()])
        .arg(&dir)
        .env("HOME", &home)
        .output()
        .unwrap();
    let table = success(&out);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 2, "{table}");
    assert!(
        lines[0].starts_with("kubectl-liken-audio")
            && lines[0].ends_with("operator 2026.07.20-001"),
        "{table}"
    );
    assert!(
        lines[1].starts_with("kubectl-liken-display") && lines[1].contains("not installed"),
        "{table}"
    );
}
