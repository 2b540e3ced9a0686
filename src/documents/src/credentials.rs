//! The registry-credentials document: the image registry logins a machine
//! writes into k3s's registries.yaml, rendered from the
//! `registry-credentials` Secret in liken-system (the
//! `kubernetes.io/dockerconfigjson` shape that `kubectl create secret
//! docker-registry` makes).
//!
//! A Secret may spell one login two ways (`auth` as base64 `user:password`,
//! or `username` and `password`); the document holds the decoded pair, hosts
//! in order, so the same logins always render to the same bytes and the same
//! hash, whichever way the Secret spelled them. The document is staged and
//! proven like the Machine and the Cluster; it never appears in a spec,
//! because a spec is public.

use std::collections::BTreeMap;

use base64::Engine;
use liken_api::ObjectMeta;
use serde::{Deserialize, Serialize};

use crate::canonical::{Rendered, sha256};
use crate::document::{envelope, label_of, read_one_yaml};
use crate::error::DocumentError;

/// The document's kind.
pub const KIND: &str = "RegistryCredentials";
/// The name it (and the Secret it comes from) carries.
pub const NAME: &str = "registry-credentials";

/// Registry logins, by registry host.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RegistryCredentials {
    pub api_version: String,
    pub kind: String,
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub logins: BTreeMap<String, Login>,
}

/// One registry's login.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Login {
    pub username: String,
    pub password: String,
}

/// The dockerconfigjson shape.
#[derive(Deserialize)]
struct DockerConfig {
    auths: BTreeMap<String, DockerAuth>,
}

#[derive(Deserialize)]
struct DockerAuth {
    #[serde(default)]
    username: Option<String>,
    #[serde(default)]
    password: Option<String>,
    #[serde(default)]
    auth: Option<String>,
    /// Written by some tools and meaningless to containerd.
    #[serde(default)]
    #[allow(dead_code)]
    email: Option<String>,
}

impl RegistryCredentials {
    /// The document holding `logins`.
    pub fn new(logins: BTreeMap<String, Login>) -> Self {
        RegistryCredentials {
            api_version: liken_api::API_VERSION.to_owned(),
            kind: KIND.to_owned(),
            metadata: ObjectMeta::named(NAME),
            logins,
        }
    }

    /// Reads a Secret's `.dockerconfigjson` bytes; `source` names the Secret
    /// in errors.
    pub fn from_dockerconfigjson(source: &str, bytes: &[u8]) -> Result<Self, DocumentError> {
        let fault = |field: &str, m: String| {
            DocumentError::new(source, "Secret registry-credentials", field, m)
        };
        let config: DockerConfig = serde_json::from_slice(bytes)
            .map_err(|e| fault(".dockerconfigjson", format!("is not a docker config ({e}); make it with kubectl create secret docker-registry")))?;
        let mut logins = BTreeMap::new();
        for (host, a) in config.auths {
            let field = format!(".dockerconfigjson.auths[{host}]");
            let login = match (a.username, a.password, a.auth) {
                (Some(username), Some(password), _) => Login { username, password },
                (_, _, Some(auth)) => {
                    let decoded = base64::engine::general_purpose::STANDARD
                        .decode(auth.trim())
                        .ok()
                        .and_then(|b| String::from_utf8(b).ok())
                        .ok_or_else(|| {
                            fault(
                                &field,
                                "has an auth that is not base64 of user:password".into(),
                            )
                        })?;
                    let (username, password) = decoded.split_once(':').ok_or_else(|| {
                        fault(
                            &field,
                            "has an auth without a ':' between user and password".into(),
                        )
                    })?;
                    Login {
                        username: username.to_owned(),
                        password: password.to_owned(),
                    }
                }
                _ => {
                    return Err(fault(
                        &field,
                        "has neither username and password nor auth".into(),
                    ));
                }
            };
            if host.is_empty() || host.contains(char::is_whitespace) {
                return Err(fault(&field, "is not a registry host".into()));
            }
            logins.insert(registry_host(&host), login);
        }
        Ok(RegistryCredentials::new(logins))
    }

