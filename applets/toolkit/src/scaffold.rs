//! The files `liken new` writes, rendered from the answers: `cluster.yaml`,
//! one `<machine>.yaml` per machine, and a `.gitignore` that keeps the
//! identity and everything built from it out of version control.
//!
//! Every field set carries a comment saying what it means, and the optional
//! fields left at their defaults appear commented out with an example, so a
//! newcomer learns the documents by reading them. The disk layout is the
//! standard one ([`STANDARD_LAYOUT`]): about 20 GB on one disk, or the
//! system and cluster state on the first disk and pod storage on a second.
//! Rendering is pure; [`crate::new`] checks the result with the strict
//! parsers before any file is written.

/// What a newcomer told `liken new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answers {
    pub cluster: String,
    pub machines: Vec<MachineAnswers>,
    /// Founding leader first.
    pub leaders: Vec<String>,
    pub endpoint: Option<String>,
}

/// One machine's answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MachineAnswers {
    pub name: String,
    /// Interface name, and its static address/prefix (None: DHCP).
    pub interfaces: Vec<(String, Option<String>)>,
    /// Disk device paths; empty keeps every role in memory.
    pub disks: Vec<String>,
}

/// The standard layout on one disk, in partition order; the role without a
/// size takes the rest of the disk. 19 GiB are sized, so the disk needs
/// about 20 GB or more.
pub const STANDARD_LAYOUT: [(&str, Option<&str>); 7] = [
    ("systemA", Some("1Gi")),
    ("systemB", Some("1Gi")),
    ("machineState", Some("2Gi")),
    ("machineEphemeral", Some("1Gi")),
    ("clusterState", Some("10Gi")),
    ("podStorage", Some("4Gi")),
    ("podEphemeral", None),
];

/// What each storage role is for, as the manifest's comments say it.
fn role_comment(role: &str) -> &'static str {
    match role {
        "systemA" => "boot slot A: one whole liken release (FAT32; its size is fixed once claimed)",
        "systemB" => "boot slot B: an upgrade is written here while slot A runs",
        "machineState" => "liken's own durable state: staged and proven documents, downloads",
        "machineEphemeral" => "the operating system's scratch space (/tmp)",
        "clusterState" => {
            "k3s's datastore, certificates and images; it cannot grow later, so size it for your images"
        }
        "podStorage" => "the pool PersistentVolumeClaims are served from",
        "podEphemeral" => "the kubelet's working space: emptyDir volumes and pod logs",
        _ => "",
    }
}

/// A YAML scalar for `s`: plain when that cannot be misread, else quoted.
fn scalar(s: &str) -> String {
    let plain = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '/')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c))
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        );
    if plain {
        s.to_owned()
    } else {
        // The answers are checked ASCII; escaping the two specials makes a
        // YAML double-quoted scalar.
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

fn list(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|s| scalar(s)).collect();
    format!("[{}]", items.join(", "))
}

/// The address of `addr` without its prefix length.
pub fn host_of(addr: &str) -> &str {
    addr.split('/').next().unwrap_or(addr)
}

