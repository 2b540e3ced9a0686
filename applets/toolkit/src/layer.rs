//! `liken layer <manifests-dir> <identity-dir> <output.cpio>`: the
//! deployment layer, the small archive every machine boots beside the
//! liken image and unpacks to `/etc/liken/deployment/`.
//!
//! What it reads: in the manifests directory, `cluster.yaml` is the Cluster
//! and every other `*.yaml` file at its top level is a Machine manifest
//! (hidden files, subdirectories such as `identity/`, and other names are
//! left alone); a Machine's file is named after it, `<metadata.name>.yaml`,
//! because machines find their manifest by name. The identity directory is
//! read through [`Identity::load`], which refuses one that is incomplete or
//! whose token does not pin its server CA; only the identity's own files go
//! in, never the administrator kubeconfig beside them.
//!
//! What it refuses, all faults reported together: a document that does not
//! parse under the strict parsers; a manifest file named other than its
//! machine; two manifests of one machine; a leader with no manifest; a
//! Founded cluster with no leader to create its datastore; followers, or an
//! Adopted cluster, with no spec.endpoint to join through; no machine at all.
//!
//! What it writes: a newc cpio holding `etc/liken/deployment/cluster.yaml`,
//! `.../machines/<name>.yaml` (each the exact bytes of its file, comments
//! and all, so a machine's record of what it booted hashes what the person
//! wrote) and `.../identity/...` (0700 directories, private files 0600).
//! Identical inputs give identical bytes ([`liken_formats::cpio`]); the
//! output is written atomically, so a failed run leaves the old layer.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;

use liken_documents::cluster::Origin;
use liken_documents::{ClusterDocument, MachineDocument};
use liken_formats::cpio::Archive;
use liken_identity::Identity;

use crate::Error;
use crate::cli;

/// Where the layer unpacks on a machine, without the leading slash.
pub const ROOT: &str = "etc/liken/deployment";

/// One document file as read: the name to report it by and its bytes.
#[derive(Debug, Clone)]
pub struct Source {
    pub file: String,
    pub bytes: Vec<u8>,
}

/// A deployment whose documents agree: what goes in the layer.
#[derive(Debug)]
pub struct Deployment {
    pub cluster: ClusterDocument,
    pub cluster_bytes: Vec<u8>,
    /// By machine name.
    pub machines: BTreeMap<String, Vec<u8>>,
}

/// The file stem a machine file must have: its name without `.yaml`.
fn stem(file: &str) -> &str {
    let base = file.rsplit('/').next().unwrap_or(file);
    base.strip_suffix(".yaml").unwrap_or(base)
}

/// Judges the documents: every one parses, and together they describe one
/// deployment. Returns every fault found, each naming its file.
pub fn check(cluster: &Source, machines: &[Source]) -> Result<Deployment, Vec<String>> {
    let mut faults = Vec::new();
    let cluster_doc = ClusterDocument::from_yaml(&cluster.file, &cluster.bytes)
        .map_err(|p| faults.extend(p.0.iter().map(ToString::to_string)))
        .ok();
    let mut by_name: BTreeMap<String, Vec<&Source>> = BTreeMap::new();
    for m in machines {
        match MachineDocument::from_yaml(&m.file, &m.bytes) {
            Ok(doc) => {
                let name = doc.metadata.name.clone();
                if stem(&m.file) != name {
                    faults.push(format!(
                        "{}: Machine {name}: metadata.name: the file of machine {name:?} must be \
                         named {name}.yaml (machines find their manifest by name); rename the \
                         file or the machine",
                        m.file
                    ));
                }
                by_name.entry(name).or_default().push(m);
            }
            Err(p) => faults.extend(p.0.iter().map(ToString::to_string)),
        }
    }
    for (name, files) in &by_name {
        if files.len() > 1 {
            let list: Vec<&str> = files.iter().map(|s| s.file.as_str()).collect();
            faults.push(format!(
                "machine {name:?} has {} manifests ({}); keep one",
                files.len(),
                list.join(", ")
            ));
        }
    }
    if machines.is_empty() {
        faults.push(format!(
            "{}: there is no machine manifest beside it; add one <name>.yaml per machine",
            cluster.file
        ));
    }
    if let Some(c) = &cluster_doc {
        faults.extend(agreement(&cluster.file, c, by_name.keys()));
    }
    match cluster_doc {
        Some(cluster_doc) if faults.is_empty() => Ok(Deployment {
            cluster: cluster_doc,
            cluster_bytes: cluster.bytes.clone(),
            machines: by_name
                .into_iter()
                .map(|(name, files)| (name, files[0].bytes.clone()))
                .collect(),
        }),
        _ => Err(faults),
    }
}

