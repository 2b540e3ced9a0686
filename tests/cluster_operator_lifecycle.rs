//! The cluster operator's life at its edges, as real processes against the
//! real control plane under the operator's own RBAC: SIGTERM releases the
//! election Lease so the standby takes over at once; a granted turn that
//! never comes back stalls the rollout; the channel poll against `liken
//! serve`; the metrics endpoint; the feature janitor.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use liken_testenv::ControlPlane;
use serde_json::{Value, json};

mod operator_support;
use operator_support::{NS, kubectl, leases, liken_api, operator_kubeconfig, root};

/// A child process that is killed when the test lets go of it.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_operator(
    bin: &Path,
    kubeconfig: &Path,
    identity: &str,
    log: &Path,
    extra: &[&str],
) -> Proc {
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    let child = Command::new(bin)
        .args([
            "--identity",
            identity,
            "--heartbeat-stale-after",
            "4",
            "--sweep-interval",
            "1",
            "--lease-duration",
            "20",
            "--renew-deadline",
            "15",
            "--retry-period",
            "0.5",
        ])
        .args(extra)
        .env("KUBECONFIG", kubeconfig)
        .env_remove("KUBERNETES_SERVICE_HOST")
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    Proc(child)
}

fn sigterm(p: &Proc) {
    let ok = Command::new("kill")
        .args(["-TERM", &p.0.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -TERM failed");
}

async fn wait_for<F, Fut>(what: &str, within: Duration, log: &Path, mut f: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if f().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!(
        "{what}: not within {}s\n{}",
        within.as_secs(),
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

async fn holder(lease_api: &Api<DynamicObject>) -> String {
    match lease_api.get_opt("liken-cluster-operator").await.unwrap() {
        Some(l) => l.data["spec"]["holderIdentity"]
            .as_str()
            .unwrap_or("")
            .to_owned(),
        None => String::new(),
    }
}

fn stamp() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let out = Command::new("date")
        .args(["-u", "-d", &format!("@{now}"), "+%Y-%m-%dT%H:%M:%SZ"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

fn micro() -> String {
    stamp().replace('Z', ".000000Z")
}

fn ready_condition() -> Value {
    json!({"type": "Ready", "status": "True", "reason": "Reconciled", "message": "", "lastTransitionTime": stamp()})
}

async fn create_machine(ms: &Api<DynamicObject>, name: &str, status: Value) {
    ms.create(
        &PostParams::default(),
        &serde_json::from_value(json!({
            "apiVersion": "liken.sh/v1alpha1", "kind": "Machine",
            "metadata": {"name": name}, "spec": {},
        }))
        .unwrap(),
    )
    .await
    .unwrap();
    ms.patch_status(
        name,
        &PatchParams::default(),
        &Patch::Merge(&json!({"status": status})),
    )
    .await
    .unwrap();
}

async fn renew(leases: &Api<DynamicObject>, name: &str) {
    let body = json!({
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": micro()},
    });
    leases
        .patch(
            name,
            &PatchParams::apply("machine-sim").force(),
            &Patch::Apply(&body),
        )
        .await
        .unwrap();
}

fn daemonset(name: &str, feature: Option<&str>) -> DynamicObject {
    let mut annotations = serde_json::Map::new();
    if let Some(f) = feature {
        annotations.insert("liken.sh/feature".into(), json!(f));
    }
    serde_json::from_value(json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": NS, "annotations": annotations},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "example.invalid/none:1"}]},
            },
        },
    }))
    .unwrap()
}

/// One scrape of the metrics endpoint: the response body.
fn scrape(port: u16) -> Option<String> {
    use std::io::{Read, Write};
    let mut conn = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    conn.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    conn.write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .ok()?;
    let mut text = String::new();
    conn.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("text/plain; version=0.0.4"), "{head}");
    Some(body.to_owned())
}

/// `liken bundle`: a release of placeholder artifacts into `channel`.
fn bundle(dir: &Path, channel: &Path, version: &str) {
    let art = dir.join(format!("artifacts-{version}"));
    std::fs::create_dir_all(&art).unwrap();
    let mut paths = Vec::new();
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
        let path = art.join(name);
        std::fs::write(&path, format!("{name} {version}")).unwrap();
        paths.push(path);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_liken"))
        .arg("bundle")
        .args(&paths)
        .arg(channel)
        .arg(version)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "bundle: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_operator_at_its_edges() {
    let cp = tokio::task::spawn_blocking(ControlPlane::shared)
        .await
        .unwrap();
    let _logs = cp.logs_on_failure();
    cp.install_crds(&[
        root().join("manifests/crd-clusters.liken.sh.yaml"),
        root().join("manifests/crd-machines.liken.sh.yaml"),
    ])
    .await
    .unwrap();
    kubectl(
        cp,
        &[
            "apply",
            "-f",
            root()
                .join("manifests/cluster-operator.yaml")
                .to_str()
                .unwrap(),
        ],
    );
    let client = cp.client().await;
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("liken-cluster-operator");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_liken"), &bin).unwrap();
    let kubeconfig = operator_kubeconfig(cp, dir.path());
    let log = dir.path().join("operators.log");
    let clusters = liken_api(&client, "Cluster");
    let lease_api = leases(&client);
    clusters
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({
                "apiVersion": "liken.sh/v1alpha1", "kind": "Cluster",
                "metadata": {"name": "edges"},
                "spec": {"disruption": {"maxUnavailable": 1}},
            }))
            .unwrap(),
        )
        .await
        .unwrap();

    let ms = liken_api(&client, "Machine");
    let metrics_a = free_port();
    let metrics_b = free_port();

    // SIGTERM on the leader: it releases the Lease on its way out, so the
    // standby leads long before the 20 s lease duration runs out.
    let mut a = start_operator(
        &bin,
        &kubeconfig,
        "op-a",
        &log,
        &["--metrics-address", &format!("127.0.0.1:{metrics_a}")],
    );
    wait_for("op-a to lead", Duration::from_secs(20), &log, || async {
        holder(&lease_api).await == "op-a"
    })
    .await;
    let b = start_operator(
        &bin,
        &kubeconfig,
        "op-b",
        &log,
        &[
            "--metrics-address",
            &format!("127.0.0.1:{metrics_b}"),
            "--stall-after",
            "5",
        ],
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    sigterm(&a);
    let stopped = Instant::now();
    let status = a.0.wait().unwrap();
    assert!(status.success(), "op-a ended {status}");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("election=released identity=op-a"),
        "no release logged\n{text}"
    );
    wait_for(
        "op-b to take over",
        Duration::from_secs(8),
        &log,
        || async { holder(&lease_api).await == "op-b" },
    )
    .await;
    assert!(stopped.elapsed() < Duration::from_secs(10));
    println!("op-b led {:?} after op-a's SIGTERM", stopped.elapsed());

    // Metrics: two machines, one Ready and one waiting for a person.
    for (name, status) in [
        (
            "ready-1",
            json!({"phase": "Ready", "conditions": [ready_condition()]}),
        ),
        (
            "manual-1",
            json!({"phase": "UpdatePending", "conditions": [ready_condition(),
                {"type": "VersionConverged", "status": "False", "reason": "RebootPending",
                 "message": "waiting for approval", "lastTransitionTime": stamp()}]}),
        ),
    ] {
        create_machine(&ms, name, status).await;
        renew(&lease_api, name).await;
    }
    let mut scraped = String::new();
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        renew(&lease_api, "ready-1").await;
        renew(&lease_api, "manual-1").await;
        scraped = scrape(metrics_b).unwrap_or(scraped);
        let has = |l: &str| scraped.lines().any(|x| x == l);
        if has("liken_cluster_operator_machines{phase=\"Ready\"} 1")
            && has("liken_cluster_operator_machines{phase=\"UpdatePending\"} 1")
            && has("liken_cluster_operator_leading 1")
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "metrics never showed the fleet:\n{scraped}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let value = |name: &str| -> f64 {
        scraped
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in\n{scraped}"))
    };
    assert!(value("liken_cluster_operator_sweep_duration_seconds_count") >= 1.0);
    // A conflict right after the takeover may count one failed sweep; most
    // succeed.
    assert!(
        value("liken_cluster_operator_sweep_errors_total")
            < value("liken_cluster_operator_sweep_duration_seconds_count")
    );
    assert_eq!(value("liken_cluster_operator_watch_restarts_total"), 0.0);
    assert_eq!(
        value("liken_cluster_operator_machines_awaiting_approval"),
        1.0
    );
    assert!(
        scraped.contains("# TYPE liken_cluster_operator_sweep_duration_seconds histogram"),
        "{scraped}"
    );

    // The feature janitor: the DaemonSet of a feature the Cluster does not
    // declare goes; a declared feature's and an unannotated one stay.
    let ds_api: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        NS,
        &ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk("apps", "v1", "DaemonSet"),
            "daemonsets",
        ),
    );
    clusters
        .patch(
            "edges",
            &PatchParams::default(),
            &Patch::Merge(&json!({"spec": {"features": {"iscsi": {}}}})),
        )
        .await
        .unwrap();
    for (name, feature) in [
        ("iscsid", Some("iscsi")),
        ("nfs-helper", Some("nfs")),
        ("plain", None),
    ] {
        ds_api
            .create(&PostParams::default(), &daemonset(name, feature))
            .await
            .unwrap();
    }
    wait_for(
        "the nfs DaemonSet to go",
        Duration::from_secs(10),
        &log,
        || async { ds_api.get_opt("nfs-helper").await.unwrap().is_none() },
    )
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(
        ds_api.get_opt("iscsid").await.unwrap().is_some(),
        "a declared feature's DaemonSet went"
    );
    assert!(
        ds_api.get_opt("plain").await.unwrap().is_some(),
        "an unannotated DaemonSet went"
    );
    // Retracting iscsi retracts its DaemonSet too.
    clusters
        .patch(
            "edges",
            &PatchParams::default(),
            &Patch::Merge(&json!({"spec": {"features": null}})),
        )
        .await
        .unwrap();
    wait_for(
        "the iscsi DaemonSet to go",
        Duration::from_secs(10),
        &log,
        || async { ds_api.get_opt("iscsid").await.unwrap().is_none() },
    )
    .await;
    assert!(ds_api.get_opt("plain").await.unwrap().is_some());

    // A stalled turn: two machines wait for a turn with maxUnavailable 1;
    // the one granted never comes back. After the 5 s stall bound the
    // rollout reads Progressing False RolloutStalled naming it, and the
    // other machine is never granted.
    ms.delete("manual-1", &Default::default()).await.unwrap();
    for name in ["slow-1", "slow-2"] {
        create_machine(
            &ms,
            name,
            json!({"phase": "UpdatePending", "conditions": [ready_condition(),
                {"type": "VersionConverged", "status": "False", "reason": "AwaitingTurn",
                 "message": "waiting for a reboot turn", "lastTransitionTime": stamp()}]}),
        )
        .await;
    }
    let granted = |o: &DynamicObject| {
        o.data["status"]["conditions"].as_array().is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == "RebootApproved" && c["status"] == "True")
        })
    };
    let t0 = Instant::now();
    let mut first: Option<String> = None;
    loop {
        for n in ["ready-1", "slow-1", "slow-2"] {
            renew(&lease_api, n).await;
        }
        let list = ms.list(&Default::default()).await.unwrap().items;
        let holders: Vec<String> = list
            .iter()
            .filter(|m| granted(m))
            .map(|m| m.metadata.name.clone().unwrap())
            .collect();
        assert!(holders.len() <= 1, "two turns out: {holders:?}");
        if first.is_none() {
            first = holders.first().cloned();
        }
        let c = clusters.get("edges").await.unwrap();
        let prog = c.data["status"]["conditions"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["type"] == "Progressing").cloned())
            .unwrap_or(Value::Null);
        if prog["reason"] == "RolloutStalled" {
            assert_eq!(prog["status"], "False");
            let who = first.clone().expect("stalled before any grant was seen");
            assert!(
                prog["message"].as_str().unwrap_or("").contains(&who),
                "the stall does not name {who}: {prog}"
            );
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "never stalled: {prog}\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let who = first.unwrap();
    let other = if who == "slow-1" { "slow-2" } else { "slow-1" };
    let hold = Instant::now();
    while hold.elapsed() < Duration::from_secs(4) {
        for n in ["ready-1", "slow-1", "slow-2"] {
            renew(&lease_api, n).await;
        }
        assert!(
            !granted(&ms.get(other).await.unwrap()),
            "{other} was granted during a stall"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    println!("stalled on {who} after {:?}", t0.elapsed());

    // The channel poll against `liken serve`: a channel with one release,
    // then a newer one announced; a new liken.sh/check-releases value polls
    // at once instead of after the 6 h interval.
    let channel = dir.path().join("channel");
    bundle(dir.path(), &channel, "2026.07.20-001");
    let port = free_port();
    let serve = Proc(
        Command::new(env!("CARGO_BIN_EXE_liken"))
            .args([
                "serve",
                channel.to_str().unwrap(),
                &format!("127.0.0.1:{port}"),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let listening = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            listening.elapsed() < Duration::from_secs(10),
            "liken serve did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    clusters
        .patch(
            "edges",
            &PatchParams::default(),
            &Patch::Merge(
                &json!({"spec": {"releases": {"source": format!("http://127.0.0.1:{port}")}}}),
            ),
        )
        .await
        .unwrap();
    let available = || async {
        clusters.get("edges").await.unwrap().data["status"]["releases"]["available"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    };
    let asked = Instant::now();
    wait_for(
        "releases.available from the channel",
        Duration::from_secs(15),
        &log,
        || async { available().await == "2026.07.20-001" },
    )
    .await;
    println!("available after {:?}", asked.elapsed());
    bundle(dir.path(), &channel, "2026.07.21-001");
    // Without the annotation, the answer stands (the interval is 6 h).
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(available().await, "2026.07.20-001");
    clusters
        .patch(
            "edges",
            &PatchParams::default(),
            &Patch::Merge(&json!({"metadata": {"annotations": {"liken.sh/check-releases": "1"}}})),
        )
        .await
        .unwrap();
    let asked = Instant::now();
    wait_for(
        "the newer release after check-releases",
        Duration::from_secs(15),
        &log,
        || async { available().await == "2026.07.21-001" },
    )
    .await;
    println!("newer release available after {:?}", asked.elapsed());
    // A channel that stops answering keeps the last answer.
    drop(serve);
    clusters
        .patch(
            "edges",
            &PatchParams::default(),
            &Patch::Merge(&json!({"metadata": {"annotations": {"liken.sh/check-releases": "2"}}})),
        )
        .await
        .unwrap();
    wait_for(
        "the failed poll to be logged",
        Duration::from_secs(15),
        &log,
        || async {
            std::fs::read_to_string(&log)
                .unwrap_or_default()
                .contains("poll=failed")
        },
    )
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(available().await, "2026.07.21-001");
    drop(b);
}
