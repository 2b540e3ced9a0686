//! The Rust twin of the Machine CRD's rules, held to the admission table in
//! fixtures/machine/admission.yaml: every object the API server accepts is
//! accepted here, and every object it refuses is refused here at the same
//! field (or below it: the server reports a map's rule at the map, the twin
//! at the key) and nowhere else.
//!
//! The table was checked against the apiextensions-apiserver v1.35 validation
//! code (schema, list keys, CEL with oldSelf); a test against a running API
//! server can replay it as it stands.

use liken_documents::validate::Checker;
use liken_documents::{DocumentError, MachineDocument};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    name: String,
    object: serde_json::Value,
    old: Option<serde_json::Value>,
    refused: Vec<String>,
}

fn cases() -> Vec<Case> {
    let path = format!(
        "{}/tests/fixtures/machine/admission.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    serde_yaml::from_str(&text).unwrap()
}

/// What the twin refuses `case` at: a parse error, the object's own rules,
/// and for an update the transition rules.
fn judge(case: &Case) -> Vec<DocumentError> {
    let new = match MachineDocument::from_api(&case.name, case.object.clone()) {
        Ok(doc) => doc,
        Err(e) => return vec![e],
    };
    let mut errors = match new.check(&case.name) {
        Ok(()) => vec![],
        Err(p) => p.0,
    };
    if let Some(old) = &case.old {
        let old = MachineDocument::from_api(&case.name, old.clone()).unwrap();
        let mut c = Checker::new();
        new.spec
            .validate_update(&old.spec, new.status.as_ref(), &mut c);
        errors.extend(c.finish(&case.name, &new.label()));
    }
    errors
}

#[test]
fn the_twin_refuses_what_the_api_server_refuses_where_it_does() {
    let cases = cases();
    assert!(cases.len() > 50);
    let mut wrong = vec![];
    for case in &cases {
        let errors = judge(case);
        for e in &errors {
            if !case.refused.iter().any(|r| e.field.starts_with(r.as_str())) {
                wrong.push(format!(
                    "{}: refused at {}, which the server accepts: {e}",
                    case.name, e.field
                ));
            }
        }
        for r in &case.refused {
            if !errors.iter().any(|e| e.field.starts_with(r.as_str())) {
                wrong.push(format!(
                    "{}: accepted at {r}, which the server refuses",
                    case.name
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_table_covers_every_kind_of_rule() {
    let cases = cases();
    let refused: Vec<&str> = cases
        .iter()
        .flat_map(|c| c.refused.iter().map(String::as_str))
        .collect();
    for field in [
        "spec.rlimits",
        "spec.sysctls",
        "spec.nodeLabels",
        "spec.nodeTaints[1]",
        "spec.network.hostEntries[0].names",
        "spec.network.interfaces[0].name",
        "spec.storage",
        "spec.storage.podStorage.device",
        "spec.storage.clusterState.size",
        "spec.storage.podStorage.size",
        "spec.storage.systemA.size",
        "status.phase",
    ] {
        assert!(refused.contains(&field), "no case refused at {field}");
    }
    assert!(cases.iter().filter(|c| c.old.is_some()).count() >= 20);
}
