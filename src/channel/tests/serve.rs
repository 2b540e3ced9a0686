//! The channel server over real sockets on loopback: ranges, HEAD, content
//! types, traversal attempts sent byte for byte (no client normalizes
//! them away), concurrent clients, a client that leaves mid-body, and the
//! log line per request.

mod common;

use std::fs;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use common::*;

/// Sends `request` verbatim and reads the whole answer (the server closes
/// after `Connection: close`). Returns (status, headers, body).
fn raw(addr: SocketAddr, request: &str) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).unwrap();
    let split = all.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(all[..split].to_vec()).unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, head, all[split + 4..].to_vec())
}

fn get(addr: SocketAddr, path: &str, extra: &str) -> (u16, String, Vec<u8>) {
    raw(
        addr,
        &format!("GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n{extra}\r\n"),
    )
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

#[test]
fn ranges_head_and_content_types() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    bundle_release(work.path(), &channel, V1, 1);
    let (server, log) = serve(&channel);
    let addr = server.local_addr();
    let kernel = fs::read(channel.join(V1).join("vmlinuz")).unwrap();
    let len = kernel.len();

    let (status, head, body) = get(addr, &format!("/{V1}/vmlinuz"), "");
    assert_eq!(status, 200);
    assert_eq!(body, kernel);
    assert_eq!(header(&head, "content-length").unwrap(), len.to_string());
    assert_eq!(header(&head, "accept-ranges"), Some("bytes"));
    assert_eq!(
        header(&head, "content-type"),
        Some("application/octet-stream")
    );

    let (status, head, body) = get(addr, &format!("/{V1}/vmlinuz"), "Range: bytes=10-19\r\n");
    assert_eq!(status, 206);
    assert_eq!(body, &kernel[10..20]);
    assert_eq!(
        header(&head, "content-range").unwrap(),
        format!("bytes 10-19/{len}")
    );
    let (status, _, body) = get(addr, &format!("/{V1}/vmlinuz"), "Range: bytes=-5\r\n");
    assert_eq!(status, 206);
    assert_eq!(body, &kernel[len - 5..]);
    let (status, _, body) = get(
        addr,
        &format!("/{V1}/vmlinuz"),
        &format!("Range: bytes={}-\r\n", len - 1),
    );
    assert_eq!((status, body.as_slice()), (206, &kernel[len - 1..]));
    let (status, head, _) = get(
        addr,
        &format!("/{V1}/vmlinuz"),
        &format!("Range: bytes={len}-\r\n"),
    );
    assert_eq!(status, 416);
    assert_eq!(
        header(&head, "content-range").unwrap(),
        format!("bytes */{len}")
    );
    let (status, _, body) = get(addr, &format!("/{V1}/vmlinuz"), "Range: bytes=0-1,4-5\r\n");
    assert_eq!((status, body.len()), (200, len));

    let (status, head, body) = raw(
        addr,
        &format!("HEAD /{V1}/release.yaml HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"),
    );
    assert_eq!(status, 200);
    assert!(body.is_empty());
    assert_eq!(header(&head, "content-type"), Some("application/yaml"));
    let doc_len = fs::metadata(channel.join(V1).join("release.yaml"))
        .unwrap()
        .len();
    assert_eq!(
        header(&head, "content-length").unwrap(),
        doc_len.to_string()
    );

    let (status, head, _) = raw(
        addr,
        "POST /channel.yaml HTTP/1.1\r\nHost: t\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
    );
    assert_eq!(status, 405);
    assert_eq!(header(&head, "allow"), Some("GET, HEAD"));

    fs::write(channel.join(V1).join("index.html"), b"<p>release</p>").unwrap();
    let (status, head, _) = get(addr, &format!("/{V1}"), "");
    assert_eq!(status, 301);
    assert_eq!(header(&head, "location").unwrap(), format!("/{V1}/"));
    let (status, head, body) = get(addr, &format!("/{V1}/"), "");
    assert_eq!((status, body.as_slice()), (200, &b"<p>release</p>"[..]));
    assert_eq!(
        header(&head, "content-type"),
        Some("text/html; charset=utf-8")
    );
    let (status, _, _) = get(addr, "/", "");
    assert_eq!(status, 404, "no index.html at the root, and no listing");

    server.stop();
    let lines = log.lock().unwrap();
    let first = &lines[0];
    assert!(first.starts_with("127.0.0.1:"), "{first}");
    assert!(
        first.contains(&format!("GET /{V1}/vmlinuz 200 {len} ")) && first.ends_with("ms"),
        "{first}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("HEAD ") && l.contains(" 200 0 "))
    );
    assert!(lines.iter().any(|l| l.contains(" 206 10 ")));
    assert!(lines.iter().any(|l| l.contains(" 416 ")));
}

#[test]
fn no_request_leaves_the_channel_directory() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    bundle_release(work.path(), &channel, V1, 1);
    fs::write(work.path().join("secret"), b"outside").unwrap();
    std::os::unix::fs::symlink(work.path().join("secret"), channel.join("leak")).unwrap();
    std::os::unix::fs::symlink(work.path(), channel.join("up")).unwrap();
    fs::write(channel.join(V1).join(".vmlinuz.tmp-1-0"), b"partial").unwrap();
    let (server, _) = serve(&channel);
    let addr = server.local_addr();
    for (path, want) in [
        ("/../secret", 403),
        ("/2026.07.20-001/../../secret", 403),
        ("/%2e%2e/secret", 403),
        ("/%2E%2E%2Fsecret", 403),
        ("/2026.07.20-001/%2e%2e%2f%2e%2e%2fsecret", 403),
        ("/..%2fsecret", 403),
        ("/%2e%2e%5csecret", 400),
        ("/leak", 403),
        ("/up/secret", 403),
        ("/2026.07.20-001/.vmlinuz.tmp-1-0", 404),
        ("/2026.07.20-001/vmlinuz%00", 400),
        ("/%zz", 400),
    ] {
        let (status, _, body) = get(addr, path, "");
        assert_eq!(status, want, "{path}");
        assert!(!body.starts_with(b"outside"), "{path}");
    }
}

#[test]
fn clients_are_served_concurrently_and_may_leave_early() {
    let work = tempfile::tempdir().unwrap();
    let channel = work.path().join("channel");
    bundle_release(work.path(), &channel, V1, 1);
    let big = vec![7u8; 32 << 20];
    fs::write(channel.join(V1).join("big.bin"), &big).unwrap();
    let (server, log) = serve(&channel);
    let addr = server.local_addr();

    // A client that asks for a large file and reads only a little: the
    // server's thread for it blocks on a full socket buffer.
    let mut slow = TcpStream::connect(addr).unwrap();
    slow.write_all(format!("GET /{V1}/big.bin HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes())
        .unwrap();
    let mut some = [0u8; 4096];
    slow.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    slow.read_exact(&mut some).unwrap();

    // Others are answered meanwhile.
    let threads: Vec<_> = (0..4)
        .map(|_| std::thread::spawn(move || get(addr, "/channel.yaml", "").0))
        .collect();
    for t in threads {
        assert_eq!(t.join().unwrap(), 200);
    }

    // The slow client leaves; the server notes it and keeps serving.
    drop(slow);
    let mut noted = false;
    for _ in 0..100 {
        if log
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("big.bin") && l.contains("client went away"))
        {
            noted = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(noted, "{:?}", log.lock().unwrap());
    assert_eq!(get(addr, "/channel.yaml", "").0, 200);
}
