//! Shell completion: `liken completion bash` prints the script, and the
//! hidden `liken __complete <words...> <word-under-cursor>` answers it in
//! cobra's protocol (what kubectl expects of a plugin's
//! `kubectl_complete-<name>` helper): one candidate per line, then a last
//! line `:N` carrying the directive bits (4: do not fall back to file names;
//! 0: let the shell complete file names).
//!
//! The answer comes from the command table and the plugin domains alone, so
//! it needs no cluster and prints nothing but the protocol, even for words
//! it cannot make sense of (a completer that prints an error breaks the
//! line the shell is drawing):
//! - the first word: every command but the shell's own, and every plugin
//!   domain (the known ones and those installed), sorted, without repeats;
//! - after `plugins`: its subcommands;
//! - a word starting with `-`: the flags of the command being completed;
//! - the value of a flag that takes one: nothing, and no file names;
//! - any other word: a path, left to the shell.

use std::ffi::OsString;

use crate::Error;
use crate::flags::Flag;

/// The directive bit that turns the shell's file-name fallback off.
pub const NO_FILE_COMP: u32 = 4;
/// No directive: the shell completes file names.
pub const DEFAULT: u32 = 0;

/// The flags each command takes, for completion.
fn flags_of(command: &str) -> &'static [Flag] {
    const SERVER: &[Flag] = &[Flag::value("server")];
    const FETCH: &[Flag] = &[Flag::value("digest"), Flag::value("ca-file")];
    const INDEX: &[Flag] = &[Flag::value("source"), Flag::value("ca-file")];
    const BUNDLE: &[Flag] = &[Flag::value("slot-size")];
    const STICK: &[Flag] = &[Flag::value("console")];
    match command {
        "kubeconfig" | "approve-reboot" | "request-reboot" | "kubectl" | "stern" | "flux"
        | "plugins" => SERVER,
        "fetch" => FETCH,
        "index" => INDEX,
        "bundle" => BUNDLE,
        "stick" => STICK,
        "new" => crate::new::FLAGS,
        _ => &[],
    }
}

fn top_level() -> Vec<String> {
    let mut all: Vec<String> = crate::commands::COMMANDS
        .iter()
        .map(|c| c.name)
        .filter(|n| *n != "completion")
        .map(str::to_owned)
        .collect();
    all.extend(crate::plugins::domains());
    all.sort();
    all.dedup();
    all
}

/// The candidates and directive for `words`, whose last is under the cursor.
pub fn complete(words: &[String]) -> (Vec<String>, u32) {
    let Some((current, before)) = words.split_last() else {
        return (top_level(), NO_FILE_COMP);
    };
    let command = before
        .iter()
        .find(|w| !w.starts_with('-'))
        .map(String::as_str);
    let flags = command.map(flags_of).unwrap_or_default();
    // Walk the words before the cursor: positionals, and a flag left waiting
    // for its value.
    let mut positionals = Vec::new();
    let mut pending_value = false;
    let mut iter = before.iter().peekable();
    while let Some(w) = iter.next() {
        match w.strip_prefix("--").or_else(|| w.strip_prefix('-')) {
            Some(body) if !body.is_empty() && !positionals.is_empty() => {
                let takes_value = flags.iter().any(|f| f.name == body && f.takes_value);
                if takes_value {
                    if iter.peek().is_some() {
                        iter.next();
                    } else {
                        pending_value = true;
                    }
                }
            }
            _ => positionals.push(w.as_str()),
        }
    }
    let keep = |items: Vec<String>| -> Vec<String> {
        items
            .into_iter()
            .filter(|i| i.starts_with(current.as_str()))
            .collect()
    };
    if pending_value {
        return (Vec::new(), NO_FILE_COMP);
    }
    if current.starts_with('-') && command.is_some() {
        let names = flags.iter().map(|f| format!("-{}", f.name)).collect();
        return (keep(names), NO_FILE_COMP);
    }
    match positionals.as_slice() {
        [] => (keep(top_level()), NO_FILE_COMP),
        ["plugins"] => (
            keep(["list", "remove", "sync"].map(str::to_owned).to_vec()),
            NO_FILE_COMP,
        ),
        ["completion"] => (keep(vec!["bash".to_owned()]), NO_FILE_COMP),
        ["plugins", "remove"] => (keep(crate::plugins::installed()), NO_FILE_COMP),
        _ => (Vec::new(), DEFAULT),
    }
}

