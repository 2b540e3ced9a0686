//! The release channel commands: `bundle`, `fetch`, `serve` and `index`.
//!
//! Each reads its command line (flags through [`crate::flags`], the usage
//! line from the command table), hands the work to `liken_channel`, and
//! reports: results on standard output, progress and the server's request
//! log on standard error. All the channel logic, and every guarantee about
//! what is left on disk, lives in the library; this file only talks to the
//! person.
//!
//! Beyond the manual's flags, `fetch` and `index` take `-ca-file <pem>`, a
//! bundle of extra certificate authorities to trust for an https channel
//! served under a private CA.

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::time::Instant;

use liken_channel::bundle::{self, BundleRequest};
use liken_channel::fetch::{FetchRequest, Wanted};
use liken_channel::index as channel_index;
use liken_channel::serve::{self, Server};
use liken_channel::{Client, ClientOptions, Progress};

use crate::Error;
use crate::flags::{self, Flag};

const CA_FILE_HELP: &str =
    "\n  -ca-file <pem>  also trust the certificate authorities in this PEM bundle";

fn synopsis(name: &str) -> &'static str {
    crate::commands::find(name).map_or("", |c| c.synopsis)
}

fn usage(name: &str, problem: &str) -> Error {
    Error::Usage(format!("{problem}\nusage: liken {}", synopsis(name)))
}

fn failed(e: impl std::fmt::Display) -> Error {
    Error::Failed(e.to_string())
}

fn text_arg<'a>(arg: &'a OsString, what: &str, command: &str) -> Result<&'a str, Error> {
    arg.to_str()
        .ok_or_else(|| usage(command, &format!("{what} must be text")))
}

fn client(parsed: &flags::Parsed) -> Result<Client, Error> {
    let options = ClientOptions {
        ca_file: parsed.value("ca-file").map(PathBuf::from),
        ..ClientOptions::default()
    };
    Client::new(&options).map_err(failed)
}

/// `liken bundle`.
pub fn bundle(args: &[OsString]) -> Result<(), Error> {
    let parsed = flags::parse(args, &[Flag::value("slot-size")], synopsis("bundle"))?;
    let slot_size = match parsed.text("slot-size", synopsis("bundle"))? {
        None => bundle::DEFAULT_SLOT_SIZE,
        Some(q) => bundle::parse_size(q).ok_or_else(|| {
            usage(
                "bundle",
                &format!("-slot-size {q:?} is not a size in bytes or Ki/Mi/Gi/Ti (1Gi)"),
            )
        })?,
    };
    let p = &parsed.positionals;
    if p.len() < 11 {
        return Err(usage(
            "bundle",
            &format!(
                "bundle takes nine files, a channel directory and a version; got {} arguments",
                p.len()
            ),
        ));
    }
    let inputs: [PathBuf; 9] = std::array::from_fn(|i| PathBuf::from(&p[i]));
    let version = text_arg(&p[10], "the version", "bundle")?.to_owned();
    let components = p[11..]
        .iter()
        .map(|c| text_arg(c, "a component=version pair", "bundle").map(str::to_owned))
        .collect::<Result<Vec<_>, _>>()?;
    let done = bundle::bundle(&BundleRequest {
        inputs,
        channel_dir: PathBuf::from(&p[9]),
        version,
        components,
        slot_size,
    })
    .map_err(failed)?;
    println!("bundled {} into {}", done.version, done.dir.display());
    println!(
        "slot payload {} bytes of a {} slot ({} bytes kept free)",
        done.slot_payload,
        bundle::format_size(slot_size),
        bundle::headroom(slot_size)
    );
    println!("release.yaml {}", done.digest);
    println!(
        "catalog entry:\n  - version: \"{}\"\n    digest: {}",
        done.version, done.digest
    );
    Ok(())
}

/// Draws fetch progress: a redrawn bar on a terminal, a line per artifact
/// otherwise.
struct Report {
    terminal: bool,
    name: String,
    size: u64,
    got: u64,
    started: Instant,
    drawn: Option<Instant>,
}

impl Report {
    fn new() -> Self {
        Report {
            terminal: std::io::stderr().is_terminal(),
            name: String::new(),
            size: 0,
            got: 0,
            started: Instant::now(),
            drawn: None,
        }
    }

    fn rate(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        format!(
            "{}/s",
            channel_index::human_size((self.got as f64 / secs) as u64)
        )
    }

    fn draw(&mut self) {
        const WIDTH: u64 = 28;
        let filled = (self.got * WIDTH).checked_div(self.size).unwrap_or(WIDTH);
        let percent = (self.got * 100).checked_div(self.size).unwrap_or(100);
        let bar: String = (0..WIDTH)
            .map(|i| if i < filled { '#' } else { '-' })
            .collect();
        eprint!(
            "\r{:<20} [{bar}] {percent:>3}% {:>10} {:>12}\x1b[K",
            self.name,
            channel_index::human_size(self.got),
            self.rate()
        );
        let _ = std::io::stderr().flush();
        self.drawn = Some(Instant::now());
    }
}

