//! The control plane's certificates, signed by an identity's CAs the way k3s
//! signs them: a serving certificate from server-ca, admin and controller
//! manager client certificates from client-ca, the front-proxy client from
//! request-header-ca, and the identity's service-account key.

use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use liken_identity::Identity;

pub struct Pki {
    pub dir: PathBuf,
    pub admin_kubeconfig: PathBuf,
    pub kcm_kubeconfig: PathBuf,
}

fn err(e: liken_identity::Error) -> io::Error {
    io::Error::other(e.to_string())
}

pub fn write(root: &Path, identity: &Identity, server: &str) -> io::Result<Pki> {
    let dir = root.join("pki");
    std::fs::create_dir_all(&dir)?;
    let now = SystemTime::now();
    let put = |name: &str, text: &str| std::fs::write(dir.join(name), text);
    put("server-ca.crt", &identity.server_ca.cert_pem)?;
    put("client-ca.crt", &identity.client_ca.cert_pem)?;
    put("client-ca.key", &identity.client_ca.key_pem)?;
    put(
        "request-header-ca.crt",
        &identity.request_header_ca.cert_pem,
    )?;
    put("service.key", &identity.service_key)?;
    let names = [
        "127.0.0.1",
        "localhost",
        "10.43.0.1",
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        "kubernetes.default.svc.cluster.local",
    ];
    let serving = identity
        .server_ca
        .server("kube-apiserver", &names, now)
        .map_err(err)?;
    put("serving.crt", &serving.cert_pem)?;
    put("serving.key", &serving.key_pem)?;
    let proxy = identity
        .request_header_ca
        .client("system:auth-proxy", &[], now)
        .map_err(err)?;
    put("front-proxy.crt", &proxy.cert_pem)?;
    put("front-proxy.key", &proxy.key_pem)?;

    let admin = identity
        .client_ca
        .client("system:admin", &["system:masters"], now)
        .map_err(err)?;
    let admin_kubeconfig = root.join("admin.kubeconfig");
    std::fs::write(
        &admin_kubeconfig,
        liken_identity::kubeconfig(
            "testenv",
            server,
            &identity.server_ca.cert_pem,
            &admin.cert_pem,
            &admin.key_pem,
        ),
    )?;
    let kcm = identity
        .client_ca
        .client("system:kube-controller-manager", &[], now)
        .map_err(err)?;
    let kcm_kubeconfig = root.join("controller-manager.kubeconfig");
    std::fs::write(
        &kcm_kubeconfig,
        liken_identity::kubeconfig(
            "testenv",
            server,
            &identity.server_ca.cert_pem,
            &kcm.cert_pem,
            &kcm.key_pem,
        ),
    )?;
    Ok(Pki {
        dir,
        admin_kubeconfig,
        kcm_kubeconfig,
    })
}
