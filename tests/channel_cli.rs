//! The release channel through the `liken` binary itself: `bundle` lays a
//! release out, `serve` shares it on loopback, `fetch` copies it verified
//! and refuses a wrong digest leaving nothing behind, `index` renders its
//! pages, and flag mistakes are usage errors (exit 2).

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

const LIKEN: &str = env!("CARGO_BIN_EXE_liken");
const VERSION: &str = "2026.07.20-001";

fn liken(args: &[&str]) -> Output {
    Command::new(LIKEN).args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = match fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

/// `liken serve` on a free loopback port; returns the child and its URL.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(channel: &Path) -> (Served, String) {
    let mut child = Command::new(LIKEN)
        .args(["serve", channel.to_str().unwrap(), "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let url = line
        .trim()
        .rsplit(" on ")
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{line}");
    // Keep draining the request log so the server never blocks on it.
    std::thread::spawn(move || for _ in stderr.lines() {});
    (Served(child), url)
}

#[test]
fn bundle_serve_fetch_and_index_through_the_binary() {
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let mut inputs = Vec::new();
    for (i, name) in ["k", "s", "b", "m", "l", "e", "gb", "gc", "lic"]
        .iter()
        .enumerate()
    {
        let path = w.join(name);
        fs::write(&path, vec![i as u8 + 1; 500 + i * 100]).unwrap();
        inputs.push(path.to_str().unwrap().to_owned());
    }
    let channel = w.join("channel");
    let mut args: Vec<&str> = vec!["bundle", "-slot-size", "512Mi"];
    args.extend(inputs.iter().map(String::as_str));
    args.extend([channel.to_str().unwrap(), VERSION, "linux=6.12.41"]);
    let out = liken(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let digest = stdout
        .lines()
        .find_map(|l| l.strip_prefix("release.yaml "))
        .unwrap()
        .to_owned();
    assert!(
        stdout.contains(&format!("  - version: \"{VERSION}\"")),
        "{stdout}"
    );
    assert_eq!(
        sha256sum_of(&fs::read(channel.join(VERSION).join("release.yaml")).unwrap()),
        digest
    );

    let (_server, url) = serve(&channel);
    let local = w.join("local");
    let local_s = local.to_str().unwrap();

    let wrong = format!("sha256:{}", "0".repeat(64));
    let out = liken(&["fetch", "-digest", &wrong, &url, VERSION, local_s]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains(&wrong) && err.contains(&digest), "{err}");
    assert!(names(&local).is_empty(), "{:?}", names(&local));

    let out = liken(&[
        "fetch",
        &format!("-digest={digest}"),
        &url,
        "latest",
        local_s,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("9 downloaded"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(names(&local), ["2026.07.20-001", "channel.yaml"]);
    for name in names(&channel.join(VERSION)) {
        assert_eq!(
            fs::read(channel.join(VERSION).join(&name)).unwrap(),
            fs::read(local.join(VERSION).join(&name)).unwrap(),
            "{name}"
        );
    }
    let out = liken(&["fetch", "--digest", &digest, &url, VERSION, local_s]);
    assert!(text(&out.stdout).contains("0 downloaded, 9 already present"));

    let keys: String = ["channel.yaml", &format!("{VERSION}/release.yaml")]
        .iter()
        .map(|k| format!("{k}\n"))
        .collect();
    let site = w.join("site");
    let mut child = Command::new(LIKEN)
        .args(["index", "-source", &url, site.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(keys.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = fs::read_to_string(site.join(VERSION).join("index.html")).unwrap();
    assert!(page.contains(&digest));
}

#[test]
fn flag_and_argument_mistakes_are_usage_errors() {
    for (args, says) in [
        (&["fetch", "-server", "x"][..], "unknown flag -server"),
        (&["fetch", "http://127.0.0.1:1", "newest", "d"], "or latest"),
        (&["bundle", "-slot-size", "1GB", "a"], "-slot-size \"1GB\""),
        (&["bundle", "a", "b"], "usage: liken bundle"),
        (&["serve"], "usage: liken serve <channel-dir> [address]"),
        (&["index", "out"], "-source is required"),
    ] {
        let out = liken(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// sha256:<hex> of `bytes`, computed by the system's sha256sum.
fn sha256sum_of(bytes: &[u8]) -> String {
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    format!(
        "sha256:{}",
        text(&out.stdout).split_whitespace().next().unwrap()
    )
}
