//! The Cluster's rules in Rust: every CRD rule judged on one document
//! ([`Spec::validate`]), the transition rules judged on an edit
//! ([`ClusterSpec::validate_update`]), and the defaults the flux feature's
//! parameters take.

use std::collections::BTreeMap;

use super::{
    ClusterSpec, ClusterStatus, FEATURES, FLUX_PARAMETERS, MAX_CATALOG, MAX_LEADERS, Network,
    Origin, Runtime,
};
use crate::document::Spec;
use crate::patterns::{self, ADDRESS, CIDR, DIGEST, DURATION, HTTP_URL, HTTPS_URL, MEMORY_LIMIT};
use crate::validate::Checker;

impl ClusterSpec {
    /// The flux feature's parameters with their defaults filled in, or None
    /// when flux is not declared.
    pub fn flux(&self) -> Option<BTreeMap<String, String>> {
        let mut params = self.features.get("flux")?.clone();
        for (key, default) in [("path", "."), ("branch", "main"), ("prune", "true")] {
            params
                .entry(key.to_owned())
                .or_insert_with(|| default.to_owned());
        }
        Some(params)
    }

    /// Whether `machine` is one of the leaders.
    pub fn is_leader(&self, machine: &str) -> bool {
        self.leaders.iter().any(|l| l == machine)
    }

    /// The transition rules, judged on an edit from `old` to `self`.
    pub fn validate_update(&self, old: &ClusterSpec, c: &mut Checker) {
        let empty = Network::default();
        let (new_net, old_net) = (
            self.network.as_ref().unwrap_or(&empty),
            old.network.as_ref().unwrap_or(&empty),
        );
        let fields = [
            ("nodeCIDR", &new_net.node_cidr, &old_net.node_cidr),
            ("clusterCIDR", &new_net.cluster_cidr, &old_net.cluster_cidr),
            ("serviceCIDR", &new_net.service_cidr, &old_net.service_cidr),
            ("clusterDNS", &new_net.cluster_dns, &old_net.cluster_dns),
            (
                "clusterDomain",
                &new_net.cluster_domain,
                &old_net.cluster_domain,
            ),
        ];
        for (name, new, old) in fields {
            if let Some(old) = old {
                c.check(
                    new.as_ref() == Some(old),
                    format!("spec.network.{name}"),
                    format!("cannot change once set (it is {old:?}): k3s cannot renumber a running cluster"),
                );
            }
        }
        c.check(
            self.origin == old.origin
                || (old.origin == Origin::Adopted && self.origin == Origin::Founded),
            "spec.origin",
            "can only change from Adopted to Founded",
        );
    }
}

impl Spec for ClusterSpec {
    const KIND: &'static str = "Cluster";
    type Status = ClusterStatus;

    fn validate(&self, _status: Option<&ClusterStatus>, c: &mut Checker) {
        let catalog = self
            .releases
            .as_ref()
            .map(|r| r.catalog.as_slice())
            .unwrap_or(&[]);
        if let Some(v) = &self.version {
            c.check(
                catalog.iter().any(|e| &e.version == v),
                "spec.version",
                format!("{v} is not in spec.releases.catalog; add the release's catalog entry (version and digest) first"),
            );
        }
        c.check(
            self.leaders.len() <= MAX_LEADERS,
            "spec.leaders",
            format!(
                "lists {} machines; at most {MAX_LEADERS}",
                self.leaders.len()
            ),
        );
        c.check(
            catalog.len() <= MAX_CATALOG,
            "spec.releases.catalog",
            format!(
                "holds {} entries; at most {MAX_CATALOG}: drop old releases",
                catalog.len()
            ),
        );
        c.check(
            self.features.len() <= 16,
            "spec.features",
            "declares more than 16 features",
        );
        if let Some(r) = &self.releases {
            if let Some(source) = &r.source {
                c.pattern(
                    "spec.releases.source",
                    source,
                    HTTP_URL,
                    "an http:// or https:// URL",
                );
            }
            for (i, e) in r.catalog.iter().enumerate() {
                c.pattern(
                    &format!("spec.releases.catalog[{i}].digest"),
                    &e.digest,
                    DIGEST,
                    "sha256: and 64 lowercase hex digits",
                );
                if r.catalog[..i].iter().any(|x| x.version == e.version) {
                    c.fault(
                        format!("spec.releases.catalog[{i}].version"),
                        format!("{} is listed twice; keep one entry per release", e.version),
                    );
                }
            }
        }
        for (i, l) in self.leaders.iter().enumerate() {
            c.check(
                liken_api::meta::valid_name(l),
                format!("spec.leaders[{i}]"),
                format!("{l:?} is not a Machine name"),
            );
            if self.leaders[..i].contains(l) {
                c.fault(
                    format!("spec.leaders[{i}]"),
                    format!("{l:?} is listed twice"),
                );
            }
        }
        if let Some(e) = &self.endpoint {
            c.pattern(
                "spec.endpoint",
                e,
                HTTPS_URL,
                "an https:// URL such as https://10.10.0.1:6443",
            );
        }
        if let Some(n) = &self.network {
            for (name, value) in [
                ("nodeCIDR", &n.node_cidr),
                ("clusterCIDR", &n.cluster_cidr),
                ("serviceCIDR", &n.service_cidr),
            ] {
                if let Some(v) = value {
                    c.pattern(
                        &format!("spec.network.{name}"),
                        v,
                        CIDR,
                        "a subnet in CIDR form such as 10.10.0.0/24",
                    );
                }
            }
            if let Some(v) = &n.cluster_dns {
                c.pattern(
                    "spec.network.clusterDNS",
                    v,
                    ADDRESS,
                    "an address such as 10.43.0.10",
                );
            }
            for (i, v) in n.node_port_cidrs.iter().flatten().enumerate() {
                c.pattern(
                    &format!("spec.network.nodePortCIDRs[{i}]"),
                    v,
                    CIDR,
                    "a subnet in CIDR form",
                );
            }
        }
        c.check(
            self.disruption.max_unavailable >= 1,
            "spec.disruption.maxUnavailable",
            "must be at least 1",
        );
        self.validate_features(c);
        if let Some(r) = &self.registries {
            for (host, endpoints) in &r.mirrors {
                for (i, e) in endpoints.iter().enumerate() {
                    c.pattern(
                        &format!("spec.registries.mirrors[{host}][{i}]"),
                        e,
                        HTTP_URL,
                        "an http:// or https:// URL",
                    );
                }
            }
        }
        if let Some(rt) = &self.runtime {
            validate_runtime(rt, c);
        }
    }
}