impl Progress for Report {
    fn begin(&mut self, name: &str, size: u64) {
        self.name = name.to_owned();
        self.size = size;
        self.got = 0;
        self.started = Instant::now();
        self.drawn = None;
        if self.terminal {
            self.draw();
        }
    }

    fn advance(&mut self, bytes: u64) {
        self.got += bytes;
        if self.terminal && self.drawn.is_none_or(|t| t.elapsed().as_millis() >= 100) {
            self.draw();
        }
    }

    fn done(&mut self, name: &str) {
        if self.terminal {
            self.draw();
            eprintln!();
        } else {
            eprintln!(
                "{name}: {} verified ({})",
                channel_index::human_size(self.size),
                self.rate()
            );
        }
    }

    fn fail(&mut self, _name: &str) {
        if self.terminal {
            eprintln!();
        }
    }

    fn present(&mut self, name: &str, size: u64) {
        eprintln!(
            "{name}: {} already present and verified",
            channel_index::human_size(size)
        );
    }
}

/// `liken fetch`.
pub fn fetch(args: &[OsString]) -> Result<(), Error> {
    let usage_text = format!("{}{CA_FILE_HELP}", synopsis("fetch"));
    let parsed = flags::parse(
        args,
        &[Flag::value("digest"), Flag::value("ca-file")],
        &usage_text,
    )?;
    let digest = parsed.text("digest", &usage_text)?;
    let [source, wanted, channel_dir] = parsed.positionals.as_slice() else {
        return Err(usage(
            "fetch",
            "fetch takes a source URL, a version or latest, and a channel directory",
        ));
    };
    let source = text_arg(source, "the source URL", "fetch")?;
    let wanted = Wanted::parse(text_arg(wanted, "the version", "fetch")?)
        .map_err(|e| usage("fetch", &format!("{e}, or latest")))?;
    let client = client(&parsed)?;
    let mut report = Report::new();
    let done = liken_channel::fetch(
        &client,
        &FetchRequest {
            source,
            wanted,
            digest,
            channel_dir: &PathBuf::from(channel_dir),
        },
        &mut report,
    )
    .map_err(failed)?;
    if digest.is_none() {
        eprintln!(
            "note: no -digest was given, so nothing pinned release.yaml; its digest is {}: \
             compare it with the release page before you trust this release",
            done.digest
        );
    }
    println!(
        "fetched {} into {} ({} downloaded, {} already present)",
        done.version,
        done.dir.display(),
        done.downloaded,
        done.present
    );
    println!("release.yaml {}", done.digest);
    Ok(())
}

/// `liken serve`.
pub fn serve(args: &[OsString]) -> Result<(), Error> {
    let parsed = flags::parse(args, &[], synopsis("serve"))?;
    let (dir, address) = match parsed.positionals.as_slice() {
        [dir] => (dir, serve::DEFAULT_ADDRESS),
        [dir, address] => (dir, text_arg(address, "the address", "serve")?),
        _ => {
            return Err(usage(
                "serve",
                "serve takes a channel directory and an optional address",
            ));
        }
    };
    let dir = PathBuf::from(dir);
    let server = Server::bind(&dir, address, serve::stderr_log()).map_err(failed)?;
    eprintln!(
        "liken serve: sharing {} on http://{}",
        dir.display(),
        server.local_addr()
    );
    server.run();
    Ok(())
}

/// `liken index`.
pub fn index(args: &[OsString]) -> Result<(), Error> {
    let usage_text = format!("{}{CA_FILE_HELP}", synopsis("index"));
    let parsed = flags::parse(
        args,
        &[Flag::value("source"), Flag::value("ca-file")],
        &usage_text,
    )?;
    let Some(source) = parsed.text("source", &usage_text)? else {
        return Err(usage(
            "index",
            "-source is required: the channel's base URL",
        ));
    };
    let [out_dir] = parsed.positionals.as_slice() else {
        return Err(usage("index", "index takes one output directory"));
    };
    let mut keys = String::new();
    std::io::stdin()
        .read_to_string(&mut keys)
        .map_err(|e| failed(format!("reading the object keys from standard input: {e}")))?;
    let keys = channel_index::parse_keys(&keys);
    let client = client(&parsed)?;
    let view = channel_index::gather(&client, source, &keys).map_err(failed)?;
    let pages = channel_index::render(&view);
    let out_dir = PathBuf::from(out_dir);
    channel_index::write_pages(&out_dir, &pages).map_err(failed)?;
    println!(
        "indexed {} releases (latest {}) into {}: {} files",
        view.releases.len(),
        view.latest,
        out_dir.display(),
        pages.len()
    );
    Ok(())
}
