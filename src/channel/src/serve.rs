//! Sharing a channel directory over plain HTTP.
//!
//! GET and HEAD only (anything else is 405). A request path is
//! percent-decoded once and then taken apart segment by segment: `..` is
//! refused outright (never normalized), hidden names (a leading dot: the
//! temporary files and staging directories of a write in progress) are not
//! found, and the file finally opened must canonicalize to a path inside
//! the channel directory, so a symbolic link cannot lead out of it either.
//! A directory redirects to its `/` form (the index pages link relatively)
//! and serves its index.html when it has one; the server never lists a
//! directory. One `Range: bytes=` range is honoured (206, or 416 when it
//! starts past the end); several ranges, or a malformed one, get the whole
//! file, as HTTP allows. Content types come from the file name.
//!
//! Each request is answered on its own thread, and logged when it is done
//! as one line: peer, method, path, status, body bytes sent, duration, and
//! a note when the client left before the body was sent. A client that
//! disconnects costs its own thread an early end and nothing else.
//!
//! The server reads the channel directory and never writes to it.

use std::fs::{self, File};
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::Instant;

use tiny_http::{Header, Method, Request, Response, StatusCode};

use crate::layout::INDEX_FILE;

/// The address `liken serve` listens on unless told otherwise.
pub const DEFAULT_ADDRESS: &str = ":8017";

/// Where the log lines go.
pub type LogSink = Arc<dyn Fn(&str) + Send + Sync>;

/// A log sink writing each line to standard error.
pub fn stderr_log() -> LogSink {
    Arc::new(|line| eprintln!("{line}"))
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("{path} is not a directory to serve: {source}")]
    Root { path: PathBuf, source: io::Error },
    #[error("{address:?} is not an address to listen on (give host:port or :port)")]
    Address { address: String },
    #[error("listening on {address}: {message}")]
    Listen { address: String, message: String },
}

/// The candidate socket addresses for `address`. `:port` means every
/// interface: IPv6 (which on Linux also takes IPv4) first, then IPv4.
pub fn listen_addresses(address: &str) -> Result<Vec<SocketAddr>, ServeError> {
    let bad = || ServeError::Address {
        address: address.to_owned(),
    };
    if let Some(port) = address.strip_prefix(':') {
        let port: u16 = port.parse().map_err(|_| bad())?;
        return Ok(vec![
            SocketAddr::from(([0u16; 8], port)),
            SocketAddr::from(([0u8; 4], port)),
        ]);
    }
    let addrs: Vec<SocketAddr> = address.to_socket_addrs().map_err(|_| bad())?.collect();
    if addrs.is_empty() {
        return Err(bad());
    }
    Ok(addrs)
}

/// A bound channel server.
pub struct Server {
    http: Arc<tiny_http::Server>,
    root: Arc<PathBuf>,
    addr: SocketAddr,
    log: LogSink,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("root", &self.root)
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Binds `address` to serve `root`.
    pub fn bind(root: &Path, address: &str, log: LogSink) -> Result<Self, ServeError> {
        let root_err = |source| ServeError::Root {
            path: root.to_owned(),
            source,
        };
        let canonical = fs::canonicalize(root).map_err(root_err)?;
        if !canonical.is_dir() {
            return Err(root_err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "not a directory",
            )));
        }
        let mut last = None;
        for candidate in listen_addresses(address)? {
            match TcpListener::bind(candidate) {
                Ok(listener) => {
                    let addr = listener.local_addr().map_err(|e| ServeError::Listen {
                        address: address.to_owned(),
                        message: e.to_string(),
                    })?;
                    let http = tiny_http::Server::from_listener(listener, None).map_err(|e| {
                        ServeError::Listen {
                            address: address.to_owned(),
                            message: e.to_string(),
                        }
                    })?;
                    return Ok(Server {
                        http: Arc::new(http),
                        root: Arc::new(canonical),
                        addr,
                        log,
                    });
                }
                Err(e) => last = Some(e),
            }
        }
        Err(ServeError::Listen {
            address: address.to_owned(),
            message: last.map_or_else(|| "no address".to_owned(), |e| e.to_string()),
        })
    }

    /// The address actually bound (the port, when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Answers requests until [`Running::stop`] (or forever).
    pub fn run(&self) {
        for request in self.http.incoming_requests() {
            let root = Arc::clone(&self.root);
            let log = Arc::clone(&self.log);
            let spawned = thread::Builder::new()
                .name("liken-serve".into())
                .spawn(move || handle(&root, request, &log));
            if let Err(e) = spawned {
                (self.log)(&format!("cannot start a thread for a request: {e}"));
            }
        }
    }

    /// Runs the server on a background thread.
    pub fn spawn(self) -> Running {
        let http = Arc::clone(&self.http);
        let addr = self.addr;
        let thread = thread::spawn(move || self.run());
        Running {
            http,
            addr,
            thread: Some(thread),
        }
    }
}

