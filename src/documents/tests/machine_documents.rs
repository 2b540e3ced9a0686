//! The Machine document end to end: the manual's examples parse, every
//! malformed variant is refused naming file, document and field, hostile
//! input is refused without a panic, the canonical identity ignores metadata
//! and defaults but not spec, and a status survives a JSON round trip.

use liken_documents::machine::{Limit, ModuleState, RebootPolicy, StorageRole, TaintEffect};
use liken_documents::{Document, MachineDocument, MachineSpec, MachineStatus, canonical};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/machine/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn parse(text: &str) -> Result<MachineDocument, String> {
    MachineDocument::from_yaml("node-1.yaml", text.as_bytes()).map_err(|e| e.to_string())
}

const HEAD: &str = "apiVersion: liken.sh/v1alpha1\nkind: Machine\nmetadata:\n  name: node-1\n";

#[test]
fn the_manuals_examples_parse() {
    let sysctls = MachineDocument::from_yaml("k", &fixture("kernel-settings.yaml")).unwrap();
    assert_eq!(sysctls.spec.sysctls["vm.max_map_count"], "524288");

    let rlimits = MachineDocument::from_yaml("r", &fixture("resource-limits.yaml")).unwrap();
    let parsed = rlimits.spec.parsed_rlimits();
    assert_eq!(parsed[0].0, "memlock");
    assert_eq!(parsed[0].1.soft, Limit::Value(67_108_864));
    assert_eq!(parsed[1].0, "nofile");
    assert_eq!(parsed[1].1.hard, Limit::Value(524_288));

    let driver = MachineDocument::from_yaml("d", &fixture("device-driver.yaml")).unwrap();
    assert_eq!(driver.spec.modules, ["i915"]);
}

#[test]
fn the_layouts_parse() {
    for name in ["leader.yaml", "bios-follower.yaml", "everything.yaml"] {
        if let Err(e) = MachineDocument::from_yaml(name, &fixture(name)) {
            panic!("{name}: {e}");
        }
    }
    let leader = MachineDocument::from_yaml("l", &fixture("leader.yaml")).unwrap();
    let pod = leader.spec.storage.get(StorageRole::PodStorage).unwrap();
    assert_eq!(pod.size, None, "podStorage takes the rest");
    assert_eq!(leader.spec.storage.declared().count(), 7);
    assert_eq!(
        leader
            .spec
            .network
            .interface("eth1")
            .unwrap()
            .address
            .as_deref(),
        Some("10.10.0.1/24")
    );

    let all = MachineDocument::from_yaml("e", &fixture("everything.yaml")).unwrap();
    assert_eq!(all.spec.node_taints.len(), 3);
    assert_eq!(all.spec.node_taints[1].effect, TaintEffect::NoExecute);
    assert_eq!(all.spec.node_taints[1].value, "");
    assert_eq!(
        all.spec.network.host_entries[0].names,
        ["nas", "nas.home.arpa"]
    );
    assert_eq!(all.spec.parsed_rlimits().len(), 7);
}

#[test]
fn reboot_policy_defaults_to_manual() {
    let doc = MachineDocument::from_yaml("k", &fixture("kernel-settings.yaml")).unwrap();
    assert_eq!(doc.spec.reboot_policy, RebootPolicy::Manual);
    let auto = MachineDocument::from_yaml("b", &fixture("bios-follower.yaml")).unwrap();
    assert_eq!(auto.spec.reboot_policy, RebootPolicy::Auto);
}

