//! Adoption from a harvest that liken did not make: CAs, keys and the
//! service key made by openssl the way a k3s server holds them, and a token
//! in k3s's format hashed by sha256sum. The harvest reads back as an
//! identity, writes like a minted one, and every refusal names the file.

use std::path::Path;
use std::process::Command;
use std::time::SystemTime;

use liken_identity::{Identity, Token};

fn run(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd).args(args).output().expect("runs");
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A CA pair as k3s keeps it: an EC P-256 key (SEC1) and a self-signed CA.
fn openssl_ca(tls: &Path, stem: &str, cn: &str) {
    let key = tls.join(format!("{stem}.key"));
    let crt = tls.join(format!("{stem}.crt"));
    std::fs::create_dir_all(key.parent().unwrap()).unwrap();
    let ec = run(
        "openssl",
        &["ecparam", "-name", "prime256v1", "-genkey", "-noout"],
    );
    std::fs::write(&key, ec).unwrap();
    run(
        "openssl",
        &[
            "req",
            "-x509",
            "-new",
            "-key",
            key.to_str().unwrap(),
            "-out",
            crt.to_str().unwrap(),
            "-days",
            "3650",
            "-subj",
            &format!("/CN={cn}"),
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign",
        ],
    );
}

/// A harvest of a k3s server: `token` and `tls/`, with `token` as given.
fn harvest(dir: &Path, token: Option<&str>) {
    let tls = dir.join("tls");
    for (stem, prefix) in liken_identity::CA_FILES {
        openssl_ca(&tls, stem, &format!("{prefix}-ca@1700000000"));
    }
    let service = run("openssl", &["genrsa", "-traditional", "2048"]);
    std::fs::write(tls.join("service.key"), service).unwrap();
    let hash = sha256sum(&tls.join("server-ca.crt"));
    let token = match token {
        Some(t) => t.to_owned(),
        None => format!("K10{hash}::server:5f1b3c0d9e8a7b6c\n"),
    };
    std::fs::write(dir.join("token"), token).unwrap();
}

fn sha256sum(path: &Path) -> String {
    run("sha256sum", &[path.to_str().unwrap()])
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

#[test]
fn a_k3s_harvest_becomes_an_identity() {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path().join("harvest");
    harvest(&h, None);
    let identity = Identity::from_harvest(&h).unwrap();
    let out = tmp.path().join("identity");
    identity.write_new(&out).unwrap();

    // The roots are carried byte for byte, and the token is kept as it was.
    for (stem, _) in liken_identity::CA_FILES {
        for ext in ["crt", "key"] {
            assert_eq!(
                std::fs::read(h.join(format!("tls/{stem}.{ext}"))).unwrap(),
                std::fs::read(out.join(format!("{stem}.{ext}"))).unwrap(),
                "{stem}.{ext}"
            );
        }
    }
    assert_eq!(
        std::fs::read(h.join("tls/service.key")).unwrap(),
        std::fs::read(out.join("service.key")).unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(out.join("token")).unwrap(),
        std::fs::read_to_string(h.join("token")).unwrap()
    );

    // It loads back like a minted identity, and its client CA signs an
    // admin that openssl chains to it.
    let loaded = Identity::load(&out).unwrap();
    let admin = loaded
        .client_ca
        .client("system:admin", &["system:masters"], SystemTime::now())
        .unwrap();
    let admin_path = tmp.path().join("admin.crt");
    std::fs::write(&admin_path, admin.cert_pem).unwrap();
    let verify = run(
        "openssl",
        &[
            "verify",
            "-CAfile",
            out.join("client-ca.crt").to_str().unwrap(),
            admin_path.to_str().unwrap(),
        ],
    );
    assert!(verify.contains("OK"), "{verify}");
}

#[test]
fn a_bare_password_is_completed_with_the_server_ca_hash() {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path().join("harvest");
    harvest(&h, Some("my-cluster-password\n"));
    let identity = Identity::from_harvest(&h).unwrap();
    let hash = sha256sum(&h.join("tls/server-ca.crt"));
    assert_eq!(
        identity.token,
        Token::parse(&format!("K10{hash}::server:my-cluster-password")).unwrap()
    );
}

#[test]
fn an_incomplete_harvest_names_every_missing_file() {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path().join("harvest");
    harvest(&h, None);
    for rel in ["token", "tls/etcd/peer-ca.key", "tls/service.key"] {
        std::fs::remove_file(h.join(rel)).unwrap();
    }
    let err = Identity::from_harvest(&h).unwrap_err().to_string();
    for rel in ["token", "tls/etcd/peer-ca.key", "tls/service.key"] {
        assert!(err.contains(rel), "{rel}: {err}");
    }
    assert!(err.contains("/var/lib/rancher/k3s/server"), "{err}");

    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = Identity::from_harvest(&empty).unwrap_err().to_string();
    assert_eq!(err.matches(".crt").count(), 5, "{err}");
}

#[test]
fn a_foreign_token_or_a_mismatched_key_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path().join("harvest");
    harvest(&h, Some(&format!("K10{}::server:pw\n", "ab".repeat(32))));
    let err = Identity::from_harvest(&h).unwrap_err().to_string();
    assert!(
        err.contains("token") && err.contains("different clusters"),
        "{err}"
    );

    let h2 = tmp.path().join("harvest2");
    harvest(&h2, None);
    std::fs::copy(h2.join("tls/client-ca.key"), h2.join("tls/server-ca.key")).unwrap();
    let err = Identity::from_harvest(&h2).unwrap_err().to_string();
    assert!(
        err.contains("server-ca.key") && err.contains("does not match its certificate"),
        "{err}"
    );
}

#[test]
fn an_rsa_custom_ca_is_adopted_and_signs() {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path().join("harvest");
    harvest(&h, None);
    // A custom CA made with RSA, key in PKCS#1 as older tooling writes it.
    let key = h.join("tls/client-ca.key");
    let crt = h.join("tls/client-ca.crt");
    std::fs::write(&key, run("openssl", &["genrsa", "-traditional", "2048"])).unwrap();
    run(
        "openssl",
        &[
            "req",
            "-x509",
            "-new",
            "-key",
            key.to_str().unwrap(),
            "-out",
            crt.to_str().unwrap(),
            "-days",
            "3650",
            "-subj",
            "/CN=custom-client-ca",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,digitalSignature,keyCertSign",
        ],
    );
    let identity = Identity::from_harvest(&h).unwrap();
    let admin = identity
        .client_ca
        .client("system:admin", &["system:masters"], SystemTime::now())
        .unwrap();
    let admin_path = tmp.path().join("admin.crt");
    std::fs::write(&admin_path, admin.cert_pem).unwrap();
    let verify = run(
        "openssl",
        &[
            "verify",
            "-CAfile",
            crt.to_str().unwrap(),
            admin_path.to_str().unwrap(),
        ],
    );
    assert!(verify.contains("OK"), "{verify}");
}
