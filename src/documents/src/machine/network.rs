//! spec.network: the interfaces a boot configures and the static
//! /etc/hosts entries the machine keeps.
//!
//! Interfaces are keyed by name and host entries by address, both in the
//! schema (list-type map, so the API server refuses a duplicate) and in
//! [`Network::validate`]. Every address and name is checked for shape only;
//! whether an interface exists is the boot's to find out.

use kube::KubeSchema;
use serde::{Deserialize, Serialize};

use crate::patterns::{ADDRESS, CIDR, HOSTNAME, INTERFACE};
use crate::validate::Checker;

/// The most names one host entry carries.
pub const MAX_HOST_NAMES: usize = 20;

/// The machine's network.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Network {
    /// The interfaces to configure, by kernel name. A cluster machine usually
    /// has two: a DHCP uplink, and the cluster-facing interface with the
    /// static address its peers know it by.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend(
        "x-kubernetes-list-type" = "map",
        "x-kubernetes-list-map-keys" = ["name"]
    ))]
    pub interfaces: Vec<Interface>,

    /// Extra /etc/hosts lines, one per address. They go below the lines for
    /// localhost and the machine's own name, so they add names but cannot
    /// override those. The hosts file is read before DNS, so these names
    /// resolve even while cluster DNS is down. Init writes them at boot and
    /// the operator again on every pass, so an edit needs no reboot.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(extend(
        "x-kubernetes-list-type" = "map",
        "x-kubernetes-list-map-keys" = ["address"]
    ))]
    pub host_entries: Vec<HostEntry>,
}

/// One interface to configure.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Interface {
    /// The kernel's name for the interface (eth1, enp3s0).
    #[schemars(regex(pattern = INTERFACE))]
    pub name: String,
    /// A static address with its prefix length (10.10.0.1/24). Left out, the
    /// interface asks DHCP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = CIDR))]
    pub address: Option<String>,
    /// Makes this address the default route. Optional even beside a static
    /// address, since another interface's DHCP lease may supply the route.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = ADDRESS))]
    pub gateway: Option<String>,
    /// Nameservers to use besides the ones a DHCP lease gives, first choice
    /// first. resolv.conf takes at most three, in interface order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(inner(regex(pattern = ADDRESS)))]
    pub nameservers: Vec<String>,
}

/// One /etc/hosts line.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HostEntry {
    /// The IPv4 or IPv6 address, with no prefix length, as the line will
    /// carry it.
    #[schemars(regex(pattern = ADDRESS))]
    pub address: String,
    /// One to twenty lowercase names for the address (nas, nas.home.arpa).
    /// DNS ignores case, so one spelling keeps the file plain.
    #[schemars(
        length(min = 1, max = MAX_HOST_NAMES),
        inner(regex(pattern = HOSTNAME), length(max = 253))
    )]
    #[schemars(extend("x-kubernetes-list-type" = "set"))]
    pub names: Vec<String>,
}

impl Network {
    /// Whether nothing is declared: the DHCP default.
    pub fn is_empty(&self) -> bool {
        self.interfaces.is_empty() && self.host_entries.is_empty()
    }

    /// The interface named `name`, if declared.
    pub fn interface(&self, name: &str) -> Option<&Interface> {
        self.interfaces.iter().find(|i| i.name == name)
    }

    pub(super) fn validate(&self, c: &mut Checker) {
        for (i, itf) in self.interfaces.iter().enumerate() {
            let field = format!("spec.network.interfaces[{i}]");
            c.pattern(
                &format!("{field}.name"),
                &itf.name,
                INTERFACE,
                "an interface name as the kernel gives it: at most 15 characters, no '/' or ':' (such as eth1)",
            );
            if self.interfaces[..i].iter().any(|e| e.name == itf.name) {
                c.fault(
                    format!("{field}.name"),
                    format!(
                        "{:?} is declared twice; keep one entry per interface",
                        itf.name
                    ),
                );
            }
            if let Some(a) = &itf.address {
                c.pattern(
                    &format!("{field}.address"),
                    a,
                    CIDR,
                    "an address with its prefix length, such as 10.10.0.1/24",
                );
            }
            if let Some(g) = &itf.gateway {
                c.pattern(
                    &format!("{field}.gateway"),
                    g,
                    ADDRESS,
                    "an address without a prefix length, such as 10.10.0.254",
                );
            }
            for (j, n) in itf.nameservers.iter().enumerate() {
                c.pattern(
                    &format!("{field}.nameservers[{j}]"),
                    n,
                    ADDRESS,
                    "a nameserver's address, such as 10.10.0.53",
                );
            }
        }
        for (i, e) in self.host_entries.iter().enumerate() {
            let field = format!("spec.network.hostEntries[{i}]");
            c.pattern(
                &format!("{field}.address"),
                &e.address,
                ADDRESS,
                "an address without a prefix length, such as 10.10.0.20",
            );
            if self.host_entries[..i]
                .iter()
                .any(|x| x.address == e.address)
            {
                c.fault(
                    format!("{field}.address"),
                    format!("{} has two entries; put all its names in one", e.address),
                );
            }
            c.check(
                !e.names.is_empty(),
                format!("{field}.names"),
                "is empty; give the address at least one name",
            );
            c.check(
                e.names.len() <= MAX_HOST_NAMES,
                format!("{field}.names"),
                format!(
                    "holds {} names; an entry has at most {MAX_HOST_NAMES}",
                    e.names.len()
                ),
            );
            for (j, n) in e.names.iter().enumerate() {
                let at = format!("{field}.names[{j}]");
                c.check(
                    n.len() <= 253 && crate::patterns::matches(HOSTNAME, n),
                    &at,
                    format!(
                        "{n:?} is not a lowercase host name: use a-z, 0-9, '-' and dots, such as nas.home.arpa"
                    ),
                );
                if e.names[..j].contains(n) {
                    c.fault(&at, format!("{n:?} is listed twice"));
                }
            }
        }
    }
}
