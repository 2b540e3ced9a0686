//! Renders a kubeconfig that holds its credentials inline: one cluster, one
//! user, one context, all named after the cluster.

use base64::Engine;
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Cluster {
    server: String,
    certificate_authority_data: String,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct User {
    client_certificate_data: String,
    client_key_data: String,
}

#[derive(Serialize)]
struct Context {
    cluster: String,
    user: String,
}

#[derive(Serialize)]
struct Named<T> {
    name: String,
    #[serde(flatten)]
    inner: T,
}

#[derive(Serialize)]
struct Config {
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    kind: &'static str,
    clusters: Vec<Named<ClusterEntry>>,
    users: Vec<Named<UserEntry>>,
    contexts: Vec<Named<ContextEntry>>,
    #[serde(rename = "current-context")]
    current_context: String,
}

#[derive(Serialize)]
struct ClusterEntry {
    cluster: Cluster,
}
#[derive(Serialize)]
struct UserEntry {
    user: User,
}
#[derive(Serialize)]
struct ContextEntry {
    context: Context,
}

/// A kubeconfig for `server` trusting `ca_pem`, authenticating with the
/// client certificate and key.
pub fn kubeconfig(name: &str, server: &str, ca_pem: &str, cert_pem: &str, key_pem: &str) -> String {
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let config = Config {
        api_version: "v1",
        kind: "Config",
        clusters: vec![Named {
            name: name.to_owned(),
            inner: ClusterEntry {
                cluster: Cluster {
                    server: server.to_owned(),
                    certificate_authority_data: b64(ca_pem),
                },
            },
        }],
        users: vec![Named {
            name: name.to_owned(),
            inner: UserEntry {
                user: User {
                    client_certificate_data: b64(cert_pem),
                    client_key_data: b64(key_pem),
                },
            },
        }],
        contexts: vec![Named {
            name: name.to_owned(),
            inner: ContextEntry {
                context: Context {
                    cluster: name.to_owned(),
                    user: name.to_owned(),
                },
            },
        }],
        current_context: name.to_owned(),
    };
    serde_yaml::to_string(&config).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn has_the_keys_kubectl_reads() {
        let text = super::kubeconfig("c", "https://10.0.0.1:6443", "CA", "CERT", "KEY");
        let v: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        assert_eq!(v["apiVersion"], "v1");
        assert_eq!(v["current-context"], "c");
        assert_eq!(
            v["clusters"][0]["cluster"]["server"],
            "https://10.0.0.1:6443"
        );
        assert_eq!(
            v["clusters"][0]["cluster"]["certificate-authority-data"],
            "Q0E="
        );
        assert_eq!(v["users"][0]["user"]["client-key-data"], "S0VZ");
        assert_eq!(v["contexts"][0]["context"]["user"], "c");
    }
}
