//! The Cluster document end to end: the examples parse, every malformed
//! variant is refused naming file, document and field, defaults are filled,
//! and the canonical rendering's identity ignores metadata but not spec.

use liken_documents::cluster::{ClusterSpec, Origin};
use liken_documents::validate::Checker;
use liken_documents::{ClusterDocument, canonical};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/cluster/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(path).unwrap()
}

fn parse(text: &str) -> Result<ClusterDocument, String> {
    ClusterDocument::from_yaml("cluster.yaml", text.as_bytes()).map_err(|e| e.to_string())
}

#[test]
fn examples_parse() {
    for name in [
        "full.yaml",
        "upgrade.yaml",
        "flux.yaml",
        "adopted.yaml",
        "minimal.yaml",
    ] {
        if let Err(e) = ClusterDocument::from_yaml(name, &fixture(name)) {
            panic!("{name}: {e}");
        }
    }
}

#[test]
fn defaults_are_filled() {
    let doc = parse(std::str::from_utf8(&fixture("minimal.yaml")).unwrap()).unwrap();
    assert_eq!(doc.spec.origin, Origin::Founded);
    assert_eq!(doc.spec.disruption.max_unavailable, 1);
    let flux = parse(std::str::from_utf8(&fixture("flux.yaml")).unwrap()).unwrap();
    let params = flux.spec.flux().unwrap();
    assert_eq!(params["branch"], "main");
    assert_eq!(params["path"], ".");
    assert_eq!(params["prune"], "true");
    assert!(doc.spec.flux().is_none());
}

const HEAD: &str = "apiVersion: liken.sh/v1alpha1\nkind: Cluster\nmetadata:\n  name: c\n";