/// What the Cluster must agree on with the machines present.
fn agreement<'a>(
    file: &str,
    c: &ClusterDocument,
    names: impl Iterator<Item = &'a String> + Clone,
) -> Vec<String> {
    let mut faults = Vec::new();
    let at = |field: &str, msg: String| format!("{file}: {}: {field}: {msg}", c.label());
    for (i, leader) in c.spec.leaders.iter().enumerate() {
        if !names.clone().any(|n| n == leader) {
            faults.push(at(
                &format!("spec.leaders[{i}]"),
                format!("names {leader:?}, which has no manifest; add {leader}.yaml or remove the leader"),
            ));
        }
    }
    let adopted = c.spec.origin == Origin::Adopted;
    if c.spec.leaders.is_empty() && !adopted {
        faults.push(at(
            "spec.leaders",
            "is empty, so no machine creates the cluster's datastore; name the founding \
             leader first (or set spec.origin: Adopted to join an existing k3s cluster)"
                .to_owned(),
        ));
    }
    let followers: Vec<&String> = names.filter(|n| !c.spec.leaders.contains(n)).collect();
    if c.spec.endpoint.is_none() && (adopted || !followers.is_empty() || c.spec.leaders.len() > 1) {
        let who = if adopted {
            "an Adopted cluster's machines join the existing cluster".to_owned()
        } else {
            "machines other than the founding leader join".to_owned()
        };
        faults.push(at(
            "spec.endpoint",
            format!("is not set, but {who} through it; set it to the join URL, such as https://10.10.0.1:6443"),
        ));
    }
    faults
}

/// The layer's archive for a deployment that agrees and its identity.
pub fn archive(deployment: &Deployment, identity: &Identity) -> Result<Archive, Error> {
    let mut a = Archive::new();
    let fail = |e: liken_formats::cpio::Error| cli::failed(format!("packing the layer: {e}"));
    for dir in ["etc", "etc/liken", ROOT] {
        a.dir(dir, 0o755).map_err(fail)?;
    }
    a.file(
        &format!("{ROOT}/cluster.yaml"),
        0o644,
        deployment.cluster_bytes.clone(),
    )
    .map_err(fail)?;
    a.dir(&format!("{ROOT}/machines"), 0o755).map_err(fail)?;
    for (name, bytes) in &deployment.machines {
        a.file(
            &format!("{ROOT}/machines/{name}.yaml"),
            0o644,
            bytes.clone(),
        )
        .map_err(fail)?;
    }
    a.dir(&format!("{ROOT}/identity"), 0o700).map_err(fail)?;
    a.dir(&format!("{ROOT}/identity/etcd"), 0o700)
        .map_err(fail)?;
    for (rel, bytes, mode) in identity.files() {
        a.file(&format!("{ROOT}/identity/{rel}"), mode, bytes)
            .map_err(fail)?;
    }
    Ok(a)
}

/// Reads the manifests directory: cluster.yaml and the machine files.
fn read_manifests(dir: &Path) -> Result<(Source, Vec<Source>), Error> {
    let read = |path: &Path| -> Result<Source, Error> {
        let bytes =
            std::fs::read(path).map_err(|e| cli::failed(format!("{}: {e}", path.display())))?;
        Ok(Source {
            file: path.display().to_string(),
            bytes,
        })
    };
    let cluster_path = dir.join("cluster.yaml");
    if !cluster_path.is_file() {
        return Err(cli::failed(format!(
            "{} does not exist; give the directory that `liken new` wrote, which holds \
             cluster.yaml and one <name>.yaml per machine",
            cluster_path.display()
        )));
    }
    let cluster = read(&cluster_path)?;
    let entries =
        std::fs::read_dir(dir).map_err(|e| cli::failed(format!("{}: {e}", dir.display())))?;
    let mut paths = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| cli::failed(format!("{}: {e}", dir.display())))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') || !name.ends_with(".yaml") || name == "cluster.yaml" {
            continue;
        }
        let path = entry.path();
        if path.is_file() {
            paths.push(path);
        }
    }
    paths.sort();
    let machines = paths.iter().map(|p| read(p)).collect::<Result<_, _>>()?;
    Ok((cluster, machines))
}