/// A server running on a background thread; stopped when dropped.
pub struct Running {
    http: Arc<tiny_http::Server>,
    addr: SocketAddr,
    thread: Option<thread::JoinHandle<()>>,
}

impl std::fmt::Debug for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Running")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Running {
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://<address>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting requests (those being answered finish on their own).
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.http.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Where a request path leads.
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    /// Serve this file.
    File(PathBuf),
    /// A directory asked for without its trailing slash: redirect here.
    Redirect(String),
    /// Answer with this status.
    Refuse(u16),
}

fn percent_decode(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

/// Decides what the request target `url` names under `root` (canonical).
/// Pure but for reading the filesystem.
pub fn resolve(root: &Path, url: &str) -> Target {
    let raw = url.split(['?', '#']).next().unwrap_or("");
    if !raw.starts_with('/') {
        return Target::Refuse(400);
    }
    let Some(decoded) = percent_decode(raw) else {
        return Target::Refuse(400);
    };
    let Ok(decoded) = String::from_utf8(decoded) else {
        return Target::Refuse(400);
    };
    let mut path = root.to_path_buf();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => continue,
            ".." => return Target::Refuse(403),
            s if s.contains(['\\', '\0']) => return Target::Refuse(400),
            s if s.starts_with('.') => return Target::Refuse(404),
            s => path.push(s),
        }
    }
    let inside = |p: &Path| match fs::canonicalize(p) {
        Ok(c) if c.starts_with(root) => Ok(c),
        Ok(_) => Err(403),
        Err(_) => Err(404),
    };
    let found = match inside(&path) {
        Ok(c) => c,
        Err(status) => return Target::Refuse(status),
    };
    if found.is_dir() {
        if !raw.ends_with('/') {
            return Target::Redirect(format!("{raw}/"));
        }
        return match inside(&found.join(INDEX_FILE)) {
            Ok(index) if index.is_file() => Target::File(index),
            Ok(_) => Target::Refuse(404),
            Err(status) => Target::Refuse(status),
        };
    }
    if found.is_file() {
        Target::File(found)
    } else {
        Target::Refuse(404)
    }
}

/// What a Range header asks of a file of `len` bytes.
#[derive(Debug, PartialEq, Eq)]
pub enum RangeAsk {
    /// No usable range: send the whole file.
    Whole,
    /// Bytes `start..=end`.
    Part { start: u64, end: u64 },
    /// 416.
    Unsatisfiable,
}

