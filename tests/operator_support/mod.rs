//! What the cluster operator's real-process tests share: the liken-system
//! namespace, typed handles on the liken kinds and Leases, kubectl against the
//! control plane, and a kubeconfig holding the operator ServiceAccount's token
//! (so the tests run under exactly the manifest's RBAC).

use std::path::{Path, PathBuf};

use kube::api::{Api, ApiResource, DynamicObject};
use kube::core::GroupVersionKind;
use liken_testenv::ControlPlane;
use serde_json::json;

pub const NS: &str = "liken-system";

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn liken_api(client: &kube::Client, kind: &str) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("liken.sh", "v1alpha1", kind);
    Api::all_with(
        client.clone(),
        &ApiResource::from_gvk_with_plural(&gvk, &format!("{}s", kind.to_lowercase())),
    )
}

pub fn leases(client: &kube::Client) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("coordination.k8s.io", "v1", "Lease");
    Api::namespaced_with(
        client.clone(),
        NS,
        &ApiResource::from_gvk_with_plural(&gvk, "leases"),
    )
}

pub fn kubectl(cp: &ControlPlane, args: &[&str]) -> String {
    let out = cp.kubectl().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A kubeconfig holding a token of the operator's ServiceAccount.
pub fn operator_kubeconfig(cp: &ControlPlane, dir: &Path) -> PathBuf {
    let token = kubectl(
        cp,
        &[
            "create",
            "token",
            "liken-cluster-operator",
            "-n",
            NS,
            "--duration=2h",
        ],
    );
    let admin: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(cp.kubeconfig()).unwrap()).unwrap();
    let cluster = admin["clusters"][0]["cluster"].clone();
    let config = json!({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "cp", "cluster": serde_json::to_value(&cluster).unwrap()}],
        "users": [{"name": "op", "user": {"token": token.trim()}}],
        "contexts": [{"name": "op", "context": {"cluster": "cp", "user": "op"}}],
        "current-context": "op",
    });
    let path = dir.join("operator.kubeconfig");
    std::fs::write(&path, serde_yaml::to_string(&config).unwrap()).unwrap();
    path
}
