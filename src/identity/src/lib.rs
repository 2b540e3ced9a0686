//! A cluster's identity: the certificate authorities and the join token that
//! every machine of one cluster shares, in the files and shapes k3s uses for
//! custom CAs, so an identity minted here, adopted from an existing k3s
//! server, or handed to a test control plane is the same thing.
//!
//! An identity directory holds `server-ca`, `client-ca`,
//! `request-header-ca`, `etcd/server-ca` and `etcd/peer-ca` (each `.crt` and
//! `.key`), `service.key` (the service-account signing key) and `token` (k3s's
//! secure format, `K10<hash of server-ca.crt>::server:<secret>`). Private
//! files are 0600 and the directory 0700. Minting never overwrites an
//! identity and appears whole or not at all. Adopting reads the same roots
//! from a harvest of a k3s server (`harvest`), checks them, and writes them the
//! same way. Callers pass the clock.

mod ca;
mod dir;
mod harvest;
mod kubeconfig;
mod token;

pub use ca::{Ca, Leaf};
pub use dir::{CA_FILES, Identity, SERVICE_KEY, TOKEN};
pub use harvest::{K3S_SERVER_DIR, harvest_files};
pub use kubeconfig::kubeconfig;
pub use token::{Token, ca_hash};

use std::path::PathBuf;

/// Why an identity could not be made, read or used.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{0} already holds files; liken never overwrites an identity (choose an empty or new directory)"
    )]
    Exists(PathBuf),
    #[error("{dir} is not a complete identity; missing: {}", .missing.join(", "))]
    Incomplete { dir: PathBuf, missing: Vec<String> },
    #[error(
        "{dir} is not a complete harvest; missing: {}; copy them from {} on a server of the cluster",
        .missing.join(", "),
        harvest::K3S_SERVER_DIR
    )]
    HarvestIncomplete { dir: PathBuf, missing: Vec<String> },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("making a certificate: {0}")]
    Cert(String),
}

impl Error {
    fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }
    fn invalid(path: impl Into<PathBuf>, message: impl Into<String>) -> Error {
        Error::Invalid {
            path: path.into(),
            message: message.into(),
        }
    }
}
