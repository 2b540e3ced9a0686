//! Plugins: the command-line tools that liken's optional operators ship as
//! `kubectl-liken-<domain>` (so `kubectl liken audio ...` reaches one
//! through kubectl's own plugin rule), and the toolkit's side of them.
//!
//! - The walk: a first word that names no command but is a domain
//!   (lowercase letters, digits and '-') whose tool is found, on `PATH`
//!   first and then in the plugin directory `~/.liken/plugins/bin`, replaces
//!   this process with that tool and the remaining arguments; `liken audio
//!   capture` runs `kubectl-liken-audio capture`, under either of liken's
//!   names. No tool: the word is an unknown command as before.
//! - `plugins list [-server URL] [<deployment-dir>]`: each tool installed in
//!   the plugin directory with the version it reports (`--version`); given a
//!   deployment, also the version of each domain's operator in the cluster
//!   (the Deployments and DaemonSets labelled `liken.sh/plugin=<domain>`,
//!   versioned by their first container's image tag), marking drift and
//!   operators whose tool is missing.
//! - `plugins remove <domain>`: deletes one installed tool.
//! - `plugins sync`: installing the tools from the operators' images needs
//!   a registry client this toolkit does not have yet; it says so and does
//!   nothing.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

use crate::Error;
use crate::cli;

/// The domains of liken's own optional operators, offered by completion
/// whether or not their tools are installed.
pub const KNOWN_DOMAINS: [&str; 5] = ["audio", "bluetooth", "display", "library", "media"];

/// The label that marks an operator workload with its plugin domain.
pub const DOMAIN_LABEL: &str = "liken.sh/plugin";

/// The tool's file name for `domain`.
pub fn tool_name(domain: &str) -> String {
    format!("kubectl-liken-{domain}")
}

/// Whether `word` can be a domain.
pub fn valid_domain(word: &str) -> bool {
    let b = word.as_bytes();
    !b.is_empty()
        && b.len() <= 63
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// `~/.liken/plugins/bin`.
pub fn plugin_dir() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".liken/plugins/bin"))
}

/// The domains whose tools are in the plugin directory, sorted.
pub fn installed() -> Vec<String> {
    let Some(dir) = plugin_dir() else {
        return Vec::new();
    };
    let mut found: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let domain = name.strip_prefix("kubectl-liken-")?.to_owned();
            (valid_domain(&domain) && crate::passthrough::is_executable(&e.path()))
                .then_some(domain)
        })
        .collect();
    found.sort();
    found
}

/// The known domains and the installed ones.
pub fn domains() -> Vec<String> {
    let mut all: Vec<String> = KNOWN_DOMAINS.iter().map(|d| d.to_string()).collect();
    all.extend(installed());
    all.sort();
    all.dedup();
    all
}

/// Where the tool for `domain` is: PATH first, then the plugin directory.
pub fn find(domain: &str) -> Option<PathBuf> {
    let name = tool_name(domain);
    crate::passthrough::find_on_path(&name, std::env::var_os("PATH").as_deref()).or_else(|| {
        plugin_dir()
            .map(|d| d.join(&name))
            .filter(|p| crate::passthrough::is_executable(p))
    })
}

/// Runs the tool for `word` with `rest` in place of this process, when
/// `word` is a domain with a tool; None otherwise.
pub fn walk(word: &str, rest: &[OsString]) -> Option<Error> {
    if !valid_domain(word) {
        return None;
    }
    let path = find(word)?;
    let error = Command::new(&path).arg0(tool_name(word)).args(rest).exec();
    Some(cli::failed(format!("running {}: {error}", path.display())))
}

/// The version a tool reports for `--version`, if it answers.
fn tool_version(domain: &str) -> Option<String> {
    let path = plugin_dir()?.join(tool_name(domain));
    let out = Command::new(path).arg("--version").output().ok()?;
    let v = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (out.status.success() && !v.is_empty()).then_some(v)
}

/// The version an image reference carries: its tag.
pub fn image_version(image: &str) -> Option<&str> {
    let last = image.rsplit('/').next()?;
    let last = last.split('@').next()?;
    last.split_once(':')
        .map(|(_, tag)| tag)
        .filter(|t| !t.is_empty())
}

/// One row of `plugins list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub domain: String,
    /// None: not installed. Some(None): installed, no version reported.
    pub tool: Option<Option<String>>,
    pub operator: Option<String>,
}

/// Joins what is installed with what the cluster runs.
pub fn rows(
    tools: &BTreeMap<String, Option<String>>,
    operators: &BTreeMap<String, String>,
) -> Vec<Row> {
    let mut domains: Vec<&String> = tools.keys().chain(operators.keys()).collect();
    domains.sort();
    domains.dedup();
    domains
        .into_iter()
        .map(|d| Row {
            domain: d.clone(),
            tool: tools.get(d).cloned(),
            operator: operators.get(d).cloned(),
        })
        .collect()
}

