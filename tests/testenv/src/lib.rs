//! A real Kubernetes control plane for tests: kine (SQLite), kube-apiserver
//! and kube-controller-manager, built from pinned sources by
//! `make testenv` and started here in a temporary directory.
//!
//! [`ControlPlane::start`] makes the certificates with liken's own identity
//! code (so a minted identity can be the control plane's CAs), starts the
//! three components on loopback, waits (bounded) for /readyz and for the
//! controller manager to act, and hands out an admin kubeconfig and clients.
//! A start that fails returns the components' logs. Every component runs
//! under a small watchdog that kills it when this process's end of a pipe
//! closes, so nothing outlives the test process, even one that panics or is
//! killed; dropping the ControlPlane stops everything at once.
//! [`ControlPlane::shared`] gives the tests of one binary one control plane;
//! they isolate themselves by namespace and object names.

mod component;
mod pki;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

use liken_identity::Identity;

use component::Component;

/// Where the built binaries are: LIKEN_TESTENV, else out/testenv/bin.
pub fn bin_dir() -> PathBuf {
    match std::env::var_os("LIKEN_TESTENV") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../out/testenv/bin"),
    }
}

fn binary(name: &str) -> Result<PathBuf, String> {
    let path = bin_dir().join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{} is missing: run `make testenv` (or set LIKEN_TESTENV to the directory holding it)",
            path.display()
        ))
    }
}

/// A running control plane.
pub struct ControlPlane {
    dir: tempfile::TempDir,
    server: String,
    kubeconfig: PathBuf,
    identity: Identity,
    components: Vec<Component>,
}

impl std::fmt::Debug for ControlPlane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ControlPlane")
            .field("server", &self.server)
            .finish()
    }
}

/// How long each component may take to become ready.
const READY: Duration = Duration::from_secs(90);

impl ControlPlane {
    /// Starts a control plane with a fresh identity.
    pub fn start() -> Result<ControlPlane, String> {
        let identity = Identity::generate(SystemTime::now()).map_err(|e| e.to_string())?;
        ControlPlane::start_with(identity)
    }