/// `cluster.yaml`.
pub fn cluster_yaml(a: &Answers) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "# The Cluster {name}: what every machine of this deployment shares. `liken layer`\n\
         # packs this file with the machine manifests beside it; once the cluster runs,\n\
         # change it with `kubectl edit cluster` and keep this copy in step.\n\
         apiVersion: liken.sh/v1alpha1   # the group and version of liken's documents\n\
         kind: Cluster                   # one document for the whole fleet\n\
         metadata:\n\
         \x20 # The cluster's name: kubeconfigs and `kubectl get clusters` show it.\n\
         \x20 name: {name}\n\
         spec:\n\
         \x20 # Founded: the founding leader creates the cluster's datastore. Adopted: the\n\
         \x20 # machines join a k3s cluster that already runs (see `liken adopt`).\n\
         \x20 origin: Founded\n\
         \x20 # The machines that run the control plane, by name, founding leader first.\n\
         \x20 # Every machine not named here is a follower.\n\
         \x20 leaders: {leaders}\n",
        name = scalar(&a.cluster),
        leaders = list(&a.leaders),
    ));
    s.push_str(
        "  # The URL the other machines join through: the founding leader's address on the\n\
         \x20 # node network (or a balancer in front of the leaders), port 6443. `liken\n\
         \x20 # kubeconfig` points kubectl at it too; -server overrides it for one workstation.\n",
    );
    match &a.endpoint {
        Some(e) => s.push_str(&format!("  endpoint: {}\n", scalar(e))),
        None => s.push_str(
            "  # A lone machine needs none; set it before you add a second machine.\n\
             \x20 # endpoint: https://10.10.0.1:6443\n",
        ),
    }
    s.push_str(
        "  # How many machines may be down at once while changes roll through the fleet.\n\
         \x20 # Leaders go one at a time whatever this says, so the datastore keeps quorum.\n\
         \x20 disruption:\n\
         \x20   maxUnavailable: 1\n\
         \x20 # The rest is optional; each commented line shows the shape of a field left at\n\
         \x20 # its default.\n\
         \x20 #\n\
         \x20 # The release the fleet runs, from the catalog of releases it trusts (each pinned\n\
         \x20 # by the sha256 of its release.yaml). An upgrade is an edit of version.\n\
         \x20 # version: \"2026.07.20-001\"\n\
         \x20 # releases:\n\
         \x20 #   source: https://releases.example\n\
         \x20 #   catalog:\n\
         \x20 #     - version: \"2026.07.20-001\"\n\
         \x20 #       digest: sha256:<64 hex digits>\n\
         \x20 # The address plan; an unset field keeps k3s's default, and a set one cannot\n\
         \x20 # change later. nodeCIDR picks the interface that carries cluster traffic.\n\
         \x20 # network:\n\
         \x20 #   nodeCIDR: 10.10.0.0/24\n\
         \x20 #   clusterCIDR: 10.42.0.0/16\n\
         \x20 #   serviceCIDR: 10.43.0.0/16\n\
         \x20 # Where the leaders take their time from; the others follow the leaders.\n\
         \x20 # time:\n\
         \x20 #   upstreams: [0.pool.ntp.org]\n\
         \x20 # Optional capabilities, by name: traefik, servicelb, metrics-server, helm,\n\
         \x20 # network-policy, iscsi, nfs and flux (which takes a repository to sync from).\n\
         \x20 # features:\n\
         \x20 #   metrics-server: {}\n\
         \x20 # Pull-through mirrors, and k3s's embedded peer-to-peer registry.\n\
         \x20 # registries:\n\
         \x20 #   mirrors:\n\
         \x20 #     docker.io: [https://mirror.example:5000]\n\
         \x20 #   embedded: true\n\
         \x20 # Settings for the k3s process, its kubelet and containerd.\n\
         \x20 # runtime:\n\
         \x20 #   containerd:\n\
         \x20 #     logLevel: warn\n",
    );
    s
}

/// `<name>.yaml` for one machine of the cluster.
pub fn machine_yaml(m: &MachineAnswers, leaders: &[String]) -> String {
    let role = match leaders.iter().position(|l| *l == m.name) {
        Some(0) => "the founding leader",
        Some(_) => "a leader",
        None => "a follower",
    };
    let mut s = format!(
        "# The Machine {name}: one computer of the cluster, {role}. The hardware\n\
         # report on the install stick proposes corrections to the network and storage\n\
         # below from what it finds.\n\
         apiVersion: liken.sh/v1alpha1\n\
         kind: Machine\n\
         metadata:\n\
         \x20 # The machine's hostname and node name; this file must be named {name}.yaml.\n\
         \x20 name: {name}\n\
         spec:\n\
         \x20 # Who starts a reboot that a staged change needs: Manual (the default) waits\n\
         \x20 # for `liken approve-reboot`; Auto goes ahead when the cluster gives it a turn.\n\
         \x20 rebootPolicy: Manual\n",
        name = scalar(&m.name),
    );
    s.push_str(
        "  # The network ports a boot sets up, by the kernel's names for them. A port with\n\
         \x20 # no address asks DHCP; a declared port with no cable delays every boot.\n\
         \x20 network:\n\
         \x20   interfaces:\n",
    );
    for (name, address) in &m.interfaces {
        s.push_str(&format!(
            "      - name: {}          # the kernel's name for the port\n",
            scalar(name)
        ));
        match address {
            Some(a) => s.push_str(&format!(
                "        address: {}   # a static address and its prefix length\n",
                scalar(a)
            )),
            None => {
                s.push_str("        # address: 10.10.0.2/24   # a static address; left out, DHCP\n")
            }
        }
        s.push_str(
            "        # gateway: 10.10.0.254    # makes this port the default route\n\
             \x20       # nameservers: [10.10.0.254]\n",
        );
    }
    s.push_str(
        "    # Extra /etc/hosts lines, read before DNS.\n\
         \x20   # hostEntries:\n\
         \x20   #   - address: 10.10.0.9\n\
         \x20   #     names: [nas]\n",
    );
    s.push_str(&storage(m));
    s.push_str(
        "  # Optional, shown with examples:\n\
         \x20 # Kernel parameters, applied at boot and kept while the machine runs.\n\
         \x20 # sysctls:\n\
         \x20 #   vm.max_map_count: \"524288\"\n\
         \x20 # Resource limits every process inherits (\"N\", \"infinity\" or \"soft:hard\").\n\
         \x20 # rlimits:\n\
         \x20 #   nofile: \"1048576\"\n\
         \x20 # Extra kernel modules to load, for the hardware your workloads use.\n\
         \x20 # modules: [i915]\n\
         \x20 # Labels and taints for this machine's Node.\n\
         \x20 # nodeLabels:\n\
         \x20 #   liken.sh/gpu: \"true\"\n\
         \x20 # nodeTaints:\n\
         \x20 #   - key: dedicated\n\
         \x20 #     value: builds\n\
         \x20 #     effect: NoSchedule\n",
    );
    s
}

