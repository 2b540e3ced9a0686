//! The feature janitor: every liken-system DaemonSet annotated
//! `liken.sh/feature=<slug>` whose feature the Cluster no longer declares
//! in spec.features is deleted (background propagation, so its pods go with
//! it). Presence of the key in spec.features is the only question asked;
//! a DaemonSet without the annotation (the operators' own) is never
//! touched. init seeds a feature's manifests only while it is declared, and
//! nothing else deletes what a removed manifest created.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::DaemonSet;
use kube::api::{Api, DeleteParams, PropagationPolicy};
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::Store;
use liken_documents::annotations::FEATURE;

/// A workload to delete: its name and the feature it belonged to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Retraction {
    pub name: String,
    pub feature: String,
}

/// Which workloads belong to a feature `features` no longer declares, given
/// each workload's name and annotations. Pure.
pub fn retractions<'a, V>(
    features: &BTreeMap<String, V>,
    workloads: impl IntoIterator<Item = (&'a str, Option<&'a BTreeMap<String, String>>)>,
) -> Vec<Retraction> {
    let mut out: Vec<Retraction> = workloads
        .into_iter()
        .filter_map(|(name, annotations)| {
            let slug = annotations?.get(FEATURE)?;
            (!slug.is_empty() && !features.contains_key(slug)).then(|| Retraction {
                name: name.to_owned(),
                feature: slug.clone(),
            })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Deletes the retracted DaemonSets the cache holds. Answers how many
/// deletions the API server accepted.
pub async fn sweep<V>(
    client: &kube::Client,
    namespace: &str,
    features: &BTreeMap<String, V>,
    daemonsets: &Store<PartialObjectMeta<DaemonSet>>,
    may_write: impl Fn() -> bool,
) -> usize {
    let held = daemonsets.state();
    let plan = retractions(
        features,
        held.iter().map(|d| {
            (
                d.metadata.name.as_deref().unwrap_or(""),
                d.metadata.annotations.as_ref(),
            )
        }),
    );
    let api: Api<DaemonSet> = Api::namespaced(client.clone(), namespace);
    let params = DeleteParams {
        propagation_policy: Some(PropagationPolicy::Background),
        ..Default::default()
    };
    let mut deleted = 0;
    for r in plan {
        if !may_write() {
            break;
        }
        match api.delete(&r.name, &params).await {
            Ok(_) => {
                deleted += 1;
                println!(
                    "daemonset={} feature={} deleted=\"the Cluster no longer declares the feature\"",
                    r.name, r.feature
                );
            }
            Err(kube::Error::Api(e)) if e.code == 404 => {}
            Err(e) => println!(
                "daemonset={} feature={} delete=failed error=\"{e}\"",
                r.name, r.feature
            ),
        }
    }
    deleted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann(slug: &str) -> BTreeMap<String, String> {
        BTreeMap::from([(FEATURE.to_owned(), slug.to_owned())])
    }

    #[test]
    fn only_annotated_workloads_of_undeclared_features_are_retracted() {
        let features: BTreeMap<String, ()> = BTreeMap::from([("iscsi".to_owned(), ())]);
        let iscsi = ann("iscsi");
        let nfs = ann("nfs");
        let empty = ann("");
        let other = BTreeMap::from([("x".to_owned(), "y".to_owned())]);
        let got = retractions(
            &features,
            [
                ("iscsid", Some(&iscsi)),
                ("nfs-thing", Some(&nfs)),
                ("liken-machine-operator", None),
                ("unclaimed", Some(&other)),
                ("blank", Some(&empty)),
            ],
        );
        assert_eq!(
            got,
            vec![Retraction {
                name: "nfs-thing".into(),
                feature: "nfs".into()
            }]
        );
    }
}
