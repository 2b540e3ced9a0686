//! `liken approve-reboot` and `liken request-reboot` against a real API
//! server: the test control plane runs with the deployment's own identity,
//! so these also prove that the credential `liken` mints from an identity is
//! one a real kube-apiserver accepts (client-ca signs the admin, server-ca
//! verifies the server). Machines carry status.pending and status.boot.time
//! as a machine operator would publish them.

mod toolkit_support;

use std::path::{Path, PathBuf};

use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use liken_testenv::ControlPlane;
use serde_json::{Value, json};

use toolkit_support::*;

const BOOT: &str = "2026-12-01T07:00:00Z";

fn crds() -> Vec<PathBuf> {
    vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("manifests/crd-machines.liken.sh.yaml")]
}

fn machines(client: &kube::Client) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("liken.sh", "v1alpha1", "Machine");
    Api::all_with(
        client.clone(),
        &ApiResource::from_gvk_with_plural(&gvk, "machines"),
    )
}

fn condition(kind: &str, reason: &str) -> Value {
    json!({"type": kind, "status": "False", "reason": reason,
           "message": "waits", "lastTransitionTime": BOOT})
}

/// Creates Machine `name` with `spec`, then publishes `status`.
async fn machine(api: &Api<DynamicObject>, name: &str, spec: Value, status: Value) {
    let obj: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "liken.sh/v1alpha1", "kind": "Machine",
        "metadata": {"name": name}, "spec": spec,
    }))
    .unwrap();
    api.create(&PostParams::default(), &obj).await.unwrap();
    api.patch_status(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({"status": status})),
    )
    .await
    .unwrap();
}

async fn annotations(api: &Api<DynamicObject>, name: &str) -> Value {
    let m = api.get(name).await.unwrap();
    json!(m.metadata.annotations.unwrap_or_default())
}

/// A deployment whose identity is the control plane's, reached at its
/// loopback address through -server.
fn deployment_for(cp: &ControlPlane, root: &Path) -> PathBuf {
    let dir = root.join("lab");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("cluster.yaml"),
        cluster_yaml("lab", &["big"], Some("https://10.255.255.1:6443")),
    )
    .unwrap();
    cp.identity().write_new(&dir.join("identity")).unwrap();
    dir
}

fn liken_at(cp: &ControlPlane, command: &str, dir: &Path, machine: &str) -> std::process::Output {
    run(&[
        command,
        "-server",
        cp.server(),
        dir.to_str().unwrap(),
        machine,
    ])
}

#[tokio::test(flavor = "multi_thread")]
async fn approve_and_request_on_a_real_api_server() {
    let cp = tokio::task::spawn_blocking(ControlPlane::shared)
        .await
        .unwrap();
    let _logs = cp.logs_on_failure();
    cp.install_crds(&crds()).await.unwrap();
    let api = machines(&cp.client().await);
    let tmp = tempfile::tempdir().unwrap();
    let dir = deployment_for(cp, tmp.path());

    machine(
        &api,
        "approve-big",
        json!({"rebootPolicy": "Manual"}),
        json!({
            "boot": {"time": BOOT},
            "conditions": [condition("MachineConverged", "RebootPending"),
                           condition("CredentialsConverged", "RestartPending")],
            "pending": [
                {"condition": "CredentialsConverged", "kind": "Restart",
                 "hash": "sha256:1111", "summary": "registry credentials changed"},
                {"condition": "MachineConverged", "kind": "Reboot",
                 "hash": "sha256:2222", "summary": "storage: clusterState grows to 20Gi"},
            ],
        }),
    )
    .await;
    machine(
        &api,
        "approve-idle",
        json!({}),
        json!({"boot": {"time": BOOT}}),
    )
    .await;
    machine(
        &api,
        "approve-new",
        json!({"rebootPolicy": "Auto"}),
        json!({}),
    )
    .await;

    // approve-reboot: the report, then the reboot-class hash; twice is the same.
    for _ in 0..2 {
        let out = success(&liken_at(cp, "approve-reboot", &dir, "approve-big"));
        assert!(out.starts_with("approve-big waits on 2 changes:"), "{out}");
        assert!(
            out.contains("MachineConverged (RebootPending): storage: clusterState grows to 20Gi"),
            "{out}"
        );
        assert!(
            out.contains("CredentialsConverged (RestartPending): registry credentials changed"),
            "{out}"
        );
        assert!(
            out.contains("approved: liken.sh/approve-disruption=sha256:2222"),
            "{out}"
        );
        assert_eq!(
            annotations(&api, "approve-big").await,
            json!({"liken.sh/approve-disruption": "sha256:2222"})
        );
    }

    // Nothing pending: reported, nothing written.
    let out = success(&liken_at(cp, "approve-reboot", &dir, "approve-idle"));
    assert!(out.contains("nothing pending"), "{out}");
    assert_eq!(annotations(&api, "approve-idle").await, json!({}));

    // request-reboot names the running boot, beside the grant already there.
    let out = success(&liken_at(cp, "request-reboot", &dir, "approve-big"));
    let identity = format!("sha256:{}", sha256_hex(BOOT));
    assert!(
        out.contains(&format!("requested: liken.sh/request-reboot={identity}")),
        "{out}"
    );
    assert!(out.contains("liken approve-reboot"), "{out}");
    assert_eq!(
        annotations(&api, "approve-big").await,
        json!({"liken.sh/approve-disruption": "sha256:2222",
               "liken.sh/request-reboot": identity})
    );

    // A machine with no boot time is refused, and nothing is written.
    let err = failure(&liken_at(cp, "request-reboot", &dir, "approve-new"), 1);
    assert!(err.contains("status.boot.time"), "{err}");
    assert_eq!(annotations(&api, "approve-new").await, json!({}));

    // A machine the cluster does not have.
    let err = failure(&liken_at(cp, "approve-reboot", &dir, "approve-ghost"), 1);
    assert!(
        err.contains("no Machine \"approve-ghost\"") && err.contains("get machines"),
        "{err}"
    );

    // A cluster that cannot be reached names -server.
    let err = failure(
        &run(&[
            "approve-reboot",
            "-server",
            "https://127.0.0.1:9",
            dir.to_str().unwrap(),
            "approve-big",
        ]),
        1,
    );
    assert!(
        err.contains("cannot reach the cluster at https://127.0.0.1:9") && err.contains("-server"),
        "{err}"
    );
}

fn sha256_hex(input: &str) -> String {
    let out = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(input.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    text(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}
