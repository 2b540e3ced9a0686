//! The channel's documents come from a network peer: the manual's Versions
//! example parses, documents round-trip, and every shape a downloader could
//! be tricked by is refused naming the field.

use liken_documents::release::{Artifact, Channel, Component, Release, Versions, safe_file_name};

const SHA: &str = "f5a46b8b08405d6b79c4792c896089e6b3cbbb4ce1951e84a6a36656520cd616";

fn release(artifacts: &str) -> String {
    format!(
        "apiVersion: liken.sh/v1alpha1\nkind: Release\nmetadata:\n  name: 2026.07.20-001\nartifacts:\n{artifacts}components:\n  - name: k3s\n    version: v1.34.2+k3s1\n"
    )
}

fn artifact(name: &str, sha: &str) -> String {
    format!("  - name: {name}\n    sha256: {sha}\n    size: 12\n")
}

#[test]
fn the_manuals_versions_example_parses() {
    let text = "apiVersion: liken.sh/v1alpha1\nkind: Versions\nmetadata:\n  name: liken\nlatest: 2026.07.25-002\nreleases:\n  - version: 2026.07.25-002\n    digest: sha256:f5a46b8b08405d6b79c4792c896089e6b3cbbb4ce1951e84a6a36656520cd616\n";
    let v = Versions::from_yaml("versions.yaml", text.as_bytes()).unwrap();
    assert_eq!(v.latest.unwrap().as_str(), "2026.07.25-002");
    assert_eq!(v.releases[0].digest, format!("sha256:{SHA}"));
}

#[test]
fn documents_round_trip() {
    let r = Release::new(
        &"2026.07.20-001".parse().unwrap(),
        vec![Artifact {
            name: "vmlinuz".into(),
            sha256: SHA.into(),
            size: 7,
        }],
        vec![Component {
            name: "k3s".into(),
            version: "v1.34.2+k3s1".into(),
        }],
    );
    let back = Release::from_yaml("release.yaml", r.to_yaml().as_bytes()).unwrap();
    assert_eq!(back, r);
    assert_eq!(back.version().unwrap().as_str(), "2026.07.20-001");
    let c = Channel::new("2026.07.20-001".parse().unwrap());
    assert_eq!(
        Channel::from_yaml("channel.yaml", c.to_yaml().as_bytes()).unwrap(),
        c
    );
}

#[test]
fn hostile_releases_are_refused_where_they_are_wrong() {
    let cases: Vec<(String, &str, &str)> = vec![
        (
            release(&artifact("../etc/passwd", SHA)),
            "artifacts[0].name",
            "plain file name",
        ),
        (
            release(&artifact("a/b", SHA)),
            "artifacts[0].name",
            "plain file name",
        ),
        (
            release(&artifact(".hidden", SHA)),
            "artifacts[0].name",
            "plain file name",
        ),
        (
            release(&format!(
                "{}{}",
                artifact("vmlinuz", SHA),
                artifact("vmlinuz", SHA)
            )),
            "artifacts[1].name",
            "twice",
        ),
        (
            release(&artifact("vmlinuz", "ABC")),
            "artifacts[0].sha256",
            "64 lowercase hex",
        ),
        (
            release(&artifact("vmlinuz", &SHA.to_uppercase())),
            "artifacts[0].sha256",
            "64 lowercase hex",
        ),
        (
            release("  - name: vmlinuz\n    sha256: x\n    size: -1\n"),
            "artifacts[0].size",
            "invalid",
        ),
        (
            release("  - name: vmlinuz\n    sha256: x\n    size: 1\n    url: http://elsewhere\n"),
            "artifacts[0].url",
            "unknown field",
        ),
        (
            release("").replace("artifacts:\n", "artifacts: []\n"),
            "artifacts",
            "no artifact",
        ),
        (
            release(&artifact("vmlinuz", SHA)).replace("2026.07.20-001", "2026.02.30-001"),
            "metadata.name",
            "calendar",
        ),
        (
            release(&artifact("vmlinuz", SHA)).replace("kind: Release", "kind: Channel"),
            "kind",
            "Release",
        ),
    ];
    for (text, field, word) in cases {
        let err = match Release::from_yaml("release.yaml", text.as_bytes()) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e.to_string(),
        };
        assert!(err.starts_with("release.yaml"), "{err}");
        assert!(err.contains(&format!(": {field}: ")), "want {field}: {err}");
        assert!(err.contains(word), "want {word:?}: {err}");
    }
}

#[test]
fn channel_and_versions_refuse_bad_versions_and_order() {
    let bad = "apiVersion: liken.sh/v1alpha1\nkind: Channel\nmetadata:\n  name: liken\nlatest: 2026.7.1-1\n";
    let err = Channel::from_yaml("channel.yaml", bad.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("latest") && err.contains("yyyy.mm.dd-nnn"),
        "{err}"
    );
    let unordered = "apiVersion: liken.sh/v1alpha1\nkind: Versions\nmetadata:\n  name: liken\nreleases:\n  - version: 2026.07.20-001\n    digest: sha256:f5a46b8b08405d6b79c4792c896089e6b3cbbb4ce1951e84a6a36656520cd616\n  - version: 2026.07.25-002\n    digest: sha256:f5a46b8b08405d6b79c4792c896089e6b3cbbb4ce1951e84a6a36656520cd616\n";
    let err = Versions::from_yaml("versions.yaml", unordered.as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("releases[1].version") && err.contains("newest first"),
        "{err}"
    );
}

#[test]
fn file_names_are_single_components() {
    for ok in [
        "vmlinuz",
        "liken.sqfs",
        "LICENSES.md",
        "systemd-bootx64.efi",
    ] {
        assert!(safe_file_name(ok), "{ok}");
    }
    for bad in ["", ".", "..", "../x", "a/b", "a\\b", ".x", "a\0b", "a\nb"] {
        assert!(!safe_file_name(bad), "{bad:?}");
    }
}