    /// Starts a control plane whose CAs and service key are `identity`'s.
    pub fn start_with(identity: Identity) -> Result<ControlPlane, String> {
        let dir = tempfile::Builder::new()
            .prefix("liken-cp-")
            .tempdir()
            .map_err(|e| format!("making the control plane's directory: {e}"))?;
        let root = dir.path().to_owned();
        let api_port = free_port()?;
        let kcm_port = free_port()?;
        let server = format!("https://127.0.0.1:{api_port}");
        let pki = pki::write(&root, &identity, &server)
            .map_err(|e| format!("writing certificates: {e}"))?;
        let mut cp = ControlPlane {
            dir,
            server: server.clone(),
            kubeconfig: pki.admin_kubeconfig.clone(),
            identity,
            components: Vec::new(),
        };
        let kine_sock = root.join("kine.sock");
        let kine_dir = root.join("kine");
        std::fs::create_dir_all(&kine_dir).map_err(|e| e.to_string())?;
        cp.spawn(
            "kine",
            &[
                format!(
                    "--endpoint=sqlite://{}/state.db?_journal_mode=WAL&_busy_timeout=30000&_synchronous=NORMAL&_txlock=immediate&cache=shared",
                    kine_dir.display()
                ),
                format!("--listen-address=unix://{}", kine_sock.display()),
                "--metrics-bind-address=0".into(),
            ],
        )?;
        cp.wait("kine", || kine_sock.exists())?;
        let p = |f: &str| pki.dir.join(f).display().to_string();
        cp.spawn(
            "kube-apiserver",
            &[
                format!("--etcd-servers=unix://{}", kine_sock.display()),
                "--bind-address=127.0.0.1".into(),
                "--advertise-address=127.0.0.1".into(),
                format!("--secure-port={api_port}"),
                "--endpoint-reconciler-type=none".into(),
                format!("--tls-cert-file={}", p("serving.crt")),
                format!("--tls-private-key-file={}", p("serving.key")),
                format!("--client-ca-file={}", p("client-ca.crt")),
                "--anonymous-auth=false".into(),
                "--authorization-mode=Node,RBAC".into(),
                "--enable-admission-plugins=NodeRestriction".into(),
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local".into(),
                format!("--service-account-key-file={}", p("service.key")),
                format!("--service-account-signing-key-file={}", p("service.key")),
                "--service-cluster-ip-range=10.43.0.0/16".into(),
                "--allow-privileged=true".into(),
                format!(
                    "--requestheader-client-ca-file={}",
                    p("request-header-ca.crt")
                ),
                "--requestheader-allowed-names=system:auth-proxy".into(),
                "--requestheader-username-headers=X-Remote-User".into(),
                "--requestheader-group-headers=X-Remote-Group".into(),
                "--requestheader-extra-headers-prefix=X-Remote-Extra-".into(),
                format!("--proxy-client-cert-file={}", p("front-proxy.crt")),
                format!("--proxy-client-key-file={}", p("front-proxy.key")),
                "--runtime-config=resource.k8s.io/v1=true".into(),
                "--profiling=false".into(),
            ],
        )?;
        cp.wait_ready()?;
        let kcm_dir = root.join("controller-manager");
        cp.spawn(
            "kube-controller-manager",
            &[
                format!("--kubeconfig={}", pki.kcm_kubeconfig.display()),
                format!(
                    "--authentication-kubeconfig={}",
                    pki.kcm_kubeconfig.display()
                ),
                format!(
                    "--authorization-kubeconfig={}",
                    pki.kcm_kubeconfig.display()
                ),
                "--bind-address=127.0.0.1".into(),
                format!("--secure-port={kcm_port}"),
                format!("--cert-dir={}", kcm_dir.join("certs").display()),
                format!(
                    "--flex-volume-plugin-dir={}",
                    kcm_dir.join("flexvolume").display()
                ),
                "--leader-elect=false".into(),
                "--use-service-account-credentials=true".into(),
                format!("--service-account-private-key-file={}", p("service.key")),
                format!("--root-ca-file={}", p("server-ca.crt")),
                format!("--cluster-signing-cert-file={}", p("client-ca.crt")),
                format!("--cluster-signing-key-file={}", p("client-ca.key")),
                "--controllers=*".into(),
            ],
        )?;
        cp.wait_controllers()?;
        Ok(cp)
    }

