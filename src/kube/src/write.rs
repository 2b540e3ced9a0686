//! Status writes guarded by a resourceVersion. A merge patch that carries
//! `metadata.resourceVersion` is refused with 409 when the object moved on,
//! which is how a writer that judged an old copy learns it, instead of
//! overwriting a newer report. Only the fields the patch names change; the
//! rest of the status stays exactly as its owner wrote it.

use kube::api::{Api, Patch, PatchParams};
use serde_json::{Value, json};

/// How a guarded write failed.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The object changed since the copy the write was judged on.
    #[error("{name}: the object changed since it was read (409 Conflict)")]
    Conflict { name: String },
    /// The object is gone.
    #[error("{name}: the object no longer exists")]
    NotFound { name: String },
    /// This copy may not write now (it does not hold the lead).
    #[error("{name}: not written, this copy does not hold the lead")]
    NotLeading { name: String },
    #[error("{name}: {source}")]
    Api {
        name: String,
        #[source]
        source: kube::Error,
    },
}

impl WriteError {
    /// Classifies an API error on `name`.
    pub fn from_api(name: &str, e: kube::Error) -> Self {
        let name = name.to_owned();
        match status_code(&e) {
            Some(409) => WriteError::Conflict { name },
            Some(404) => WriteError::NotFound { name },
            _ => WriteError::Api { name, source: e },
        }
    }
}

/// The HTTP status of an API refusal.
pub fn status_code(e: &kube::Error) -> Option<u16> {
    match e {
        kube::Error::Api(s) => Some(s.code),
        _ => None,
    }
}

/// Merge-patches `status` onto `name`'s status subresource, refused with
/// [`WriteError::Conflict`] unless the object is still at `resource_version`.
pub async fn merge_status_guarded<K>(
    api: &Api<K>,
    name: &str,
    resource_version: &str,
    status: Value,
) -> Result<K, WriteError>
where
    K: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let body = json!({
        "metadata": {"resourceVersion": resource_version},
        "status": status,
    });
    api.patch_status(name, &PatchParams::default(), &Patch::Merge(&body))
        .await
        .map_err(|e| WriteError::from_api(name, e))
}
