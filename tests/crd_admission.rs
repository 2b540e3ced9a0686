//! The CRDs' admission rules, proven on a real API server: every pattern,
//! enum, default and CEL rule of clusters.liken.sh (and machines.liken.sh)
//! with edits it must accept and edits it must refuse. Each case is also
//! judged by the Rust validation `liken layer` uses, and the two must agree,
//! so the Rust rules mirror the CRD's.

use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use liken_documents::validate::Checker;
use liken_documents::{ClusterDocument, MachineDocument};

use liken_testenv::ControlPlane;
use serde_json::{Value, json};

fn manifests() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("manifests");
    vec![
        dir.join("crd-clusters.liken.sh.yaml"),
        dir.join("crd-machines.liken.sh.yaml"),
    ]
}

async fn setup() -> (kube::Client, &'static ControlPlane) {
    let cp = tokio::task::spawn_blocking(ControlPlane::shared)
        .await
        .unwrap();
    cp.install_crds(&manifests()).await.unwrap();
    (cp.client().await, cp)
}

fn api(client: &kube::Client, kind: &str) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("liken.sh", "v1alpha1", kind);
    let plural = format!("{}s", kind.to_lowercase());
    Api::all_with(
        client.clone(),
        &ApiResource::from_gvk_with_plural(&gvk, &plural),
    )
}

fn object(kind: &str, name: &str, spec: &Value) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "liken.sh/v1alpha1", "kind": kind,
        "metadata": {"name": name}, "spec": spec,
    }))
    .unwrap()
}

/// What the API server says of creating `old` (if any) and then writing
/// `new` over it: Ok, or the refusal's message.
async fn server_verdict(
    api: &Api<DynamicObject>,
    kind: &str,
    name: &str,
    old: Option<&Value>,
    new: &Value,
) -> Result<(), String> {
    let pp = PostParams::default();
    match old {
        None => api
            .create(&pp, &object(kind, name, new))
            .await
            .map(drop)
            .map_err(|e| e.to_string()),
        Some(old) => {
            let created = api
                .create(&pp, &object(kind, name, old))
                .await
                .expect("the old object is valid");
            let mut next = object(kind, name, new);
            next.metadata.resource_version = created.metadata.resource_version;
            api.replace(name, &pp, &next)
                .await
                .map(drop)
                .map_err(|e| e.to_string())
        }
    }
}

fn yaml_doc(kind: &str, name: &str, spec: &Value) -> Vec<u8> {
    serde_yaml::to_string(&json!({"apiVersion": "liken.sh/v1alpha1", "kind": kind, "metadata": {"name": name}, "spec": spec}))
        .unwrap()
        .into_bytes()
}

fn rust_verdict_cluster(old: Option<&Value>, new: &Value) -> Result<(), String> {
    let parse = |spec: &Value| {
        ClusterDocument::from_yaml("case", &yaml_doc("Cluster", "case", spec))
            .map_err(|e| e.to_string())
    };
    let new_doc = parse(new)?;
    if let Some(old) = old {
        let old_doc = parse(old).expect("the old object is valid");
        let mut c = Checker::new();
        new_doc.spec.validate_update(&old_doc.spec, &mut c);
        let faults = c.finish("case", "Cluster case");
        if let Some(f) = faults.first() {
            return Err(f.to_string());
        }
    }
    Ok(())
}

struct Case {
    name: &'static str,
    old: Option<Value>,
    new: Value,
    accept: bool,
}

fn case(name: &'static str, new: Value, accept: bool) -> Case {
    Case {
        name,
        old: None,
        new,
        accept,
    }
}

fn edit(name: &'static str, old: Value, new: Value, accept: bool) -> Case {
    Case {
        name,
        old: Some(old),
        new,
        accept,
    }
}

fn catalog(versions: &[&str]) -> Value {
    let entries: Vec<Value> = versions
        .iter()
        .map(|v| json!({"version": v, "digest": format!("sha256:{}", "a".repeat(64))}))
        .collect();
    json!({"source": "https://releases.example", "catalog": entries})
}

