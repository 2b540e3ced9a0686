//! Adoption: the identity of a k3s cluster liken did not create, read from
//! the files a person copied off one of its servers.
//!
//! The harvest directory holds what `/var/lib/rancher/k3s/server/` holds,
//! limited to the roots: `token`, and under `tls/` the five CA pairs
//! (`server-ca`, `client-ca`, `request-header-ca`, `etcd/server-ca`,
//! `etcd/peer-ca`, each `.crt` and `.key`) and `service.key`. Leaf
//! certificates are not needed: each server signs its own.
//!
//! [`Identity::from_harvest`] checks everything before anything is written:
//! every file present (a refusal names all the missing ones at once), each
//! certificate a CA whose key is its own, the service key a private key, and
//! the token pinned to this server CA. A bare password (what `--token` was
//! given when the cluster was started) is completed into the secure format
//! with the harvested CA's hash; a secure token that names another CA's hash
//! is refused, because it belongs to a different cluster. Reading never
//! writes; [`Identity::write_new`] lays the result out like a minted one.

use std::fs;
use std::path::Path;

use crate::dir::{CA_FILES, SERVICE_KEY, TOKEN, check_ca};
use crate::{Ca, Error, Identity, Token, ca_hash};

/// Where the harvested files live on a k3s server, for messages.
pub const K3S_SERVER_DIR: &str = "/var/lib/rancher/k3s/server";

/// The files a harvest holds, relative to the harvest directory.
pub fn harvest_files() -> Vec<String> {
    let mut files = vec![TOKEN.to_owned()];
    for (stem, _) in CA_FILES {
        files.push(format!("tls/{stem}.crt"));
        files.push(format!("tls/{stem}.key"));
    }
    files.push(format!("tls/{SERVICE_KEY}"));
    files
}

impl Identity {
    /// Reads and checks the harvest in `dir`. Nothing is written.
    pub fn from_harvest(dir: &Path) -> Result<Identity, Error> {
        let missing: Vec<String> = harvest_files()
            .into_iter()
            .filter(|rel| !dir.join(rel).is_file())
            .collect();
        if !missing.is_empty() {
            return Err(Error::HarvestIncomplete {
                dir: dir.to_owned(),
                missing,
            });
        }
        let read = |rel: &str| -> Result<String, Error> {
            let path = dir.join(rel);
            fs::read_to_string(&path).map_err(Error::io(&path))
        };
        let mut cas = Vec::with_capacity(CA_FILES.len());
        for (stem, _) in CA_FILES {
            let crt = dir.join(format!("tls/{stem}.crt"));
            let ca = Ca {
                cert_pem: read(&format!("tls/{stem}.crt"))?,
                key_pem: read(&format!("tls/{stem}.key"))?,
            };
            check_ca(&crt, &ca)?;
            ca.check_pair()
                .map_err(|m| Error::invalid(crt.with_extension("key"), m))?;
            cas.push(ca);
        }
        let service_key = read(&format!("tls/{SERVICE_KEY}"))?;
        if !service_key.contains("PRIVATE KEY-----") {
            return Err(Error::invalid(
                dir.join("tls").join(SERVICE_KEY),
                "is not a PEM private key; copy tls/service.key from the server again",
            ));
        }
        let server_crt = dir.join("tls/server-ca.crt");
        let hash =
            ca_hash(cas[0].cert_pem.as_bytes()).map_err(|m| Error::invalid(&server_crt, m))?;
        let token_path = dir.join(TOKEN);
        let token =
            harvested_token(&read(TOKEN)?, &hash).map_err(|m| Error::invalid(&token_path, m))?;
        let [
            server_ca,
            client_ca,
            request_header_ca,
            etcd_server_ca,
            etcd_peer_ca,
        ]: [Ca; 5] = cas
            .try_into()
            .map_err(|_| Error::Cert("five certificate authorities were expected".to_owned()))?;
        Ok(Identity {
            server_ca,
            client_ca,
            request_header_ca,
            etcd_server_ca,
            etcd_peer_ca,
            service_key,
            token,
        })
    }
}

/// The server token a harvested `token` file stands for, given the hash of
/// the harvested server CA. Errors are worded to follow the file's path.
fn harvested_token(text: &str, hash: &str) -> Result<Token, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("is empty; copy the server's token file again".to_owned());
    }
    if !text.starts_with("K10") {
        if text.contains("::") || text.chars().any(char::is_whitespace) {
            return Err(
                "is neither a secure token (K10<hash>::server:<password>) nor a bare password"
                    .to_owned(),
            );
        }
        return Ok(Token {
            ca_hash: hash.to_owned(),
            credentials: format!("server:{text}"),
        });
    }
    let token = Token::parse(text)?;
    if !token.credentials.starts_with("server:") {
        return Err(format!(
            "holds {}... credentials, not a server's; harvest {K3S_SERVER_DIR}/token, the server token",
            token.credentials.split(':').next().unwrap_or_default()
        ));
    }
    if token.ca_hash != hash {
        return Err(format!(
            "names CA hash {} but tls/server-ca.crt hashes to {hash}; the token and the CA \
             come from different clusters: harvest both from the same server",
            token.ca_hash
        ));
    }
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn a_bare_password_is_completed_with_the_hash() {
        let t = harvested_token("hunter2\n", HASH).unwrap();
        assert_eq!(t.to_string(), format!("K10{HASH}::server:hunter2"));
    }

    #[test]
    fn a_secure_token_must_name_this_ca_and_a_server() {
        let good = format!("K10{HASH}::server:pw\n");
        assert_eq!(harvested_token(&good, HASH).unwrap().secret(), "pw");
        let upper = format!("K10{}::server:pw", HASH.to_ascii_uppercase());
        assert!(harvested_token(&upper, HASH).is_ok());
        let other = format!("K10{}::server:pw", "f".repeat(64));
        let err = harvested_token(&other, HASH).unwrap_err();
        assert!(err.contains("different clusters"), "{err}");
        let agent = format!("K10{HASH}::node:pw");
        let err = harvested_token(&agent, HASH).unwrap_err();
        assert!(err.contains("node... credentials"), "{err}");
    }

    #[test]
    fn junk_is_refused() {
        for bad in ["", "  \n", "two words", "a::b", "K10abc::server:x"] {
            assert!(harvested_token(bad, HASH).is_err(), "{bad:?}");
        }
    }
}
