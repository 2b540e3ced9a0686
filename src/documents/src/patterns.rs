//! The string patterns the CRDs enforce, in one place: the schema attributes
//! and the Rust validation both read these constants, so the two cannot
//! drift apart.

use std::sync::LazyLock;

use regex::Regex;

pub use liken_api::condition::{REASON_PATTERN, TYPE_PATTERN};
pub use liken_api::version::PATTERN as VERSION;

/// `sha256:` and 64 lowercase hex digits.
pub const DIGEST: &str = r"^sha256:[0-9a-f]{64}$";
/// A subnet in CIDR form (IPv4 or IPv6).
pub const CIDR: &str = r"^[0-9a-fA-F:.]+/[0-9]{1,3}$";
/// An address literal without a prefix length.
pub const ADDRESS: &str = r"^[0-9a-fA-F:.]+$";
/// The cluster's join URL.
pub const HTTPS_URL: &str = r"^https://.+$";
/// A release channel's base URL.
pub const HTTP_URL: &str = r"^https?://.+$";
/// A binary quantity: bytes, or Ki/Mi/Gi/Ti.
pub const QUANTITY: &str = r"^[0-9]+(Ki|Mi|Gi|Ti)?$";
/// goMemoryLimit: off, a percent of the machine's memory, or a quantity.
pub const MEMORY_LIMIT: &str = r"^(off|[0-9]{1,3}%|[0-9]+(Ki|Mi|Gi|Ti)?)$";
/// A Go duration, as the kubelet reads it.
pub const DURATION: &str =
    r"^[0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h)([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))*$";
/// A device path or a stable name under /dev/disk.
pub const DEVICE: &str = r"^/dev/[a-zA-Z0-9/_.:=+#@-]+$";
/// A taint or label key: optional DNS prefix and slash, then a name.
pub const QUALIFIED_KEY: &str = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$";
/// A label or taint value (may be empty).
pub const LABEL_VALUE: &str = r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$";
/// A lowercase host name (RFC 1123).
pub const HOSTNAME: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
/// A kernel module name.
pub const MODULE: &str = r"^[A-Za-z0-9_-]+$";
/// A sysctl parameter name in dotted form.
pub const SYSCTL: &str = r"^[a-z0-9_]+(\.[A-Za-z0-9_-]+)+$";
/// A network interface name: at most 15 printable ASCII bytes (IFNAMSIZ),
/// none a slash or colon (which the kernel refuses), starting with a letter
/// or digit (which also rules out "." and "..").
pub const INTERFACE: &str = r"^[A-Za-z0-9][!-.0-9;-~]{0,14}$";
/// A resource limit: both halves alike, or soft:hard; each half a number of
/// at most 19 digits (so it fits in 64 bits) or infinity.
pub const RLIMIT: &str = r"^([0-9]{1,19}|infinity)(:([0-9]{1,19}|infinity))?$";

/// Whether `value` matches `pattern` (one of the constants above).
pub fn matches(pattern: &'static str, value: &str) -> bool {
    static CACHE: LazyLock<std::sync::Mutex<Vec<(&'static str, Regex)>>> =
        LazyLock::new(Default::default);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, re)) = cache
        .iter()
        .find(|(p, _)| std::ptr::eq(*p, pattern) || *p == pattern)
    {
        return re.is_match(value);
    }
    // The patterns are constants of this module; a bad one is a build bug
    // that the tests below catch.
    let re = Regex::new(pattern).expect("pattern constants compile");
    let hit = re.is_match(value);
    cache.push((pattern, re));
    hit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles_and_discriminates() {
        let cases: &[(&str, &str, &str)] = &[
            (DIGEST, &format!("sha256:{}", "a".repeat(64)), "sha256:ABC"),
            (CIDR, "10.10.0.0/24", "10.10.0.0"),
            (ADDRESS, "fd00::1", "10.0.0.1/8"),
            (HTTPS_URL, "https://10.0.0.1:6443", "http://x"),
            (HTTP_URL, "http://releases.example/", "ftp://x"),
            (QUANTITY, "20Gi", "20G"),
            (MEMORY_LIMIT, "25%", "25 %"),
            (DURATION, "1h30m", "1d"),
            (DEVICE, "/dev/disk/by-id/nvme-X_1", "vda"),
            (QUALIFIED_KEY, "liken.sh/gpu", "-bad"),
            (LABEL_VALUE, "", "bad value"),
            (HOSTNAME, "nas.home.arpa", "NAS"),
            (MODULE, "e1000e", "e1000e.ko"),
            (SYSCTL, "vm.overcommit_memory", "vm"),
            (INTERFACE, "enp0s31f6", "eth0:1"),
            (RLIMIT, "1024:infinity", "unlimited"),
            (VERSION, "2026.07.20-001", "2026.7.20-1"),
            (REASON_PATTERN, "AllMachinesReady", "all ready"),
            (TYPE_PATTERN, "Ready", "not ready"),
        ];
        for (pattern, good, bad) in cases {
            assert!(matches(pattern, good), "{pattern} should match {good}");
            assert!(!matches(pattern, bad), "{pattern} should refuse {bad}");
        }
    }
}
