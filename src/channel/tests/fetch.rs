//! End to end: releases made by `bundle`, served by the real server on
//! loopback (or by a scripted one for faults), fetched by `fetch`. Every
//! refusal is checked for its message and for the local channel directory
//! holding nothing afterwards.

mod common;

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use common::*;
use liken_api::Version;
use liken_channel::fetch::{FetchError, FetchRequest, Wanted};
use liken_channel::progress::Quiet;
use liken_channel::{Client, ClientOptions, fetch};
use liken_documents::Release;
use liken_documents::canonical::sha256;

fn exact(v: &str) -> Wanted {
    Wanted::Exact(Version::parse(v).unwrap())
}

fn try_fetch(
    source: &str,
    wanted: Wanted,
    digest: Option<&str>,
    dir: &Path,
) -> Result<liken_channel::Fetched, FetchError> {
    fetch(
        &client(),
        &FetchRequest {
            source,
            wanted,
            digest,
            channel_dir: dir,
        },
        &mut Quiet,
    )
}

/// Fetches, expects a refusal whose message holds every one of `says`,
/// and checks that `dir` is left empty.
fn refused(source: &str, wanted: Wanted, digest: Option<&str>, dir: &Path, says: &[&str]) {
    let err = try_fetch(source, wanted, digest, dir).expect_err("the fetch must be refused");
    let message = err.to_string();
    for s in says {
        assert!(message.contains(s), "{s:?} not in: {message}");
    }
    assert_eq!(listing(dir), Vec::<String>::new(), "after: {message}");
}

#[test]
fn fetch_copies_a_release_byte_for_byte_and_a_second_fetch_downloads_nothing() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    let first = bundle_release(work.path(), &channel, V1, 1);
    let second = bundle_release(work.path(), &channel, V2, 2);
    let (server, log) = serve(&channel);
    let local = work.path().join("local");

    let got = try_fetch(&server.url(), Wanted::Latest, Some(&second.digest), &local).unwrap();
    assert_eq!(got.version.as_str(), V2);
    assert_eq!(got.digest, second.digest);
    assert_eq!((got.downloaded, got.present), (9, 0));
    let got = try_fetch(&server.url(), exact(V1), Some(&first.digest), &local).unwrap();
    assert_eq!(got.downloaded, 9);

    for v in [V1, V2] {
        let mut names: Vec<String> = fs::read_dir(channel.join(v))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names.len(), 10);
        for n in names {
            assert_eq!(
                fs::read(channel.join(v).join(&n)).unwrap(),
                fs::read(local.join(v).join(&n)).unwrap(),
                "{v}/{n}"
            );
        }
    }
    let expected: Vec<String> = ["2026.07.20-001", "2026.07.21-001"]
        .iter()
        .flat_map(|v| {
            let mut files: Vec<String> = liken_channel::bundle::ARTIFACT_NAMES
                .iter()
                .chain(&["release.yaml"])
                .map(|n| format!("{v}/{n}"))
                .collect();
            files.push(v.to_string());
            files
        })
        .chain(["channel.yaml".to_owned()])
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(listing(&local), expected);
    assert_eq!(
        fs::read(local.join("channel.yaml")).unwrap(),
        fs::read(channel.join("channel.yaml")).unwrap()
    );

    // Again: everything verifies in place, so no artifact is requested.
    let requests = log.lock().unwrap().len();
    let got = try_fetch(&server.url(), Wanted::Latest, None, &local).unwrap();
    assert_eq!((got.downloaded, got.present), (0, 9));
    let new: Vec<String> = log.lock().unwrap()[requests..].to_vec();
    assert_eq!(new.len(), 2, "{new:?}");
    assert!(new[0].contains("/channel.yaml 200") && new[1].contains("/release.yaml 200"));

    // A damaged local artifact is downloaded again, and only that one.
    fs::write(local.join(V2).join("liken.sqfs"), b"damaged").unwrap();
    let got = try_fetch(&server.url(), exact(V2), None, &local).unwrap();
    assert_eq!((got.downloaded, got.present), (1, 8));
    assert_eq!(
        fs::read(local.join(V2).join("liken.sqfs")).unwrap(),
        fs::read(channel.join(V2).join("liken.sqfs")).unwrap()
    );
    assert_eq!(listing(&local), expected);
    server.stop();
}

