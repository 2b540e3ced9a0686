//! The kernel vocabularies of a Machine: sysctl names, resource limits and
//! module names.
//!
//! Each rule exists twice: as the CEL the CRD carries (the `*_rule`
//! functions, which the schema attributes call) and as the Rust check the
//! toolkit runs on a file (the `validate_*` functions), built from the same
//! pattern constants. Admission judges shape only: whether a sysctl or a
//! module exists is for the machine to find out, and it reports the answer
//! in status.

use std::collections::BTreeMap;
use std::fmt;

use kube::core::Rule;

use crate::patterns::{self, MODULE, RLIMIT, SYSCTL};
use crate::validate::Checker;

/// The resource names spec.rlimits accepts, as systemd's Limit directives
/// and /proc/<pid>/limits know them.
pub const RLIMITS: [&str; 7] = [
    "nofile", "nproc", "core", "memlock", "stack", "fsize", "nice",
];

/// The most sysctls a Machine declares; a bound the API server's rule cost
/// estimate needs, far above what any machine sets.
pub const MAX_SYSCTLS: usize = 256;
/// The longest sysctl name, and the longest value, a Machine declares.
pub const MAX_SYSCTL_LENGTH: usize = 256;
/// The longest resource limit: two 19-digit halves and a colon.
pub const MAX_RLIMIT_LENGTH: usize = 39;

/// One half of a resource limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Limit {
    /// A finite ceiling, in the resource's own unit.
    Value(u64),
    /// No ceiling (RLIM_INFINITY). Orders above every value.
    Infinity,
}

/// A resource limit as spec.rlimits and status.rlimits write it: one value
/// for both halves, or soft:hard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rlimit {
    /// The limit in force.
    pub soft: Limit,
    /// The ceiling the soft limit may be raised to.
    pub hard: Limit,
}

impl Rlimit {
    /// Reads `"N"`, `"infinity"` or `"soft:hard"`; None when `s` has another
    /// form. A soft half above the hard half parses: [`Rlimit::ordered`] says
    /// whether the kernel would take it.
    pub fn parse(s: &str) -> Option<Rlimit> {
        if !patterns::matches(RLIMIT, s) {
            return None;
        }
        let half = |h: &str| match h {
            "infinity" => Some(Limit::Infinity),
            digits => digits.parse().ok().map(Limit::Value),
        };
        match s.split_once(':') {
            Some((soft, hard)) => Some(Rlimit {
                soft: half(soft)?,
                hard: half(hard)?,
            }),
            None => {
                let both = half(s)?;
                Some(Rlimit {
                    soft: both,
                    hard: both,
                })
            }
        }
    }

    /// Whether the soft half is at most the hard half.
    pub fn ordered(&self) -> bool {
        self.soft <= self.hard
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Value(v) => write!(f, "{v}"),
            Limit::Infinity => f.write_str("infinity"),
        }
    }
}

impl fmt::Display for Rlimit {
    /// The shortest form that says the same: one half when both agree.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.soft == self.hard {
            write!(f, "{}", self.soft)
        } else {
            write!(f, "{}:{}", self.soft, self.hard)
        }
    }
}

fn cel_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    format!("[{}]", quoted.join(", "))
}

/// spec.sysctls: every name is dotted lowercase words.
pub fn sysctl_names_rule() -> Rule {
    Rule::new(format!(
        "self.all(k, size(k) <= {MAX_SYSCTL_LENGTH} && k.matches(r'{SYSCTL}'))"
    ))
    .message("a sysctl is named in dotted form, such as vm.max_map_count, and at most 256 characters long")
}

/// spec.sysctls: every value is one line of bounded length.
pub fn sysctl_values_rule() -> Rule {
    Rule::new(format!(
        "self.all(k, size(self[k]) <= {MAX_SYSCTL_LENGTH} && !self[k].contains('\\n'))"
    ))
    .message("a sysctl value is one line of at most 256 characters")
}

/// spec.rlimits: only the resources liken applies.
pub fn rlimit_names_rule() -> Rule {
    Rule::new(format!("self.all(k, k in {})", cel_list(&RLIMITS))).message(
        "a resource is one of nofile, nproc, core, memlock, stack, fsize and nice; liken sets no other",
    )
}

/// spec.rlimits: every value in one of the three forms.
pub fn rlimit_values_rule() -> Rule {
    Rule::new(format!("self.all(k, self[k].matches(r'{RLIMIT}'))")).message(
        "a resource limit is a number, \"infinity\", or \"soft:hard\" with each half a number or infinity, such as \"1024:1048576\"",
    )
}

