//! `liken new`, driven the three ways a person or a script drives it:
//! answers on standard input, answers as flags, and a person at a terminal
//! (through a pseudo-terminal made by util-linux's `script`). Whatever it
//! writes must pass `liken layer`, which parses every document strictly and
//! checks that they agree.

mod toolkit_support;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use toolkit_support::*;

fn new_with_stdin(dir: &Path, flags: &[&str], stdin: &str) -> std::process::Output {
    let mut child = liken()
        .arg("new")
        .args(flags)
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// Mints an identity beside the manifests and packs the layer: the strict
/// parsers and the agreement rules, end to end.
fn packs(dir: &Path) {
    success(&run(&["mint", dir.join("identity").to_str().unwrap()]));
    let out = dir.join("deployment.cpio");
    success(&run(&[
        "layer",
        dir.to_str().unwrap(),
        dir.join("identity").to_str().unwrap(),
        out.to_str().unwrap(),
    ]));
}

fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    n.sort();
    n
}

#[test]
fn answers_on_stdin_make_a_deployment_that_packs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("lab");
    let answers = "\n\
        big little\n\
        big\n\
        eth0 eth1\n\
        dhcp\n\
        10.10.0.1/24\n\
        /dev/nvme0n1 /dev/sda\n\
        enp3s0\n\
        \n\
        none\n\
        \n";
    let out = success(&new_with_stdin(&dir, &[], answers));
    assert!(out.contains("liken mint"), "{out}");
    assert_eq!(
        names(&dir),
        [".gitignore", "big.yaml", "cluster.yaml", "little.yaml"]
    );
    let cluster = std::fs::read_to_string(dir.join("cluster.yaml")).unwrap();
    assert!(cluster.contains("name: lab"), "{cluster}");
    assert!(cluster.contains("leaders: [big]"), "{cluster}");
    assert!(
        cluster.contains("endpoint: \"https://10.10.0.1:6443\""),
        "{cluster}"
    );
    let big = std::fs::read_to_string(dir.join("big.yaml")).unwrap();
    assert!(big.contains("address: \"10.10.0.1/24\""), "{big}");
    assert!(big.contains("device: /dev/nvme0n1") && big.contains("device: /dev/sda"));
    let little = std::fs::read_to_string(dir.join("little.yaml")).unwrap();
    assert!(
        little.contains("name: enp3s0") && !little.contains("\n  storage:"),
        "{little}"
    );
    // Every line that sets a field has a comment above it or beside it.
    for text in [&cluster, &big, &little] {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let t = line.trim_start();
            if t.starts_with('#') || t.starts_with("- ") || t.ends_with(':') {
                continue;
            }
            let commented = line.contains(" # ")
                || lines[..i]
                    .iter()
                    .rev()
                    .take(3)
                    .any(|l| l.trim_start().starts_with('#'));
            assert!(commented, "uncommented: {line:?}\n{text}");
        }
    }
    let ignore = std::fs::read_to_string(dir.join(".gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "identity/"), "{ignore}");
    packs(&dir);
}

#[test]
fn no_input_takes_the_defaults_one_machine_one_disk() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("home");
    success(&run(&["new", dir.to_str().unwrap()]));
    assert_eq!(names(&dir), [".gitignore", "cluster.yaml", "node1.yaml"]);
    let node = std::fs::read_to_string(dir.join("node1.yaml")).unwrap();
    for role in [
        "systemA",
        "systemB",
        "machineState",
        "clusterState",
        "podStorage",
        "podEphemeral",
    ] {
        assert!(
            node.contains(&format!("    {role}:\n      device: /dev/sda")),
            "{role}\n{node}"
        );
    }
    packs(&dir);
}

#[test]
fn flags_answer_without_questions() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("d");
    success(&run(&[
        "new",
        "-cluster",
        "fleet",
        "-machines",
        "a,b,c",
        "-leaders",
        "a b",
        "-address",
        "a=10.0.0.1/24",
        "-address",
        "b=10.0.0.2/24",
        "-interfaces",
        "eth1",
        "-disks",
        "c=none",
        "-disks=/dev/vda",
        "-yes",
        dir.to_str().unwrap(),
    ]));
    let cluster = std::fs::read_to_string(dir.join("cluster.yaml")).unwrap();
    assert!(cluster.contains("name: fleet") && cluster.contains("leaders: [a, b]"));
    assert!(cluster.contains("https://10.0.0.1:6443"), "{cluster}");
    let c = std::fs::read_to_string(dir.join("c.yaml")).unwrap();
    assert!(
        c.contains("name: eth1") && !c.contains("\n  storage:"),
        "{c}"
    );
    packs(&dir);

    let err = failure(
        &run(&[
            "new",
            "-machines",
            "a b",
            "-yes",
            tmp.path().join("e").to_str().unwrap(),
        ]),
        1,
    );
    assert!(
        err.contains("Endpoint") && err.contains("pass it as a flag"),
        "{err}"
    );
    let err = failure(
        &run(&[
            "new",
            "-disks",
            "ghost=/dev/sda",
            "-yes",
            tmp.path().join("f").to_str().unwrap(),
        ]),
        2,
    );
    assert!(
        err.contains("ghost") && err.contains("usage: liken new <directory>"),
        "{err}"
    );
    assert!(!tmp.path().join("e").exists() && !tmp.path().join("f").exists());
}

#[test]
fn a_bad_scripted_answer_or_a_full_directory_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("x");
    let err = failure(&new_with_stdin(&dir, &[], "x\nBig\n"), 1);
    assert!(
        err.contains("Machine names") && err.contains("\"Big\" is not a name"),
        "{err}"
    );
    assert!(!dir.exists());

    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("keep.txt"), "mine").unwrap();
    let err = failure(&run(&["new", dir.to_str().unwrap()]), 1);
    assert!(err.contains("already holds files"), "{err}");
    assert_eq!(names(&dir), ["keep.txt"]);

    // An empty directory is fine.
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    success(&run(&["new", empty.to_str().unwrap()]));
    assert_eq!(names(tmp.path()), ["empty", "x"], "nothing left beside");
}

#[test]
fn at_a_terminal_it_prompts_and_asks_again() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("term");
    // script(1) runs the command on a pseudo-terminal and types our input.
    let command = format!("{} new {}", env!("CARGO_BIN_EXE_liken"), dir.display());
    let mut child = Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script (util-linux) is installed");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"Not_A_Name\nlab\nbig\n\n\n10.1.0.5/16\n/dev/vda\n\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let shown = text(&out.stdout);
    assert!(out.status.success(), "{shown}\n{}", text(&out.stderr));
    assert!(
        shown.contains("Enter takes the answer in brackets"),
        "{shown}"
    );
    assert_eq!(shown.matches("Cluster name [term]: ").count(), 2, "{shown}");
    assert!(shown.contains("\"Not_A_Name\" is not a name"), "{shown}");
    assert!(shown.contains("[https://10.1.0.5:6443]"), "{shown}");
    let cluster = std::fs::read_to_string(dir.join("cluster.yaml")).unwrap();
    assert!(cluster.contains("name: lab") && cluster.contains("https://10.1.0.5:6443"));
    packs(&dir);
}