/// (the body after metadata, the field the error must name, a word the
/// message must hold)
const REFUSED: &[(&str, &str, &str)] = &[
    // Unknown fields, at each depth.
    ("spec:\n  modulez: [i915]\n", "spec.modulez", "not a field"),
    (
        "spec:\n  storage:\n    podStorage: {device: /dev/vda, sise: 1Gi}\n",
        "spec.storage.podStorage.sise",
        "not a field",
    ),
    (
        "spec:\n  storage:\n    scratch: {device: /dev/vda}\n",
        "spec.storage.scratch",
        "not a field",
    ),
    (
        "spec:\n  network:\n    interfaces:\n      - name: eth0\n        dhcp: true\n",
        "spec.network.interfaces[0].dhcp",
        "not a field",
    ),
    ("status:\n  mood: fine\n", "status.mood", "not a field"),
    // Wrong types.
    ("spec:\n  modules: i915\n", "spec.modules", "sequence"),
    (
        "spec:\n  rlimits:\n    nofile: 5\n",
        "spec.rlimits.nofile",
        "string",
    ),
    (
        "spec:\n  network:\n    interfaces:\n      - name: 7\n",
        "spec.network.interfaces[0].name",
        "string",
    ),
    ("spec:\n  sysctls: [vm.swappiness]\n", "spec.sysctls", "map"),
    (
        "spec:\n  storage:\n    podStorage: {}\n",
        "spec.storage.podStorage",
        "device",
    ),
    // Quantities.
    (
        "spec:\n  storage:\n    systemA: {device: /dev/vda, size: 20G}\n    systemB: {device: /dev/vda, size: 1Gi}\n",
        "spec.storage.systemA.size",
        "binary quantity",
    ),
    (
        "spec:\n  storage:\n    podStorage: {device: /dev/vda, size: 1.5Gi}\n",
        "spec.storage.podStorage.size",
        "binary quantity",
    ),
    (
        "spec:\n  storage:\n    podStorage: {device: /dev/vda, size: \"\"}\n",
        "spec.storage.podStorage.size",
        "leave size out",
    ),
    // Resource limits.
    (
        "spec:\n  rlimits:\n    nofile: unlimited\n",
        "spec.rlimits[nofile]",
        "infinity",
    ),
    (
        "spec:\n  rlimits:\n    nofile: \"1:2:3\"\n",
        "spec.rlimits[nofile]",
        "soft:hard",
    ),
    (
        "spec:\n  rlimits:\n    nofile: \"2048:1024\"\n",
        "spec.rlimits[nofile]",
        "above hard",
    ),
    (
        "spec:\n  rlimits:\n    nofile: \"infinity:1024\"\n",
        "spec.rlimits[nofile]",
        "above hard",
    ),
    (
        "spec:\n  rlimits:\n    nofiles: \"1024\"\n",
        "spec.rlimits[nofiles]",
        "nofile, nproc",
    ),
    (
        "spec:\n  rlimits:\n    as: \"1024\"\n",
        "spec.rlimits[as]",
        "no resource",
    ),
    // Sysctls and modules.
    (
        "spec:\n  sysctls:\n    swappiness: \"10\"\n",
        "spec.sysctls[swappiness]",
        "dotted",
    ),
    (
        "spec:\n  sysctls:\n    vm..x: \"10\"\n",
        "spec.sysctls[vm..x]",
        "dotted",
    ),
    (
        "spec:\n  sysctls:\n    vm.x: \"1\\n2\"\n",
        "spec.sysctls[vm.x]",
        "one line",
    ),
    (
        "spec:\n  modules: [i915.ko]\n",
        "spec.modules[0]",
        "without .ko",
    ),
    (
        "spec:\n  modules: [i915, i915]\n",
        "spec.modules[1]",
        "twice",
    ),
    // Taints and labels.
    (
        "spec:\n  nodeTaints:\n    - {key: dedicated, effect: NoRun}\n",
        "spec.nodeTaints[0].effect",
        "NoSchedule",
    ),
    (
        "spec:\n  nodeTaints:\n    - {key: dedicated}\n",
        "spec.nodeTaints[0]",
        "effect",
    ),
    (
        "spec:\n  nodeTaints:\n    - {key: -bad, effect: NoSchedule}\n",
        "spec.nodeTaints[0].key",
        "taint key",
    ),
    (
        "spec:\n  nodeTaints:\n    - {key: k, value: two words, effect: NoSchedule}\n",
        "spec.nodeTaints[0].value",
        "taint value",
    ),
    (
        "spec:\n  nodeTaints:\n    - {key: k, effect: NoSchedule}\n    - {key: k, value: v, effect: NoSchedule}\n",
        "spec.nodeTaints[1]",
        "twice",
    ),
    (
        "spec:\n  nodeLabels:\n    Liken.sh/gpu: \"x\"\n",
        "spec.nodeLabels[Liken.sh/gpu]",
        "label key",
    ),
    (
        "spec:\n  nodeLabels:\n    gpu: \"a b\"\n",
        "spec.nodeLabels[gpu]",
        "label value",
    ),
    (
        "spec:\n  rebootPolicy: Sometimes\n",
        "spec.rebootPolicy",
        "Manual",
    ),
    // Host entries.
    (
        "spec:\n  network:\n    hostEntries:\n      - address: 10.0.0.1\n        names: [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t, u]\n",
        "spec.network.hostEntries[0].names",
        "at most 20",
    ),
    (
        "spec:\n  network:\n    hostEntries:\n      - address: 10.0.0.1\n        names: [NAS]\n",
        "spec.network.hostEntries[0].names[0]",
        "lowercase",
    ),
    (
        "spec:\n  network:\n    hostEntries:\n      - address: 10.0.0.1\n        names: []\n",
        "spec.network.hostEntries[0].names",
        "at least one",
    ),
    (
        "spec:\n  network:\n    hostEntries:\n      - address: 10.0.0.1/24\n        names: [nas]\n",
        "spec.network.hostEntries[0].address",
        "without a prefix",
    ),
    (
        "spec:\n  network:\n    hostEntries:\n      - {address: 10.0.0.1, names: [a]}\n      - {address: 10.0.0.1, names: [b]}\n",
        "spec.network.hostEntries[1].address",
        "one",
    ),
    // Interfaces.
    (
        "spec:\n  network:\n    interfaces:\n      - name: eth0:1\n",
        "spec.network.interfaces[0].name",
        "interface name",
    ),
    (
        "spec:\n  network:\n    interfaces:\n      - name: averyverylongname0\n",
        "spec.network.interfaces[0].name",
        "15",
    ),
    (
        "spec:\n  network:\n    interfaces:\n      - name: eth0\n      - name: eth0\n",
        "spec.network.interfaces[1].name",
        "twice",
    ),
    (
        "spec:\n  network:\n    interfaces:\n      - {name: eth1, address: 10.10.0.1}\n",
        "spec.network.interfaces[0].address",
        "prefix length",
    ),
    (
        "spec:\n  network:\n    interfaces:\n      - {name: eth1, nameservers: [dns.example]}\n",
        "spec.network.interfaces[0].nameservers[0]",
        "nameserver",
    ),
    // Devices and layout.
    (
        "spec:\n  storage:\n    podStorage: {device: vda}\n",
        "spec.storage.podStorage.device",
        "/dev",
    ),
    (
        "spec:\n  storage:\n    podStorage: {device: /dev/disk/by-id/bad name}\n",
        "spec.storage.podStorage.device",
        "not a device",
    ),
    (
        "spec:\n  storage:\n    podStorage: {device: /dev/../etc/shadow}\n",
        "spec.storage.podStorage.device",
        "'..'",
    ),
    (
        "spec:\n  storage:\n    biosBoot: {device: /dev/sda, size: 1Mi}\n",
        "spec.storage.bootHome",
        "both or neither",
    ),
    (
        "spec:\n  storage:\n    systemB: {device: /dev/sda, size: 1Gi}\n",
        "spec.storage.systemA",
        "both or neither",
    ),
    (
        "spec:\n  storage:\n    clusterState: {device: /dev/vda}\n    podStorage: {device: /dev/vda}\n",
        "spec.storage.podStorage.size",
        "clusterState already takes the rest of /dev/vda",
    ),
    // Status keeps its schema's shapes and list keys.
    (
        "status:\n  conditions:\n    - {type: Ready, status: \"True\", reason: Reconciled, lastTransitionTime: \"2026-07-20T10:00:00Z\"}\n    - {type: Ready, status: \"False\", reason: Booting, lastTransitionTime: \"2026-07-20T10:00:00Z\"}\n",
        "status.conditions[1].type",
        "twice",
    ),
    (
        "status:\n  conditions:\n    - {type: Ready, status: \"True\", reason: all good, lastTransitionTime: \"2026-07-20T10:00:00Z\"}\n",
        "status.conditions[0].reason",
        "CamelCase",
    ),
    (
        "status:\n  conditions:\n    - {type: Ready, status: Maybe, reason: R, lastTransitionTime: \"2026-07-20T10:00:00Z\"}\n",
        "status.conditions[0].status",
        "True",
    ),
    (
        "status:\n  modules:\n    - {name: i915, state: Loaded}\n    - {name: i915, state: Failed}\n",
        "status.modules[1].name",
        "twice",
    ),
    (
        "status:\n  boot:\n    time: yesterday\n",
        "status.boot.time",
        "RFC 3339",
    ),
    ("status:\n  phase: Fine\n", "status.phase", "Ready"),
    // Metadata liken does not read.
    (
        "  labels: {app: x}\nspec: {}\n",
        "metadata.labels",
        "not a field",
    ),
    (
        "  ownerReferences: []\nspec: {}\n",
        "metadata.ownerReferences",
        "not a field",
    ),
    (
        "  namespace: default\n",
        "metadata.namespace",
        "not a field",
    ),
];

