//! The identity directory on disk: minting one (whole or not at all, never
//! over an existing one) and reading one back with every file checked.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::Error;
use crate::ca::{Ca, service_key};
use crate::token::{Token, random_secret};

/// The CAs, as (file stem under the identity directory, name prefix).
pub const CA_FILES: [(&str, &str); 5] = [
    ("server-ca", "k3s-server"),
    ("client-ca", "k3s-client"),
    ("request-header-ca", "k3s-request-header"),
    ("etcd/server-ca", "etcd-server"),
    ("etcd/peer-ca", "etcd-peer"),
];
/// The service-account signing key's file.
pub const SERVICE_KEY: &str = "service.key";
/// The join token's file.
pub const TOKEN: &str = "token";

/// A complete identity, read into memory.
#[derive(Clone, Debug)]
pub struct Identity {
    pub server_ca: Ca,
    pub client_ca: Ca,
    pub request_header_ca: Ca,
    pub etcd_server_ca: Ca,
    pub etcd_peer_ca: Ca,
    /// PEM.
    pub service_key: String,
    pub token: Token,
}

impl Identity {
    /// A fresh identity in memory.
    pub fn generate(now: SystemTime) -> Result<Identity, Error> {
        let [server, client, header, etcd_server, etcd_peer] =
            CA_FILES.map(|(_, prefix)| Ca::mint(prefix, now));
        let server_ca = server?;
        let token =
            Token::for_ca(server_ca.cert_pem.as_bytes(), &random_secret()).map_err(Error::Cert)?;
        Ok(Identity {
            server_ca,
            client_ca: client?,
            request_header_ca: header?,
            etcd_server_ca: etcd_server?,
            etcd_peer_ca: etcd_peer?,
            service_key: service_key()?,
            token,
        })
    }