    /// One control plane for every test in this binary, started on first
    /// use. It stops when the test process exits.
    pub fn shared() -> &'static ControlPlane {
        static SHARED: OnceLock<ControlPlane> = OnceLock::new();
        SHARED.get_or_init(|| ControlPlane::start().unwrap_or_else(|e| panic!("{e}")))
    }

    fn spawn(&mut self, name: &str, args: &[String]) -> Result<(), String> {
        let c = Component::spawn(name, &binary(name)?, args, self.dir.path())?;
        self.components.push(c);
        Ok(())
    }

    /// Polls `ready` until it holds, failing early when a component exits.
    fn wait(&mut self, what: &str, mut ready: impl FnMut() -> bool) -> Result<(), String> {
        let deadline = Instant::now() + READY;
        while Instant::now() < deadline {
            if ready() {
                return Ok(());
            }
            let dead = self
                .components
                .iter_mut()
                .find_map(|c| c.exited().map(|status| (c.name.clone(), status)));
            if let Some((name, status)) = dead {
                return Err(format!(
                    "{name} exited ({status}) while waiting for {what}\n{}",
                    self.logs()
                ));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Err(format!(
            "{what} was not ready within {}s\n{}",
            READY.as_secs(),
            self.logs()
        ))
    }

    fn wait_ready(&mut self) -> Result<(), String> {
        let kubeconfig = self.kubeconfig.clone();
        let rt = runtime();
        let mut last = String::new();
        let result = self.wait("kube-apiserver /readyz", || {
            rt.block_on(async {
                let client = match client_for(&kubeconfig).await {
                    Ok(c) => c,
                    Err(e) => {
                        last = e;
                        return false;
                    }
                };
                let req = http::Request::get("/readyz").body(Vec::new()).unwrap();
                match client.request_text(req).await {
                    Ok(body) if body.trim() == "ok" => true,
                    Ok(body) => {
                        last = body;
                        false
                    }
                    Err(e) => {
                        last = e.to_string();
                        false
                    }
                }
            })
        });
        result.map_err(|e| format!("{e}\nlast answer: {last}"))
    }

    /// The controller manager is working once the service-account controller
    /// has made the default namespace's ServiceAccount.
    fn wait_controllers(&mut self) -> Result<(), String> {
        let kubeconfig = self.kubeconfig.clone();
        let rt = runtime();
        self.wait(
            "kube-controller-manager (the default ServiceAccount)",
            || {
                rt.block_on(async {
                    let Ok(client) = client_for(&kubeconfig).await else {
                        return false;
                    };
                    let api: kube::Api<k8s_openapi::api::core::v1::ServiceAccount> =
                        kube::Api::namespaced(client, "default");
                    api.get_opt("default").await.ok().flatten().is_some()
                })
            },
        )
    }

    /// The API server's URL.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The admin kubeconfig (system:admin in system:masters).
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// The identity whose CAs this control plane trusts and serves with.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// An admin client, bound to the calling tokio runtime.
    pub async fn client(&self) -> kube::Client {
        client_for(&self.kubeconfig)
            .await
            .unwrap_or_else(|e| panic!("admin client: {e}"))
    }

    /// The end of each component's log.
    pub fn logs(&self) -> String {
        self.components
            .iter()
            .map(Component::tail)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A guard that prints the components' logs if the test panics while it
    /// is held.
    pub fn logs_on_failure(&self) -> LogsOnFailure<'_> {
        LogsOnFailure(self)
    }

    /// Installs the CRD files named (paths) and waits until each is
    /// established.
    pub async fn install_crds(&self, files: &[PathBuf]) -> Result<(), String> {
        use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
        let client = self.client().await;
        let api: kube::Api<CustomResourceDefinition> = kube::Api::all(client);
        let mut names = Vec::new();
        for file in files {
            let text =
                std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
            let crd: CustomResourceDefinition =
                serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", file.display()))?;
            let name = crd.metadata.name.clone().unwrap_or_default();
            let params = kube::api::PatchParams::apply("liken-testenv").force();
            api.patch(&name, &params, &kube::api::Patch::Apply(&crd))
                .await
                .map_err(|e| format!("applying {}: {e}", file.display()))?;
            names.push(name);
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        for name in names {
            loop {
                let crd = api.get(&name).await.map_err(|e| e.to_string())?;
                let established = crd
                    .status
                    .and_then(|s| s.conditions)
                    .unwrap_or_default()
                    .iter()
                    .any(|c| c.type_ == "Established" && c.status == "True");
                if established {
                    break;
                }
                if Instant::now() > deadline {
                    return Err(format!("CRD {name} was not established within 30s"));
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        Ok(())
    }

    /// A `kubectl` command aimed at this control plane: out/testenv/bin's
    /// kubectl when it was built, else the one on PATH.
    pub fn kubectl(&self) -> std::process::Command {
        let built = bin_dir().join("kubectl");
        let program = if built.is_file() {
            built
        } else {
            PathBuf::from("kubectl")
        };
        let mut cmd = std::process::Command::new(program);
        cmd.env("KUBECONFIG", &self.kubeconfig);
        cmd
    }

    /// Stops every component, newest first.
    pub fn stop(mut self) {
        self.stop_all();
    }

    fn stop_all(&mut self) {
        while let Some(mut c) = self.components.pop() {
            c.stop();
        }
    }
}

impl Drop for ControlPlane {
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// Prints the control plane's logs when dropped during a panic.
pub struct LogsOnFailure<'a>(&'a ControlPlane);

impl Drop for LogsOnFailure<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("--- control plane logs ---\n{}", self.0.logs());
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

async fn client_for(kubeconfig: &Path) -> Result<kube::Client, String> {
    let config = kube::config::Kubeconfig::read_from(kubeconfig).map_err(|e| e.to_string())?;
    let config = kube::Config::from_custom_kubeconfig(config, &Default::default())
        .await
        .map_err(|e| e.to_string())?;
    kube::Client::try_from(config).map_err(|e| e.to_string())
}

/// A port on 127.0.0.1 that was free a moment ago.
fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("finding a free port: {e}"))
}
