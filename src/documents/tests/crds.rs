//! The CRDs in manifests/ are what the types generate (regenerate with
//! `make crds`), and their shape is what the API server and kubectl need.

use liken_documents::crd;

fn manifests() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../manifests")
}

#[test]
fn committed_crds_are_generated() {
    for (name, body) in crd::files() {
        let committed = std::fs::read_to_string(manifests().join(name))
            .unwrap_or_else(|e| panic!("manifests/{name}: {e}; run `make crds`"));
        assert!(
            committed == body,
            "manifests/{name} is stale; run `make crds`"
        );
    }
}

#[test]
fn committed_reference_pages_are_generated() {
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/reference");
    for (name, body) in liken_documents::refdoc::pages() {
        let committed = std::fs::read_to_string(docs.join(name))
            .unwrap_or_else(|e| panic!("docs/reference/{name}: {e}; run `make docs`"));
        assert!(
            committed == body,
            "docs/reference/{name} is stale; run `make docs`"
        );
    }
}

fn schema(name: &str) -> serde_json::Value {
    let body = crd::files()
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap()
        .1;
    serde_yaml::from_str(&body).unwrap()
}

#[test]
fn crds_are_cluster_scoped_with_status_and_columns() {
    for (file, plural, columns) in [
        (
            "crd-clusters.liken.sh.yaml",
            "clusters",
            vec!["VERSION", "NEWEST", "AVAILABLE", "MACHINES", "PHASE"],
        ),
        (
            "crd-machines.liken.sh.yaml",
            "machines",
            vec!["PHASE", "ROLE", "LIKEN", "UPTIME"],
        ),
    ] {
        let crd = schema(file);
        assert_eq!(crd["metadata"]["name"], format!("{plural}.liken.sh"));
        assert_eq!(crd["spec"]["group"], "liken.sh");
        assert_eq!(crd["spec"]["scope"], "Cluster");
        let version = &crd["spec"]["versions"][0];
        assert_eq!(version["name"], "v1alpha1");
        assert!(
            version["subresources"]["status"].is_object(),
            "{file}: no status subresource"
        );
        let names: Vec<&str> = version["additionalPrinterColumns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        for c in columns {
            assert!(names.contains(&c), "{file}: no column {c} in {names:?}");
        }
    }
}

/// Walks a schema and fails on what a structural schema may not hold, and on
/// a field without a description.
fn structural(path: &str, s: &serde_json::Value, missing: &mut Vec<String>) {
    let obj = s.as_object().unwrap();
    for banned in [
        "$ref",
        "anyOf",
        "oneOf",
        "allOf",
        "nullable",
        "definitions",
        "$defs",
    ] {
        assert!(
            !obj.contains_key(banned),
            "{path}: {banned} is not structural"
        );
    }
    assert!(
        obj.contains_key("type") || obj.contains_key("x-kubernetes-int-or-string"),
        "{path}: no type"
    );
    if let Some(props) = obj.get("properties").and_then(|p| p.as_object()) {
        for (name, child) in props {
            let child_path = format!("{path}.{name}");
            if child.get("description").is_none() {
                missing.push(child_path.clone());
            }
            structural(&child_path, child, missing);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = obj.get(key).filter(|c| c.is_object()) {
            structural(&format!("{path}[]"), child, missing);
        }
    }
}

#[test]
fn schemas_are_structural_and_every_field_is_described() {
    for (file, _) in crd::files() {
        let crd = schema(file);
        let root = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
        let mut missing = vec![];
        structural("", root, &mut missing);
        // metadata, apiVersion and kind are the server's, not ours.
        missing.retain(|p| !matches!(p.as_str(), ".apiVersion" | ".kind" | ".metadata"));
        assert!(
            missing.is_empty(),
            "{file}: fields without a description: {missing:?}"
        );
    }
}