#[test]
fn malformed_documents_are_refused_naming_file_document_and_field() {
    for (body, field, word) in REFUSED {
        let text = format!("{HEAD}{body}");
        let errors = match MachineDocument::from_yaml("node-1.yaml", text.as_bytes()) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(p) => p.0,
        };
        let hit = errors
            .iter()
            .find(|e| e.field == *field)
            .unwrap_or_else(|| panic!("no error names {field} for\n{text}\ngot {errors:?}"));
        assert_eq!(hit.file, "node-1.yaml");
        assert_eq!(hit.document, "Machine node-1");
        assert!(
            hit.message.contains(word),
            "{field}: {:?} lacks {word:?}",
            hit.message
        );
        let shown = hit.to_string();
        assert!(
            shown.starts_with(&format!("node-1.yaml: Machine node-1: {field}: ")),
            "{shown}"
        );
    }
}

#[test]
fn every_fault_of_a_document_is_reported_at_once() {
    let text = format!(
        "{HEAD}spec:\n  rlimits:\n    nofile: lots\n  modules: [a.ko]\n  storage:\n    biosBoot: {{device: /dev/sda}}\n"
    );
    let errors = MachineDocument::from_yaml("f", text.as_bytes())
        .unwrap_err()
        .0;
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "spec.rlimits[nofile]",
            "spec.modules[0]",
            "spec.storage.bootHome"
        ]
    );
}

