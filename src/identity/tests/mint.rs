//! A minted identity, checked with openssl: the CA shapes k3s makes, the
//! service key, the token's hash, a client certificate that chains to
//! client-ca; and the refusals (overwrite, incomplete, foreign token).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::SystemTime;

use liken_identity::{Identity, Token};

fn openssl(args: &[&str]) -> String {
    let out = Command::new("openssl")
        .args(args)
        .output()
        .expect("openssl runs");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn minted_identity_has_k3s_shapes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("identity");
    let now = SystemTime::now();
    let identity = Identity::mint(&dir, now).unwrap();
    assert_eq!(mode(&dir), 0o700);
    for (stem, prefix) in liken_identity::CA_FILES {
        let crt = dir.join(format!("{stem}.crt"));
        let key = dir.join(format!("{stem}.key"));
        assert_eq!(mode(&crt), 0o644, "{stem}.crt");
        assert_eq!(mode(&key), 0o600, "{stem}.key");
        let text = openssl(&["x509", "-in", crt.to_str().unwrap(), "-noout", "-text"]);
        assert!(text.contains("CA:TRUE"), "{stem}: {text}");
        assert!(
            text.contains("Digital Signature, Key Encipherment, Certificate Sign"),
            "{stem}: {text}"
        );
        assert!(
            text.contains("prime256v1") || text.contains("P-256"),
            "{stem}: {text}"
        );
        let subject = openssl(&["x509", "-in", crt.to_str().unwrap(), "-noout", "-subject"]);
        assert!(
            subject.contains(&format!("CN = {prefix}-ca@"))
                || subject.contains(&format!("CN={prefix}-ca@")),
            "{subject}"
        );
        assert!(!subject.contains("O ="), "{subject}");
        let key_pem = std::fs::read_to_string(&key).unwrap();
        assert!(
            key_pem.starts_with("-----BEGIN EC PRIVATE KEY-----"),
            "{stem}.key is not SEC1"
        );
        openssl(&["ec", "-in", key.to_str().unwrap(), "-check", "-noout"]);
        // Ten years from an hour ago.
        let end = openssl(&[
            "x509",
            "-in",
            crt.to_str().unwrap(),
            "-noout",
            "-checkend",
            &(3640u64 * 86400).to_string(),
        ]);
        assert!(end.contains("will not expire"), "{end}");
    }
    let service = dir.join("service.key");
    assert_eq!(mode(&service), 0o600);
    let rsa = openssl(&["rsa", "-in", service.to_str().unwrap(), "-noout", "-text"]);
    assert!(rsa.contains("2048 bit"), "{rsa}");

    let token_text = std::fs::read_to_string(dir.join("token")).unwrap();
    assert_eq!(mode(&dir.join("token")), 0o600);
    let token = Token::parse(&token_text).unwrap();
    let sha = Command::new("sha256sum")
        .arg(dir.join("server-ca.crt"))
        .output()
        .unwrap();
    let sha = String::from_utf8_lossy(&sha.stdout);
    assert_eq!(token.ca_hash, sha.split_whitespace().next().unwrap());
    assert!(token.credentials.starts_with("server:") && token.secret().len() == 32);
    assert_eq!(identity.token, token);

    // An admin certificate chains to client-ca.
    let admin = identity
        .client_ca
        .client("system:admin", &["system:masters"], now)
        .unwrap();
    let admin_path = tmp.path().join("admin.crt");
    std::fs::write(&admin_path, &admin.cert_pem).unwrap();
    let verify = openssl(&[
        "verify",
        "-CAfile",
        dir.join("client-ca.crt").to_str().unwrap(),
        admin_path.to_str().unwrap(),
    ]);
    assert!(verify.contains("OK"), "{verify}");
    let subject = openssl(&[
        "x509",
        "-in",
        admin_path.to_str().unwrap(),
        "-noout",
        "-subject",
    ]);
    assert!(
        subject.contains("system:masters") && subject.contains("system:admin"),
        "{subject}"
    );
    let purpose = openssl(&[
        "x509",
        "-in",
        admin_path.to_str().unwrap(),
        "-noout",
        "-ext",
        "extendedKeyUsage",
    ]);
    assert!(
        purpose.contains("TLS Web Client Authentication"),
        "{purpose}"
    );

    // And the directory reads back whole.
    let loaded = Identity::load(&dir).unwrap();
    assert_eq!(loaded.server_ca.cert_pem, identity.server_ca.cert_pem);
}

#[test]
fn minting_never_overwrites() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("identity");
    Identity::mint(&dir, SystemTime::now()).unwrap();
    let before = std::fs::read(dir.join("server-ca.key")).unwrap();
    let err = Identity::mint(&dir, SystemTime::now())
        .unwrap_err()
        .to_string();
    assert!(err.contains("never overwrites"), "{err}");
    assert_eq!(std::fs::read(dir.join("server-ca.key")).unwrap(), before);
    // An empty directory is fine to mint into, and nothing is left beside it.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    Identity::mint(&empty, SystemTime::now()).unwrap();
    let names: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}

#[test]
fn loading_refuses_incomplete_and_foreign_tokens() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("identity");
    Identity::mint(&dir, SystemTime::now()).unwrap();
    std::fs::remove_file(dir.join("service.key")).unwrap();
    std::fs::remove_file(dir.join("etcd/peer-ca.crt")).unwrap();
    let err = Identity::load(&dir).unwrap_err().to_string();
    assert!(
        err.contains("etcd/peer-ca.crt") && err.contains("service.key"),
        "{err}"
    );

    let other = tmp.path().join("other");
    Identity::mint(&other, SystemTime::now()).unwrap();
    let dir2 = tmp.path().join("mixed");
    Identity::mint(&dir2, SystemTime::now()).unwrap();
    std::fs::copy(other.join("token"), dir2.join("token")).unwrap();
    let err = Identity::load(&dir2).unwrap_err().to_string();
    assert!(err.contains("another cluster"), "{err}");
}
