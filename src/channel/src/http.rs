//! The HTTP(S) client every download goes through.
//!
//! One [`Client`] holds one connection pool and one trust store: the
//! system's root certificates (the files `SSL_CERT_FILE`/`SSL_CERT_DIR` name,
//! or the distribution's bundle), the bundled Mozilla roots when the system
//! has none (a machine's minimal image), plus an optional private CA bundle
//! for a channel served under a private authority. Only `http://` and
//! `https://` URLs are accepted.
//!
//! The one timeout is a stall timeout: a connection attempt, or any single
//! read, that waits longer than it without a byte fails. There is no
//! deadline on a whole transfer, because a large artifact on a slow link is
//! not a fault, while a silent peer is. Responses are never decompressed
//! (no `Accept-Encoding` is sent), so sizes and digests apply to the bytes
//! received. HTTP statuses are not errors here: [`Client::get`] hands the
//! status back and the caller says what a 404 means.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};

/// How long a download waits for the next byte before it gives up.
pub const STALL_TIMEOUT: Duration = Duration::from_secs(60);

/// Largest document (channel.yaml, release.yaml, notes.md) read into memory.
pub const DOCUMENT_LIMIT: u64 = 1 << 20;

/// How a [`Client`] is made.
#[derive(Clone, Debug)]
pub struct ClientOptions {
    /// See [`STALL_TIMEOUT`]; tests pass a short one.
    pub stall_timeout: Duration,
    /// A PEM bundle of extra certificate authorities to trust.
    pub ca_file: Option<PathBuf>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            stall_timeout: STALL_TIMEOUT,
            ca_file: None,
        }
    }
}

/// Why a request did not produce a response body.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("{url}: only http:// and https:// sources are supported")]
    Scheme { url: String },
    #[error("reading the CA bundle {path}: {message}")]
    CaFile { path: PathBuf, message: String },
    #[error("the CA bundle {path} holds no PEM certificate")]
    CaEmpty { path: PathBuf },
    #[error("{url}: the server answered {status} {reason}")]
    Status {
        url: String,
        status: u16,
        reason: String,
    },
    #[error("{url}: no bytes arrived for {secs} s; the server stalled")]
    Stalled { url: String, secs: u64 },
    #[error("{url}: {message}")]
    Transport { url: String, message: String },
    #[error("{url}: larger than the {limit} bytes a channel document may have")]
    TooLarge { url: String, limit: u64 },
}

impl HttpError {
    /// The HTTP status, when the server answered with one.
    pub fn status(&self) -> Option<u16> {
        match self {
            HttpError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// A response whose status was 200.
pub struct Response {
    /// The Content-Length the server announced, if any.
    pub content_length: Option<u64>,
    pub body: ureq::BodyReader<'static>,
}

impl std::fmt::Debug for Response {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Response")
            .field("content_length", &self.content_length)
            .finish_non_exhaustive()
    }
}

/// The shared client.
#[derive(Clone, Debug)]
pub struct Client {
    agent: ureq::Agent,
    stall: Duration,
}

/// Checks that `url` is one this client will fetch.
pub fn check_scheme(url: &str) -> Result<(), HttpError> {
    let lower = url.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"));
    match rest {
        Some(host) if !host.is_empty() && !host.starts_with('/') => Ok(()),
        _ => Err(HttpError::Scheme {
            url: url.to_owned(),
        }),
    }
}

/// `base` and `parts` joined with single slashes.
pub fn join(base: &str, parts: &[&str]) -> String {
    let mut url = base.trim_end_matches('/').to_owned();
    for p in parts {
        url.push('/');
        url.push_str(p);
    }
    url
}

fn roots(ca_file: Option<&Path>) -> Result<RootCerts, HttpError> {
    let mut certs: Vec<Certificate<'static>> = rustls_native_certs::load_native_certs()
        .certs
        .iter()
        .map(|der| Certificate::from_der(der.as_ref()).to_owned())
        .collect();
    if let Some(path) = ca_file {
        let pem = std::fs::read(path).map_err(|e| HttpError::CaFile {
            path: path.to_owned(),
            message: e.to_string(),
        })?;
        let before = certs.len();
        for item in ureq::tls::parse_pem(&pem) {
            match item {
                Ok(PemItem::Certificate(c)) => certs.push(c),
                Ok(_) => {}
                Err(e) => {
                    return Err(HttpError::CaFile {
                        path: path.to_owned(),
                        message: e.to_string(),
                    });
                }
            }
        }
        if certs.len() == before {
            return Err(HttpError::CaEmpty {
                path: path.to_owned(),
            });
        }
    }
    if certs.is_empty() {
        return Ok(RootCerts::WebPki);
    }
    Ok(RootCerts::new_with_certs(&certs))
}

impl Client {
    pub fn new(options: &ClientOptions) -> Result<Self, HttpError> {
        let tls = TlsConfig::builder()
            .root_certs(roots(options.ca_file.as_deref())?)
            .build();
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(options.stall_timeout))
            .timeout_per_read(Some(options.stall_timeout))
            .timeout_per_write(Some(options.stall_timeout))
            .tls_config(tls)
            .user_agent(concat!("liken-channel/", env!("CARGO_PKG_VERSION")))
            .build();
        Ok(Client {
            agent: config.new_agent(),
            stall: options.stall_timeout,
        })
    }

    /// Describes a transport error of a request or of reading its body.
    pub fn describe(&self, url: &str, error: ureq::Error) -> HttpError {
        match error {
            ureq::Error::Timeout(_) => HttpError::Stalled {
                url: url.to_owned(),
                secs: self.stall.as_secs().max(1),
            },
            ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::TimedOut => HttpError::Stalled {
                url: url.to_owned(),
                secs: self.stall.as_secs().max(1),
            },
            ureq::Error::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                HttpError::Transport {
                    url: url.to_owned(),
                    message: "the server closed the connection before the whole body arrived"
                        .to_owned(),
                }
            }
            other => HttpError::Transport {
                url: url.to_owned(),
                message: other.to_string(),
            },
        }
    }

