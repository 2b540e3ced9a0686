//! The workstation toolkit: the `liken` and `kubectl-liken` personalities.
//!
//! `main` looks the first word up in [`commands::COMMANDS`], runs it, prints
//! an error once (prefixed `liken:`) and maps it to the exit code: 2 for a
//! usage mistake, 1 for a failure. No command exits the process itself.
//! Two words are not in the table: `__complete`, the shell's completion
//! request ([`completion`]), and a plugin domain, which runs that plugin's
//! `kubectl-liken-<domain>` in this process's place ([`plugins`]).

mod adopt;
mod approve_reboot;
mod channel_cmds;
mod cli;
mod cluster;
pub mod commands;
mod completion;
mod deployment;
pub mod flags;
mod kubeconfig;
mod layer;
mod media;
mod mint;
mod new;
mod passthrough;
mod plugins;
mod request_reboot;
mod scaffold;

use std::ffi::OsString;
use std::fmt;
use std::process::ExitCode;

/// Why a toolkit command did not do its job.
#[derive(Debug)]
pub enum Error {
    /// The command line is wrong; carries the text to show.
    Usage(String),
    /// The command exists in the manual but not in this build.
    NotBuilt(&'static str),
    /// The command ran and failed; the message names the correction.
    Failed(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) | Error::Failed(m) => f.write_str(m),
            Error::NotBuilt(name) => write!(
                f,
                "`liken {name}` is not built yet in this version ({}); nothing was done",
                liken_buildinfo::VERSION
            ),
        }
    }
}

impl std::error::Error for Error {}

/// The full usage text: every command with its synopsis and summary.
pub fn usage() -> String {
    let mut out =
        String::from("liken: the toolkit that makes and runs a liken deployment\n\nusage:\n");
    for c in commands::COMMANDS {
        out.push_str(&format!("\n  liken {}\n", c.synopsis));
        for line in c.summary.lines() {
            out.push_str(&format!("      {}\n", line.trim()));
        }
    }
    out.push_str(
        "\nAn identity directory holds the cluster's certificate authorities and join\n\
         token; it contains private keys, so keep it out of version control. A\n\
         deployment layer is the small archive of your manifests and identity that\n\
         every machine boots beside the liken image. A release channel is a\n\
         directory any web server can share.\n",
    );
    out
}

/// Entry point under the name `kubectl_complete-liken`, the helper kubectl
/// runs to complete `kubectl liken ...`: the same answer as `__complete`.
pub fn complete_main(args: Vec<OsString>) -> ExitCode {
    let _ = completion::run_complete(&args[1.min(args.len())..]);
    ExitCode::SUCCESS
}

/// Entry point under the names `liken` and `kubectl-liken`.
pub fn main(args: Vec<OsString>) -> ExitCode {
    match run(&args[1.min(args.len())..]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Error::Usage(message)) => {
            eprintln!("liken: {message}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("liken: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &[OsString]) -> Result<(), Error> {
    let Some(word) = args.first() else {
        eprint!("{}", usage());
        return Err(Error::Usage("a command is required".into()));
    };
    let word = word.to_string_lossy();
    if matches!(word.as_ref(), "help" | "-h" | "-help" | "--help") {
        print!("{}", usage());
        return Ok(());
    }
    // The shell's completion request: hidden from the usage and the table.
    if word == "__complete" {
        return completion::run_complete(&args[1..]);
    }
    let Some(command) = commands::find(&word) else {
        // A word that names a plugin domain runs that plugin's tool.
        if let Some(error) = plugins::walk(&word, &args[1..]) {
            return Err(error);
        }
        eprint!("{}", usage());
        return Err(Error::Usage(format!("unknown command {word:?}")));
    };
    match command.run {
        Some(run) => run(&args[1..]),
        None => Err(Error::NotBuilt(command.name)),
    }
}

fn version(args: &[OsString]) -> Result<(), Error> {
    if !args.is_empty() {
        return Err(Error::Usage("usage: liken version".into()));
    }
    println!("{}", liken_buildinfo::VERSION);
    Ok(())
}
