//! The harness itself: a control plane starts, serves the admin, runs the
//! controllers the tests rely on, and leaves no process behind.

use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, DeleteParams, ObjectMeta, PostParams};
use liken_testenv::ControlPlane;

fn pids_of(dir_marker: &str) -> Vec<String> {
    let out = std::process::Command::new("pgrep")
        .args(["-f", dir_marker])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn starts_serves_and_stops_cleanly() {
    let cp = tokio::task::spawn_blocking(ControlPlane::start)
        .await
        .unwrap()
        .unwrap();
    let _logs = cp.logs_on_failure();
    let client = cp.client().await;
    let version = client.apiserver_version().await.unwrap();
    assert_eq!(format!("{}.{}", version.major, version.minor), "1.35");

    // Garbage collection and namespace deletion are the controller manager's.
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ns = Namespace {
        metadata: ObjectMeta {
            name: Some("harness-gc".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let ns = namespaces
        .create(&PostParams::default(), &ns)
        .await
        .unwrap();
    let maps: Api<ConfigMap> = Api::namespaced(client.clone(), "harness-gc");
    let owner = maps
        .create(
            &PostParams::default(),
            &ConfigMap {
                metadata: ObjectMeta {
                    name: Some("owner".into()),
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let dependent = ConfigMap {
        metadata: ObjectMeta {
            name: Some("dependent".into()),
            owner_references: Some(vec![
                k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
                    api_version: "v1".into(),
                    kind: "ConfigMap".into(),
                    name: "owner".into(),
                    uid: owner.metadata.uid.clone().unwrap(),
                    ..Default::default()
                },
            ]),
            ..Default::default()
        },
        ..Default::default()
    };
    maps.create(&PostParams::default(), &dependent)
        .await
        .unwrap();
    maps.delete("owner", &DeleteParams::background())
        .await
        .unwrap();
    let mut collected = false;
    for _ in 0..150 {
        if maps.get_opt("dependent").await.unwrap().is_none() {
            collected = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        collected,
        "the garbage collector did not remove the dependent"
    );
    namespaces
        .delete(
            ns.metadata.name.as_deref().unwrap(),
            &DeleteParams::default(),
        )
        .await
        .unwrap();
    let mut gone = false;
    for _ in 0..300 {
        if namespaces.get_opt("harness-gc").await.unwrap().is_none() {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(gone, "namespace deletion did not finish");

    let marker = cp.kubeconfig().parent().unwrap().display().to_string();
    assert!(
        !pids_of(&marker).is_empty(),
        "no component runs under {marker}"
    );
    drop(_logs);
    tokio::task::spawn_blocking(move || cp.stop())
        .await
        .unwrap();
    assert!(
        pids_of(&marker).is_empty(),
        "components survived the stop: {:?}",
        pids_of(&marker)
    );
}

#[test]
fn a_killed_test_process_leaves_no_component() {
    // A child test process starts a control plane and is then killed
    // outright; the watchdogs must take the components down with it.
    if std::env::var_os("LIKEN_TESTENV_CHILD").is_some() {
        let cp = ControlPlane::start().unwrap();
        println!("DIR={}", cp.kubeconfig().parent().unwrap().display());
        std::mem::forget(cp);
        std::thread::sleep(Duration::from_secs(600));
        return;
    }
    use std::io::{BufRead, BufReader};
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_killed_test_process_leaves_no_component",
            "--nocapture",
        ])
        .env("LIKEN_TESTENV_CHILD", "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut dir = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if let Some(d) = line.strip_prefix("DIR=") {
            dir = Some(d.to_owned());
            break;
        }
    }
    let dir = dir.expect("the child started a control plane");
    assert!(!pids_of(&dir).is_empty());
    child.kill().unwrap();
    child.wait().unwrap();
    let mut left = pids_of(&dir);
    for _ in 0..100 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        left = pids_of(&dir);
    }
    assert!(
        left.is_empty(),
        "components outlived a killed test: {left:?}"
    );
}