    /// Describes an error from reading a response body.
    pub fn describe_io(&self, url: &str, error: std::io::Error) -> HttpError {
        self.describe(url, ureq::Error::from(error))
    }

    /// GET `url`; anything but 200 is an error that carries the status.
    pub fn get(&self, url: &str) -> Result<Response, HttpError> {
        check_scheme(url)?;
        let response = self
            .agent
            .get(url)
            .call()
            .map_err(|e| self.describe(url, e))?;
        let status = response.status();
        if status != ureq::http::StatusCode::OK {
            return Err(HttpError::Status {
                url: url.to_owned(),
                status: status.as_u16(),
                reason: status.canonical_reason().unwrap_or("").to_owned(),
            });
        }
        let content_length = response
            .headers()
            .get(ureq::http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse().ok());
        Ok(Response {
            content_length,
            body: response.into_body().into_reader(),
        })
    }

    /// GET a small document whole, at most [`DOCUMENT_LIMIT`] bytes.
    pub fn get_document(&self, url: &str) -> Result<Vec<u8>, HttpError> {
        let response = self.get(url)?;
        if response.content_length.is_some_and(|n| n > DOCUMENT_LIMIT) {
            return Err(HttpError::TooLarge {
                url: url.to_owned(),
                limit: DOCUMENT_LIMIT,
            });
        }
        let mut bytes = Vec::new();
        response
            .body
            .take(DOCUMENT_LIMIT + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| self.describe_io(url, e))?;
        if bytes.len() as u64 > DOCUMENT_LIMIT {
            return Err(HttpError::TooLarge {
                url: url.to_owned(),
                limit: DOCUMENT_LIMIT,
            });
        }
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_and_joins() {
        assert!(check_scheme("http://127.0.0.1:8017").is_ok());
        assert!(check_scheme("HTTPS://example.test/channel/").is_ok());
        for bad in [
            "ftp://x",
            "file:///etc",
            "http://",
            "127.0.0.1:8017",
            "https:///x",
        ] {
            assert!(check_scheme(bad).is_err(), "{bad}");
        }
        assert_eq!(
            join("http://h/c/", &["2026.07.20-001", "release.yaml"]),
            "http://h/c/2026.07.20-001/release.yaml"
        );
    }

    #[test]
    fn a_ca_file_without_certificates_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ca.pem");
        std::fs::write(&path, b"not a certificate\n").unwrap();
        let err = Client::new(&ClientOptions {
            ca_file: Some(path),
            ..ClientOptions::default()
        })
        .unwrap_err();
        assert!(
            err.to_string().contains("holds no PEM certificate"),
            "{err}"
        );
        let err = Client::new(&ClientOptions {
            ca_file: Some(dir.path().join("missing.pem")),
            ..ClientOptions::default()
        })
        .unwrap_err();
        assert!(err.to_string().contains("missing.pem"), "{err}");
    }
}
