//! `liken mint`, `liken adopt` and `liken kubeconfig`, run as a person runs
//! them: what they write, what they print, and how they refuse.

mod toolkit_support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use toolkit_support::*;

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn mint_writes_an_identity_and_says_to_keep_it_private() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("identity");
    let out = success(&run(&["mint", dir.to_str().unwrap()]));
    for f in ["server-ca.key", "etcd/peer-ca.crt", "service.key", "token"] {
        assert!(out.contains(f), "{out}");
    }
    assert!(out.contains("out of version control"), "{out}");
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join("token")), 0o600);

    let before = std::fs::read(dir.join("token")).unwrap();
    let err = failure(&run(&["mint", dir.to_str().unwrap()]), 1);
    assert!(err.contains("never overwrites"), "{err}");
    assert_eq!(std::fs::read(dir.join("token")).unwrap(), before);
}

#[test]
fn mint_and_adopt_usage_mistakes_exit_2_with_the_usage_line() {
    let err = failure(&run(&["mint"]), 2);
    assert!(err.contains("usage: liken mint <identity-dir>"), "{err}");
    let err = failure(&run(&["adopt", "only-one"]), 2);
    assert!(
        err.contains("usage: liken adopt <harvest-dir> <identity-dir>"),
        "{err}"
    );
    let err = failure(&run(&["mint", "-force", "x"]), 2);
    assert!(err.contains("unknown flag -force"), "{err}");
}

/// A harvest laid out as a k3s server holds it, from a minted identity.
fn harvest_of(identity: &Path, harvest: &Path, token: Option<&str>) {
    for rel in liken_identity_files() {
        let (from, to) = if rel == "token" {
            (identity.join(rel), harvest.join(rel))
        } else {
            (identity.join(rel), harvest.join("tls").join(rel))
        };
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    }
    if let Some(t) = token {
        std::fs::write(harvest.join("token"), t).unwrap();
    }
}

fn liken_identity_files() -> Vec<&'static str> {
    vec![
        "server-ca.crt",
        "server-ca.key",
        "client-ca.crt",
        "client-ca.key",
        "request-header-ca.crt",
        "request-header-ca.key",
        "etcd/server-ca.crt",
        "etcd/server-ca.key",
        "etcd/peer-ca.crt",
        "etcd/peer-ca.key",
        "service.key",
        "token",
    ]
}

#[test]
fn adopt_arranges_a_harvest_and_completes_a_bare_password() {
    let tmp = tempfile::tempdir().unwrap();
    let minted = tmp.path().join("minted");
    success(&run(&["mint", minted.to_str().unwrap()]));

    let harvest = tmp.path().join("harvest");
    harvest_of(&minted, &harvest, None);
    let adopted = tmp.path().join("adopted");
    let out = success(&run(&[
        "adopt",
        harvest.to_str().unwrap(),
        adopted.to_str().unwrap(),
    ]));
    assert!(out.contains("out of version control"), "{out}");
    for rel in liken_identity_files() {
        assert_eq!(
            std::fs::read(minted.join(rel)).unwrap(),
            std::fs::read(adopted.join(rel)).unwrap(),
            "{rel}"
        );
    }
    assert_eq!(mode(&adopted.join("server-ca.key")), 0o600);

    let bare = tmp.path().join("bare");
    harvest_of(&minted, &bare, Some("just-a-password\n"));
    let adopted2 = tmp.path().join("adopted2");
    let out = success(&run(&[
        "adopt",
        bare.to_str().unwrap(),
        adopted2.to_str().unwrap(),
    ]));
    assert!(out.contains("bare password"), "{out}");
    let hash = openssl(&[
        "dgst",
        "-sha256",
        "-r",
        minted.join("server-ca.crt").to_str().unwrap(),
    ]);
    let hash = hash.split_whitespace().next().unwrap();
    assert_eq!(
        std::fs::read_to_string(adopted2.join("token")).unwrap(),
        format!("K10{hash}::server:just-a-password\n")
    );

    // Adopting over an identity is refused.
    let err = failure(
        &run(&[
            "adopt",
            harvest.to_str().unwrap(),
            adopted.to_str().unwrap(),
        ]),
        1,
    );
    assert!(err.contains("never overwrites"), "{err}");
}

#[test]
fn adopt_refuses_an_incomplete_harvest_and_a_foreign_token() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    success(&run(&["mint", a.to_str().unwrap()]));
    success(&run(&["mint", b.to_str().unwrap()]));

    let harvest = tmp.path().join("harvest");
    harvest_of(&a, &harvest, None);
    std::fs::remove_file(harvest.join("tls/service.key")).unwrap();
    std::fs::remove_file(harvest.join("tls/etcd/server-ca.crt")).unwrap();
    let out_dir = tmp.path().join("out");
    let err = failure(
        &run(&[
            "adopt",
            harvest.to_str().unwrap(),
            out_dir.to_str().unwrap(),
        ]),
        1,
    );
    assert!(
        err.contains("tls/service.key") && err.contains("tls/etcd/server-ca.crt"),
        "{err}"
    );
    assert!(!out_dir.exists());

    let foreign = tmp.path().join("foreign");
    harvest_of(&a, &foreign, None);
    std::fs::copy(b.join("token"), foreign.join("token")).unwrap();
    let err = failure(
        &run(&[
            "adopt",
            foreign.to_str().unwrap(),
            out_dir.to_str().unwrap(),
        ]),
        1,
    );
    assert!(err.contains("different clusters"), "{err}");
    assert!(!out_dir.exists());
}

