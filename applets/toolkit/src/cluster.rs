//! Talking to the deployment's cluster: a kube client built in memory from
//! the administrator kubeconfig ([`crate::deployment`], which is also
//! written, so the file beside the identity stays current), on a small
//! runtime of its own, and the two requests the toolkit makes of Machines:
//! read one, and set one annotation on it with a JSON merge patch (which
//! touches no other annotation and needs no resourceVersion, so a
//! concurrent status write is never clobbered); and, for `plugins list`,
//! the versions of the operators that carry a plugin domain.
//!
//! Failures are worded for the person at the workstation: a Machine that
//! does not exist names the command that lists them; a cluster that cannot
//! be reached names `-server`.

use std::path::Path;
use std::time::{Duration, SystemTime};

use kube::api::{Api, Patch, PatchParams};
use liken_documents::Machine;

use crate::Error;
use crate::cli;
use crate::deployment::Credential;

/// An open connection to the deployment's cluster.
pub struct Session {
    runtime: tokio::runtime::Runtime,
    client: kube::Client,
    pub credential: Credential,
}

impl Session {
    /// Writes the credential for the deployment in `dir` and connects.
    pub fn open(dir: &Path, server: Option<&str>) -> Result<Session, Error> {
        let credential = crate::deployment::write_kubeconfig(dir, server, SystemTime::now())?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| cli::failed(format!("starting the client: {e}")))?;
        let client = runtime.block_on(async {
            let file = kube::config::Kubeconfig::from_yaml(&credential.yaml)
                .map_err(|e| cli::failed(format!("reading the credential: {e}")))?;
            let mut config = kube::Config::from_custom_kubeconfig(file, &Default::default())
                .await
                .map_err(|e| cli::failed(format!("reading the credential: {e}")))?;
            config.connect_timeout = Some(Duration::from_secs(15));
            config.read_timeout = Some(Duration::from_secs(60));
            kube::Client::try_from(config).map_err(|e| cli::failed(format!("making a client: {e}")))
        })?;
        Ok(Session {
            runtime,
            client,
            credential,
        })
    }

    fn failure(&self, name: &str, e: kube::Error) -> Error {
        let at = &self.credential.endpoint;
        match e {
            kube::Error::Api(s) if s.code == 404 => cli::failed(format!(
                "the cluster at {at} has no Machine {name:?}; `liken kubectl <deployment-dir> get \
                 machines` lists the machines it has"
            )),
            kube::Error::Api(s) => cli::failed(format!(
                "the cluster at {at} refused: {} ({})",
                s.message, s.code
            )),
            other => cli::failed(format!(
                "cannot reach the cluster at {at}: {other}; if this workstation reaches it at \
                 another address, pass -server URL"
            )),
        }
    }

    /// The Machine called `name`.
    pub fn machine(&self, name: &str) -> Result<Machine, Error> {
        let api: Api<Machine> = Api::all(self.client.clone());
        self.runtime
            .block_on(api.get(name))
            .map_err(|e| self.failure(name, e))
    }

    /// Sets annotation `key` to `value` on the Machine called `name`.
    pub fn annotate(&self, name: &str, key: &str, value: &str) -> Result<(), Error> {
        let api: Api<Machine> = Api::all(self.client.clone());
        let patch = serde_json::json!({"metadata": {"annotations": {key: value}}});
        self.runtime
            .block_on(api.patch(name, &PatchParams::default(), &Patch::Merge(&patch)))
            .map(drop)
            .map_err(|e| self.failure(name, e))
    }

    /// Each plugin domain's operator version: the image tag of the first
    /// container of every Deployment and DaemonSet labelled with the domain.
    pub fn plugin_operators(&self) -> Result<std::collections::BTreeMap<String, String>, Error> {
        use k8s_openapi::api::apps::v1::{DaemonSet, Deployment};
        use k8s_openapi::api::core::v1::PodSpec;
        let label = crate::plugins::DOMAIN_LABEL;
        let params = kube::api::ListParams::default().labels(label);
        let failure = |e| self.failure("", e);
        let mut found = Vec::new();
        let collect = |found: &mut Vec<(Option<String>, Option<PodSpec>)>,
                       meta: &kube::api::ObjectMeta,
                       spec: Option<PodSpec>| {
            found.push((
                meta.labels.as_ref().and_then(|l| l.get(label)).cloned(),
                spec,
            ));
        };
        let deployments = self
            .runtime
            .block_on(Api::<Deployment>::all(self.client.clone()).list(&params))
            .map_err(failure)?;
        for d in &deployments.items {
            let spec = d.spec.as_ref().and_then(|s| s.template.spec.clone());
            collect(&mut found, &d.metadata, spec);
        }
        let daemonsets = self
            .runtime
            .block_on(Api::<DaemonSet>::all(self.client.clone()).list(&params))
            .map_err(failure)?;
        for d in &daemonsets.items {
            let spec = d.spec.as_ref().and_then(|s| s.template.spec.clone());
            collect(&mut found, &d.metadata, spec);
        }
        let mut versions = std::collections::BTreeMap::new();
        for (domain, spec) in found {
            let image = spec
                .and_then(|s| s.containers.into_iter().next())
                .and_then(|c| c.image);
            let (Some(domain), Some(image)) = (domain, image) else {
                continue;
            };
            if let Some(v) = crate::plugins::image_version(&image) {
                versions.insert(domain, v.to_owned());
            }
        }
        Ok(versions)
    }
}