#[test]
fn valid_edges_are_accepted() {
    for body in [
        "spec: {}\n",
        "spec:\n  rlimits:\n    nofile: \"9999999999999999999:infinity\"\n",
        "spec:\n  rlimits:\n    core: \"0:infinity\"\n",
        "spec:\n  nodeLabels:\n    zone: \"\"\n",
        "spec:\n  network:\n    hostEntries:\n      - address: 10.0.0.1\n        names: [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q, r, s, t]\n",
        "spec:\n  network:\n    interfaces:\n      - name: enp0s31f6.100\n",
        "spec:\n  storage:\n    podStorage: {device: /dev/vda}\n    podEphemeral: {device: /dev/vdb}\n",
        "spec:\n  storage:\n    podStorage: {device: \"/dev/disk/by-path/pci-0000:00:17.0-ata-2\", size: \"1099511627776\"}\n",
    ] {
        if let Err(e) = parse(&format!("{HEAD}{body}")) {
            panic!("{body}: {e}");
        }
    }
}

#[test]
fn a_billion_laughs_is_refused() {
    let mut text = format!("{HEAD}spec:\n  modules: [x]\n");
    text.push_str("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..9 {
        let p = format!("*a{}", i - 1);
        text.push_str(&format!("a{i}: &a{i} [{}]\n", vec![p; 9].join(", ")));
    }
    let err = parse(&text).unwrap_err();
    assert!(err.starts_with("node-1.yaml: "), "{err}");
    assert!(err.contains("not valid YAML"), "{err}");
}