impl ClusterSpec {
    fn validate_features(&self, c: &mut Checker) {
        for (name, params) in &self.features {
            let field = format!("spec.features.{name}");
            if !FEATURES.contains(&name.as_str()) {
                c.fault(
                    &field,
                    format!(
                        "liken has no feature {name:?}; the features are {}",
                        FEATURES.join(", ")
                    ),
                );
                continue;
            }
            if name != "flux" {
                c.check(params.is_empty(), &field, "takes no parameters; write {}");
                continue;
            }
            c.check(
                params.get("repository").is_some_and(|r| !r.is_empty()),
                format!("{field}.repository"),
                "is required: the git URL the fleet syncs from, such as ssh://git@forge.example/fleet.git",
            );
            for key in params.keys() {
                c.check(
                    FLUX_PARAMETERS.contains(&key.as_str()),
                    format!("{field}.{key}"),
                    format!(
                        "is not a flux parameter; flux takes {}",
                        FLUX_PARAMETERS.join(", ")
                    ),
                );
            }
            if let Some(p) = params.get("prune") {
                c.check(
                    p == "true" || p == "false",
                    format!("{field}.prune"),
                    format!("is {p:?}; write \"true\" or \"false\""),
                );
            }
        }
    }
}

fn validate_runtime(rt: &Runtime, c: &mut Checker) {
    if let Some(k) = &rt.k3s {
        if let Some(limit) = &k.go_memory_limit {
            c.pattern(
                "spec.runtime.k3s.goMemoryLimit",
                limit,
                MEMORY_LIMIT,
                "\"off\", a percent such as \"25%\", or a quantity such as \"448Mi\"",
            );
            if let Some(pct) = limit.strip_suffix('%') {
                let n: u32 = pct.parse().unwrap_or(0);
                c.check(
                    (1..=100).contains(&n),
                    "spec.runtime.k3s.goMemoryLimit",
                    "a percent is between 1% and 100%",
                );
            }
        }
        if let Some(gc) = k.go_gc {
            c.check(
                gc >= 1,
                "spec.runtime.k3s.goGC",
                format!("is {gc}; it must be at least 1, or the collector would never rest"),
            );
        }
    }
    if let Some(gc) = rt.kubelet.as_ref().and_then(|k| k.image_gc.as_ref()) {
        let base = "spec.runtime.kubelet.imageGC";
        for (name, v) in [
            ("highThresholdPercent", gc.high_threshold_percent),
            ("lowThresholdPercent", gc.low_threshold_percent),
        ] {
            if let Some(v) = v {
                c.check(
                    (0..=100).contains(&v),
                    format!("{base}.{name}"),
                    format!("is {v}; a percent is between 0 and 100"),
                );
            }
        }
        let (low, high) = (
            gc.low_threshold_percent.unwrap_or(80),
            gc.high_threshold_percent.unwrap_or(85),
        );
        c.check(
            low < high,
            format!("{base}.lowThresholdPercent"),
            format!("is {low}, not below highThresholdPercent {high}"),
        );
        let mut durations = [None, None];
        for (i, (name, v)) in [
            ("maximumAge", &gc.maximum_age),
            ("minimumAge", &gc.minimum_age),
        ]
        .into_iter()
        .enumerate()
        {
            if let Some(v) = v {
                durations[i] = go_duration_nanos(v);
                c.check(
                    durations[i].is_some(),
                    format!("{base}.{name}"),
                    format!("{v:?} is not a Go duration such as \"168h\" or \"5m\""),
                );
            }
        }
        if let Some(max) = durations[0] {
            let min = durations[1].unwrap_or(120_000_000_000);
            c.check(
                max > min,
                format!("{base}.maximumAge"),
                "must be longer than minimumAge (default 2m)",
            );
        }
    }
}

/// A Go duration ("1h30m", "1.5s") in nanoseconds, as the kubelet reads it.
pub fn go_duration_nanos(s: &str) -> Option<u128> {
    if !patterns::matches(DURATION, s) {
        return None;
    }
    let mut total: f64 = 0.0;
    let mut rest = s;
    while !rest.is_empty() {
        let num_end = rest.find(|c: char| !c.is_ascii_digit() && c != '.')?;
        let (num, tail) = rest.split_at(num_end);
        let unit_end = tail
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(tail.len());
        let (unit, tail) = tail.split_at(unit_end);
        let scale = match unit {
            "ns" => 1.0,
            "us" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        total += num.parse::<f64>().ok()? * scale;
        rest = tail;
    }
    Some(total as u128)
}