#[test]
fn a_local_release_yaml_that_differs_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    bundle_release(work.path(), &channel, V1, 1);
    let (server, _) = serve(&channel);
    let local = work.path().join("local");
    fs::create_dir_all(local.join(V1)).unwrap();
    fs::write(local.join(V1).join("release.yaml"), b"something else").unwrap();
    let err = try_fetch(&server.url(), exact(V1), None, &local).unwrap_err();
    assert!(
        err.to_string()
            .contains("a version always names the same bytes"),
        "{err}"
    );
    fs::remove_file(local.join(V1).join("release.yaml")).unwrap();
    let err = try_fetch(&server.url(), exact(V1), None, &local).unwrap_err();
    assert!(err.to_string().contains("holds no release.yaml"), "{err}");
}

#[test]
fn a_tampered_artifact_is_refused_naming_both_digests() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    let b = bundle_release(work.path(), &channel, V1, 1);
    let kernel = channel.join(V1).join("boot.cpio");
    let mut bytes = fs::read(&kernel).unwrap();
    bytes[100] ^= 0xff;
    fs::write(&kernel, &bytes).unwrap();
    let declared = &b.release.artifact("boot.cpio").unwrap().sha256;
    let actual = sha256(&bytes);
    let (server, _) = serve(&channel);
    refused(
        &server.url(),
        exact(V1),
        Some(&b.digest),
        &work.path().join("local"),
        &[
            "artifact boot.cpio",
            "digest mismatch",
            declared,
            &actual["sha256:".len()..],
        ],
    );
}

#[test]
fn a_tampered_release_yaml_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    let b = bundle_release(work.path(), &channel, V1, 1);
    let doc = channel.join(V1).join("release.yaml");
    // Point the kernel entry at other bytes, keeping the document valid.
    let mut release = b.release.clone();
    release.artifacts[0].sha256 = "0".repeat(64);
    fs::write(&doc, release.to_yaml()).unwrap();
    let tampered = sha256(release.to_yaml().as_bytes());
    let (server, _) = serve(&channel);
    let local = work.path().join("local");
    // Pinned: the document itself is refused before any artifact.
    refused(
        &server.url(),
        exact(V1),
        Some(&b.digest),
        &local,
        &["-digest pins", &b.digest, &tampered, "nothing was written"],
    );
    // Unpinned: the artifact no longer matches the document.
    refused(
        &server.url(),
        exact(V1),
        None,
        &local,
        &["artifact vmlinuz", "digest mismatch", &"0".repeat(64)],
    );
}

#[test]
fn a_wrong_or_malformed_digest_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    let b = bundle_release(work.path(), &channel, V1, 1);
    let (server, log) = serve(&channel);
    let local = work.path().join("local");
    let wrong = sha256(b"another release");
    refused(
        &server.url(),
        Wanted::Latest,
        Some(&wrong),
        &local,
        &[&wrong, &b.digest, "not the release document you trust"],
    );
    let before = log.lock().unwrap().len();
    refused(
        &server.url(),
        exact(V1),
        Some("sha256:1234"),
        &local,
        &["-digest \"sha256:1234\" is not sha256:"],
    );
    assert_eq!(
        log.lock().unwrap().len(),
        before,
        "no request for a bad -digest"
    );
}

#[test]
fn a_truncated_transfer_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    let b = bundle_release(work.path(), &channel, V1, 1);
    let full = fs::read(channel.join(V1).join("microcode.cpio")).unwrap();
    let local = work.path().join("local");

    // The server announces the whole size and closes half way.
    let mut routes = faithful_routes(&channel);
    routes.insert(
        format!("/{V1}/microcode.cpio"),
        Script::Short {
            announce: full.len(),
            body: full[..full.len() / 2].to_vec(),
        },
    );
    let url = scripted(routes, Duration::from_secs(20));
    refused(
        &url,
        exact(V1),
        Some(&b.digest),
        &local,
        &["artifact microcode.cpio", "closed the connection"],
    );

    // No length announced: the end of the connection ends the body early.
    let mut routes = faithful_routes(&channel);
    routes.insert(
        format!("/{V1}/microcode.cpio"),
        Script::Unsized(full[..full.len() - 1].to_vec()),
    );
    let url = scripted(routes, Duration::from_secs(20));
    refused(
        &url,
        exact(V1),
        Some(&b.digest),
        &local,
        &[
            "artifact microcode.cpio",
            &format!("after {} of {} bytes", full.len() - 1, full.len()),
        ],
    );
}