#[test]
fn an_alias_inside_the_spec_is_only_as_large_as_it_reads() {
    let text = format!("{HEAD}spec:\n  modules: &m [i915]\n  nodeLabels: {{a: b}}\n");
    assert!(parse(&text).is_ok());
    let text = format!("{HEAD}spec:\n  sysctls: &s {{vm.a: \"a b\"}}\n  nodeLabels: *s\n");
    let err = parse(&text).unwrap_err();
    assert!(err.contains("spec.nodeLabels[vm.a]"), "{err}");
}

#[test]
fn an_oversized_file_is_refused() {
    let mut text = format!("{HEAD}spec:\n  sysctls:\n");
    while text.len() < 2 << 20 {
        text.push_str("    vm.padding: \"0\"\n");
    }
    let err = parse(&text).unwrap_err();
    assert!(err.starts_with("node-1.yaml: "), "{err}");
    assert!(err.contains("at most 1048576 bytes"), "{err}");
}

#[test]
fn non_utf8_is_refused() {
    let mut bytes = HEAD.as_bytes().to_vec();
    bytes.extend_from_slice(b"spec:\n  modules: [\xff\xfe]\n");
    let err = MachineDocument::from_yaml("node-1.yaml", &bytes)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not UTF-8"), "{err}");
    assert!(
        err.contains(&format!("offset {}", HEAD.len() + 18)),
        "{err}"
    );
}

#[test]
fn deep_nesting_is_refused() {
    // Deep flow nesting is refused before the parser (whose cost grows with
    // the square of the depth) ever sees it.
    let flow = format!("{HEAD}spec: {}{}\n", "[".repeat(2000), "]".repeat(2000));
    let err = parse(&flow).unwrap_err();
    assert!(err.contains("levels deep"), "{err}");
    let mut block = format!("{HEAD}spec:\n");
    for depth in 1..300 {
        block.push_str(&format!("{}k{depth}:\n", "  ".repeat(depth)));
    }
    let err = parse(&block).unwrap_err();
    assert!(err.contains("recursion limit"), "{err}");
}

#[test]
fn other_kinds_and_several_documents_are_refused() {
    let err =
        parse("apiVersion: liken.sh/v1alpha1\nkind: Cluster\nmetadata:\n  name: c\n").unwrap_err();
    assert!(
        err.contains("kind: is \"Cluster\"; this file must hold a Machine"),
        "{err}"
    );
    let err = parse(&format!("{HEAD}---\n{HEAD}")).unwrap_err();
    assert!(err.contains("more than one YAML document"), "{err}");
    let err = parse(&HEAD.replace("node-1", "Node_1")).unwrap_err();
    assert!(err.contains("metadata.name"), "{err}");
}

#[test]
fn the_identity_ignores_metadata_and_defaults() {
    let base = parse(&format!("{HEAD}spec:\n  modules: [i915]\n")).unwrap();
    let hash = canonical::machine("node-1", &base.spec).hash;
    let decorated = parse(
        "apiVersion: liken.sh/v1alpha1\nkind: Machine\nmetadata:\n  name: node-1\n  resourceVersion: \"912\"\n  generation: 4\n  uid: u\n  annotations:\n    liken.sh/request-reboot: now\nspec:\n  modules: [i915]\n  rebootPolicy: Manual\n  network: {}\n  storage: {}\n  sysctls: {}\n  nodeTaints: []\n",
    )
    .unwrap();
    assert_eq!(canonical::machine("node-1", &decorated.spec).hash, hash);
    // The rendering parses back to the same spec.
    let rendered = canonical::machine("node-1", &base.spec);
    let back = MachineDocument::from_yaml("rendered", &rendered.bytes).unwrap();
    assert_eq!(back.spec, base.spec);
    assert_eq!(back.metadata.annotations.len(), 0);
}