/// (spec body, the field the error must name, a word the message must hold)
const REFUSED: &[(&str, &str, &str)] = &[
    (
        "spec:\n  versoin: \"2026.07.20-001\"\n",
        "spec.versoin",
        "not a field",
    ),
    (
        "spec:\n  version: \"2026.02.30-001\"\n",
        "spec.version",
        "real calendar date",
    ),
    (
        "spec:\n  version: \"2026.07.20-001\"\n",
        "spec.version",
        "catalog",
    ),
    (
        "spec:\n  releases:\n    catalog:\n      - version: \"2026.07.20-001\"\n        digest: sha256:abc\n",
        "spec.releases.catalog[0].digest",
        "64",
    ),
    (
        "spec:\n  releases:\n    catalog:\n      - version: \"2026.07.20-001\"\n        digest: md5:abc\n",
        "spec.releases.catalog[0].digest",
        "sha256",
    ),
    (
        "spec:\n  releases:\n    source: ftp://x\n",
        "spec.releases.source",
        "http",
    ),
    ("spec:\n  origin: Forked\n", "spec.origin", "Forked"),
    ("spec:\n  leaders: big\n", "spec.leaders", "sequence"),
    (
        "spec:\n  leaders: [Big]\n",
        "spec.leaders[0]",
        "Machine name",
    ),
    ("spec:\n  leaders: [big, big]\n", "spec.leaders[1]", "twice"),
    (
        "spec:\n  endpoint: http://10.0.0.1:6443\n",
        "spec.endpoint",
        "https",
    ),
    (
        "spec:\n  network:\n    nodeCIDR: 10.10.0.0\n",
        "spec.network.nodeCIDR",
        "CIDR",
    ),
    (
        "spec:\n  network:\n    clusterDNS: 10.43.0.10/32\n",
        "spec.network.clusterDNS",
        "address",
    ),
    (
        "spec:\n  network:\n    nodePortCIDRs: [x]\n",
        "spec.network.nodePortCIDRs[0]",
        "CIDR",
    ),
    (
        "spec:\n  disruption:\n    maxUnavailable: 0\n",
        "spec.disruption.maxUnavailable",
        "at least 1",
    ),
    (
        "spec:\n  disruption:\n    maxUnavailable: one\n",
        "spec.disruption.maxUnavailable",
        "invalid type",
    ),
    (
        "spec:\n  features:\n    kafka: {}\n",
        "spec.features.kafka",
        "no feature",
    ),
    (
        "spec:\n  features:\n    traefik: {replicas: \"2\"}\n",
        "spec.features.traefik",
        "no parameters",
    ),
    (
        "spec:\n  features:\n    flux: {}\n",
        "spec.features.flux.repository",
        "required",
    ),
    (
        "spec:\n  features:\n    flux: {repository: x, depth: \"1\"}\n",
        "spec.features.flux.depth",
        "not a flux parameter",
    ),
    (
        "spec:\n  features:\n    flux: {repository: x, prune: \"yes\"}\n",
        "spec.features.flux.prune",
        "\"true\" or \"false\"",
    ),
    (
        "spec:\n  registries:\n    mirrors:\n      docker.io: [mirror.example]\n",
        "spec.registries.mirrors[docker.io][0]",
        "URL",
    ),
    (
        "spec:\n  runtime:\n    k3s:\n      goMemoryLimit: 448MB\n",
        "spec.runtime.k3s.goMemoryLimit",
        "quantity",
    ),
    (
        "spec:\n  runtime:\n    k3s:\n      goMemoryLimit: 0%\n",
        "spec.runtime.k3s.goMemoryLimit",
        "1%",
    ),
    (
        "spec:\n  runtime:\n    k3s:\n      goGC: 0\n",
        "spec.runtime.k3s.goGC",
        "at least 1",
    ),
    (
        "spec:\n  runtime:\n    kubelet:\n      imageGC:\n        lowThresholdPercent: 90\n",
        "spec.runtime.kubelet.imageGC.lowThresholdPercent",
        "below",
    ),
    (
        "spec:\n  runtime:\n    kubelet:\n      imageGC:\n        highThresholdPercent: 101\n        lowThresholdPercent: 100\n",
        "spec.runtime.kubelet.imageGC.highThresholdPercent",
        "between 0 and 100",
    ),
    (
        "spec:\n  runtime:\n    kubelet:\n      imageGC:\n        maximumAge: 1m\n",
        "spec.runtime.kubelet.imageGC.maximumAge",
        "longer",
    ),
    (
        "spec:\n  runtime:\n    kubelet:\n      imageGC:\n        minimumAge: 1d\n",
        "spec.runtime.kubelet.imageGC.minimumAge",
        "Go duration",
    ),
    (
        "spec:\n  runtime:\n    containerd:\n      logLevel: trace\n",
        "spec.runtime.containerd.logLevel",
        "trace",
    ),
    (
        "spec:\n  runtime:\n    containerd:\n      loglevel: warn\n",
        "spec.runtime.containerd.loglevel",
        "expected `logLevel`",
    ),
];

#[test]
fn malformed_clusters_are_refused_where_they_are_wrong() {
    for (body, field, word) in REFUSED {
        let text = format!("{HEAD}{body}");
        let err = match parse(&text) {
            Ok(_) => panic!("accepted:\n{body}"),
            Err(e) => e,
        };
        assert!(err.starts_with("cluster.yaml: Cluster c: "), "{err}");
        assert!(
            err.contains(&format!(": {field}: ")),
            "want field {field}: {err}"
        );
        assert!(err.contains(word), "want {word:?}: {err}");
    }
}

#[test]
fn metadata_is_narrow() {
    for extra in [
        "  labels: {a: b}\n",
        "  ownerReferences: []\n",
        "  namespace: default\n",
    ] {
        let text =
            format!("apiVersion: liken.sh/v1alpha1\nkind: Cluster\nmetadata:\n  name: c\n{extra}");
        let err = parse(&text).unwrap_err();
        let key = extra.trim().split(':').next().unwrap();
        assert!(err.contains("metadata") && err.contains(key), "{err}");
    }
    let err =
        parse("apiVersion: liken.sh/v1alpha1\nkind: Cluster\nmetadata:\n  name: My_Cluster\n")
            .unwrap_err();
    assert!(err.contains("metadata.name"), "{err}");
}

