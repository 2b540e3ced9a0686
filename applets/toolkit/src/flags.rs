//! The toolkit's flag parser: the manual's Go-style single-dash flags.
//!
//! A command declares the flags it takes ([`Flag`]); [`parse`] reads them
//! from the front of its arguments, in any of the forms `-name value`,
//! `-name=value`, `--name value` and `--name=value` (a switch takes no
//! value: `-name`), and stops at the first argument that is not a flag, or
//! after `--`, so everything from there on is positional and passes through
//! untouched (`liken kubectl -server URL dir get pods -A` gives kubectl its
//! own `-A`). A lone `-` is positional. An unknown flag, a missing value, or
//! `-h`/`-help` is an [`Error::Usage`] carrying the command's usage line.
//! A flag given twice keeps every value, in order; [`Parsed::value`] reads
//! the last, as Go's flag package does, and [`Parsed::values`] reads them
//! all for a repeatable flag.

use std::ffi::{OsStr, OsString};

use crate::Error;

/// One flag a command accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flag {
    /// Without dashes: `digest`, `slot-size`.
    pub name: &'static str,
    /// Whether it takes a value (`-digest sha256:...`) or is a switch.
    pub takes_value: bool,
}

impl Flag {
    pub const fn value(name: &'static str) -> Self {
        Flag {
            name,
            takes_value: true,
        }
    }

    pub const fn switch(name: &'static str) -> Self {
        Flag {
            name,
            takes_value: false,
        }
    }
}

/// The flags found, and the arguments after them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    found: Vec<(&'static str, OsString)>,
    pub positionals: Vec<OsString>,
}

impl Parsed {
    /// The last value given for `name`.
    pub fn value(&self, name: &str) -> Option<&OsStr> {
        self.found
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_os_str())
    }

    /// The last value of `name` as text; a value that is not UTF-8 is a
    /// usage error.
    pub fn text(&self, name: &str, usage: &str) -> Result<Option<&str>, Error> {
        self.value(name)
            .map(|v| {
                v.to_str().ok_or_else(|| {
                    Error::Usage(format!("-{name} must be text\nusage: liken {usage}"))
                })
            })
            .transpose()
    }

    /// Every value given for `name`, in order.
    pub fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a OsStr> + 'a {
        self.found
            .iter()
            .filter(move |(n, _)| *n == name)
            .map(|(_, v)| v.as_os_str())
    }

    /// Whether the switch (or flag) `name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.found.iter().any(|(n, _)| *n == name)
    }
}

/// Reads `flags` from the front of `args`. `usage` is the command's
/// synopsis after `liken ` (as in the command table), shown on a mistake.
pub fn parse(args: &[OsString], flags: &[Flag], usage: &str) -> Result<Parsed, Error> {
    let usage_error = |problem: String| Error::Usage(format!("{problem}\nusage: liken {usage}"));
    let mut parsed = Parsed::default();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let Some(text) = arg.to_str() else {
            // Not UTF-8, so not one of our flags: the positionals start here.
            parsed.positionals.push(arg.clone());
            break;
        };
        if text == "--" {
            break;
        }
        let body = match text.strip_prefix("--").or_else(|| text.strip_prefix('-')) {
            Some(b) if !b.is_empty() => b,
            _ => {
                parsed.positionals.push(arg.clone());
                break;
            }
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (body, None),
        };
        if matches!(name, "h" | "help") {
            return Err(usage_error("usage asked for".to_owned()));
        }
        let Some(flag) = flags.iter().find(|f| f.name == name) else {
            return Err(usage_error(format!("unknown flag -{name}")));
        };
        let value = match (flag.takes_value, inline) {
            (true, Some(v)) => OsString::from(v),
            (true, None) => rest
                .next()
                .cloned()
                .ok_or_else(|| usage_error(format!("flag -{name} needs a value")))?,
            (false, None) => OsString::from("true"),
            (false, Some(v @ ("true" | "false"))) => OsString::from(v),
            (false, Some(_)) => {
                return Err(usage_error(format!("flag -{name} takes no value")));
            }
        };
        if !flag.takes_value && value == "false" {
            continue;
        }
        parsed.found.push((flag.name, value));
    }
    parsed.positionals.extend(rest.cloned());
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLAGS: &[Flag] = &[
        Flag::value("digest"),
        Flag::value("console"),
        Flag::switch("v"),
    ];
    const USAGE: &str = "fetch [-digest sha256:<hex>] <source-url> <version|latest> <channel-dir>";

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    fn pos(p: &Parsed) -> Vec<&str> {
        p.positionals.iter().map(|s| s.to_str().unwrap()).collect()
    }

    #[test]
    fn every_spelling_of_a_value() {
        for form in [
            &["-digest", "D", "a"][..],
            &["-digest=D", "a"],
            &["--digest", "D", "a"],
            &["--digest=D", "a"],
        ] {
            let p = parse(&args(form), FLAGS, USAGE).unwrap();
            assert_eq!(p.value("digest").unwrap(), "D", "{form:?}");
            assert_eq!(pos(&p), ["a"]);
        }
    }

    #[test]
    fn flags_stop_at_the_first_positional_or_double_dash() {
        let p = parse(&args(&["-v", "dir", "-digest", "x"]), FLAGS, USAGE).unwrap();
        assert!(p.has("v"));
        assert_eq!(pos(&p), ["dir", "-digest", "x"]);
        let p = parse(&args(&["--", "-digest"]), FLAGS, USAGE).unwrap();
        assert_eq!(pos(&p), ["-digest"]);
        let p = parse(&args(&["-", "x"]), FLAGS, USAGE).unwrap();
        assert_eq!(pos(&p), ["-", "x"]);
        let p = parse(&args(&["-v=false", "x"]), FLAGS, USAGE).unwrap();
        assert!(!p.has("v"));
    }

    #[test]
    fn repeats_keep_every_value_and_the_last_wins() {
        let p = parse(
            &args(&["-console", "ttyS0", "-console=tty0", "x"]),
            FLAGS,
            USAGE,
        )
        .unwrap();
        let all: Vec<&OsStr> = p.values("console").collect();
        assert_eq!(all, ["ttyS0", "tty0"]);
        assert_eq!(p.value("console").unwrap(), "tty0");
    }

    #[test]
    fn mistakes_are_usage_errors_with_the_usage_line() {
        for (bad, says) in [
            (&["-server", "x"][..], "unknown flag -server"),
            (&["-digest"], "needs a value"),
            (&["-v=yes"], "takes no value"),
            (&["-help"], "usage asked for"),
        ] {
            match parse(&args(bad), FLAGS, USAGE) {
                Err(Error::Usage(m)) => {
                    assert!(m.contains(says), "{m}");
                    assert!(m.contains(&format!("usage: liken {USAGE}")), "{m}");
                }
                other => panic!("{bad:?}: {other:?}"),
            }
        }
    }
}