#[test]
fn every_spec_edit_changes_the_identity() {
    let base_text = std::str::from_utf8(&fixture("everything.yaml"))
        .unwrap()
        .to_owned();
    let base = parse(&base_text).unwrap();
    let hash = canonical::machine("gpu-1", &base.spec).hash;
    let edits: &[(&str, &str)] = &[
        ("rebootPolicy: Manual", "rebootPolicy: Auto"),
        (
            "vm.max_map_count: \"524288\"",
            "vm.max_map_count: \"524289\"",
        ),
        ("nofile: \"1048576\"", "nofile: \"1048575\""),
        ("[i915, snd_hda_intel, btusb]", "[i915, btusb]"),
        ("power: battery-backed", "power: mains"),
        ("value: transcoding", "value: encoding"),
        ("effect: PreferNoSchedule", "effect: NoSchedule"),
        ("names: [nas6]", "names: [nas6, nas-v6]"),
        ("gateway: 10.10.0.254", "gateway: 10.10.0.253"),
        (
            "clusterState: {device: /dev/vda, size: 20Gi}",
            "clusterState: {device: /dev/vda, size: 21Gi}",
        ),
        (
            "podStorage: {device: /dev/vda}",
            "podStorage: {device: /dev/vdb}",
        ),
    ];
    for (from, to) in edits {
        assert!(base_text.contains(from), "{from}");
        let edited = parse(&base_text.replace(from, to)).unwrap();
        assert_ne!(
            canonical::machine("gpu-1", &edited.spec).hash,
            hash,
            "{from} -> {to} kept the hash"
        );
    }
    assert_ne!(
        canonical::machine("gpu-2", &base.spec).hash,
        hash,
        "the name is part of it"
    );
}

#[test]
fn a_server_object_is_read_and_its_status_round_trips() {
    let json: serde_json::Value = serde_json::from_slice(&fixture("server-object.json")).unwrap();
    let doc = MachineDocument::from_api("machines/big", json.clone()).unwrap();
    assert_eq!(doc.metadata.name, "big");
    assert_eq!(doc.metadata.generation, Some(7));
    assert_eq!(doc.metadata.resource_version.as_deref(), Some("48211"));
    let status = doc.status.as_ref().unwrap();
    assert_eq!(status.phase, Some(liken_api::Phase::Downloading));
    assert_eq!(status.role, Some(liken_api::Role::Leader));
    assert_eq!(status.modules[1].state, ModuleState::Missing);
    let boot = status.boot.as_ref().unwrap();
    assert_eq!(boot.restarts, Some(2));
    let recorded = boot.storage.as_ref().unwrap();
    assert_eq!(
        recorded
            .get(StorageRole::ClusterState)
            .unwrap()
            .size
            .as_deref(),
        Some("20Gi")
    );

    // The status as JSON, through the type and back, is the same JSON.
    let written = serde_json::to_value(status).unwrap();
    assert_eq!(written, json["status"]);
    let again: MachineStatus = serde_json::from_value(written).unwrap();
    assert_eq!(&again, status);

    // The spec is still strict on a server object.
    let mut bad = json.clone();
    bad["spec"]["modulez"] = serde_json::json!([]);
    let err = MachineDocument::from_api("machines/big", bad).unwrap_err();
    assert_eq!(err.field, "spec.modulez");
    assert_eq!(err.document, "Machine big");
    let mut bad = json;
    bad["status"]["phase"] = serde_json::json!("Fine");
    let err = MachineDocument::from_api("machines/big", bad).unwrap_err();
    assert_eq!(err.field, "status.phase");
}

#[test]
fn a_typed_machine_is_the_api_object() {
    let spec = MachineDocument::from_yaml("l", &fixture("leader.yaml"))
        .unwrap()
        .spec;
    let machine = liken_documents::Machine::new("big", spec.clone());
    let json = serde_json::to_value(&machine).unwrap();
    assert_eq!(json["apiVersion"], "liken.sh/v1alpha1");
    assert_eq!(json["kind"], "Machine");
    assert_eq!(json["spec"]["rebootPolicy"], "Manual");
    let doc = Document::<MachineSpec>::from_api("big", json).unwrap();
    assert_eq!(doc.spec, spec);
}
