//! Making a client. In a pod (KUBERNETES_SERVICE_HOST set and the service
//! account token mounted) the in-cluster credentials are used; anywhere else
//! the kubeconfig is read as kubectl reads it: every file KUBECONFIG lists,
//! merged in order, else ~/.kube/config, at its current context. Nothing
//! else is consulted, and the choice is reported so a log shows which
//! credentials a process runs with.

use std::path::Path;

/// Why no client could be made.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("reading the in-cluster credentials: {0}")]
    InCluster(#[from] kube::config::InClusterError),
    #[error("reading the kubeconfig (KUBECONFIG, else ~/.kube/config): {0}")]
    Kubeconfig(#[from] kube::config::KubeconfigError),
    #[error("making a client: {0}")]
    Client(#[from] kube::Error),
}

/// Where the credentials came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    InCluster,
    Kubeconfig,
}

const TOKEN: &str = "/var/run/secrets/kubernetes.io/serviceaccount/token";

/// Which credentials this process would use.
pub fn source() -> Source {
    if std::env::var_os("KUBERNETES_SERVICE_HOST").is_some() && Path::new(TOKEN).is_file() {
        Source::InCluster
    } else {
        Source::Kubeconfig
    }
}

/// A client for this process: in-cluster in a pod, else from the kubeconfig.
pub async fn connect() -> Result<(kube::Client, Source), ClientError> {
    let source = source();
    let config = match source {
        Source::InCluster => kube::Config::incluster()?,
        Source::Kubeconfig => {
            let file = kube::config::Kubeconfig::read()?;
            kube::Config::from_custom_kubeconfig(file, &Default::default()).await?
        }
    };
    Ok((kube::Client::try_from(config)?, source))
}
