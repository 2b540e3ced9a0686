//! The storage rules a Machine keeps: the layout's own (pairs, one role per
//! disk taking the rest) and the transition rules against what the machine
//! booted with, judged by `validate_update` as the API server judges the
//! CRD's root rules. The CRD side is checked for the same rules' presence.

use liken_documents::machine::StorageRole;
use liken_documents::validate::Checker;
use liken_documents::{MachineDocument, MachineSpec, MachineStatus, crd};

const HEAD: &str = "apiVersion: liken.sh/v1alpha1\nkind: Machine\nmetadata:\n  name: big\n";

/// A spec whose storage is `storage` (YAML lines under `storage:`), on top
/// of the slots and machineState every case shares.
fn spec(storage: &str) -> MachineSpec {
    let text = format!(
        "{HEAD}spec:\n  storage:\n    systemA: {{device: /dev/vda, size: 1Gi}}\n    systemB: {{device: /dev/vda, size: 1Gi}}\n{storage}"
    );
    MachineDocument::from_yaml("big.yaml", text.as_bytes())
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .spec
}

/// A status whose boot recorded `role` at `size` (None: took the rest), and
/// whose partition for it holds `capacity` bytes when given.
fn status(role: &str, size: Option<&str>, capacity: Option<u64>) -> MachineStatus {
    let mut recorded = serde_json::json!({"device": "/dev/vda"});
    if let Some(size) = size {
        recorded["size"] = size.into();
    }
    let mut value = serde_json::json!({"boot": {"storage": {role: recorded}}});
    if let Some(bytes) = capacity {
        value["storage"] =
            serde_json::json!({role: {"backing": "Partition", "capacityBytes": bytes}});
    }
    serde_json::from_value(value).unwrap()
}

/// The faults of an edit from `old` to `new` under `status`, as fields.
fn update(new: &MachineSpec, old: &MachineSpec, status: &MachineStatus) -> Vec<String> {
    let mut c = Checker::new();
    new.validate_update(old, Some(status), &mut c);
    c.finish("big.yaml", "Machine big")
        .into_iter()
        .map(|e| format!("{}: {}", e.field, e.message))
        .collect()
}

const GI: u64 = 1 << 30;

#[test]
fn a_size_may_not_drop_below_what_the_machine_booted_with() {
    let old = spec("    clusterState: {device: /dev/vda, size: 20Gi}\n");
    let st = status("clusterState", Some("20Gi"), None);
    let shrunk = spec("    clusterState: {device: /dev/vda, size: 10Gi}\n");
    let faults = update(&shrunk, &old, &st);
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert!(
        faults[0].starts_with("spec.storage.clusterState.size: 10Gi is below 20Gi"),
        "{faults:?}"
    );
    for fine in ["30Gi", "20480Mi", "\"21474836480\""] {
        let grown = spec(&format!(
            "    clusterState: {{device: /dev/vda, size: {fine}}}\n"
        ));
        assert!(update(&grown, &old, &st).is_empty(), "{fine}");
    }
    let rest = spec("    clusterState: {device: /dev/vdb}\n");
    assert!(
        update(&rest, &old, &st).is_empty(),
        "the rest of a disk never shrinks"
    );
}

#[test]
fn a_failed_growth_can_be_edited_back_down() {
    // The machine refused 40Gi and booted its proven 20Gi: status, not the
    // previous spec, is the floor.
    let refused = spec("    clusterState: {device: /dev/vda, size: 40Gi}\n");
    let st = status("clusterState", Some("20Gi"), None);
    for back in ["20Gi", "30Gi"] {
        let edited = spec(&format!(
            "    clusterState: {{device: /dev/vda, size: {back}}}\n"
        ));
        assert!(update(&edited, &refused, &st).is_empty(), "{back}");
    }
    let below = spec("    clusterState: {device: /dev/vda, size: 19Gi}\n");
    assert_eq!(update(&below, &refused, &st).len(), 1);
}

#[test]
fn a_role_that_took_the_rest_is_floored_by_its_partition() {
    let old = spec("    podStorage: {device: /dev/vda}\n");
    let st = status("podStorage", None, Some(500 * GI));
    let below = spec("    podStorage: {device: /dev/vda, size: 100Gi}\n");
    let faults = update(&below, &old, &st);
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert!(faults[0].contains("below 536870912000 bytes"), "{faults:?}");
    let exact = spec(&format!(
        "    podStorage: {{device: /dev/vda, size: \"{}\"}}\n",
        500 * GI
    ));
    assert!(update(&exact, &old, &st).is_empty());
    // With the capacity unknown, there is nothing to compare with.
    let unknown = status("podStorage", None, None);
    assert!(update(&below, &old, &unknown).is_empty());
    // An empty recorded size means the rest too.
    let empty = status("podStorage", Some(""), Some(500 * GI));
    assert_eq!(update(&below, &old, &empty).len(), 1);
}