/// spec.rlimits: a soft half never above its hard half. Values of another
/// form are left to [`rlimit_values_rule`]; 19 digits always fit uint().
pub fn rlimit_order_rule() -> Rule {
    Rule::new(format!(
        "self.all(k, !self[k].matches(r'{RLIMIT}') || !self[k].contains(':') || self[k].split(':')[1] == 'infinity' || (self[k].split(':')[0] != 'infinity' && uint(self[k].split(':')[0]) <= uint(self[k].split(':')[1])))"
    ))
    .message("a resource limit's soft half may not be above its hard half, since no process may pass its hard limit")
}

/// The Rust twin of the spec.sysctls rules.
pub(super) fn validate_sysctls(sysctls: &BTreeMap<String, String>, c: &mut Checker) {
    c.check(
        sysctls.len() <= MAX_SYSCTLS,
        "spec.sysctls",
        format!(
            "holds {} parameters; a Machine declares at most {MAX_SYSCTLS}",
            sysctls.len()
        ),
    );
    for (name, value) in sysctls {
        let field = format!("spec.sysctls[{name}]");
        c.check(
            name.len() <= MAX_SYSCTL_LENGTH && patterns::matches(SYSCTL, name),
            &field,
            format!(
                "{name:?} is not a sysctl name: write it in dotted form, such as vm.max_map_count"
            ),
        );
        c.check(
            value.len() <= MAX_SYSCTL_LENGTH && !value.contains('\n'),
            &field,
            format!("the value must be one line of at most {MAX_SYSCTL_LENGTH} characters"),
        );
    }
}

/// The Rust twin of the spec.rlimits rules.
pub(super) fn validate_rlimits(rlimits: &BTreeMap<String, String>, c: &mut Checker) {
    for (name, value) in rlimits {
        let field = format!("spec.rlimits[{name}]");
        if !RLIMITS.contains(&name.as_str()) {
            c.fault(
                &field,
                format!(
                    "liken sets no resource {name:?}; the resources are {}",
                    RLIMITS.join(", ")
                ),
            );
        }
        match Rlimit::parse(value) {
            None => c.fault(
                &field,
                format!(
                    "{value:?} is not a limit: write a number, \"infinity\", or \"soft:hard\" such as \"1024:1048576\""
                ),
            ),
            Some(limit) => c.check(
                limit.ordered(),
                &field,
                format!(
                    "soft limit {} is above hard limit {}; no process may pass its hard limit, so raise the hard half or lower the soft one",
                    limit.soft, limit.hard
                ),
            ),
        }
    }
}

/// The Rust twin of the spec.modules schema: the name's shape, and each name
/// once.
pub(super) fn validate_modules(modules: &[String], c: &mut Checker) {
    for (i, m) in modules.iter().enumerate() {
        let field = format!("spec.modules[{i}]");
        c.pattern(
            &field,
            m,
            MODULE,
            "a module name: letters, digits, '_' and '-', without .ko (such as i915)",
        );
        if modules[..i].contains(m) {
            c.fault(&field, format!("{m:?} is listed twice; keep one"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_read_in_the_three_forms() {
        assert_eq!(
            Rlimit::parse("1048576"),
            Some(Rlimit {
                soft: Limit::Value(1048576),
                hard: Limit::Value(1048576)
            })
        );
        assert_eq!(
            Rlimit::parse("infinity").map(|l| l.hard),
            Some(Limit::Infinity)
        );
        let l = Rlimit::parse("1024:infinity").unwrap();
        assert_eq!(l.soft, Limit::Value(1024));
        assert!(l.ordered());
        assert_eq!(l.to_string(), "1024:infinity");
        assert_eq!(Rlimit::parse("7:7").unwrap().to_string(), "7");
    }

    #[test]
    fn other_forms_are_not_limits() {
        for bad in [
            "",
            "unlimited",
            "-1",
            "1k",
            "1:2:3",
            ":5",
            "5:",
            " 5",
            "99999999999999999999",
        ] {
            assert_eq!(Rlimit::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn soft_above_hard_is_out_of_order() {
        assert!(!Rlimit::parse("10:5").unwrap().ordered());
        assert!(!Rlimit::parse("infinity:5").unwrap().ordered());
        assert!(Rlimit::parse("5:5").unwrap().ordered());
        assert!(
            Rlimit::parse("9999999999999999999:infinity")
                .unwrap()
                .ordered()
        );
    }
}
