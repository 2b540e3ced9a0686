//! `liken new <directory>`: start a deployment by answering a few plain
//! questions, and get a directory of commented manifests
//! ([`crate::scaffold`]).
//!
//! The questions, in this order (each shows the answer Enter takes):
//! 1. the cluster's name (the directory's name when that is a valid name);
//! 2. the machines' names, separated by spaces or commas (one machine);
//! 3. the leaders, founding leader first (the first machine);
//! 4. for each machine: its network ports (`eth0`), then for each port a
//!    static address/prefix or `dhcp` (`dhcp`), then its disks: the first
//!    holds the standard layout, a second holds pod storage, `none` keeps
//!    everything in memory (`/dev/sda`);
//! 5. the endpoint the machines join through (`https://<founding leader's
//!    address>:6443` when it has a static one; needed unless the cluster is
//!    one machine).
//!
//! Answers come from flags first: `-cluster NAME`, `-machines "a b"`,
//! `-leaders "a"`, `-endpoint URL`, `-interfaces [machine=]eth0,eth1`,
//! `-address machine=10.10.0.1/24` (the machine's first port; its other
//! ports take DHCP), `-disks [machine=]/dev/sda,/dev/sdb` (the repeatable
//! ones without `machine=` apply to every machine), and `-yes`, which takes
//! the default for everything else. What the flags leave open is asked: on a
//! terminal, with a prompt, asking again after an answer that does not hold;
//! otherwise read from standard input one answer per line in the order
//! above, where an empty line or the end of input takes the default and an
//! answer that does not hold fails the command.
//!
//! The directory must be new or empty, and stays untouched on any failure:
//! the files are rendered, checked with the strict parsers and the layer's
//! agreement rules, written into a hidden sibling, and renamed into place.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{self, BufRead, IsTerminal, Write};
use std::path::Path;

use liken_documents::patterns::{self, CIDR, DEVICE, HTTPS_URL, INTERFACE};

use crate::Error;
use crate::cli;
use crate::flags::{Flag, Parsed};
use crate::scaffold::{self, Answers, MachineAnswers};

/// The flags `new` takes (completion offers them too).
pub const FLAGS: &[Flag] = &[
    Flag::value("cluster"),
    Flag::value("machines"),
    Flag::value("leaders"),
    Flag::value("endpoint"),
    Flag::value("interfaces"),
    Flag::value("address"),
    Flag::value("disks"),
    Flag::switch("yes"),
];

/// How the open questions are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A person at a terminal: prompt, and ask again after a bad answer.
    Terminal,
    /// A script on standard input: one line per question, empty for the
    /// default; a bad answer fails.
    Script,
    /// `-yes`: every default, nothing read.
    Defaults,
}

/// Asks questions and reads answers.
pub struct Asker<R, W> {
    pub mode: Mode,
    pub input: R,
    pub output: W,
}

impl<R: BufRead, W: Write> Asker<R, W> {
    /// Asks `question`; an empty answer is `default`. `check` turns the text
    /// into the value or says why it does not hold.
    pub fn ask<T>(
        &mut self,
        question: &str,
        default: &str,
        check: impl Fn(&str) -> Result<T, String>,
    ) -> Result<T, Error> {
        loop {
            let line = match self.mode {
                Mode::Defaults => None,
                Mode::Terminal | Mode::Script => {
                    if self.mode == Mode::Terminal {
                        let shown = if default.is_empty() {
                            String::new()
                        } else {
                            format!(" [{default}]")
                        };
                        write!(self.output, "{question}{shown}: ").map_err(cli::failed)?;
                        self.output.flush().map_err(cli::failed)?;
                    }
                    let mut line = String::new();
                    let n = self.input.read_line(&mut line).map_err(cli::failed)?;
                    if n == 0 && self.mode == Mode::Terminal {
                        writeln!(self.output).map_err(cli::failed)?;
                        return Err(cli::failed(format!(
                            "no answer to \"{question}\"; nothing was written"
                        )));
                    }
                    (n > 0).then_some(line)
                }
            };
            let given = line.as_deref().map(str::trim).unwrap_or("");
            let text = if given.is_empty() { default } else { given };
            match check(text) {
                Ok(v) => return Ok(v),
                Err(why) if self.mode == Mode::Terminal => {
                    writeln!(self.output, "  {why}").map_err(cli::failed)?;
                }
                Err(why) => {
                    let hint = if self.mode == Mode::Defaults {
                        " (pass it as a flag)"
                    } else {
                        ""
                    };
                    return Err(cli::failed(format!(
                        "\"{question}\": {why}{hint}; nothing was written"
                    )));
                }
            }
        }
    }
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

fn check_name(text: &str) -> Result<String, String> {
    if liken_api::meta::valid_name(text) && !text.contains('.') && text.len() <= 63 {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "{text:?} is not a name: use lowercase letters, digits and '-', starting and \
             ending with a letter or digit, at most 63 characters"
        ))
    }
}