fn cluster_cases() -> Vec<Case> {
    let gc = |v: Value| json!({"runtime": {"kubelet": {"imageGC": v}}});
    let k3s = |v: Value| json!({"runtime": {"k3s": v}});
    vec![
        case("empty", json!({}), true),
        case(
            "version-in-catalog",
            json!({"version": "2026.07.20-001", "releases": catalog(&["2026.07.20-001"])}),
            true,
        ),
        case(
            "version-outside-catalog",
            json!({"version": "2026.07.21-001", "releases": catalog(&["2026.07.20-001"])}),
            false,
        ),
        case(
            "version-without-catalog",
            json!({"version": "2026.07.20-001"}),
            false,
        ),
        case(
            "version-bad-shape",
            json!({"version": "2026.7.20-1", "releases": catalog(&["2026.07.20-001"])}),
            false,
        ),
        case(
            "catalog-bad-digest",
            json!({"releases": {"catalog": [{"version": "2026.07.20-001", "digest": "sha256:abc"}]}}),
            false,
        ),
        case(
            "catalog-duplicate",
            json!({"releases": catalog(&["2026.07.20-001", "2026.07.20-001"])}),
            false,
        ),
        case(
            "catalog-no-digest",
            json!({"releases": {"catalog": [{"version": "2026.07.20-001"}]}}),
            false,
        ),
        case(
            "source-ftp",
            json!({"releases": {"source": "ftp://x"}}),
            false,
        ),
        case(
            "endpoint-https",
            json!({"endpoint": "https://10.0.0.1:6443"}),
            true,
        ),
        case(
            "endpoint-http",
            json!({"endpoint": "http://10.0.0.1:6443"}),
            false,
        ),
        case("origin-enum", json!({"origin": "Forked"}), false),
        case("leaders-set", json!({"leaders": ["big", "little"]}), true),
        case(
            "leaders-duplicate",
            json!({"leaders": ["big", "big"]}),
            false,
        ),
        case(
            "node-cidr-shape",
            json!({"network": {"nodeCIDR": "10.0.0.0"}}),
            false,
        ),
        case(
            "cluster-dns-shape",
            json!({"network": {"clusterDNS": "10.43.0.10/32"}}),
            false,
        ),
        case(
            "max-unavailable-zero",
            json!({"disruption": {"maxUnavailable": 0}}),
            false,
        ),
        case(
            "max-unavailable-two",
            json!({"disruption": {"maxUnavailable": 2}}),
            true,
        ),
        case(
            "features-known",
            json!({"features": {"traefik": {}, "nfs": {}, "flux": {"repository": "ssh://git@forge.example/f.git", "prune": "false"}}}),
            true,
        ),
        case(
            "features-unknown",
            json!({"features": {"kafka": {}}}),
            false,
        ),
        case(
            "features-params-on-plain",
            json!({"features": {"traefik": {"replicas": "2"}}}),
            false,
        ),
        case(
            "flux-without-repository",
            json!({"features": {"flux": {"branch": "main"}}}),
            false,
        ),
        case(
            "flux-unknown-parameter",
            json!({"features": {"flux": {"repository": "x", "depth": "1"}}}),
            false,
        ),
        case(
            "flux-bad-prune",
            json!({"features": {"flux": {"repository": "x", "prune": "yes"}}}),
            false,
        ),
        case(
            "mirror-not-url",
            json!({"registries": {"mirrors": {"docker.io": ["mirror.example"]}}}),
            false,
        ),
        case(
            "gomemlimit-percent",
            k3s(json!({"goMemoryLimit": "25%"})),
            true,
        ),
        case(
            "gomemlimit-zero-percent",
            k3s(json!({"goMemoryLimit": "0%"})),
            false,
        ),
        case(
            "gomemlimit-megabytes",
            k3s(json!({"goMemoryLimit": "448MB"})),
            false,
        ),
        case("gogc-zero", k3s(json!({"goGC": 0})), false),
        case("gogc-one", k3s(json!({"goGC": 1})), true),
        case(
            "imagegc-ok",
            gc(
                json!({"highThresholdPercent": 90, "lowThresholdPercent": 70, "maximumAge": "168h", "minimumAge": "5m"}),
            ),
            true,
        ),
        case(
            "imagegc-low-over-default-high",
            gc(json!({"lowThresholdPercent": 90})),
            false,
        ),
        case(
            "imagegc-percent-range",
            gc(json!({"highThresholdPercent": 101})),
            false,
        ),
        case(
            "imagegc-max-below-default-min",
            gc(json!({"maximumAge": "1m"})),
            false,
        ),
        case(
            "imagegc-bad-duration",
            gc(json!({"minimumAge": "1d"})),
            false,
        ),
        case(
            "containerd-trace",
            json!({"runtime": {"containerd": {"logLevel": "trace"}}}),
            false,
        ),
        case(
            "containerd-warn",
            json!({"runtime": {"containerd": {"logLevel": "warn"}}}),
            true,
        ),
        edit(
            "node-cidr-first-set",
            json!({}),
            json!({"network": {"nodeCIDR": "10.0.0.0/24"}}),
            true,
        ),
        edit(
            "node-cidr-changed",
            json!({"network": {"nodeCIDR": "10.0.0.0/24"}}),
            json!({"network": {"nodeCIDR": "10.1.0.0/24"}}),
            false,
        ),
        edit(
            "service-cidr-removed",
            json!({"network": {"serviceCIDR": "10.43.0.0/16"}}),
            json!({"network": {}}),
            false,
        ),
        edit(
            "cluster-domain-changed",
            json!({"network": {"clusterDomain": "a.local"}}),
            json!({"network": {"clusterDomain": "b.local"}}),
            false,
        ),
        edit(
            "node-port-cidrs-changed",
            json!({"network": {"nodeCIDR": "10.0.0.0/24", "nodePortCIDRs": ["10.0.0.0/24"]}}),
            json!({"network": {"nodeCIDR": "10.0.0.0/24", "nodePortCIDRs": ["10.9.0.0/24"]}}),
            true,
        ),
        edit(
            "origin-founded-to-adopted",
            json!({"origin": "Founded"}),
            json!({"origin": "Adopted"}),
            false,
        ),
        edit(
            "origin-adopted-to-founded",
            json!({"origin": "Adopted"}),
            json!({"origin": "Founded"}),
            true,
        ),
        edit(
            "origin-default-to-adopted",
            json!({}),
            json!({"origin": "Adopted"}),
            false,
        ),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn cluster_admission_table() {
    let (client, cp) = setup().await;
    let _logs = cp.logs_on_failure();
    let api = api(&client, "Cluster");
    let mut failures = Vec::new();
    for c in cluster_cases() {
        let name = format!("adm-{}", c.name);
        let server = server_verdict(&api, "Cluster", &name, c.old.as_ref(), &c.new).await;
        let rust = rust_verdict_cluster(c.old.as_ref(), &c.new);
        if server.is_ok() != c.accept {
            failures.push(format!(
                "{}: the API server said {server:?}, expected accept={}",
                c.name, c.accept
            ));
        }
        if rust.is_ok() != c.accept {
            failures.push(format!(
                "{}: the Rust validation said {rust:?}, expected accept={}",
                c.name, c.accept
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread")]
async fn cluster_defaults_status_and_columns() {
    let (client, cp) = setup().await;
    let _logs = cp.logs_on_failure();
    let api = api(&client, "Cluster");
    let spec = json!({"version": "2026.07.20-001", "releases": catalog(&["2026.07.20-001"])});
    let created = api
        .create(&PostParams::default(), &object("Cluster", "columns", &spec))
        .await
        .unwrap();
    assert_eq!(created.data["spec"]["origin"], "Founded");
    assert_eq!(created.data["spec"]["disruption"]["maxUnavailable"], 1);
    let generation = created.metadata.generation;

    let status = json!({"status": {
        "phase": "Ready", "observedGeneration": 1,
        "machines": {"ready": 4, "total": 5, "summary": "4/5"},
        "releases": {"newest": "2026.07.20-001", "available": "2026.07.25-002"},
        "rebootTurns": [{"machine": "big", "machineResourceVersion": "7", "since": "2026-07-20T10:00:00Z"}],
    }});
    let written = api
        .patch_status("columns", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap();
    assert_eq!(
        written.metadata.generation, generation,
        "a status write moved the generation"
    );
    assert_eq!(
        written.data["status"]["rebootTurns"][0]["machine"], "big",
        "rebootTurns was pruned"
    );
    // A bad phase is refused by the status schema.
    let bad = json!({"status": {"phase": "Booting"}});
    assert!(
        api.patch_status("columns", &PatchParams::default(), &Patch::Merge(&bad))
            .await
            .is_err()
    );

    let out = cp
        .kubectl()
        .args(["get", "clusters", "columns"])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines = table.lines();
    let head: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        head,
        [
            "NAME",
            "VERSION",
            "NEWEST",
            "AVAILABLE",
            "MACHINES",
            "PHASE",
            "AGE"
        ]
    );
    let row: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        &row[..6],
        [
            "columns",
            "2026.07.20-001",
            "2026.07.20-001",
            "2026.07.25-002",
            "4/5",
            "Ready"
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn explain_shows_our_descriptions() {
    let (_client, cp) = setup().await;
    let out = cp
        .kubectl()
        .args(["explain", "cluster.spec.disruption"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("maxUnavailable") && text.contains("only one leader is down at a time"),
        "{text}"
    );
}

/// One row of src/documents/tests/fixtures/machine/admission.yaml, the
/// Machine table the Rust twin is held to (machine_admission.rs).
#[derive(serde::Deserialize)]
struct MachineCase {
    name: String,
    object: Value,
    old: Option<Value>,
    refused: Vec<String>,
}

/// Replays a case on the server. The status is a subresource, so an
/// object's status is written through it: the old object is created and its
/// status written, then the case's status write (if it differs) and its spec
/// edit (if it differs) are made, and the first refusal is the verdict.
async fn machine_verdict(
    api: &Api<DynamicObject>,
    name: &str,
    case: &MachineCase,
) -> Result<(), String> {
    let pp = PostParams::default();
    let with_name = |v: &Value| {
        let mut v = v.clone();
        v["metadata"] = json!({"name": name});
        v
    };
    let dynamic = |v: Value| serde_json::from_value::<DynamicObject>(v).unwrap();
    let write_status = |status: Value| async move {
        api.patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(&json!({"status": status})),
        )
        .await
        .map(drop)
        .map_err(|e| e.to_string())
    };
    let Some(old) = &case.old else {
        api.create(&pp, &dynamic(with_name(&case.object)))
            .await
            .map_err(|e| e.to_string())?;
        return match case.object.get("status") {
            Some(status) => write_status(status.clone()).await,
            None => Ok(()),
        };
    };
    api.create(&pp, &dynamic(with_name(old)))
        .await
        .expect("the old object is valid");
    if let Some(status) = old.get("status") {
        write_status(status.clone())
            .await
            .expect("the old status is valid");
    }
    if case.object.get("status") != old.get("status") {
        write_status(case.object.get("status").cloned().unwrap_or(json!({}))).await?;
    }
    if case.object.get("spec") != old.get("spec") {
        let mut current = api.get(name).await.unwrap();
        current.data["spec"] = case.object["spec"].clone();
        api.replace(name, &pp, &current)
            .await
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn machine_admission_table() {
    let (client, cp) = setup().await;
    let _logs = cp.logs_on_failure();
    let api = api(&client, "Machine");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/documents/tests/fixtures/machine/admission.yaml");
    let cases: Vec<MachineCase> =
        serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(cases.len() > 50);
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let name = format!("adm-{i}");
        let verdict = machine_verdict(&api, &name, case).await;
        let expect_accept = case.refused.is_empty();
        match (&verdict, expect_accept) {
            (Ok(()), true) => {}
            (Err(e), false) => {
                for field in &case.refused {
                    let short = field
                        .trim_start_matches("spec.")
                        .trim_start_matches("status.");
                    if !e.contains(short.rsplit('.').next().unwrap_or(short)) {
                        failures.push(format!(
                            "{}: refused, but not naming {field}: {e}",
                            case.name
                        ));
                    }
                }
            }
            _ => failures.push(format!(
                "{}: the API server said {verdict:?}, the table says refused={:?}",
                case.name, case.refused
            )),
        }
        // The Rust twin of the same case.
        let rust = MachineDocument::from_api(&case.name, case.object.clone())
            .map_err(|e| e.to_string())
            .and_then(|doc| {
                doc.check(&case.name)
                    .map_err(|e| e.to_string())
                    .map(|()| doc)
            })
            .and_then(|doc| match &case.old {
                None => Ok(()),
                Some(old) => {
                    let old = MachineDocument::from_api(&case.name, old.clone()).unwrap();
                    let mut c = Checker::new();
                    doc.spec
                        .validate_update(&old.spec, doc.status.as_ref(), &mut c);
                    match c.finish(&case.name, "Machine").first() {
                        Some(e) => Err(e.to_string()),
                        None => Ok(()),
                    }
                }
            });
        if rust.is_ok() != verdict.is_ok() {
            failures.push(format!(
                "{}: the server said {verdict:?} but the Rust rules said {rust:?}",
                case.name
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test(flavor = "multi_thread")]
async fn machine_columns_and_explain() {
    let (client, cp) = setup().await;
    let _logs = cp.logs_on_failure();
    let api = api(&client, "Machine");
    let created = api
        .create(
            &PostParams::default(),
            &object("Machine", "columns-m", &json!({})),
        )
        .await
        .unwrap();
    assert_eq!(
        created.data["spec"]["rebootPolicy"], "Manual",
        "rebootPolicy default"
    );
    let status = json!({"status": {
        "phase": "Ready", "role": "leader",
        "version": {"liken": "2026.07.20-001", "k3s": "v1.34.2+k3s1"},
        "boot": {"time": "2026-07-20T10:00:00Z"},
    }});
    let written = api
        .patch_status("columns-m", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap();
    assert_eq!(written.metadata.generation, created.metadata.generation);
    let out = cp
        .kubectl()
        .args(["get", "machines", "columns-m"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    let mut lines = table.lines();
    let head: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        &head[..6],
        ["NAME", "PHASE", "ROLE", "LIKEN", "K3S", "UPTIME"],
        "{table}"
    );
    let row: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(
        &row[..5],
        [
            "columns-m",
            "Ready",
            "leader",
            "2026.07.20-001",
            "v1.34.2+k3s1"
        ],
        "{table}"
    );
    assert!(
        row[5].ends_with('d'),
        "UPTIME is an age since status.boot.time: {table}"
    );

    let out = cp
        .kubectl()
        .args(["explain", "machine.spec.storage"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for field in ["systemA", "machineState", "clusterState", "podStorage"] {
        assert!(text.contains(field), "explain lacks {field}: {text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn kubectl_accepts_the_crds_dry_run() {
    let (_client, cp) = setup().await;
    for file in manifests() {
        for mode in ["--dry-run=client", "--dry-run=server"] {
            let out = cp
                .kubectl()
                .args(["apply", mode, "-f"])
                .arg(&file)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "kubectl apply {mode} -f {}: {}",
                file.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}