/// The table `plugins list` prints.
pub fn render(rows: &[Row], with_cluster: bool) -> String {
    if rows.is_empty() {
        return "no plugins are installed, and none are known to this cluster\n".to_owned();
    }
    let mut out = String::new();
    for r in rows {
        let tool = match &r.tool {
            None => "not installed".to_owned(),
            Some(None) => "installed, no version".to_owned(),
            Some(Some(v)) => v.clone(),
        };
        let mut line = format!("{:<28} {tool}", tool_name(&r.domain));
        if with_cluster {
            match (&r.tool, &r.operator) {
                (_, None) => line.push_str("  (no operator in the cluster)"),
                (Some(Some(v)), Some(op)) if v == op => line.push_str(&format!("  operator {op}")),
                (None, Some(op)) => {
                    line.push_str(&format!("  operator {op}: run `liken plugins sync`"))
                }
                (_, Some(op)) => line.push_str(&format!(
                    "  operator {op}: DRIFT, the tool and its operator differ"
                )),
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn list(args: &[OsString]) -> Result<(), Error> {
    let parsed = crate::flags::parse(args, &[cli::SERVER], cli::synopsis("plugins"))?;
    let server = cli::server("plugins", &parsed)?;
    let tools: BTreeMap<String, Option<String>> = installed()
        .into_iter()
        .map(|d| {
            let v = tool_version(&d);
            (d, v)
        })
        .collect();
    let (operators, with_cluster) = match parsed.positionals.as_slice() {
        [] => (BTreeMap::new(), false),
        [dir] => {
            let session = crate::cluster::Session::open(&PathBuf::from(dir), server.as_deref())?;
            (session.plugin_operators()?, true)
        }
        _ => {
            return Err(cli::usage(
                "plugins",
                "plugins list takes at most a deployment directory",
            ));
        }
    };
    print!("{}", render(&rows(&tools, &operators), with_cluster));
    Ok(())
}

fn remove(args: &[OsString]) -> Result<(), Error> {
    let (_, [domain]) = cli::parse_exact::<1>("plugins", args, &[])?;
    let domain = domain.to_string_lossy();
    if !valid_domain(&domain) {
        return Err(cli::usage(
            "plugins",
            &format!("{domain:?} is not a plugin domain"),
        ));
    }
    let dir = plugin_dir()
        .ok_or_else(|| cli::failed("HOME is not set, so there is no plugin directory"))?;
    let path = dir.join(tool_name(&domain));
    match std::fs::remove_file(&path) {
        Ok(()) => {
            println!("removed {}", path.display());
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(cli::failed(format!(
            "{} is not installed in {}; `liken plugins list` shows what is",
            tool_name(&domain),
            dir.display()
        ))),
        Err(e) => Err(cli::failed(format!("removing {}: {e}", path.display()))),
    }
}

/// `liken plugins`.
pub fn run(args: &[OsString]) -> Result<(), Error> {
    let Some((sub, rest)) = args.split_first() else {
        return Err(cli::usage("plugins", "name sync, list or remove"));
    };
    match sub.to_str() {
        Some("list") => list(rest),
        Some("remove") => remove(rest),
        Some("sync") => Err(Error::NotBuilt("plugins sync")),
        _ => Err(cli::usage(
            "plugins",
            &format!("{:?} is not sync, list or remove", sub.to_string_lossy()),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_and_image_versions() {
        assert!(valid_domain("audio") && valid_domain("hi-fi2"));
        for bad in ["", "Audio", "-x", "x-", "a_b", "a/b", "__complete"] {
            assert!(!valid_domain(bad), "{bad}");
        }
        assert_eq!(
            image_version("reg.example:5000/liken/audio:2026.07.20-001"),
            Some("2026.07.20-001")
        );
        assert_eq!(image_version("audio:1@sha256:abc"), Some("1"));
        assert_eq!(image_version("reg.example:5000/audio"), None);
    }

    #[test]
    fn the_list_marks_drift_and_missing_tools() {
        let tools: BTreeMap<String, Option<String>> = [
            ("audio".to_owned(), Some("1.0".to_owned())),
            ("display".to_owned(), Some("1.0".to_owned())),
            ("media".to_owned(), None),
        ]
        .into();
        let operators: BTreeMap<String, String> = [
            ("audio".to_owned(), "1.0".to_owned()),
            ("display".to_owned(), "2.0".to_owned()),
            ("library".to_owned(), "3.0".to_owned()),
        ]
        .into();
        let table = render(&rows(&tools, &operators), true);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        assert!(lines[0].starts_with("kubectl-liken-audio") && lines[0].ends_with("operator 1.0"));
        assert!(lines[1].contains("DRIFT"), "{table}");
        assert!(
            lines[2].contains("not installed") && lines[2].contains("plugins sync"),
            "{table}"
        );
        assert!(
            lines[3].contains("no version") && lines[3].contains("no operator"),
            "{table}"
        );
        let local = render(&rows(&tools, &BTreeMap::new()), false);
        assert!(!local.contains("operator"), "{local}");
    }
}
