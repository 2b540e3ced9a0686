//! The toolkit's command table: every command's name, usage line and
//! summary, and the function that runs it. The usage text, the completion
//! candidates and the dispatch all read this one table.

use std::ffi::OsString;

use crate::Error;

/// What a command's function gets: the arguments after the command word.
pub type Run = fn(&[OsString]) -> Result<(), Error>;

/// One toolkit command.
pub struct Command {
    pub name: &'static str,
    /// The synopsis after `liken `, exactly as the manual gives it.
    pub synopsis: &'static str,
    /// A few lines for the full usage text.
    pub summary: &'static str,
    /// None while the command is not built in this version.
    pub run: Option<Run>,
}

/// Every command, in the order the usage lists them.
pub const COMMANDS: &[Command] = &[
    Command {
        name: "new",
        synopsis: "new <directory>",
        summary: "Ask a few questions and write a deployment directory: cluster.yaml and\n\
                  one manifest per machine, every field commented. Scripts answer with\n\
                  flags (-cluster -machines -leaders -endpoint -interfaces -address -disks\n\
                  -yes) or on standard input, one answer a line.",
        run: Some(crate::new::run),
    },
    Command {
        name: "mint",
        synopsis: "mint <identity-dir>",
        summary: "Make a fresh cluster identity: the certificate authorities and the\n\
                  join token every machine of one cluster shares.",
        run: Some(crate::mint::run),
    },
    Command {
        name: "adopt",
        synopsis: "adopt <harvest-dir> <identity-dir>",
        summary: "Arrange identity files copied from an existing k3s server as an\n\
                  identity directory, so liken machines can join that cluster.",
        run: Some(crate::adopt::run),
    },
    Command {
        name: "kubeconfig",
        synopsis: "kubeconfig [-server URL] <deployment-dir>",
        summary: "Write an administrator kubeconfig to <deployment-dir>/identity/kubeconfig.\n\
                  The address is cluster.yaml's endpoint unless -server names another.",
        run: Some(crate::kubeconfig::run),
    },
    Command {
        name: "approve-reboot",
        synopsis: "approve-reboot [-server URL] <deployment-dir> <machine>",
        summary: "Show what a machine has staged and grant it one disruption, through\n\
                  the liken.sh/approve-disruption annotation. Writes nothing when\n\
                  nothing is pending.",
        run: Some(crate::approve_reboot::run),
    },
    Command {
        name: "request-reboot",
        synopsis: "request-reboot [-server URL] <deployment-dir> <machine>",
        summary: "Ask a machine to reboot although no change needs it. It still waits\n\
                  for its turn, cordons and drains; under rebootPolicy Manual it also\n\
                  waits for approve-reboot.",
        run: Some(crate::request_reboot::run),
    },
    Command {
        name: "kubectl",
        synopsis: "kubectl [-server URL] <deployment-dir> [args...]",
        summary: "Run kubectl from your PATH against the deployment's cluster.",
        run: Some(crate::passthrough::kubectl),
    },
    Command {
        name: "stern",
        synopsis: "stern [-server URL] <deployment-dir> [args...]",
        summary: "Run stern from your PATH against the deployment's cluster.",
        run: Some(crate::passthrough::stern),
    },
    Command {
        name: "flux",
        synopsis: "flux [-server URL] <deployment-dir> [args...]",
        summary: "Run flux from your PATH against the deployment's cluster.",
        run: Some(crate::passthrough::flux),
    },
    Command {
        name: "layer",
        synopsis: "layer <manifests-dir> <identity-dir> <output.cpio>",
        summary: "Pack the cluster document, the machine manifests and the identity into\n\
                  the deployment layer every machine boots with.",
        run: Some(crate::layer::run),
    },
    Command {
        name: "fetch",
        synopsis: "fetch [-digest sha256:<hex>] <source-url> <version|latest> <channel-dir>",
        summary: "Download a release from a channel into a local channel directory,\n\
                  checking every byte; -digest pins the release document itself.",
        run: Some(crate::channel_cmds::fetch),
    },
    Command {
        name: "media",
        synopsis: "media <release-dir> <deployment.cpio> <output.cpio>",
        summary: "Build a direct-kernel-boot install image (QEMU, PXE) from a release\n\
                  and a deployment layer.",
        run: Some(crate::media::run),
    },
    Command {
        name: "stick",
        synopsis: "stick [-console ttyS0] <release-dir> <deployment.cpio> <output.img>",
        summary: "Build the USB install stick: a boot menu with an install and a wipe\n\
                  entry per machine, and a hardware report. -console repeats.",
        run: None,
    },
    Command {
        name: "bundle",
        synopsis: "bundle [-slot-size 1Gi] <vmlinuz> <liken.sqfs> <boot.cpio> <microcode.cpio> \
                   <liken-cli> <systemd-boot.efi> <grub-boot.img> <grub-core.img> <licenses.md> \
                   <channel-dir> <version> [component=version ...]",
        summary: "Lay a release out in a channel and write the release.yaml that names\n\
                  every artifact by its digest.",
        run: Some(crate::channel_cmds::bundle),
    },
    Command {
        name: "serve",
        synopsis: "serve <channel-dir> [address]",
        summary: "Share a channel over plain HTTP, one log line per request\n\
                  (address :8017 unless given).",
        run: Some(crate::channel_cmds::serve),
    },
    Command {
        name: "index",
        synopsis: "index -source <url> <output-dir> < keys",
        summary: "Render a channel's index pages and versions.yaml from the documents\n\
                  it serves; the object keys come on standard input, one per line.",
        run: Some(crate::channel_cmds::index),
    },
    Command {
        name: "plugins",
        synopsis: "plugins sync|list|remove [-server URL] <deployment-dir>",
        summary: "Install, list or remove the command-line tools of the operators the\n\
                  cluster runs; an unknown first word runs kubectl-liken-<word>.",
        run: Some(crate::plugins::run),
    },
    Command {
        name: "completion",
        synopsis: "completion bash",
        summary: "Print the bash completion script for this toolkit.",
        run: Some(crate::completion::run),
    },
    Command {
        name: "version",
        synopsis: "version",
        summary: "Print the toolkit's version.",
        run: Some(crate::version),
    },
];

/// The command called `name`.
pub fn find(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}