#[test]
fn only_an_edited_size_is_judged() {
    // After a reinstall with larger sizes, the spec in the cluster is below
    // the record; an edit that leaves those sizes alone still passes, and so
    // does the status write that reports them.
    let old = spec(
        "    clusterState: {device: /dev/vda, size: 20Gi}\n    podStorage: {device: /dev/vda}\n",
    );
    let st = status("clusterState", Some("40Gi"), None);
    let mut relabelled = old.clone();
    relabelled.node_labels.insert("zone".into(), "a".into());
    assert!(update(&relabelled, &old, &st).is_empty());
    // The same edit judged as a new object (no old spec) does fault.
    assert_eq!(update(&old, &MachineSpec::default(), &st).len(), 1);
    // A role the boot did not record has no floor.
    let newly = spec(
        "    clusterState: {device: /dev/vda, size: 20Gi}\n    podEphemeral: {device: /dev/vda, size: 1Gi}\n",
    );
    assert!(update(&newly, &old, &status("podStorage", Some("9Gi"), None)).is_empty());
    // Nor does a size the record does not state as a quantity.
    let odd = status("clusterState", Some("lots"), None);
    let shrunk = spec("    clusterState: {device: /dev/vda, size: 1Gi}\n");
    assert!(update(&shrunk, &old, &odd).is_empty());
}

#[test]
fn the_install_guides_reinstall_is_corrected_in_the_guides_order() {
    // The cluster still holds the old layout; the machine was reinstalled
    // from a stick declaring clusterState 30Gi and podStorage 200Gi, and now
    // reports them. Editing the Machine to that layout is accepted; anything
    // smaller is refused, naming each role.
    let in_cluster = spec(
        "    clusterState: {device: /dev/vda, size: 20Gi}\n    podStorage: {device: /dev/vda, size: 100Gi}\n",
    );
    let st: MachineStatus = serde_json::from_value(serde_json::json!({"boot": {"storage": {
        "clusterState": {"device": "/dev/vda", "size": "30Gi"},
        "podStorage": {"device": "/dev/vda", "size": "200Gi"},
    }}}))
    .unwrap();
    let corrected = spec(
        "    clusterState: {device: /dev/vda, size: 30Gi}\n    podStorage: {device: /dev/vda, size: 200Gi}\n",
    );
    assert!(update(&corrected, &in_cluster, &st).is_empty());
    let halfway = spec(
        "    clusterState: {device: /dev/vda, size: 25Gi}\n    podStorage: {device: /dev/vda, size: 150Gi}\n",
    );
    let faults = update(&halfway, &in_cluster, &st);
    assert_eq!(faults.len(), 2, "{faults:?}");
    assert!(faults[0].starts_with("spec.storage.clusterState.size: 25Gi is below 30Gi"));
    assert!(faults[1].starts_with("spec.storage.podStorage.size: 150Gi is below 200Gi"));
}

#[test]
fn the_fixed_roles_keep_their_size() {
    let old = spec("");
    let st = status("systemA", Some("1Gi"), None);
    let grown = MachineDocument::from_yaml(
        "big.yaml",
        format!("{HEAD}spec:\n  storage:\n    systemA: {{device: /dev/vda, size: 2Gi}}\n    systemB: {{device: /dev/vda, size: 2Gi}}\n").as_bytes(),
    )
    .unwrap()
    .spec;
    let faults = update(&grown, &old, &st);
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert_eq!(
        faults[0],
        "spec.storage.systemA.size: cannot change once claimed: it stays 1Gi, the size this machine booted with"
    );
    let same = MachineDocument::from_yaml(
        "big.yaml",
        format!("{HEAD}spec:\n  storage:\n    systemA: {{device: /dev/vda, size: 1024Mi}}\n    systemB: {{device: /dev/vda, size: 1Gi}}\n").as_bytes(),
    )
    .unwrap()
    .spec;
    assert!(update(&same, &old, &st).is_empty());
    let rest = MachineDocument::from_yaml(
        "big.yaml",
        format!("{HEAD}spec:\n  storage:\n    systemA: {{device: /dev/vdc}}\n    systemB: {{device: /dev/vda, size: 1Gi}}\n").as_bytes(),
    )
    .unwrap()
    .spec;
    assert_eq!(
        update(&rest, &old, &st).len(),
        1,
        "taking the rest grows it"
    );
    // A slot that took the rest keeps exactly its partition's size.
    let took_rest = status("systemA", None, Some(GI));
    assert!(update(&same, &rest, &took_rest).is_empty());
    let faults = update(&grown, &rest, &took_rest);
    assert_eq!(faults.len(), 1);
    assert!(
        faults[0].contains("it stays the rest of its disk"),
        "{faults:?}"
    );
}