    /// Parses a staged document strictly.
    pub fn from_yaml(file: &str, bytes: &[u8]) -> Result<Self, DocumentError> {
        let value = read_one_yaml(file, bytes)?;
        let label = label_of(&value, KIND);
        envelope(file, &label, &value, KIND)?;
        serde_path_to_error::deserialize(value).map_err(|e| {
            let field = e.path().to_string();
            DocumentError::new(
                file,
                &label,
                if field == "." { "" } else { &field },
                e.into_inner().to_string(),
            )
        })
    }

    /// The staged form and its identity.
    pub fn render(&self) -> Rendered {
        let canonical = RegistryCredentials::new(self.logins.clone());
        let bytes = serde_yaml::to_string(&canonical)
            .unwrap_or_default()
            .into_bytes();
        Rendered {
            hash: sha256(&bytes),
            bytes,
        }
    }
}

/// The host a docker config key names: `https://index.docker.io/v1/` and
/// the like become the bare host containerd matches on.
fn registry_host(key: &str) -> String {
    let bare = key
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or(key);
    match bare {
        "index.docker.io" | "registry-1.docker.io" => "docker.io".to_owned(),
        other => other.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(s: &str) -> String {
        base64::engine::general_purpose::STANDARD.encode(s)
    }

    #[test]
    fn both_spellings_render_alike() {
        let plain = br#"{"auths":{"registry.example:5000":{"username":"u","password":"p:w"},"https://index.docker.io/v1/":{"username":"d","password":"x"}}}"#;
        let encoded = format!(
            r#"{{"auths":{{"https://index.docker.io/v1/":{{"auth":"{}","email":"e@x"}},"registry.example:5000":{{"auth":"{}"}}}}}}"#,
            b64("d:x"),
            b64("u:p:w")
        );
        let a = RegistryCredentials::from_dockerconfigjson("s", plain).unwrap();
        let b = RegistryCredentials::from_dockerconfigjson("s", encoded.as_bytes()).unwrap();
        assert_eq!(a.render(), b.render());
        assert_eq!(a.logins["docker.io"].username, "d");
        assert_eq!(a.logins["registry.example:5000"].password, "p:w");
        let back = RegistryCredentials::from_yaml("staged", &a.render().bytes).unwrap();
        assert_eq!(back, a);
    }

    #[test]
    fn a_changed_login_changes_the_hash() {
        let one = RegistryCredentials::from_dockerconfigjson(
            "s",
            br#"{"auths":{"r":{"username":"u","password":"1"}}}"#,
        )
        .unwrap();
        let two = RegistryCredentials::from_dockerconfigjson(
            "s",
            br#"{"auths":{"r":{"username":"u","password":"2"}}}"#,
        )
        .unwrap();
        assert_ne!(one.render().hash, two.render().hash);
    }

    #[test]
    fn malformed_secrets_are_refused_naming_the_host() {
        for (bytes, word) in [
            (&br#"{"auths":{"r":{"auth":"%%%"}}}"#[..], "base64"),
            (&br#"{"auths":{"r":{"auth":"dXNlcg=="}}}"#[..], "':'"),
            (&br#"{"auths":{"r":{"username":"u"}}}"#[..], "neither"),
            (&br#"{"auth":{}}"#[..], "docker config"),
            (&b"\xff"[..], "docker config"),
        ] {
            let err = RegistryCredentials::from_dockerconfigjson(
                "liken-system/registry-credentials",
                bytes,
            )
            .unwrap_err()
            .to_string();
            assert!(
                err.starts_with("liken-system/registry-credentials: Secret registry-credentials"),
                "{err}"
            );
            assert!(err.contains(word), "{word}: {err}");
        }
    }

    #[test]
    fn staged_documents_parse_strictly() {
        let text = "apiVersion: liken.sh/v1alpha1\nkind: RegistryCredentials\nmetadata:\n  name: registry-credentials\nlogins:\n  r:\n    username: u\n    password: p\n    token: t\n";
        let err = RegistryCredentials::from_yaml("staged", text.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(err.contains("logins.r.token"), "{err}");
    }
}
