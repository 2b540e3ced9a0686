//! The CRDs, generated from the document types: machines.liken.sh and
//! clusters.liken.sh. manifests/ holds the rendered YAML, and a test keeps
//! the committed files equal to what this module generates, so the types are
//! the one source of truth.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::CustomResourceExt;

use crate::{Cluster, Machine};

/// The CRD files, as (file name under manifests/, contents).
pub fn files() -> Vec<(&'static str, String)> {
    vec![
        ("crd-clusters.liken.sh.yaml", render(Cluster::crd())),
        ("crd-machines.liken.sh.yaml", render(Machine::crd())),
    ]
}

fn render(crd: CustomResourceDefinition) -> String {
    let mut value = serde_json::to_value(&crd).unwrap_or_default();
    tidy(&mut value);
    let body = serde_yaml::to_string(&value).unwrap_or_default();
    format!("# Generated from the Rust types in src/documents by `make crds`. Do not edit.\n{body}")
}

/// Drops `nullable` (an absent field already means unset; null is not a
/// value anyone writes) and schemars' numeric `format`s, which the API
/// server does not know.
fn tidy(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(map) => {
            map.remove("nullable");
            if let Some(serde_json::Value::String(d)) = map.get_mut("description") {
                *d = unwrap_lines(d);
            }
            let odd_format = matches!(map.get("format"), Some(serde_json::Value::String(f))
                if f.starts_with("uint") || (f.starts_with("int") && f != "int64" && f != "int32"));
            if odd_format {
                map.remove("format");
            }
            for (_, child) in map.iter_mut() {
                tidy(child);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// Doc comments wrap at 100 columns; a description is prose, so join the
/// wrapped lines and keep only paragraph breaks.
fn unwrap_lines(d: &str) -> String {
    d.split("\n\n")
        .map(|para| para.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}