fn base64_decode(tmp: &Path, text: &str) -> String {
    let f = tmp.join("b64");
    std::fs::write(&f, text).unwrap();
    openssl(&["base64", "-d", "-A", "-in", f.to_str().unwrap()])
}

#[test]
fn kubeconfig_is_an_admin_credential_for_the_endpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = deployment(tmp.path(), "home", &["big"], Some("https://10.10.0.1:6443"));
    let out = success(&run(&["kubeconfig", dir.to_str().unwrap()]));
    let path = dir.join("identity/kubeconfig");
    assert!(out.contains(path.to_str().unwrap()), "{out}");
    assert_eq!(mode(&path), 0o600);

    let config: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(config["current-context"], "home");
    let cluster = &config["clusters"][0];
    assert_eq!(cluster["name"], "home");
    assert_eq!(cluster["cluster"]["server"], "https://10.10.0.1:6443");
    let ca = base64_decode(
        tmp.path(),
        cluster["cluster"]["certificate-authority-data"]
            .as_str()
            .unwrap(),
    );
    assert_eq!(
        ca,
        std::fs::read_to_string(dir.join("identity/server-ca.crt")).unwrap()
    );
    let user = &config["users"][0]["user"];
    let cert = base64_decode(
        tmp.path(),
        user["client-certificate-data"].as_str().unwrap(),
    );
    let cert_path = tmp.path().join("admin.crt");
    std::fs::write(&cert_path, &cert).unwrap();
    let verify = openssl(&[
        "verify",
        "-CAfile",
        dir.join("identity/client-ca.crt").to_str().unwrap(),
        cert_path.to_str().unwrap(),
    ]);
    assert!(verify.contains("OK"), "{verify}");
    let subject = openssl(&[
        "x509",
        "-in",
        cert_path.to_str().unwrap(),
        "-noout",
        "-subject",
    ]);
    assert!(
        subject.contains("system:masters") && subject.contains("system:admin"),
        "{subject}"
    );

    // -server replaces the endpoint, and each run writes a fresh credential.
    success(&run(&[
        "kubeconfig",
        "-server",
        "https://127.0.0.1:16443",
        dir.to_str().unwrap(),
    ]));
    let again = std::fs::read_to_string(&path).unwrap();
    assert!(again.contains("server: https://127.0.0.1:16443"), "{again}");
    assert!(!again.contains(user["client-certificate-data"].as_str().unwrap()));
    let names: Vec<String> = std::fs::read_dir(dir.join("identity"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}

#[test]
fn kubeconfig_refuses_a_cluster_with_no_endpoint_and_a_bad_server() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = deployment(tmp.path(), "solo", &["big"], None);
    let err = failure(&run(&["kubeconfig", dir.to_str().unwrap()]), 1);
    assert!(
        err.contains("spec.endpoint") && err.contains("-server"),
        "{err}"
    );
    assert!(!dir.join("identity/kubeconfig").exists());

    let err = failure(
        &run(&[
            "kubeconfig",
            "-server",
            "10.0.0.1:6443",
            dir.to_str().unwrap(),
        ]),
        2,
    );
    assert!(err.contains("not an https URL"), "{err}");
    assert!(
        err.contains("usage: liken kubeconfig [-server URL] <deployment-dir>"),
        "{err}"
    );

    let err = failure(
        &run(&["kubeconfig", tmp.path().join("nothing").to_str().unwrap()]),
        1,
    );
    assert!(err.contains("cluster.yaml"), "{err}");

    std::fs::remove_file(dir.join("identity/token")).unwrap();
    let err = failure(
        &run(&[
            "kubeconfig",
            "-server=https://10.0.0.1:6443",
            dir.to_str().unwrap(),
        ]),
        1,
    );
    assert!(err.contains("token") && err.contains("liken mint"), "{err}");
}

/// The identity `liken mint` writes is one a real kube-apiserver runs on,
/// and the admin kubeconfig `liken kubeconfig` signs from it is accepted
/// there with full rights, not only verified by openssl.
#[tokio::test(flavor = "multi_thread")]
async fn a_minted_identity_runs_a_real_api_server_that_accepts_its_admin() {
    use k8s_openapi::api::core::v1::Namespace;
    use kube::api::{Api, ListParams};

    let tmp = tempfile::tempdir().unwrap();
    let dir = deployment(
        tmp.path(),
        "lab",
        &["big"],
        Some("https://10.255.255.1:6443"),
    );
    let identity = liken_identity::Identity::load(&dir.join("identity")).unwrap();
    let cp = tokio::task::spawn_blocking(move || liken_testenv::ControlPlane::start_with(identity))
        .await
        .unwrap()
        .unwrap();
    let _logs = cp.logs_on_failure();
    success(&run(&[
        "kubeconfig",
        "-server",
        cp.server(),
        dir.to_str().unwrap(),
    ]));

    let file = kube::config::Kubeconfig::read_from(dir.join("identity/kubeconfig")).unwrap();
    let config = kube::Config::from_custom_kubeconfig(file, &Default::default())
        .await
        .unwrap();
    let client = kube::Client::try_from(config).unwrap();
    let namespaces: Api<Namespace> = Api::all(client);
    let list = namespaces.list(&ListParams::default()).await.unwrap();
    assert!(
        list.items
            .iter()
            .any(|n| n.metadata.name.as_deref() == Some("kube-system")),
        "the admin lists namespaces"
    );
}
