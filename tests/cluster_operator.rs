//! The cluster operator as real processes against the real control plane,
//! running under exactly the ServiceAccount and RBAC of
//! manifests/cluster-operator.yaml (a token for that ServiceAccount in a
//! kubeconfig). The test plays the machines: it creates Machines and their
//! heartbeat Leases, renews them, and acts out reboots when a turn is
//! granted. The operator runs as the root package's `liken` binary linked
//! as liken-cluster-operator, with short timings (6 s to Lost, 1 s sweeps,
//! a 3 s election Lease) so the test takes about three minutes.
//!
//! One test, in phases, because the operator serves the one Cluster:
//! settled fleet makes no writes; Lost after silence, recovery on renew; a
//! machine whose clock is an hour off is never Lost; a rollout that never
//! exceeds maxUnavailable and takes leaders first; and forced failovers of
//! the leader during a rollout that never exceed the budget.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use liken_testenv::ControlPlane;
use serde_json::{Value, json};

const STALE: u64 = 6;
mod operator_support;
use operator_support::{NS, kubectl, leases, liken_api, operator_kubeconfig, root};

struct Operator {
    child: Child,
    identity: String,
}

/// A test that panics partway still takes its operator copies down.
impl Drop for Operator {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn start_operator(bin: &Path, kubeconfig: &Path, identity: &str, log: &Path) -> Operator {
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
            &STALE.to_string(),
            "--sweep-interval",
            "1",
            "--stall-after",
            "600",
            "--lease-duration",
            "3",
            "--renew-deadline",
            "2",
            "--retry-period",
            "0.5",
            // Two copies on one host: each on a port of its own choosing.
            "--metrics-address",
            "127.0.0.1:0",
        ])
        .env("KUBECONFIG", kubeconfig)
        .env_remove("KUBERNETES_SERVICE_HOST")
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    Operator {
        child,
        identity: identity.to_owned(),
    }
}

fn now_micro(offset: i64) -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    let secs = t.as_secs() as i64 + offset;
    let micros = t.subsec_micros();
    let (d, s) = (secs.div_euclid(86400), secs.rem_euclid(86400));
    // Civil date from days since the epoch (Howard Hinnant's algorithm).
    let z = d + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{micros:06}Z",
        s / 3600,
        (s / 60) % 60,
        s % 60
    )
}

