//! One control plane process under a watchdog.
//!
//! The component is started by a small bash wrapper whose standard input is
//! a pipe from this process. The wrapper waits on that pipe; when it reads
//! end-of-file (this process dropped the pipe, exited, panicked or was
//! killed), it sends the component SIGTERM, gives it five seconds, then
//! SIGKILL. So no component outlives the test process that started it.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const WATCHDOG: &str = r#"
"$@" </dev/null >>"$LIKEN_COMPONENT_LOG" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null' TERM
read -r _ || true
kill -TERM $pid 2>/dev/null
for _ in $(seq 50); do kill -0 $pid 2>/dev/null || exit 0; sleep 0.1; done
kill -KILL $pid 2>/dev/null
"#;

pub struct Component {
    pub name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    log: PathBuf,
}

impl Component {
    pub fn spawn(
        name: &str,
        program: &Path,
        args: &[String],
        dir: &Path,
    ) -> Result<Component, String> {
        let log = dir.join(format!("{name}.log"));
        File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let mut child = Command::new("bash")
            .arg("-c")
            .arg(WATCHDOG)
            .arg(name)
            .arg(program)
            .args(args)
            .env("LIKEN_COMPONENT_LOG", &log)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting {name}: {e}"))?;
        let stdin = child.stdin.take();
        Ok(Component {
            name: name.to_owned(),
            child,
            stdin,
            log,
        })
    }

    /// The wrapper's exit status, once the component is gone.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Closes the pipe and waits (bounded) for the wrapper to finish.
    pub fn stop(&mut self) {
        self.stdin.take();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if self.exited().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The last 8 KiB of the component's log.
    pub fn tail(&self) -> String {
        let mut text = String::new();
        if let Ok(mut f) = File::open(&self.log) {
            let len = f.metadata().map(|m| m.len()).unwrap_or(0);
            let _ = f.seek(SeekFrom::Start(len.saturating_sub(8192)));
            let mut bytes = Vec::new();
            let _ = f.read_to_end(&mut bytes);
            text = String::from_utf8_lossy(&bytes).into_owned();
        }
        format!("=== {} ({}) ===\n{text}", self.name, self.log.display())
    }
}

impl Drop for Component {
    fn drop(&mut self) {
        self.stop();
    }
}