#[test]
fn envelope_faults_come_first() {
    let cases = [
        (
            "apiVersion: v1\nkind: Cluster\nmetadata: {name: c}\n",
            "apiVersion",
        ),
        ("kind: Cluster\nmetadata: {name: c}\n", "apiVersion"),
        (
            "apiVersion: liken.sh/v1alpha1\nkind: Machine\nmetadata: {name: c}\n",
            "must hold a Cluster",
        ),
        (
            "apiVersion: liken.sh/v1alpha1\nmetadata: {name: c}\n",
            "kind: Cluster",
        ),
        ("- a\n- b\n", "mapping"),
        ("", "no YAML document"),
        (
            "apiVersion: liken.sh/v1alpha1\nkind: Cluster\nmetadata: {name: a}\n---\napiVersion: liken.sh/v1alpha1\nkind: Cluster\nmetadata: {name: b}\n",
            "more than one",
        ),
        (
            "apiVersion: liken.sh/v1alpha1\nkind: Cluster\nmetadata: {name: c\n",
            "not valid YAML",
        ),
    ];
    for (text, word) in cases {
        let err = parse(text).unwrap_err();
        assert!(err.starts_with("cluster.yaml"), "{err}");
        assert!(err.contains(word), "want {word:?}: {err}");
    }
}

#[test]
fn hostile_input_is_refused_without_panic() {
    let mut bomb = String::from("a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n");
    for i in 0..9 {
        let prev = if i == 0 {
            "a".to_owned()
        } else {
            format!("l{}", i - 1)
        };
        let refs = vec![format!("*{prev}"); 9].join(",");
        bomb.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
    }
    assert!(parse(&bomb).is_err());
    let deep = format!("{}{}", "[".repeat(400_000), "]".repeat(400_000));
    let started = std::time::Instant::now();
    assert!(parse(&deep).unwrap_err().contains("levels deep"));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "deep input took {:?}",
        started.elapsed()
    );
    // Brackets inside quoted strings and comments are not nesting.
    let quoted = format!(
        "{HEAD}# {}\nspec:\n  endpoint: \"https://x/{}\"\n",
        "[".repeat(100),
        "{".repeat(100)
    );
    assert!(parse(&quoted).is_ok(), "{:?}", parse(&quoted).err());
    let huge = format!("{HEAD}# {}\n", "x".repeat(2 << 20));
    assert!(parse(&huge).unwrap_err().contains("at most"));
    let mut bytes = HEAD.as_bytes().to_vec();
    bytes.extend_from_slice(b"spec:\n  endpoint: \"\xff\xfe\"\n");
    let err = ClusterDocument::from_yaml("cluster.yaml", &bytes)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not UTF-8"), "{err}");
}

fn spec_of(text: &str) -> ClusterSpec {
    parse(text).unwrap().spec
}