#[test]
fn the_crd_carries_a_floor_rule_per_role_at_its_root() {
    let (_, body) = crd::files()
        .into_iter()
        .find(|(n, _)| *n == "crd-machines.liken.sh.yaml")
        .unwrap();
    let crd: serde_json::Value = serde_yaml::from_str(&body).unwrap();
    let root = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
    let rules = root["x-kubernetes-validations"].as_array().unwrap();
    assert_eq!(rules.len(), 9);
    for (rule, role) in rules.iter().zip(StorageRole::ALL) {
        let r = role.as_str();
        assert_eq!(rule["fieldPath"], format!(".spec.storage.{r}.size"));
        let text = rule["rule"].as_str().unwrap();
        assert!(
            text.contains(&format!("oldSelf.spec.storage.{r}.size")),
            "{text}"
        );
        assert!(
            text.contains(&format!("self.status.boot.storage.{r}.size")),
            "{text}"
        );
        let op = if role.fixed_size() {
            "compareTo"
        } else {
            "isLessThan"
        };
        assert!(text.contains(op), "{r}: {text}");
        assert!(rule["messageExpression"].is_string());
    }
    let storage = &root["properties"]["spec"]["properties"]["storage"];
    assert_eq!(
        storage["x-kubernetes-validations"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let size = &storage["properties"]["podStorage"]["properties"]["size"];
    assert_eq!(size["pattern"], "^[0-9]+(Ki|Mi|Gi|Ti)?$");
    assert!(
        size["maxLength"].is_u64(),
        "a bound the cost estimate needs"
    );
    let recorded = &root["properties"]["status"]["properties"]["boot"]["properties"]["storage"]["properties"]
        ["podStorage"]["properties"]["size"];
    assert!(
        recorded["maxLength"].is_u64(),
        "a bound the cost estimate needs"
    );
}

#[test]
fn the_crd_keys_its_lists_and_offers_every_phase() {
    let (_, body) = crd::files()
        .into_iter()
        .find(|(n, _)| *n == "crd-machines.liken.sh.yaml")
        .unwrap();
    let crd: serde_json::Value = serde_yaml::from_str(&body).unwrap();
    let version = &crd["spec"]["versions"][0];
    let columns: Vec<(&str, &str, &str)> = version["additionalPrinterColumns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap(),
                c["jsonPath"].as_str().unwrap(),
                c["type"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        columns,
        [
            ("PHASE", ".status.phase", "string"),
            ("ROLE", ".status.role", "string"),
            ("LIKEN", ".status.version.liken", "string"),
            ("K3S", ".status.version.k3s", "string"),
            ("UPTIME", ".status.boot.time", "date"),
        ]
    );
    let root = &version["schema"]["openAPIV3Schema"];
    let spec = &root["properties"]["spec"]["properties"];
    let status = &root["properties"]["status"]["properties"];
    for (list, keys) in [
        (&spec["network"]["properties"]["interfaces"], vec!["name"]),
        (
            &spec["network"]["properties"]["hostEntries"],
            vec!["address"],
        ),
        (&spec["nodeTaints"], vec!["key", "effect"]),
        (&status["conditions"], vec!["type"]),
        (&status["modules"], vec!["name"]),
        (&status["features"], vec!["name"]),
        (&status["network"]["properties"]["interfaces"], vec!["name"]),
        (
            &status["hardware"]["properties"]["blockDevices"],
            vec!["name"],
        ),
        (
            &status["hardware"]["properties"]["unclaimed"],
            vec!["modalias"],
        ),
    ] {
        assert_eq!(list["x-kubernetes-list-type"], "map", "{list}");
        assert_eq!(list["x-kubernetes-list-map-keys"], serde_json::json!(keys));
    }
    assert_eq!(spec["modules"]["x-kubernetes-list-type"], "set");
    let phases = status["phase"]["enum"].as_array().unwrap();
    assert!(phases.iter().any(|p| p == "Downloading"));
    assert_eq!(phases.len(), liken_api::Phase::ALL.len());
    assert_eq!(spec["rebootPolicy"]["default"], "Manual");
    assert_eq!(
        root["description"],
        "One computer that runs liken: how it should be set up (spec) and what it reports about itself and its hardware (status)."
    );
}