async fn renew(leases: &Api<DynamicObject>, name: &str, skew: i64) {
    let body = json!({
        "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": now_micro(skew)},
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

fn ready_status(awaiting: bool) -> Value {
    let t = now_micro(0);
    let t = format!("{}Z", &t[..19]);
    let mut conditions = vec![
        json!({"type": "Ready", "status": "True", "reason": "Reconciled", "message": "", "lastTransitionTime": t}),
    ];
    if awaiting {
        conditions.push(json!({"type": "VersionConverged", "status": "False", "reason": "AwaitingTurn", "message": "waiting for a reboot turn", "lastTransitionTime": t}));
    }
    json!({"phase": if awaiting {"UpdatePending"} else {"Ready"}, "conditions": conditions})
}

async fn set_status(machines: &Api<DynamicObject>, name: &str, status: Value) {
    machines
        .patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(&json!({"status": status})),
        )
        .await
        .unwrap();
}

fn phase(o: &DynamicObject) -> String {
    o.data["status"]["phase"].as_str().unwrap_or("").to_owned()
}

fn holds_grant(o: &DynamicObject) -> bool {
    o.data["status"]["conditions"].as_array().is_some_and(|cs| {
        cs.iter()
            .any(|c| c["type"] == "RebootApproved" && c["status"] == "True")
    })
}

async fn wait_for<F, Fut>(what: &str, within: Duration, mut f: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if f().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("{what}: not within {}s", within.as_secs());
}

/// The simulated machines: renews every Lease but the silenced ones, and
/// acts out a reboot for each grant: down for `reboot` (phase Updating),
/// then Ready with neither the grant nor AwaitingTurn. Returns the most
/// machines out at once and the order turns were taken.
struct Sim {
    renewing: BTreeSet<String>,
    skew: BTreeMap<String, i64>,
    rebooting: BTreeMap<String, Instant>,
    max_out: usize,
    max_leaders_out: usize,
    order: Vec<String>,
}

impl Sim {
    async fn tick(&mut self, client: &kube::Client, leaders: &[&str], reboot: Duration) {
        let machines = liken_api(client, "Machine");
        let lease_api = leases(client);
        for name in self.renewing.clone() {
            renew(&lease_api, &name, *self.skew.get(&name).unwrap_or(&0)).await;
        }
        let list = machines.list(&Default::default()).await.unwrap();
        let mut out = BTreeSet::new();
        for m in &list.items {
            let name = m.metadata.name.clone().unwrap();
            if holds_grant(m) && !self.rebooting.contains_key(&name) {
                self.rebooting.insert(name.clone(), Instant::now() + reboot);
                self.order.push(name.clone());
                set_status(&machines, &name, json!({"phase": "Updating"})).await;
            }
            if self.rebooting.contains_key(&name) || holds_grant(m) {
                out.insert(name.clone());
            }
        }
        let done: Vec<String> = self
            .rebooting
            .iter()
            .filter(|(_, t)| **t <= Instant::now())
            .map(|(n, _)| n.clone())
            .collect();
        for name in done {
            self.rebooting.remove(&name);
            set_status(&machines, &name, ready_status(false)).await;
        }
        self.max_out = self.max_out.max(out.len());
        let leaders_out = out.iter().filter(|n| leaders.contains(&n.as_str())).count();
        self.max_leaders_out = self.max_leaders_out.max(leaders_out);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_operator_judges_the_fleet_and_keeps_the_budget() {
    let started = Instant::now();
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
    let dump = |log: &Path| std::fs::read_to_string(log).unwrap_or_default();

    let clusters = liken_api(&client, "Cluster");
    let machines = liken_api(&client, "Machine");
    let lease_api = leases(&client);
    let names: Vec<String> = (0..6).map(|i| format!("m{i}")).collect();
    let leaders = ["m0", "m1"];
    clusters
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({
                "apiVersion": "liken.sh/v1alpha1", "kind": "Cluster",
                "metadata": {"name": "fleet"},
                "spec": {"leaders": leaders, "disruption": {"maxUnavailable": 1}},
            }))
            .unwrap(),
        )
        .await
        .unwrap();
    let mut sim = Sim {
        renewing: names.iter().cloned().collect(),
        skew: BTreeMap::from([("m5".to_string(), -3600)]),
        rebooting: BTreeMap::new(),
        max_out: 0,
        max_leaders_out: 0,
        order: vec![],
    };
    for name in &names {
        machines
            .create(
                &PostParams::default(),
                &serde_json::from_value(json!({
                    "apiVersion": "liken.sh/v1alpha1", "kind": "Machine",
                    "metadata": {"name": name}, "spec": {},
                }))
                .unwrap(),
            )
            .await
            .unwrap();
        set_status(&machines, name, ready_status(false)).await;
    }
    sim.tick(&client, &leaders, Duration::ZERO).await;

    let mut a = start_operator(&bin, &kubeconfig, "op-a-0", &log);
    let mut b = start_operator(&bin, &kubeconfig, "op-b-0", &log);

    // The fleet settles: 6/6 Ready.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        sim.tick(&client, &leaders, Duration::ZERO).await;
        let c = clusters.get("fleet").await.unwrap();
        if c.data["status"]["machines"]["summary"] == "6/6" && c.data["status"]["phase"] == "Ready"
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "never settled: {:?}\n{}",
            c.data["status"],
            dump(&log)
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    println!("settled after {:?}", started.elapsed());

    // A settled fleet makes no writes: the Cluster and every Machine keep
    // their resourceVersion over 10 s of renewals and sweeps.
    let versions = |items: Vec<DynamicObject>| -> BTreeMap<String, String> {
        items
            .into_iter()
            .map(|o| {
                (
                    o.metadata.name.unwrap(),
                    o.metadata.resource_version.unwrap(),
                )
            })
            .collect()
    };
    let before_c = clusters
        .get("fleet")
        .await
        .unwrap()
        .metadata
        .resource_version;
    let before_m = versions(machines.list(&Default::default()).await.unwrap().items);
    let quiet = Instant::now();
    while quiet.elapsed() < Duration::from_secs(10) {
        sim.tick(&client, &leaders, Duration::ZERO).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_eq!(
        clusters
            .get("fleet")
            .await
            .unwrap()
            .metadata
            .resource_version,
        before_c,
        "the Cluster was written\n{}",
        dump(&log)
    );
    assert_eq!(
        versions(machines.list(&Default::default()).await.unwrap().items),
        before_m,
        "a Machine was written"
    );

    // Silence: m2 stops renewing and reads Lost after STALE s (not before);
    // m5, whose clock is an hour behind, never does.
    sim.renewing.remove("m2");
    let silent = Instant::now();
    loop {
        sim.tick(&client, &leaders, Duration::ZERO).await;
        let m2 = machines.get("m2").await.unwrap();
        if phase(&m2) == "Lost" {
            let ready = m2.data["status"]["conditions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["type"] == "Ready")
                .unwrap()
                .clone();
            assert_eq!(ready["status"], "Unknown");
            assert_eq!(ready["reason"], "HeartbeatStale");
            break;
        }
        assert!(
            silent.elapsed() < Duration::from_secs(STALE + 10),
            "m2 never Lost\n{}",
            dump(&log)
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let took = silent.elapsed();
    assert!(
        took >= Duration::from_secs(STALE - 1),
        "Lost after only {took:?}"
    );
    println!("m2 Lost after {took:?} of silence");
    assert_eq!(phase(&machines.get("m5").await.unwrap()), "Ready");
    wait_for(
        "the Cluster to read Degraded 5/6",
        Duration::from_secs(10),
        || async {
            let c = clusters.get("fleet").await.unwrap();
            c.data["status"]["phase"] == "Degraded"
                && c.data["status"]["machines"]["summary"] == "5/6"
        },
    )
    .await;
    let events: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        "default",
        &ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk("events.k8s.io", "v1", "Event"),
            "events",
        ),
    );
    wait_for("a MachineLost event", Duration::from_secs(10), || async {
        events
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .iter()
            .any(|e| e.data["reason"] == "MachineLost" && e.data["regarding"]["name"] == "m2")
    })
    .await;
    // Recovery: m2 renews and its operator reports Ready again.
    sim.renewing.insert("m2".into());
    sim.tick(&client, &leaders, Duration::ZERO).await;
    set_status(&machines, "m2", ready_status(false)).await;
    let back = Instant::now();
    while back.elapsed() < Duration::from_secs(STALE + 2) {
        sim.tick(&client, &leaders, Duration::ZERO).await;
        assert_eq!(
            phase(&machines.get("m2").await.unwrap()),
            "Ready",
            "m2 re-marked Lost\n{}",
            dump(&log)
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_eq!(
        phase(&machines.get("m5").await.unwrap()),
        "Ready",
        "the skewed machine was judged Lost"
    );

    // A rollout with maxUnavailable 1: every machine waits for a turn; the
    // leaders go first, one machine out at a time.
    for name in &names {
        set_status(&machines, name, ready_status(true)).await;
    }
    let roll = Instant::now();
    loop {
        sim.tick(&client, &leaders, Duration::from_secs(2)).await;
        if sim.order.len() == names.len() && sim.rebooting.is_empty() {
            break;
        }
        assert!(
            roll.elapsed() < Duration::from_secs(120),
            "rollout stuck after {:?}\n{}",
            sim.order,
            dump(&log)
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert_eq!(sim.max_out, 1, "the budget was exceeded");
    assert_eq!(sim.max_leaders_out, 1);
    assert!(
        sim.order[..2].iter().all(|n| leaders.contains(&n.as_str())),
        "leaders first: {:?}",
        sim.order
    );
    println!(
        "rollout of {} in {:?}, order {:?}",
        names.len(),
        roll.elapsed(),
        sim.order
    );

    // Failovers: a second rollout with maxUnavailable 2, killing whichever
    // copy leads every few seconds and starting a fresh copy in its place.
    clusters
        .patch(
            "fleet",
            &PatchParams::default(),
            &Patch::Merge(&json!({"spec": {"disruption": {"maxUnavailable": 2}}})),
        )
        .await
        .unwrap();
    sim.order.clear();
    sim.max_out = 0;
    sim.max_leaders_out = 0;
    for name in &names {
        set_status(&machines, name, ready_status(true)).await;
    }
    let mut failovers = 0;
    let mut generation = 0;
    let mut last_kill = Instant::now();
    let roll = Instant::now();
    loop {
        sim.tick(&client, &leaders, Duration::from_secs(4)).await;
        if sim.order.len() == names.len() && sim.rebooting.is_empty() {
            break;
        }
        // A fresh leader waits out the Lease (3 s) and then the staleness
        // window (6 s) before it grants, so kills come 9.5 to 12.5 s apart,
        // at moments that fall differently against the rollout each time.
        let gap = if failovers == 0 {
            1500
        } else {
            9500 + (failovers % 4) * 1000
        };
        if last_kill.elapsed() > Duration::from_millis(gap) {
            let holder = lease_api.get("liken-cluster-operator").await.unwrap().data["spec"]["holderIdentity"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            generation += 1;
            for op in [&mut a, &mut b] {
                if op.identity == holder {
                    op.child.kill().unwrap();
                    op.child.wait().unwrap();
                    let fresh = format!("{}-{generation}", &holder[..4]);
                    *op = start_operator(&bin, &kubeconfig, &fresh, &log);
                    failovers += 1;
                }
            }
            last_kill = Instant::now();
        }
        assert!(
            roll.elapsed() < Duration::from_secs(300),
            "rollout under failovers stuck after {:?}\n{}",
            sim.order,
            dump(&log)
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert!(
        sim.max_out <= 2,
        "the budget was exceeded under failover: {}",
        sim.max_out
    );
    assert_eq!(sim.max_leaders_out, 1);
    println!(
        "rollout under {failovers} failovers in {:?}",
        roll.elapsed()
    );
    assert!(failovers >= 3, "only {failovers} failovers happened");

    // SIGTERM: the standby first, then the leader; both end cleanly, and
    // the leader empties the Lease on its way out, so a successor would
    // take it at once rather than after the lease duration. The last kill
    // may have left the Lease naming a dead copy: wait for a live one to
    // lead first.
    let live = [a.identity.clone(), b.identity.clone()];
    let deadline = Instant::now() + Duration::from_secs(20);
    let holder = loop {
        let holder =
            lease_api.get("liken-cluster-operator").await.unwrap().data["spec"]["holderIdentity"]
                .as_str()
                .unwrap_or("")
                .to_owned();
        if live.contains(&holder) {
            break holder;
        }
        assert!(
            Instant::now() < deadline,
            "no live copy leads (holder {holder:?})\n{}",
            dump(&log)
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    let (mut leader, mut standby) = if a.identity == holder { (a, b) } else { (b, a) };
    assert_eq!(leader.identity, holder, "neither copy leads");
    for op in [&mut standby, &mut leader] {
        let term = Command::new("kill")
            .args(["-TERM", &op.child.id().to_string()])
            .status()
            .unwrap();
        assert!(term.success());
        let status = op.child.wait().unwrap();
        assert!(
            status.success(),
            "{} ended {status}\n{}",
            op.identity,
            dump(&log)
        );
    }
    assert!(
        dump(&log).contains(&format!("election=released identity={}", leader.identity)),
        "the leader logged no release\n{}",
        dump(&log)
    );
    let after = lease_api.get("liken-cluster-operator").await.unwrap();
    assert_eq!(
        after.data["spec"]["holderIdentity"].as_str().unwrap_or(""),
        "",
        "the Lease is still held after the leader exited: {:?}",
        after.data["spec"]
    );
    println!("whole test {:?}", started.elapsed());
}