    fn cas(&self) -> [(&'static str, &Ca); 5] {
        [
            (CA_FILES[0].0, &self.server_ca),
            (CA_FILES[1].0, &self.client_ca),
            (CA_FILES[2].0, &self.request_header_ca),
            (CA_FILES[3].0, &self.etcd_server_ca),
            (CA_FILES[4].0, &self.etcd_peer_ca),
        ]
    }

    /// Every file of the identity, as (relative path, bytes, mode).
    pub fn files(&self) -> Vec<(String, Vec<u8>, u32)> {
        let mut out = Vec::new();
        for (stem, ca) in self.cas() {
            out.push((
                format!("{stem}.crt"),
                ca.cert_pem.clone().into_bytes(),
                0o644,
            ));
            out.push((
                format!("{stem}.key"),
                ca.key_pem.clone().into_bytes(),
                0o600,
            ));
        }
        out.push((
            SERVICE_KEY.to_owned(),
            self.service_key.clone().into_bytes(),
            0o600,
        ));
        out.push((
            TOKEN.to_owned(),
            format!("{}\n", self.token).into_bytes(),
            0o600,
        ));
        out
    }

    /// Writes this identity as the new directory `dir`: built beside it under
    /// a temporary name, every file synced, then renamed into place. Refuses a
    /// `dir` that exists with anything in it.
    pub fn write_new(&self, dir: &Path) -> Result<(), Error> {
        if let Ok(mut entries) = fs::read_dir(dir) {
            if entries.next().is_some() {
                return Err(Error::Exists(dir.to_owned()));
            }
            fs::remove_dir(dir).map_err(Error::io(dir))?;
        }
        let name = dir
            .file_name()
            .ok_or_else(|| Error::invalid(dir, "names no directory"))?;
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).map_err(Error::io(&parent))?;
        let staging = parent.join(format!(
            ".{}.partial-{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&staging);
        let result = self.write_into(&staging).and_then(|()| {
            fs::rename(&staging, dir).map_err(Error::io(dir))?;
            sync(&parent)
        });
        if result.is_err() {
            let _ = fs::remove_dir_all(&staging);
        }
        result
    }

    fn write_into(&self, staging: &Path) -> Result<(), Error> {
        make_private_dir(staging)?;
        make_private_dir(&staging.join("etcd"))?;
        for (rel, bytes, mode) in self.files() {
            let path = staging.join(&rel);
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(mode)
                .open(&path)
                .map_err(Error::io(&path))?;
            f.write_all(&bytes).map_err(Error::io(&path))?;
            f.sync_all().map_err(Error::io(&path))?;
        }
        sync(&staging.join("etcd"))?;
        sync(staging)
    }

    /// Mints a new identity into `dir`.
    pub fn mint(dir: &Path, now: SystemTime) -> Result<Identity, Error> {
        let identity = Identity::generate(now)?;
        identity.write_new(dir)?;
        Ok(identity)
    }

    /// Reads the identity in `dir`, refusing one with a missing file (naming
    /// every one), an unreadable certificate or key, or a token whose hash is
    /// not the server CA's.
    pub fn load(dir: &Path) -> Result<Identity, Error> {
        let missing: Vec<String> = expected_files()
            .into_iter()
            .filter(|rel| !dir.join(rel).is_file())
            .collect();
        if !missing.is_empty() {
            return Err(Error::Incomplete {
                dir: dir.to_owned(),
                missing,
            });
        }
        let read = |rel: &str| -> Result<String, Error> {
            let path = dir.join(rel);
            fs::read_to_string(&path).map_err(Error::io(&path))
        };
        let mut cas = Vec::new();
        for (stem, _) in CA_FILES {
            let ca = Ca {
                cert_pem: read(&format!("{stem}.crt"))?,
                key_pem: read(&format!("{stem}.key"))?,
            };
            check_ca(&dir.join(format!("{stem}.crt")), &ca)?;
            cas.push(ca);
        }
        let token_path = dir.join(TOKEN);
        let token = Token::parse(&read(TOKEN)?).map_err(|m| Error::invalid(&token_path, m))?;
        let expected = crate::ca_hash(cas[0].cert_pem.as_bytes())
            .map_err(|m| Error::invalid(dir.join("server-ca.crt"), m))?;
        if token.ca_hash != expected {
            return Err(Error::invalid(
                &token_path,
                format!(
                    "names CA hash {} but server-ca.crt hashes to {expected}; the token belongs to another cluster",
                    token.ca_hash
                ),
            ));
        }
        let service_key = read(SERVICE_KEY)?;
        if !service_key.contains("PRIVATE KEY-----") {
            return Err(Error::invalid(
                dir.join(SERVICE_KEY),
                "is not a PEM private key",
            ));
        }
        let mut cas = cas.into_iter();
        let mut next = || cas.next().expect("five CAs were read");
        Ok(Identity {
            server_ca: next(),
            client_ca: next(),
            request_header_ca: next(),
            etcd_server_ca: next(),
            etcd_peer_ca: next(),
            service_key,
            token,
        })
    }
}

/// The relative paths a complete identity holds.
pub fn expected_files() -> Vec<String> {
    let mut files: Vec<String> = CA_FILES
        .iter()
        .flat_map(|(stem, _)| [format!("{stem}.crt"), format!("{stem}.key")])
        .collect();
    files.push(SERVICE_KEY.to_owned());
    files.push(TOKEN.to_owned());
    files
}

pub(crate) fn check_ca(path: &Path, ca: &Ca) -> Result<(), Error> {
    let block = pem::parse(&ca.cert_pem)
        .map_err(|e| Error::invalid(path, format!("is not a PEM certificate: {e}")))?;
    let (_, cert) = x509_parser::parse_x509_certificate(block.contents())
        .map_err(|e| Error::invalid(path, format!("does not parse as X.509: {e}")))?;
    if !cert.is_ca() {
        return Err(Error::invalid(path, "is not a CA certificate"));
    }
    if !ca.key_pem.contains("PRIVATE KEY-----") {
        return Err(Error::invalid(
            path.with_extension("key"),
            "is not a PEM private key",
        ));
    }
    Ok(())
}

fn make_private_dir(dir: &Path) -> Result<(), Error> {
    fs::create_dir(dir).map_err(Error::io(dir))?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(Error::io(dir))
}

fn sync(dir: &Path) -> Result<(), Error> {
    fs::File::open(dir)
        .and_then(|f| f.sync_all())
        .map_err(Error::io(dir))
}
