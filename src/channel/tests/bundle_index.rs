//! `bundle`'s refusals leave the channel as it was; `index` renders pages
//! from what the real server serves, and running it again repairs them.

mod common;

use std::fs;

use common::*;
use liken_channel::bundle::{self, BundleRequest};
use liken_channel::index;
use liken_documents::{Channel, Release, Versions};

fn request(work: &std::path::Path, version: &str) -> BundleRequest {
    BundleRequest {
        inputs: make_inputs(&work.join("inputs"), 3),
        channel_dir: work.join("channel"),
        version: version.to_owned(),
        components: vec!["linux=6.12.41".into()],
        slot_size: bundle::DEFAULT_SLOT_SIZE,
    }
}

#[test]
fn bundle_lays_out_a_release_and_updates_the_channel() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    let newer = bundle_release(work.path(), &channel, V2, 2);
    // An older release bundled later does not move latest back.
    let older = bundle_release(work.path(), &channel, V1, 1);
    let doc = Channel::from_yaml("c", &fs::read(channel.join("channel.yaml")).unwrap()).unwrap();
    assert_eq!(doc.latest.as_str(), V2);

    let bytes = fs::read(channel.join(V1).join("release.yaml")).unwrap();
    assert_eq!(liken_documents::canonical::sha256(&bytes), older.digest);
    let release = Release::from_yaml("release.yaml", &bytes).unwrap();
    let names: Vec<&str> = release.artifacts.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, bundle::ARTIFACT_NAMES);
    let inputs = make_inputs(&work.path().join(format!("inputs-{V1}")), 1);
    for (a, input) in release.artifacts.iter().zip(&inputs) {
        let want = fs::read(input).unwrap();
        assert_eq!(a.size, want.len() as u64);
        assert_eq!(fs::read(channel.join(V1).join(&a.name)).unwrap(), want);
        assert!(liken_channel::verify_file(&channel.join(V1).join(&a.name), a).unwrap());
    }
    assert_eq!(release.components[1].name, "k3s");
    assert_ne!(newer.digest, older.digest);
}

#[test]
fn bundle_refusals_leave_the_channel_as_it_was() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    bundle_release(work.path(), &channel, V1, 1);
    let before = listing(&channel);
    let yaml_before = fs::read(channel.join(V1).join("release.yaml")).unwrap();

    let cases: Vec<(BundleRequest, &str)> = vec![
        (request(work.path(), "2026.02.30-001"), "real calendar date"),
        (request(work.path(), "latest"), "yyyy.mm.dd-nnn"),
        (request(work.path(), V1), "already exists"),
        (
            BundleRequest {
                slot_size: 32 << 20,
                ..request(work.path(), V2)
            },
            "does not fit",
        ),
        (
            BundleRequest {
                components: vec!["k3s".into()],
                ..request(work.path(), V2)
            },
            "is not name=version",
        ),
        (
            BundleRequest {
                components: vec!["k3s=1".into(), "k3s=2".into()],
                ..request(work.path(), V2)
            },
            "given twice",
        ),
    ];
    for (req, says) in cases {
        let err = bundle::bundle(&req).unwrap_err().to_string();
        assert!(err.contains(says), "{says:?} not in {err}");
        assert_eq!(listing(&channel), before, "after {err}");
    }
    let mut missing = request(work.path(), V2);
    missing.inputs[4] = work.path().join("no-such-file");
    let err = bundle::bundle(&missing).unwrap_err().to_string();
    assert!(err.contains("no-such-file"), "{err}");
    let mut dir_input = request(work.path(), V2);
    dir_input.inputs[8] = work.path().to_owned();
    let err = bundle::bundle(&dir_input).unwrap_err().to_string();
    assert!(
        err.contains("not a regular file") && err.contains("LICENSES.md"),
        "{err}"
    );
    assert_eq!(listing(&channel), before);
    assert_eq!(
        fs::read(channel.join(V1).join("release.yaml")).unwrap(),
        yaml_before
    );
}

#[test]
fn a_slot_payload_exactly_at_the_limit_fits() {
    let work = tempfile::tempdir().unwrap();
    let mut req = request(work.path(), V1);
    let payload: u64 = req.inputs[..4]
        .iter()
        .map(|p| fs::metadata(p).unwrap().len())
        .sum();
    // headroom is at least 32 MiB, so this slot is payload + 32 MiB.
    req.slot_size = payload + (32 << 20);
    assert!(bundle::bundle(&req).is_ok());
    let mut req = request(work.path(), V2);
    req.slot_size = payload + (32 << 20) - 1;
    assert!(bundle::bundle(&req).is_err());
}

#[test]
fn index_renders_from_the_served_documents_and_repairs_itself() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    let first = bundle_release(work.path(), &channel, V1, 1);
    let second = bundle_release(work.path(), &channel, V2, 2);
    fs::write(
        channel.join(V2).join("notes.md"),
        "- Fix <b>bold</b> & more\n",
    )
    .unwrap();
    fs::create_dir_all(channel.join("sources/linux/6.12.41")).unwrap();
    fs::write(
        channel.join("sources/linux/6.12.41/linux-6.12.41.tar.xz"),
        b"src",
    )
    .unwrap();
    let (server, _) = serve(&channel);
    let keys: String = listing(&channel)
        .into_iter()
        .filter(|k| channel.join(k).is_file())
        .map(|k| format!("{k}\n"))
        .collect();
    let out = work.path().join("out");
    let run = || {
        let view = index::gather(&client(), &server.url(), &index::parse_keys(&keys)).unwrap();
        index::write_pages(&out, &index::render(&view)).unwrap();
    };
    run();
    assert_eq!(
        listing(&out),
        [
            "2026.07.20-001",
            "2026.07.20-001/index.html",
            "2026.07.21-001",
            "2026.07.21-001/index.html",
            "favicon.ico",
            "index.html",
            "sources",
            "sources/index.html",
            "versions.yaml",
        ]
    );
    let versions = Versions::from_yaml("v", &fs::read(out.join("versions.yaml")).unwrap()).unwrap();
    assert_eq!(versions.latest.unwrap().as_str(), V2);
    assert_eq!(versions.releases[0].digest, second.digest);
    assert_eq!(versions.releases[1].digest, first.digest);
    let page = fs::read_to_string(out.join(V2).join("index.html")).unwrap();
    assert!(page.contains(&second.digest));
    for a in &second.release.artifacts {
        assert!(page.contains(&a.sha256), "{}", a.name);
    }
    assert!(page.contains("Fix &lt;b&gt;bold&lt;/b&gt; &amp; more"));
    assert!(page.contains("href=\"../sources/#linux%406.12.41\""));
    let front = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(front.find(V2).unwrap() < front.find(V1).unwrap());

    // Damage a page and delete another: a second run restores both.
    let good = fs::read(out.join("index.html")).unwrap();
    fs::write(out.join("index.html"), b"stale").unwrap();
    fs::remove_file(out.join(V1).join("index.html")).unwrap();
    run();
    assert_eq!(fs::read(out.join("index.html")).unwrap(), good);
    assert!(out.join(V1).join("index.html").is_file());

    // A channel.yaml naming a release the keys do not hold is refused.
    let keys = keys.replace(&format!("{V2}/release.yaml\n"), "");
    let err = index::gather(&client(), &server.url(), &index::parse_keys(&keys)).unwrap_err();
    assert!(
        err.to_string().contains("no 2026.07.21-001/release.yaml"),
        "{err}"
    );
}
