//! Shared pieces of the channel's end-to-end tests: generated artifacts, a
//! bundled channel served by the real server on loopback, a directory
//! listing to prove nothing was left behind, and a scripted server for the
//! faults a correct server cannot be made to produce (a truncated body, a
//! stall, an oversized body without a length).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use liken_channel::bundle::{self, BundleRequest};
use liken_channel::serve::{LogSink, Running, Server};
use liken_channel::{Client, ClientOptions};

pub const V1: &str = "2026.07.20-001";
pub const V2: &str = "2026.07.21-001";

/// Nine small, distinct input files; returns their paths in bundle order.
pub fn make_inputs(dir: &Path, seed: u8) -> [PathBuf; 9] {
    fs::create_dir_all(dir).unwrap();
    std::array::from_fn(|i| {
        let path = dir.join(format!("input-{i}"));
        let len = 1000 + i * 7919 + seed as usize * 13;
        let bytes: Vec<u8> = (0..len)
            .map(|j| {
                (j as u32)
                    .wrapping_mul(2654435761)
                    .rotate_left(i as u32 + 3) as u8
                    ^ seed
            })
            .collect();
        fs::write(&path, bytes).unwrap();
        path
    })
}

/// Bundles `version` into `channel` from generated inputs.
pub fn bundle_release(work: &Path, channel: &Path, version: &str, seed: u8) -> bundle::Bundled {
    let inputs = make_inputs(&work.join(format!("inputs-{version}")), seed);
    bundle::bundle(&BundleRequest {
        inputs,
        channel_dir: channel.to_owned(),
        version: version.to_owned(),
        components: vec!["linux=6.12.41".into(), "k3s=v1.35.4+k3s1".into()],
        slot_size: bundle::DEFAULT_SLOT_SIZE,
    })
    .unwrap()
}

/// A log sink that keeps the lines.
pub fn memory_log() -> (LogSink, Arc<Mutex<Vec<String>>>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let keep = Arc::clone(&lines);
    let sink: LogSink = Arc::new(move |l: &str| keep.lock().unwrap().push(l.to_owned()));
    (sink, lines)
}

/// The real channel server on 127.0.0.1, a free port.
pub fn serve(channel: &Path) -> (Running, Arc<Mutex<Vec<String>>>) {
    let (log, lines) = memory_log();
    let server = Server::bind(channel, "127.0.0.1:0", log).unwrap();
    (server.spawn(), lines)
}

/// A client with a short stall timeout.
pub fn client() -> Client {
    Client::new(&ClientOptions {
        stall_timeout: Duration::from_secs(2),
        ca_file: None,
    })
    .unwrap()
}

/// Every entry under `dir` (hidden ones too), relative, sorted; empty when
/// `dir` does not exist.
pub fn listing(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let e = e.unwrap();
            let path = e.path();
            out.push(path.strip_prefix(base).unwrap().display().to_string());
            if e.file_type().unwrap().is_dir() {
                walk(base, &path, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// What the scripted server does for one path.
#[derive(Clone, Debug)]
pub enum Script {
    /// A correct 200 with Content-Length.
    Serve(Vec<u8>),
    /// Announce `announce` bytes, send `body`, close.
    Short { announce: usize, body: Vec<u8> },
    /// No Content-Length: send `body` and close (the end of the connection
    /// ends the body).
    Unsized(Vec<u8>),
    /// Announce `announce` bytes, send `first`, then go silent for `silence`.
    Stall {
        announce: usize,
        first: Vec<u8>,
        silence: Duration,
    },
}

/// A scripted HTTP server on 127.0.0.1. Each connection gets one answer and
/// is closed. It stops by itself after `lifetime`.
pub fn scripted(routes: BTreeMap<String, Script>, lifetime: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    thread::spawn(move || {
        let deadline = Instant::now() + lifetime;
        while Instant::now() < deadline {
            match listener.accept() {
                Ok((stream, _)) => {
                    let routes = routes.clone();
                    thread::spawn(move || answer(stream, &routes));
                }
                Err(_) => thread::sleep(Duration::from_millis(10)),
            }
        }
    });
    url
}

fn answer(mut stream: TcpStream, routes: &BTreeMap<String, Script>) {
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut request = Vec::new();
    let mut buf = [0u8; 1024];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&buf[..n]),
        }
    }
    let line = String::from_utf8_lossy(&request);
    let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
    let head = |len: Option<usize>| {
        let mut h = "HTTP/1.1 200 OK\r\nConnection: close\r\n".to_owned();
        if let Some(n) = len {
            h.push_str(&format!("Content-Length: {n}\r\n"));
        }
        h.push_str("\r\n");
        h.into_bytes()
    };
    let _ = match routes.get(&path) {
        None => stream
            .write_all(b"HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"),
        Some(Script::Serve(body)) => stream
            .write_all(&head(Some(body.len())))
            .and_then(|()| stream.write_all(body)),
        Some(Script::Short { announce, body }) => stream
            .write_all(&head(Some(*announce)))
            .and_then(|()| stream.write_all(body)),
        Some(Script::Unsized(body)) => stream
            .write_all(&head(None))
            .and_then(|()| stream.write_all(body)),
        Some(Script::Stall {
            announce,
            first,
            silence,
        }) => {
            let r = stream
                .write_all(&head(Some(*announce)))
                .and_then(|()| stream.write_all(first))
                .and_then(|()| stream.flush());
            thread::sleep(*silence);
            r
        }
    };
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// Routes that serve `channel` faithfully (channel.yaml and every file of
/// every release), to be overridden per test.
pub fn faithful_routes(channel: &Path) -> BTreeMap<String, Script> {
    let mut routes = BTreeMap::new();
    for rel in listing(channel) {
        let path = channel.join(&rel);
        if path.is_file() {
            routes.insert(format!("/{rel}"), Script::Serve(fs::read(&path).unwrap()));
        }
    }
    routes
}