fn storage(m: &MachineAnswers) -> String {
    let mut s = String::from(
        "  # Which disk holds each storage role, and how much of it. The installer claims\n\
         \x20 # only blank disks; a role without a size takes the rest of its disk. Sizes may\n\
         \x20 # grow later but never shrink. A role left out lives in memory.\n",
    );
    let Some(first) = m.disks.first() else {
        s.push_str(
            "  # No disk was given, so every role lives in memory and nothing survives a\n\
             \x20 # reboot. Declare a disk like this to keep the machine's state:\n\
             \x20 # storage:\n\
             \x20 #   systemA:\n\
             \x20 #     device: /dev/sda\n\
             \x20 #     size: 1Gi\n",
        );
        return s;
    };
    s.push_str(
        "  # This is the standard layout, for a machine that boots through UEFI. A BIOS\n\
         \x20 # machine also needs biosBoot and bootHome, first on the system disk:\n\
         \x20 storage:\n",
    );
    s.push_str(&format!(
        "    # biosBoot:           # GRUB's core image, a raw partition\n\
         \x20   #   device: {d}\n\
         \x20   #   size: 1Mi\n\
         \x20   # bootHome:           # GRUB's configuration and environment block\n\
         \x20   #   device: {d}\n\
         \x20   #   size: 64Mi\n",
        d = scalar(first)
    ));
    let second = m.disks.get(1);
    for (role, size) in STANDARD_LAYOUT {
        let (device, size) = match (second, role) {
            (Some(d), "podStorage") => (d, None),
            (Some(_), "podEphemeral") => (first, None),
            _ => (first, size),
        };
        s.push_str(&format!("    # {}\n", role_comment(role)));
        s.push_str(&format!("    {role}:\n      device: {}\n", scalar(device)));
        match size {
            Some(size) => s.push_str(&format!("      size: {size}\n")),
            None => s.push_str("      # no size: this role takes the rest of the disk\n"),
        }
    }
    s
}

/// `.gitignore`: the identity holds private keys, and the layer and the
/// stick image are built from it.
pub const GITIGNORE: &str = "# The identity holds the cluster's private keys and admin kubeconfig; the\n\
# layer and the install image are built from it. None of them belong in git.\n\
identity/\n\
*.cpio\n\
*.img\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_are_quoted_only_when_they_could_be_misread() {
        assert_eq!(scalar("big"), "big");
        assert_eq!(scalar("/dev/sda"), "/dev/sda");
        assert_eq!(scalar("10.10.0.1/24"), "\"10.10.0.1/24\"");
        assert_eq!(scalar("yes"), "\"yes\"");
        assert_eq!(scalar("https://10.0.0.1:6443"), "\"https://10.0.0.1:6443\"");
        assert_eq!(scalar("1node"), "\"1node\"");
    }
}
