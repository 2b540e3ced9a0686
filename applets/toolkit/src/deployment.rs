//! How a command on the workstation finds a deployment's cluster and holds
//! a credential for it.
//!
//! A deployment directory is what `liken new` writes: `cluster.yaml` (its
//! `metadata.name` names the cluster, its `spec.endpoint` is where the
//! cluster is reached) and `identity/`. `-server` replaces the endpoint,
//! because the address followers join through is often not one a
//! workstation can reach (a lab forwards a port to localhost, say).
//!
//! The credential is an administrator certificate (`system:admin` in
//! `system:masters`) that client-ca signs afresh on each run, in a
//! kubeconfig that trusts server-ca. It is written, 0600 and atomically, to
//! `identity/kubeconfig`, beside the identity it comes from; one known path
//! rewritten each run, rather than a new file, because the passthrough
//! commands replace this process and could never clean a temporary one up.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use liken_documents::ClusterDocument;
use liken_identity::Identity;

use crate::Error;
use crate::cli;

/// The file under the identity directory the credential is written to.
pub const KUBECONFIG: &str = "kubeconfig";

/// Reads and checks `<dir>/cluster.yaml`.
pub fn read_cluster(dir: &Path) -> Result<ClusterDocument, Error> {
    let path = dir.join("cluster.yaml");
    let bytes = std::fs::read(&path).map_err(|e| {
        cli::failed(format!(
            "{}: {e}; give the deployment directory that `liken new` wrote (it holds \
             cluster.yaml and identity/)",
            path.display()
        ))
    })?;
    ClusterDocument::from_yaml(&path.display().to_string(), &bytes).map_err(cli::failed)
}

/// Where the cluster is reached: `server` when given, else the document's
/// endpoint. Refuses a cluster that declares none when no `server` is given.
pub fn endpoint(
    cluster: &ClusterDocument,
    dir: &Path,
    server: Option<&str>,
) -> Result<String, Error> {
    if let Some(server) = server {
        return Ok(server.to_owned());
    }
    cluster.spec.endpoint.clone().ok_or_else(|| {
        cli::failed(format!(
            "{} declares no spec.endpoint, so there is no address to reach the cluster at; \
             set spec.endpoint (such as https://10.10.0.1:6443) or pass -server URL",
            dir.join("cluster.yaml").display()
        ))
    })
}

/// An administrator credential, written.
#[derive(Debug)]
pub struct Credential {
    /// `<dir>/identity/kubeconfig`.
    pub path: PathBuf,
    /// The kubeconfig's text.
    pub yaml: String,
    /// The cluster's name, as the kubeconfig names it.
    pub name: String,
    pub endpoint: String,
}

/// The administrator kubeconfig for the deployment in `dir`, in memory.
pub fn render_kubeconfig(
    dir: &Path,
    server: Option<&str>,
    now: SystemTime,
) -> Result<Credential, Error> {
    let cluster = read_cluster(dir)?;
    let endpoint = endpoint(&cluster, dir, server)?;
    let identity_dir = dir.join("identity");
    let identity = Identity::load(&identity_dir).map_err(|e| {
        cli::failed(format!(
            "{e}\n(the deployment's identity is made by `liken mint {0}` or `liken adopt <harvest-dir> {0}`)",
            identity_dir.display()
        ))
    })?;
    let admin = identity
        .client_ca
        .client("system:admin", &["system:masters"], now)
        .map_err(cli::failed)?;
    let name = cluster.metadata.name.clone();
    let yaml = liken_identity::kubeconfig(
        &name,
        &endpoint,
        &identity.server_ca.cert_pem,
        &admin.cert_pem,
        &admin.key_pem,
    );
    Ok(Credential {
        path: identity_dir.join(KUBECONFIG),
        yaml,
        name,
        endpoint,
    })
}

/// Renders the credential and writes it to `identity/kubeconfig`.
pub fn write_kubeconfig(
    dir: &Path,
    server: Option<&str>,
    now: SystemTime,
) -> Result<Credential, Error> {
    let credential = render_kubeconfig(dir, server, now)?;
    liken_sys::atomic::write_mode(&credential.path, credential.yaml.as_bytes(), 0o600)
        .map_err(|e| cli::failed(format!("writing {}: {e}", credential.path.display())))?;
    Ok(credential)
}