fn check_machines(text: &str) -> Result<Vec<String>, String> {
    let names = words(text);
    if names.is_empty() {
        return Err("name at least one machine".to_owned());
    }
    for (i, n) in names.iter().enumerate() {
        check_name(n)?;
        if names[..i].contains(n) {
            return Err(format!("{n:?} is named twice"));
        }
    }
    Ok(names)
}

fn check_leaders(text: &str, machines: &[String]) -> Result<Vec<String>, String> {
    let leaders = check_machines(text)?;
    for l in &leaders {
        if !machines.contains(l) {
            return Err(format!(
                "{l:?} is not one of the machines ({})",
                machines.join(", ")
            ));
        }
    }
    Ok(leaders)
}

fn check_interfaces(text: &str) -> Result<Vec<String>, String> {
    let names = words(text);
    if names.is_empty() {
        return Err("name at least one network port, such as eth0".to_owned());
    }
    for (i, n) in names.iter().enumerate() {
        if !patterns::matches(INTERFACE, n) {
            return Err(format!(
                "{n:?} is not a port name: the kernel's name, such as eth0 or enp3s0"
            ));
        }
        if names[..i].contains(n) {
            return Err(format!("{n:?} is named twice"));
        }
    }
    Ok(names)
}

fn check_address(text: &str) -> Result<Option<String>, String> {
    if text.eq_ignore_ascii_case("dhcp") {
        return Ok(None);
    }
    if patterns::matches(CIDR, text) && text.parse::<std::net::IpAddr>().is_err() {
        let host = scaffold::host_of(text);
        if host.parse::<std::net::IpAddr>().is_ok() {
            return Ok(Some(text.to_owned()));
        }
    }
    Err(format!(
        "{text:?} is not an address with its prefix length, such as 10.10.0.1/24 (or dhcp)"
    ))
}

fn check_disks(text: &str) -> Result<Vec<String>, String> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    let disks = words(text);
    if disks.is_empty() {
        return Err("name a disk, such as /dev/sda, or none".to_owned());
    }
    if disks.len() > 2 {
        return Err(
            "name one or two disks; declare more by hand in the manifest afterwards".to_owned(),
        );
    }
    for (i, d) in disks.iter().enumerate() {
        if !patterns::matches(DEVICE, d) || d.split('/').any(|p| p == "..") {
            return Err(format!(
                "{d:?} is not a disk: a path under /dev, such as /dev/sda, /dev/nvme0n1 or \
                 /dev/disk/by-id/<name>"
            ));
        }
        if disks[..i].contains(d) {
            return Err(format!("{d:?} is named twice"));
        }
    }
    Ok(disks)
}