#[test]
fn a_server_that_stalls_is_given_up_on() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    let b = bundle_release(work.path(), &channel, V1, 1);
    let full = fs::read(channel.join(V1).join("liken")).unwrap();
    let mut routes = faithful_routes(&channel);
    routes.insert(
        format!("/{V1}/liken"),
        Script::Stall {
            announce: full.len(),
            first: full[..10].to_vec(),
            silence: Duration::from_secs(6),
        },
    );
    let url = scripted(routes, Duration::from_secs(20));
    let short = Client::new(&ClientOptions {
        stall_timeout: Duration::from_millis(700),
        ca_file: None,
    })
    .unwrap();
    let local = work.path().join("local");
    let started = Instant::now();
    let err = fetch(
        &short,
        &FetchRequest {
            source: &url,
            wanted: exact(V1),
            digest: Some(&b.digest),
            channel_dir: &local,
        },
        &mut Quiet,
    )
    .unwrap_err();
    let message = err.to_string();
    assert!(message.contains("artifact liken"), "{message}");
    assert!(message.contains("the server stalled"), "{message}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(listing(&local), Vec::<String>::new());
}

#[test]
fn a_missing_artifact_is_a_404_naming_it() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    let b = bundle_release(work.path(), &channel, V1, 1);
    fs::remove_file(channel.join(V1).join("grub-core.img")).unwrap();
    let (server, _) = serve(&channel);
    refused(
        &server.url(),
        exact(V1),
        Some(&b.digest),
        &work.path().join("local"),
        &["artifact grub-core.img", "404"],
    );
    refused(
        &server.url(),
        exact("2026.01.01-001"),
        None,
        &work.path().join("local"),
        &["no release 2026.01.01-001", "404"],
    );
}

#[test]
fn unsafe_or_duplicate_artifact_names_are_refused() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    let b = bundle_release(work.path(), &channel, V1, 1);
    let (server, _) = serve(&channel);
    let local = work.path().join("local");
    let doc = channel.join(V1).join("release.yaml");
    for (name, says) in [
        ("../escape", "is not a plain file name"),
        ("sub/vmlinuz", "is not a plain file name"),
        ("..", "is not a plain file name"),
        ("liken.sqfs", "is listed twice"),
    ] {
        let mut release: Release = b.release.clone();
        release.artifacts[0].name = name.to_owned();
        fs::write(&doc, release.to_yaml()).unwrap();
        refused(&server.url(), exact(V1), None, &local, &[says]);
    }
    assert!(!work.path().join("escape").exists());
}

#[test]
fn a_channel_naming_a_missing_version_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    bundle_release(work.path(), &channel, V1, 1);
    fs::write(
        channel.join("channel.yaml"),
        liken_documents::Channel::new(Version::parse("2026.12.31-001").unwrap()).to_yaml(),
    )
    .unwrap();
    let (server, _) = serve(&channel);
    refused(
        &server.url(),
        Wanted::Latest,
        None,
        &work.path().join("local"),
        &["channel.yaml names 2026.12.31-001", "404", "incomplete"],
    );
}

#[test]
fn an_artifact_larger_than_declared_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    let b = bundle_release(work.path(), &channel, V1, 1);
    let path = channel.join(V1).join("LICENSES.md");
    let mut bytes = fs::read(&path).unwrap();
    let declared = bytes.len();
    bytes.extend_from_slice(&[b'x'; 4096]);
    let local = work.path().join("local");

    // The real server announces the larger size: refused before reading.
    fs::write(&path, &bytes).unwrap();
    let (server, _) = serve(&channel);
    refused(
        &server.url(),
        exact(V1),
        Some(&b.digest),
        &local,
        &[
            "artifact LICENSES.md",
            &format!("announces {} bytes", bytes.len()),
            &format!("declares {declared}"),
        ],
    );
    server.stop();

    // Unannounced: stopped as soon as the count passes the declared size.
    let mut routes = faithful_routes(&channel);
    routes.insert(format!("/{V1}/LICENSES.md"), Script::Unsized(bytes));
    let url = scripted(routes, Duration::from_secs(20));
    refused(
        &url,
        exact(V1),
        Some(&b.digest),
        &local,
        &[
            "artifact LICENSES.md",
            &format!("more than the {declared} bytes"),
        ],
    );
}

#[test]
fn only_http_and_https_sources_are_fetched() {
    let work = tempfile::tempdir().unwrap();
    let local = work.path().join("local");
    refused(
        "file:///etc",
        Wanted::Latest,
        None,
        &local,
        &["only http:// and https://"],
    );
}