#[test]
fn identity_ignores_metadata_and_releases_but_not_spec() {
    let base = std::str::from_utf8(&fixture("full.yaml"))
        .unwrap()
        .to_owned();
    let hash = |text: &str| {
        let doc = parse(text).unwrap();
        canonical::cluster(&doc.metadata.name, &doc.spec).hash
    };
    let h = hash(&base);
    let annotated = base.replace(
        "kustomize.toolkit.fluxcd.io/prune: disabled",
        "liken.sh/check-releases: \"1\"",
    );
    assert_eq!(hash(&annotated), h, "an annotation edit changed the hash");
    let with_rv = base.replace(
        "  name: mycluster\n",
        "  name: mycluster\n  resourceVersion: \"42\"\n  generation: 7\n",
    );
    assert_eq!(hash(&with_rv), h, "resourceVersion changed the hash");
    let new_release = base.replace(
        "0000000000000000000000000000000000000000000000000000000000000001",
        "0000000000000000000000000000000000000000000000000000000000000002",
    );
    assert_eq!(
        hash(&new_release),
        h,
        "spec.releases is read live and must not stage"
    );
    let reordered = base.replace(
        "    clusterCIDR: 10.42.0.0/16\n    serviceCIDR: 10.43.0.0/16\n",
        "    serviceCIDR: 10.43.0.0/16\n    clusterCIDR: 10.42.0.0/16\n",
    );
    assert_eq!(hash(&reordered), h, "key order changed the hash");
    let retarget = base.replace(
        "  version: \"2026.07.20-001\"",
        "  version: \"2026.07.25-002\"",
    );
    assert_eq!(
        hash(&retarget),
        h,
        "spec.version is read live; an upgrade is not a staged change"
    );
    for (from, to) in [
        ("maxUnavailable: 2", "maxUnavailable: 3"),
        ("goGC: 50", "goGC: 60"),
        ("leaders: [big, little]", "leaders: [little, big]"),
        (
            "endpoint: https://10.10.0.1:6443",
            "endpoint: https://10.10.0.2:6443",
        ),
        ("    nfs: {}\n", ""),
    ] {
        assert_ne!(
            hash(&base.replace(from, to)),
            h,
            "{from} -> {to} kept the hash"
        );
    }
    // Defaults render as if written.
    let implicit = spec_of(&format!("{HEAD}spec: {{}}\n"));
    let explicit = spec_of(&format!(
        "{HEAD}spec:\n  origin: Founded\n  disruption: {{maxUnavailable: 1}}\n"
    ));
    assert_eq!(
        canonical::cluster("c", &implicit),
        canonical::cluster("c", &explicit)
    );
    // And the rendering parses back to the same spec, strictly.
    let rendered = canonical::cluster("mycluster", &parse(&base).unwrap().spec);
    let back = ClusterDocument::from_yaml("staged", &rendered.bytes).unwrap();
    assert!(back.spec.releases.is_none() && back.spec.version.is_none());
    assert!(back.metadata.annotations.is_empty());
}

#[test]
fn transitions_follow_the_crd_rules() {
    let judge = |old: &str, new: &str| {
        let mut c = Checker::new();
        spec_of(&format!("{HEAD}{new}")).validate_update(&spec_of(&format!("{HEAD}{old}")), &mut c);
        c.finish("f", "Cluster c")
            .into_iter()
            .map(|e| e.field)
            .collect::<Vec<_>>()
    };
    let net = |f: &str, v: &str| format!("spec:\n  network:\n    {f}: {v}\n");
    assert!(
        judge("spec: {}\n", &net("nodeCIDR", "10.0.0.0/24")).is_empty(),
        "first set is allowed"
    );
    assert_eq!(
        judge(
            &net("nodeCIDR", "10.0.0.0/24"),
            &net("nodeCIDR", "10.1.0.0/24")
        ),
        ["spec.network.nodeCIDR"]
    );
    assert_eq!(
        judge(&net("clusterDomain", "a.local"), "spec: {}\n"),
        ["spec.network.clusterDomain"]
    );
    assert!(
        judge(
            &net("nodePortCIDRs", "[10.0.0.0/24]"),
            &net("nodePortCIDRs", "[10.9.0.0/24]")
        )
        .is_empty()
    );
    assert_eq!(
        judge("spec: {origin: Founded}\n", "spec: {origin: Adopted}\n"),
        ["spec.origin"]
    );
    assert!(judge("spec: {origin: Adopted}\n", "spec: {origin: Founded}\n").is_empty());
}

#[test]
fn api_objects_are_read_with_server_metadata() {
    let value = serde_json::json!({
        "apiVersion": "liken.sh/v1alpha1", "kind": "Cluster",
        "metadata": {"name": "c", "uid": "u-1", "resourceVersion": "9", "generation": 3,
                     "creationTimestamp": "2026-07-20T10:00:00Z", "managedFields": [],
                     "labels": {"x": "y"}},
        "spec": {"leaders": ["big"]},
        "status": {"phase": "Ready", "machines": {"ready": 1, "total": 1, "summary": "1/1"},
                   "rebootTurns": [{"machine": "big", "machineResourceVersion": "8", "since": "2026-07-20T10:00:00Z"}]}
    });
    let doc = ClusterDocument::from_api("/apis/liken.sh/v1alpha1/clusters/c", value).unwrap();
    assert_eq!(doc.metadata.generation, Some(3));
    let status = doc.status.unwrap();
    assert_eq!(status.reboot_turns[0].machine, "big");
    assert_eq!(status.machines.unwrap().summary, "1/1");
}