fn check_endpoint(text: &str, needed: bool) -> Result<Option<String>, String> {
    if text.is_empty() || text.eq_ignore_ascii_case("none") {
        return if needed {
            Err(
                "the other machines need it to join: give the founding leader's URL, such \
                 as https://10.10.0.1:6443"
                    .to_owned(),
            )
        } else {
            Ok(None)
        };
    }
    if patterns::matches(HTTPS_URL, text) && !text.contains(char::is_whitespace) {
        Ok(Some(text.to_owned()))
    } else {
        Err(format!(
            "{text:?} is not an https URL, such as https://10.10.0.1:6443"
        ))
    }
}

/// A flag given once for every machine or per machine (`machine=value`).
#[derive(Debug, Default)]
struct PerMachine {
    all: Option<String>,
    each: BTreeMap<String, String>,
}

impl PerMachine {
    fn from(parsed: &Parsed, flag: &str, allow_all: bool) -> Result<PerMachine, Error> {
        let mut p = PerMachine::default();
        for v in parsed.values(flag) {
            let v = v
                .to_str()
                .ok_or_else(|| cli::usage("new", &format!("-{flag} must be text")))?;
            match v.split_once('=') {
                Some((m, rest)) => {
                    p.each.insert(m.to_owned(), rest.to_owned());
                }
                None if allow_all => p.all = Some(v.to_owned()),
                None => {
                    return Err(cli::usage(
                        "new",
                        &format!("-{flag} {v:?} must be machine=value"),
                    ));
                }
            }
        }
        Ok(p)
    }

    fn get(&self, machine: &str) -> Option<&str> {
        self.each
            .get(machine)
            .or(self.all.as_ref())
            .map(String::as_str)
    }