/// `liken __complete <words...>`: the protocol on stdout, never an error.
pub fn run_complete(args: &[OsString]) -> Result<(), Error> {
    let words: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let (candidates, directive) = complete(&words);
    let mut out = String::new();
    for c in candidates {
        out.push_str(&c);
        out.push('\n');
    }
    out.push_str(&format!(":{directive}\n"));
    print!("{out}");
    Ok(())
}

/// The bash script: asks `__complete` with the words before the cursor and
/// the word under it, offers the candidates, and honours the directive.
/// It registers for `liken` and `kubectl-liken` both.
const BASH: &str = r#"# bash completion for liken and kubectl-liken; load it with
#   source <(liken completion bash)
_liken_complete() {
    local cur="${COMP_WORDS[COMP_CWORD]}" reply directive line
    local -a words=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
    reply="$("${COMP_WORDS[0]}" __complete "${words[@]}" "$cur" 2>/dev/null)" || return
    directive="${reply##*:}"
    [[ "$directive" =~ ^[0-9]+$ ]] || directive=0
    COMPREPLY=()
    while IFS= read -r line; do
        case "$line" in
            :*|'') ;;
            *) COMPREPLY+=("${line%%$'\t'*}") ;;
        esac
    done <<< "$reply"
    if (( directive & 4 )); then
        compopt +o default 2>/dev/null
    fi
}
complete -o default -F _liken_complete liken kubectl-liken
"#;

/// `liken completion bash`.
pub fn run(args: &[OsString]) -> Result<(), Error> {
    let (_, [shell]) = crate::cli::parse_exact::<1>("completion", args, &[])?;
    if shell.as_os_str() != "bash" {
        return Err(crate::cli::usage(
            "completion",
            &format!(
                "{} is not a shell this toolkit completes; it completes bash",
                shell.display()
            ),
        ));
    }
    print!("{BASH}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(words: &[&str]) -> (Vec<String>, u32) {
        complete(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn the_first_word_is_a_command_or_a_domain() {
        let (all, d) = ask(&[""]);
        assert_eq!(d, NO_FILE_COMP);
        for w in [
            "new",
            "mint",
            "approve-reboot",
            "plugins",
            "version",
            "audio",
            "media",
        ] {
            assert!(all.contains(&w.to_owned()), "{w}: {all:?}");
        }
        assert!(!all.contains(&"completion".to_owned()));
        assert_eq!(
            all.iter().filter(|w| *w == "media").count(),
            1,
            "media once"
        );
        let mut sorted = all.clone();
        sorted.sort();
        assert_eq!(all, sorted);
        assert_eq!(ask(&["ap"]).0, ["approve-reboot"]);
        assert_eq!(ask(&[]).0, all);
    }

    #[test]
    fn subcommands_flags_and_paths() {
        assert_eq!(ask(&["plugins", ""]).0, ["list", "remove", "sync"]);
        assert_eq!(ask(&["plugins", "s"]).0, ["sync"]);
        assert_eq!(
            ask(&["kubeconfig", "-"]),
            (vec!["-server".to_owned()], NO_FILE_COMP)
        );
        assert_eq!(ask(&["fetch", "-d"]).0, ["-digest"]);
        // The value of -server: nothing, and no file names.
        assert_eq!(ask(&["kubeconfig", "-server", ""]), (vec![], NO_FILE_COMP));
        // After the flag and its value, a path: the shell's.
        assert_eq!(
            ask(&["kubeconfig", "-server", "https://x", ""]),
            (vec![], DEFAULT)
        );
        assert_eq!(
            ask(&["kubeconfig", "-server=https://x", "my"]),
            (vec![], DEFAULT)
        );
        assert_eq!(ask(&["layer", "a", ""]), (vec![], DEFAULT));
        assert_eq!(ask(&["completion", ""]).0, ["bash"]);
    }
}
