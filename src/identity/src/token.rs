//! k3s's secure join token: `K10` + hex sha256 of the server CA + `::` +
//! credentials (`server:<secret>`). A joining node fetches the CA bundle
//! from the server and compares its hash with the token's before trusting
//! it, so the token pins the cluster.

use std::fmt;

use sha2::{Digest, Sha256};

/// A parsed secure token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// 64 lowercase hex digits.
    pub ca_hash: String,
    /// What follows `::`, such as `server:<secret>`.
    pub credentials: String,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The hash a token carries for `server_ca_crt` (the file's exact bytes): the
/// sha256 of those bytes when the file holds one certificate, else of the DER
/// of the root its chain ends in, as k3s computes it.
pub fn ca_hash(server_ca_crt: &[u8]) -> Result<String, String> {
    let blocks = pem::parse_many(server_ca_crt).map_err(|e| format!("not PEM: {e}"))?;
    let certs: Vec<&pem::Pem> = blocks.iter().filter(|b| b.tag() == "CERTIFICATE").collect();
    match certs.len() {
        0 => Err("holds no certificate".to_owned()),
        1 => Ok(hex(&Sha256::digest(server_ca_crt))),
        _ => {
            for c in &certs {
                let (_, cert) = x509_parser::parse_x509_certificate(c.contents())
                    .map_err(|e| format!("a certificate does not parse: {e}"))?;
                if cert.subject() == cert.issuer() {
                    return Ok(hex(&Sha256::digest(c.contents())));
                }
            }
            Err("holds a chain with no self-signed root".to_owned())
        }
    }
}

impl Token {
    /// Parses `K10<hash>::<credentials>`.
    pub fn parse(text: &str) -> Result<Token, String> {
        let text = text.trim();
        let rest = text
            .strip_prefix("K10")
            .ok_or("is not a secure token (K10<hash>::server:<secret>)")?;
        let (hash, credentials) = rest
            .split_once("::")
            .ok_or("has no '::' between the CA hash and the credentials")?;
        if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err("has a CA hash that is not 64 hex digits".into());
        }
        if credentials.is_empty() || !credentials.contains(':') {
            return Err("has no user:secret credentials after '::'".into());
        }
        Ok(Token {
            ca_hash: hash.to_ascii_lowercase(),
            credentials: credentials.to_owned(),
        })
    }

    /// A server token for `server_ca_crt` with `secret`.
    pub fn for_ca(server_ca_crt: &[u8], secret: &str) -> Result<Token, String> {
        Ok(Token {
            ca_hash: ca_hash(server_ca_crt)?,
            credentials: format!("server:{secret}"),
        })
    }

    /// The secret half of the credentials.
    pub fn secret(&self) -> &str {
        self.credentials
            .split_once(':')
            .map(|(_, s)| s)
            .unwrap_or("")
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "K10{}::{}", self.ca_hash, self.credentials)
    }
}

/// 16 random bytes as 32 hex digits, for a token's secret.
pub(crate) fn random_secret() -> String {
    let mut bytes = [0u8; 16];
    rand_core::RngCore::fill_bytes(&mut rand_core::OsRng, &mut bytes);
    hex(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let text = format!("K10{}::server:abc", "a".repeat(64));
        let t = Token::parse(&format!("{text}\n")).unwrap();
        assert_eq!(t.secret(), "abc");
        assert_eq!(t.to_string(), text);
    }

    #[test]
    fn refuses_malformed() {
        for bad in [
            "abc",
            "K10abc::server:x",
            &format!("K10{}server:x", "a".repeat(64)),
            &format!("K10{}::", "a".repeat(64)),
        ] {
            assert!(Token::parse(bad).is_err(), "{bad}");
        }
    }
}