/// `liken layer`.
pub fn run(args: &[OsString]) -> Result<(), Error> {
    let (_, [manifests, identity_dir, output]) = cli::parse_exact::<3>("layer", args, &[])?;
    let (cluster, machines) = read_manifests(&manifests)?;
    let checked = check(&cluster, &machines);
    let identity = Identity::load(&identity_dir).map_err(|e| e.to_string());
    let (deployment, identity) = match (checked, identity) {
        (Ok(d), Ok(i)) => (d, i),
        (d, i) => {
            let mut faults = d.err().unwrap_or_default();
            faults.extend(i.err());
            return Err(cli::failed(format!(
                "the deployment does not hold together; nothing was written:\n  {}",
                faults.join("\n  ")
            )));
        }
    };
    let bytes = archive(&deployment, &identity)?.to_bytes();
    liken_sys::atomic::write_mode(&output, &bytes, 0o644)
        .map_err(|e| cli::failed(format!("writing {}: {e}", output.display())))?;
    let leaders = &deployment.cluster.spec.leaders;
    let names: Vec<String> = deployment
        .machines
        .keys()
        .map(|n| {
            if leaders.contains(n) {
                format!("{n} (leader)")
            } else {
                n.clone()
            }
        })
        .collect();
    println!(
        "wrote {} ({} bytes): cluster {}, machines {}, and the identity in {}",
        output.display(),
        bytes.len(),
        deployment.cluster.metadata.name,
        names.join(", "),
        identity_dir.display()
    );
    println!("It holds the cluster's private keys: keep it as private as the identity directory.");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(file: &str, text: &str) -> Source {
        Source {
            file: file.to_owned(),
            bytes: text.as_bytes().to_vec(),
        }
    }

    fn cluster(extra: &str) -> Source {
        src(
            "d/cluster.yaml",
            &format!(
                "apiVersion: liken.sh/v1alpha1\nkind: Cluster\nmetadata:\n  name: home\nspec:\n{extra}"
            ),
        )
    }

    fn machine(file: &str, name: &str) -> Source {
        src(
            file,
            &format!("apiVersion: liken.sh/v1alpha1\nkind: Machine\nmetadata:\n  name: {name}\n"),
        )
    }

    fn faults(c: &Source, m: &[Source]) -> String {
        check(c, m).unwrap_err().join("\n")
    }

    #[test]
    fn one_leader_alone_needs_no_endpoint() {
        let d = check(
            &cluster("  leaders: [big]\n"),
            &[machine("d/big.yaml", "big")],
        )
        .unwrap();
        assert_eq!(d.machines.keys().collect::<Vec<_>>(), ["big"]);
    }

    #[test]
    fn a_leader_without_a_manifest_is_named() {
        let f = faults(
            &cluster("  leaders: [big, little]\n  endpoint: https://10.0.0.1:6443\n"),
            &[machine("d/big.yaml", "big")],
        );
        assert!(
            f.contains("spec.leaders[1]") && f.contains("little.yaml"),
            "{f}"
        );
    }

    #[test]
    fn file_names_must_match_and_a_machine_has_one_manifest() {
        let f = faults(
            &cluster("  leaders: [big]\n"),
            &[machine("d/big.yaml", "big"), machine("d/copy.yaml", "big")],
        );
        assert!(
            f.contains("d/copy.yaml") && f.contains("must be named big.yaml"),
            "{f}"
        );
        assert!(
            f.contains("has 2 manifests (d/big.yaml, d/copy.yaml)"),
            "{f}"
        );
    }

    #[test]
    fn followers_and_adoption_need_an_endpoint() {
        let f = faults(
            &cluster("  leaders: [big]\n"),
            &[
                machine("d/big.yaml", "big"),
                machine("d/little.yaml", "little"),
            ],
        );
        assert!(f.contains("spec.endpoint") && f.contains("join"), "{f}");
        let f = faults(
            &cluster("  origin: Adopted\n"),
            &[machine("d/big.yaml", "big")],
        );
        assert!(f.contains("Adopted cluster's machines"), "{f}");
        assert!(
            check(
                &cluster("  origin: Adopted\n  endpoint: https://192.168.1.10:6443\n"),
                &[machine("d/big.yaml", "big")]
            )
            .is_ok()
        );
    }

    #[test]
    fn a_founded_cluster_needs_a_leader_and_a_machine() {
        let f = faults(&cluster("  endpoint: https://10.0.0.1:6443\n"), &[]);
        assert!(f.contains("spec.leaders: is empty"), "{f}");
        assert!(f.contains("no machine manifest"), "{f}");
    }

    #[test]
    fn every_parse_fault_is_reported_with_its_file() {
        let bad_machine = src(
            "d/big.yaml",
            "apiVersion: liken.sh/v1alpha1\nkind: Machine\nmetadata:\n  name: big\nspec:\n  colour: red\n",
        );
        let f = faults(&cluster("  leaders: [big]\n  bogus: 1\n"), &[bad_machine]);
        assert!(f.contains("d/cluster.yaml") && f.contains("bogus"), "{f}");
        assert!(f.contains("d/big.yaml") && f.contains("colour"), "{f}");
    }
}