/// Interprets a `Range` header value for a file of `len` bytes.
pub fn parse_range(value: &str, len: u64) -> RangeAsk {
    let Some(spec) = value.trim().strip_prefix("bytes=") else {
        return RangeAsk::Whole;
    };
    if spec.contains(',') {
        return RangeAsk::Whole;
    }
    let Some((a, b)) = spec.trim().split_once('-') else {
        return RangeAsk::Whole;
    };
    let num = |s: &str| -> Option<u64> {
        (!s.is_empty() && s.bytes().all(|c| c.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    match (a.trim(), b.trim()) {
        ("", suffix) => match num(suffix) {
            Some(0) => RangeAsk::Unsatisfiable,
            Some(_) if len == 0 => RangeAsk::Unsatisfiable,
            Some(n) => RangeAsk::Part {
                start: len.saturating_sub(n),
                end: len - 1,
            },
            None => RangeAsk::Whole,
        },
        (start, "") => match num(start) {
            Some(s) if s >= len => RangeAsk::Unsatisfiable,
            Some(s) => RangeAsk::Part {
                start: s,
                end: len - 1,
            },
            None => RangeAsk::Whole,
        },
        (start, end) => match (num(start), num(end)) {
            (Some(s), Some(e)) if s > e => RangeAsk::Whole,
            (Some(s), Some(_)) if s >= len => RangeAsk::Unsatisfiable,
            (Some(s), Some(e)) => RangeAsk::Part {
                start: s,
                end: e.min(len - 1),
            },
            _ => RangeAsk::Whole,
        },
    }
}

/// The Content-Type for a file name.
pub fn content_type(name: &str) -> &'static str {
    let lower = name.to_ascii_lowercase();
    let ext = |e: &str| lower.ends_with(e);
    if ext(".html") || ext(".htm") {
        "text/html; charset=utf-8"
    } else if ext(".yaml") || ext(".yml") {
        "application/yaml"
    } else if ext(".md") {
        "text/markdown; charset=utf-8"
    } else if ext(".txt") || ext(".sha256") || ext(".asc") {
        "text/plain; charset=utf-8"
    } else if ext(".css") {
        "text/css; charset=utf-8"
    } else if ext(".json") {
        "application/json"
    } else if ext(".ico") {
        "image/x-icon"
    } else if ext(".png") {
        "image/png"
    } else if ext(".svg") {
        "image/svg+xml"
    } else if ext(".tar.gz") || ext(".tgz") || ext(".gz") {
        "application/gzip"
    } else if ext(".tar.xz") || ext(".xz") {
        "application/x-xz"
    } else if ext(".zst") {
        "application/zstd"
    } else if ext(".tar.bz2") || ext(".bz2") {
        "application/x-bzip2"
    } else if ext(".tar") {
        "application/x-tar"
    } else if ext(".cpio") {
        "application/x-cpio"
    } else if ext(".patch") || ext(".diff") {
        "text/x-diff; charset=utf-8"
    } else {
        "application/octet-stream"
    }
}

/// A header, or None when a value is not ASCII (a URL echoed back).
fn header(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

/// A reader that counts the bytes taken from it: the body bytes sent.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// The answer to one request, before it is sent.
struct Answer {
    status: u16,
    headers: Vec<Header>,
    body: Box<dyn Read + Send>,
    length: u64,
}

impl Answer {
    fn text(status: u16) -> Self {
        let message = match status {
            301 => "moved permanently",
            400 => "bad request",
            403 => "forbidden: outside the channel",
            404 => "not found",
            405 => "method not allowed",
            416 => "range not satisfiable",
            _ => "error",
        };
        let body = format!("{status} {message}\n").into_bytes();
        Answer {
            status,
            headers: header("Content-Type", "text/plain; charset=utf-8")
                .into_iter()
                .collect(),
            length: body.len() as u64,
            body: Box::new(io::Cursor::new(body)),
        }
    }

    fn with(mut self, name: &str, value: &str) -> Self {
        self.headers.extend(header(name, value));
        self
    }
}

/// Decides the answer to one request.
fn answer(root: &Path, method: &Method, url: &str, range: Option<&str>) -> Answer {
    if *method != Method::Get && *method != Method::Head {
        return Answer::text(405).with("Allow", "GET, HEAD");
    }
    let path = match resolve(root, url) {
        Target::File(p) => p,
        Target::Redirect(location) => match header("Location", &location) {
            Some(h) => {
                let mut a = Answer::text(301);
                a.headers.push(h);
                return a;
            }
            None => return Answer::text(404),
        },
        Target::Refuse(status) => return Answer::text(status),
    };
    let opened = File::open(&path).and_then(|f| f.metadata().map(|m| (f, m.len())));
    let Ok((mut file, len)) = opened else {
        return Answer::text(404);
    };
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let mut headers: Vec<Header> = [
        header("Content-Type", content_type(name)),
        header("Accept-Ranges", "bytes"),
    ]
    .into_iter()
    .flatten()
    .collect();
    let (status, start, length) = match range.map_or(RangeAsk::Whole, |r| parse_range(r, len)) {
        RangeAsk::Whole => (200, 0, len),
        RangeAsk::Part { start, end } => {
            headers.extend(header(
                "Content-Range",
                &format!("bytes {start}-{end}/{len}"),
            ));
            (206, start, end - start + 1)
        }
        RangeAsk::Unsatisfiable => {
            return Answer::text(416).with("Content-Range", &format!("bytes */{len}"));
        }
    };
    if start > 0 && file.seek(SeekFrom::Start(start)).is_err() {
        return Answer::text(404);
    }
    Answer {
        status,
        headers,
        body: Box::new(BufReader::with_capacity(256 << 10, file.take(length))),
        length,
    }
}

fn handle(root: &Path, request: Request, log: &LogSink) {
    let started = Instant::now();
    let peer = request
        .remote_addr()
        .map_or_else(|| "-".to_owned(), ToString::to_string);
    let method = request.method().clone();
    let url: String = request.url().escape_debug().collect();
    let range = request
        .headers()
        .iter()
        .find(|h| h.field.equiv("Range"))
        .map(|h| h.value.as_str().to_owned());
    let mut a = answer(root, &method, request.url(), range.as_deref());
    a.headers.extend(header("Server", "liken"));
    let sent = Arc::new(AtomicU64::new(0));
    let body = Counting {
        inner: a.body,
        count: Arc::clone(&sent),
    };
    let Ok(length) = usize::try_from(a.length) else {
        return;
    };
    let response = Response::new(StatusCode(a.status), a.headers, body, Some(length), None)
        .with_chunked_threshold(usize::MAX);
    let result = request.respond(response);
    let sent = sent.load(Ordering::Relaxed);
    let expected = if method == Method::Head { 0 } else { a.length };
    let note = match result {
        Err(e) => format!(" (failed: {e})"),
        Ok(()) if sent < expected => " (client went away)".to_owned(),
        Ok(()) => String::new(),
    };
    let ms = started.elapsed().as_secs_f64() * 1000.0;
    log(&format!(
        "{peer} {method} {url} {} {sent} {ms:.1}ms{note}",
        a.status
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        use RangeAsk::*;
        let cases = [
            ("bytes=0-9", 100, Part { start: 0, end: 9 }),
            ("bytes=90-", 100, Part { start: 90, end: 99 }),
            ("bytes=-10", 100, Part { start: 90, end: 99 }),
            ("bytes=-200", 100, Part { start: 0, end: 99 }),
            ("bytes=50-500", 100, Part { start: 50, end: 99 }),
            ("bytes=100-", 100, Unsatisfiable),
            ("bytes=100-200", 100, Unsatisfiable),
            ("bytes=-0", 100, Unsatisfiable),
            ("bytes=0-", 0, Unsatisfiable),
            ("bytes=9-1", 100, Whole),
            ("bytes=0-1,5-6", 100, Whole),
            ("items=0-1", 100, Whole),
            ("bytes=a-b", 100, Whole),
            ("bytes=+1-2", 100, Whole),
        ];
        for (value, len, want) in cases {
            assert_eq!(parse_range(value, len), want, "{value}");
        }
    }

    #[test]
    fn paths_stay_inside() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret"), b"s").unwrap();
        fs::create_dir(root.join("v")).unwrap();
        fs::write(root.join("v/a b"), b"x").unwrap();
        fs::write(root.join("v/index.html"), b"<p>").unwrap();
        fs::create_dir(root.join("empty")).unwrap();
        fs::write(root.join(".hidden"), b"h").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("outdir")).unwrap();
        std::os::unix::fs::symlink(root.join("v/a b"), root.join("in")).unwrap();

        let file = |p: &str| Target::File(root.join(p));
        let cases = [
            ("/v/a%20b", file("v/a b")),
            ("/v/a%20b?x=1", file("v/a b")),
            ("/v/", file("v/index.html")),
            ("/v", Target::Redirect("/v/".into())),
            ("/", Target::Refuse(404)),
            ("/empty/", Target::Refuse(404)),
            ("/in", file("v/a b")),
            ("/../etc/passwd", Target::Refuse(403)),
            ("/v/../../etc/passwd", Target::Refuse(403)),
            ("/%2e%2e/etc/passwd", Target::Refuse(403)),
            ("/v/%2e%2e%2f%2e%2e%2fetc", Target::Refuse(403)),
            ("/..%5cetc", Target::Refuse(400)),
            ("/x%5c..%5cetc", Target::Refuse(400)),
            ("/out", Target::Refuse(403)),
            ("/outdir/secret", Target::Refuse(403)),
            ("/.hidden", Target::Refuse(404)),
            ("/v/%00", Target::Refuse(400)),
            ("/v/%zz", Target::Refuse(400)),
            ("/v/%ff", Target::Refuse(400)),
            ("v/a", Target::Refuse(400)),
            ("http://h/v/a", Target::Refuse(400)),
            ("/missing", Target::Refuse(404)),
        ];
        for (url, want) in cases {
            assert_eq!(resolve(&root, url), want, "{url}");
        }
    }

    #[test]
    fn content_types() {
        assert_eq!(content_type("index.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("release.yaml"), "application/yaml");
        assert_eq!(content_type("linux-6.12.tar.xz"), "application/x-xz");
        assert_eq!(content_type("vmlinuz"), "application/octet-stream");
        assert_eq!(content_type("LICENSES.md"), "text/markdown; charset=utf-8");
        assert_eq!(content_type("favicon.ico"), "image/x-icon");
    }

    #[test]
    fn addresses() {
        assert_eq!(listen_addresses(":8017").unwrap().len(), 2);
        assert_eq!(
            listen_addresses("127.0.0.1:0").unwrap(),
            [SocketAddr::from(([127, 0, 0, 1], 0))]
        );
        assert!(listen_addresses("nonsense").is_err());
        assert!(listen_addresses(":http").is_err());
    }
}