    fn check_names(&self, flag: &str, machines: &[String]) -> Result<(), Error> {
        for m in self.each.keys() {
            if !machines.contains(m) {
                return Err(cli::usage(
                    "new",
                    &format!(
                        "-{flag} names {m:?}, which is not one of the machines ({})",
                        machines.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The answers given as flags.
#[derive(Debug, Default)]
struct Preset {
    cluster: Option<String>,
    machines: Option<String>,
    leaders: Option<String>,
    endpoint: Option<String>,
    interfaces: PerMachine,
    addresses: PerMachine,
    disks: PerMachine,
}

impl Preset {
    fn from(parsed: &Parsed) -> Result<Preset, Error> {
        let text = |name| -> Result<Option<String>, Error> {
            Ok(parsed.text(name, cli::synopsis("new"))?.map(str::to_owned))
        };
        Ok(Preset {
            cluster: text("cluster")?,
            machines: text("machines")?,
            leaders: text("leaders")?,
            endpoint: text("endpoint")?,
            interfaces: PerMachine::from(parsed, "interfaces", true)?,
            addresses: PerMachine::from(parsed, "address", false)?,
            disks: PerMachine::from(parsed, "disks", true)?,
        })
    }
}

/// A flag's answer checked like a typed one; a bad one is a usage error.
fn preset<T>(
    flag: &str,
    value: Option<&str>,
    check: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<T>, Error> {
    value
        .map(|v| check(v).map_err(|why| cli::usage("new", &format!("-{flag}: {why}"))))
        .transpose()
}

/// The answers: from the flags, else asked.
fn gather<R: BufRead, W: Write>(
    p: &Preset,
    default_name: &str,
    asker: &mut Asker<R, W>,
) -> Result<Answers, Error> {
    let cluster = match preset("cluster", p.cluster.as_deref(), check_name)? {
        Some(c) => c,
        None => asker.ask("Cluster name", default_name, check_name)?,
    };
    let machines = match preset("machines", p.machines.as_deref(), check_machines)? {
        Some(m) => m,
        None => asker.ask(
            "Machine names, separated by spaces",
            "node1",
            check_machines,
        )?,
    };
    for (flag, per) in [
        ("interfaces", &p.interfaces),
        ("address", &p.addresses),
        ("disks", &p.disks),
    ] {
        per.check_names(flag, &machines)?;
    }
    let leaders_check = |t: &str| check_leaders(t, &machines);
    let leaders = match preset("leaders", p.leaders.as_deref(), leaders_check)? {
        Some(l) => l,
        None => asker.ask(
            "Leaders, which run the control plane (founding leader first)",
            &machines[0],
            leaders_check,
        )?,
    };
    let mut answers = Vec::new();
    for m in &machines {
        let flag = format!("interfaces {m}=");
        let interfaces = match preset(&flag, p.interfaces.get(m), check_interfaces)? {
            Some(i) => i,
            None => asker.ask(
                &format!("{m}: network ports, by the kernel's names"),
                "eth0",
                check_interfaces,
            )?,
        };
        let mut ports = Vec::new();
        match preset(
            "address",
            p.addresses.each.get(m).map(String::as_str),
            check_address,
        )? {
            Some(first) => {
                for (i, name) in interfaces.iter().enumerate() {
                    ports.push((name.clone(), if i == 0 { first.clone() } else { None }));
                }
            }
            None => {
                for name in &interfaces {
                    let address = if asker.mode == Mode::Defaults {
                        None
                    } else {
                        asker.ask(
                            &format!("{m}: address of {name}, as address/prefix, or dhcp"),
                            "dhcp",
                            check_address,
                        )?
                    };
                    ports.push((name.clone(), address));
                }
            }
        }
        let flag = format!("disks {m}=");
        let disks = match preset(&flag, p.disks.get(m), check_disks)? {
            Some(d) => d,
            None => asker.ask(
                &format!("{m}: disks (the first holds the system, a second pod storage; or none)"),
                "/dev/sda",
                check_disks,
            )?,
        };
        answers.push(MachineAnswers {
            name: m.clone(),
            interfaces: ports,
            disks,
        });
    }
    let needed = machines.len() > 1 || leaders.len() > 1;
    let founder = answers.iter().find(|a| a.name == leaders[0]);
    let derived = founder
        .and_then(|f| f.interfaces.iter().find_map(|(_, a)| a.as_deref()))
        .map(|a| {
            let host = scaffold::host_of(a);
            if host.contains(':') {
                format!("https://[{host}]:6443")
            } else {
                format!("https://{host}:6443")
            }
        });
    let endpoint_check = |t: &str| check_endpoint(t, needed);
    let endpoint = match preset("endpoint", p.endpoint.as_deref(), endpoint_check)? {
        Some(e) => e,
        None => asker.ask(
            "Endpoint, the URL the machines join the cluster through",
            derived
                .as_deref()
                .unwrap_or(if needed { "" } else { "none" }),
            endpoint_check,
        )?,
    };
    Ok(Answers {
        cluster,
        machines: answers,
        leaders,
        endpoint,
    })
}

/// The files of the deployment, checked by the strict parsers and the
/// layer's agreement rules.
fn render(a: &Answers, dir: &Path) -> Result<Vec<(String, String)>, Error> {
    let mut files = vec![("cluster.yaml".to_owned(), scaffold::cluster_yaml(a))];
    for m in &a.machines {
        files.push((
            format!("{}.yaml", m.name),
            scaffold::machine_yaml(m, &a.leaders),
        ));
    }
    let source = |(name, text): &(String, String)| crate::layer::Source {
        file: dir.join(name).display().to_string(),
        bytes: text.as_bytes().to_vec(),
    };
    let machines: Vec<_> = files[1..].iter().map(source).collect();
    crate::layer::check(&source(&files[0]), &machines).map_err(|faults| {
        cli::failed(format!(
            "these answers make a deployment that does not hold together; nothing was \
             written:\n  {}",
            faults.join("\n  ")
        ))
    })?;
    files.push((".gitignore".to_owned(), scaffold::GITIGNORE.to_owned()));
    Ok(files)
}

/// Refuses a directory that holds anything.
fn refuse_nonempty(dir: &Path) -> Result<(), Error> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => match entries.next() {
            Some(_) => Err(cli::failed(format!(
                "{} already holds files; liken new writes only into a new or empty directory",
                dir.display()
            ))),
            None => Ok(()),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => Err(cli::failed(format!(
            "{} is a file; give a new directory",
            dir.display()
        ))),
        Err(e) => Err(cli::failed(format!("{}: {e}", dir.display()))),
    }
}

/// Writes `files` as the directory `dir`, whole or not at all.
fn write_dir(dir: &Path, files: &[(String, String)]) -> Result<(), Error> {
    refuse_nonempty(dir)?;
    let name = dir
        .file_name()
        .ok_or_else(|| cli::failed(format!("{} names no directory", dir.display())))?;
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => std::path::PathBuf::from("."),
    };
    let io_err = |p: &Path| {
        let p = p.to_owned();
        move |e: io::Error| cli::failed(format!("{}: {e}", p.display()))
    };
    std::fs::create_dir_all(&parent).map_err(io_err(&parent))?;
    let staging = parent.join(format!(
        ".{}.partial-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&staging);
    let result = (|| {
        std::fs::create_dir(&staging).map_err(io_err(&staging))?;
        for (file, text) in files {
            let path = staging.join(file);
            liken_sys::atomic::write_mode(&path, text.as_bytes(), 0o644).map_err(io_err(&path))?;
        }
        if dir.exists() {
            std::fs::remove_dir(dir).map_err(io_err(dir))?;
        }
        std::fs::rename(&staging, dir).map_err(io_err(dir))?;
        std::fs::File::open(&parent)
            .and_then(|f| f.sync_all())
            .map_err(io_err(&parent))
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    result
}

/// `liken new`.
pub fn run(args: &[OsString]) -> Result<(), Error> {
    let (parsed, [dir]) = cli::parse_exact::<1>("new", args, FLAGS)?;
    refuse_nonempty(&dir)?;
    let preset = Preset::from(&parsed)?;
    let default_name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| check_name(n).is_ok())
        .unwrap_or("mycluster")
        .to_owned();
    let stdin = io::stdin();
    let mode = if parsed.has("yes") {
        Mode::Defaults
    } else if stdin.is_terminal() {
        Mode::Terminal
    } else {
        Mode::Script
    };
    let mut asker = Asker {
        mode,
        input: stdin.lock(),
        output: io::stdout(),
    };
    if mode == Mode::Terminal {
        println!(
            "liken new: a few questions about the cluster in {}; Enter takes the answer in \
             brackets.",
            dir.display()
        );
    }
    let answers = gather(&preset, &default_name, &mut asker)?;
    let files = render(&answers, &dir)?;
    write_dir(&dir, &files)?;
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let d = dir.display();
    println!("wrote {d}: {}", names.join(", "));
    println!("Next, make the cluster's identity and pack the layer the machines boot with:");
    println!("  liken mint {d}/identity");
    println!("  liken layer {d} {d}/identity {d}/deployment.cpio");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asker(mode: Mode, input: &str) -> Asker<&[u8], Vec<u8>> {
        Asker {
            mode,
            input: input.as_bytes(),
            output: Vec::new(),
        }
    }

    fn answers(input: &str) -> Result<Answers, Error> {
        gather(&Preset::default(), "home", &mut asker(Mode::Script, input))
    }

    #[test]
    fn the_defaults_are_one_machine_on_one_disk() {
        let a = answers("").unwrap();
        assert_eq!(a.cluster, "home");
        assert_eq!(a.leaders, ["node1"]);
        assert_eq!(a.endpoint, None);
        assert_eq!(
            a.machines,
            [MachineAnswers {
                name: "node1".into(),
                interfaces: vec![("eth0".into(), None)],
                disks: vec!["/dev/sda".into()],
            }]
        );
        let d = gather(&Preset::default(), "home", &mut asker(Mode::Defaults, "")).unwrap();
        assert_eq!(d, a);
    }

    #[test]
    fn answers_are_read_in_order_and_the_endpoint_derived() {
        let a = answers(
            "lab\nbig little\n\n\
             eth0 eth1\ndhcp\n10.10.0.1/24\n/dev/nvme0n1 /dev/sda\n\
             \n\nnone\n\n",
        )
        .unwrap();
        assert_eq!(a.cluster, "lab");
        assert_eq!(a.leaders, ["big"]);
        assert_eq!(
            a.machines[0].interfaces,
            [
                ("eth0".into(), None),
                ("eth1".into(), Some("10.10.0.1/24".into()))
            ]
        );
        assert_eq!(a.machines[0].disks, ["/dev/nvme0n1", "/dev/sda"]);
        assert!(a.machines[1].disks.is_empty());
        assert_eq!(a.endpoint.as_deref(), Some("https://10.10.0.1:6443"));
    }

    #[test]
    fn a_second_machine_needs_an_endpoint() {
        let err = answers("lab\nbig little\n").unwrap_err().to_string();
        assert!(
            err.contains("Endpoint") && err.contains("need it to join"),
            "{err}"
        );
        let a = answers("lab\nbig little\n\n\n\n\n\n\n\nhttps://lb.example:6443\n").unwrap();
        assert_eq!(a.endpoint.as_deref(), Some("https://lb.example:6443"));
    }

    #[test]
    fn a_script_fails_on_a_bad_answer_and_a_terminal_asks_again() {
        let err = answers("Bad_Name\n").unwrap_err().to_string();
        assert!(
            err.contains("Cluster name") && err.contains("\"Bad_Name\""),
            "{err}"
        );

        let mut t = asker(Mode::Terminal, "Bad_Name\nok\n");
        let name = t.ask("Cluster name", "home", check_name).unwrap();
        assert_eq!(name, "ok");
        let shown = String::from_utf8(t.output).unwrap();
        assert_eq!(shown.matches("Cluster name [home]: ").count(), 2, "{shown}");
        assert!(shown.contains("is not a name"), "{shown}");

        let mut t = asker(Mode::Terminal, "");
        assert!(t.ask("Cluster name", "home", check_name).is_err());
    }

    #[test]
    fn flags_answer_first_and_are_checked() {
        let p = Preset {
            machines: Some("a,b".into()),
            endpoint: Some("https://10.0.0.1:6443".into()),
            addresses: PerMachine {
                all: None,
                each: [("a".to_owned(), "10.0.0.1/24".to_owned())].into(),
            },
            disks: PerMachine {
                all: Some("/dev/vda".into()),
                each: [("b".to_owned(), "none".to_owned())].into(),
            },
            ..Preset::default()
        };
        let a = gather(&p, "home", &mut asker(Mode::Defaults, "")).unwrap();
        assert_eq!(
            a.machines[0].interfaces[0].1.as_deref(),
            Some("10.0.0.1/24")
        );
        assert_eq!(a.machines[0].disks, ["/dev/vda"]);
        assert!(a.machines[1].disks.is_empty());

        let bad = Preset {
            disks: PerMachine {
                all: None,
                each: [("ghost".to_owned(), "/dev/sda".to_owned())].into(),
            },
            ..Preset::default()
        };
        let err = gather(&bad, "home", &mut asker(Mode::Defaults, "")).unwrap_err();
        assert!(
            matches!(err, Error::Usage(ref m) if m.contains("ghost")),
            "{err:?}"
        );
    }

    #[test]
    fn every_rendering_parses_strictly() {
        for input in [
            "",
            "lab\nbig little tiny\nbig little\neth0 eth1\n10.10.0.1/24\ndhcp\n/dev/sda /dev/sdb\n\
             enp3s0\n10.10.0.2/24\n/dev/disk/by-id/ata-X\neth0\n\nnone\n\n",
            "v6\nbig\n\neth0\nfd00::1/64\n/dev/vda\n\n",
        ] {
            let a = answers(input).unwrap();
            let files = render(&a, Path::new("d")).unwrap();
            assert_eq!(files.len(), a.machines.len() + 2);
        }
    }
}
