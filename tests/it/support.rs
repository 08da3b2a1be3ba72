//! Test support: local Fabric as a child process on an ephemeral port (or one in-process
//! server shared by a test file's tests), and the fabsh binary run against it with HOME and
//! XDG dirs in a temp dir.

use fabsh_local::{Faults, LocalServer, ServeOptions};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use tempfile::TempDir;

/// The workspace local Fabric seeds with its demo items.
pub(crate) const DEMO: &str = "Demo";

/// The fabsh binary under test.
pub(crate) fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_fabsh")
}

/// A finished fabsh run.
#[derive(Debug)]
pub(crate) struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Runs `command` to its end, stdin empty.
    pub(crate) fn of(mut command: Command) -> Run {
        let output = command.stdin(Stdio::null()).output().expect("run fabsh");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// stdout parsed as JSON.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|err| {
            panic!(
                "stdout is not JSON ({err}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    /// Asserts success and returns stdout as JSON.
    pub(crate) fn ok_json(&self) -> Value {
        assert_eq!(
            self.code, 0,
            "expected success; stderr:\n{}\nstdout:\n{}",
            self.stderr, self.stdout
        );
        self.json()
    }
}

/// A home directory for one test: HOME and the XDG dirs point inside it.
pub(crate) struct Home {
    pub dir: TempDir,
}

impl Home {
    /// A fresh, empty home.
    pub(crate) fn new() -> Home {
        Home {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// A fabsh command with the environment cleaned and pointed at this home.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut command = self.program(bin());
        command.args(args);
        command
    }

    /// A fabsh command run with at most `limit` open descriptors (`ulimit -n`, via `sh`).
    pub(crate) fn command_with_descriptors(&self, limit: u32, args: &[&str]) -> Command {
        self.command_under_ulimit(&format!("-n {limit}"), args)
    }

    /// A fabsh command run with at most `kib` KiB of address space (`ulimit -v`, via `sh`):
    /// a command that reads without bound fails instead of taking the machine's memory.
    pub(crate) fn command_with_memory(&self, kib: u64, args: &[&str]) -> Command {
        self.command_under_ulimit(&format!("-v {kib}"), args)
    }

    /// A fabsh command run under `ulimit LIMIT` (`-f 64`: files of at most 64 KiB), via `sh`.
    pub(crate) fn command_under_ulimit(&self, limit: &str, args: &[&str]) -> Command {
        let mut command = self.program("sh");
        command
            .arg("-c")
            .arg(format!("ulimit {limit} && exec \"$0\" \"$@\""))
            .arg(bin())
            .args(args);
        command
    }

    /// `script` run by `sh -e` in this home, from the project's folder, with the fabsh under
    /// test first on PATH: a README block as a user pastes it.
    pub(crate) fn shell(&self, script: &str) -> Run {
        let mut command = self.program("sh");
        let bin_dir = Path::new(bin()).parent().expect("the binary's folder");
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut dirs = vec![bin_dir.to_path_buf()];
        dirs.extend(std::env::split_paths(&path));
        command
            .env("PATH", std::env::join_paths(dirs).expect("PATH"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["-ec", script]);
        Run::of(command)
    }

    fn program(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.env_clear();
        for key in ["PATH", "LANG"] {
            if let Some(value) = std::env::var_os(key) {
                command.env(key, value);
            }
        }
        command.envs(home_env(self.dir.path()));
        // Local Fabric asks for at least 1 s between polls by default, as the service asks for
        // whole seconds; fabsh honours it (up to 500 ms before its first poll), which would add
        // that to every operation of the suite. Tests that pin the default pass the knob.
        command.env("FABSH_LOCAL_RETRY_AFTER_SECONDS", "0");
        command
    }

    /// Runs fabsh with these arguments and extra environment variables, stdin empty.
    pub(crate) fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut command = self.command(args);
        command.envs(env.iter().copied());
        Run::of(command)
    }

    /// Runs fabsh with these arguments.
    pub(crate) fn run(&self, args: &[&str]) -> Run {
        self.run_env(args, &[])
    }
}

/// The variables that make a process live in the home at `root`: HOME, the XDG dirs, and
/// NO_COLOR (so output does not depend on the terminal).
pub(crate) fn home_env(root: &Path) -> Vec<(&'static str, PathBuf)> {
    vec![
        ("HOME", root.to_path_buf()),
        ("XDG_CONFIG_HOME", root.join("config")),
        ("XDG_DATA_HOME", root.join("data")),
        ("XDG_STATE_HOME", root.join("state")),
        ("XDG_CACHE_HOME", root.join("cache")),
        ("NO_COLOR", PathBuf::from("1")),
    ]
}

/// `fabsh local serve` running in the background for one test, or the local Fabric a test
/// file's tests share ([`shared`]).
pub(crate) struct Server {
    /// The `local serve` process; none for a shared server, which runs in this process.
    child: Option<Child>,
    pub endpoint: String,
    pub token: String,
    /// The admin's token for OneLake (Azure Storage audience): `local serve`'s fourth line,
    /// or a session's own.
    pub storage_token: String,
    /// The secret App Service's managed-identity endpoint wants in `X-IDENTITY-HEADER`.
    pub identity_header: String,
    pub home: Home,
    data_dir: PathBuf,
    /// The workspace seeded with the demo items this server's tests work in: `Demo`, or a
    /// session's copy of it.
    pub demo: String,
    /// A session on a shared server: the request log answers this token's requests only.
    session: bool,
}

impl Server {
    /// Starts a server with default knobs.
    pub(crate) fn start() -> Server {
        Self::with(&[])
    }

    /// Starts a server with fault knobs, e.g. `&[("page-size", "5")]`.
    pub(crate) fn with(knobs: &[(&str, &str)]) -> Server {
        let home = Home::new();
        let data_dir = home.dir.path().join("fabric");
        Self::on_data_dir(home, data_dir, knobs)
    }

    /// Starts a server with default knobs and extra environment variables.
    pub(crate) fn with_env(env: &[(&str, &str)]) -> Server {
        let home = Home::new();
        let data_dir = home.dir.path().join("fabric");
        Self::spawn(home, data_dir, &[], env, None)
    }

    /// Starts a server on an existing data dir (for restarts).
    pub(crate) fn on_data_dir(home: Home, data_dir: PathBuf, knobs: &[(&str, &str)]) -> Server {
        Self::spawn(home, data_dir, knobs, &[], None)
    }

    /// Starts a server allowed at most `limit` open descriptors, with extra environment
    /// variables.
    pub(crate) fn with_descriptors(limit: u32, env: &[(&str, &str)]) -> Server {
        let home = Home::new();
        let data_dir = home.dir.path().join("fabric");
        Self::spawn(home, data_dir, &[], env, Some(limit))
    }

    fn spawn(
        home: Home,
        data_dir: PathBuf,
        knobs: &[(&str, &str)],
        env: &[(&str, &str)],
        descriptors: Option<u32>,
    ) -> Server {
        let data = data_dir.to_string_lossy().into_owned();
        let mut args = vec![
            "local".to_string(),
            "serve".into(),
            "--addr".into(),
            "127.0.0.1:0".into(),
            "--data-dir".into(),
            data,
        ];
        for (flag, value) in knobs {
            args.push(format!("--{flag}"));
            // An empty value gives the bare switch (`--legacy-assistants`).
            if !value.is_empty() {
                args.push(value.to_string());
            }
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut command = match descriptors {
            Some(limit) => home.command_with_descriptors(limit, &args),
            None => home.command(&args),
        };
        let mut child = command
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start local serve");
        let stdout = child.stdout.take().expect("stdout");
        let mut lines = BufReader::new(stdout).lines();
        let mut next = |prefix: &str| {
            let line = lines
                .next()
                .expect("a line from local serve")
                .expect("utf8");
            line.strip_prefix(prefix)
                .unwrap_or_else(|| panic!("expected {prefix}..., got {line}"))
                .to_string()
        };
        let endpoint = next("export FABSH_ENDPOINT=");
        let token = next("export FABSH_TOKEN=");
        let identity_header = next("export IDENTITY_HEADER=");
        let storage_token = next("export FABSH_STORAGE_TOKEN=");
        Server {
            child: Some(child),
            endpoint,
            token,
            storage_token,
            identity_header,
            home,
            data_dir,
            demo: DEMO.to_string(),
            session: false,
        }
    }

    /// A test's own session on the local Fabric the tests passing the same `key` share (see
    /// [`shared`]): a home, an admin token and a copy of the Demo workspace ([`Server::demo`])
    /// of its own, and a request log holding only this session's requests. A test may change
    /// its copy of Demo and count its requests as on a server of its own, without starting
    /// one; what it cannot change is what every session sees (principals, tenant settings,
    /// knobs, the server's life).
    pub(crate) fn session(key: &'static str) -> Server {
        Self::session_on(shared(key))
    }

    /// A session on the server the tests passing the same `key` and `knobs` share: for
    /// knobs that shape answers alike for every caller (`page-size`, `job-ms`,
    /// `async-ratio`, ...), not those that count requests across callers (`error-rate`,
    /// `quota-rps`, `crash-after-writes`).
    pub(crate) fn session_with(key: &'static str, knobs: &[(&str, &str)]) -> Server {
        Self::session_on(shared_with(key, knobs))
    }

    fn session_on(shared: &Server) -> Server {
        static SESSIONS: AtomicUsize = AtomicUsize::new(0);
        let auth = shared.bearer();
        let admin = [
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ];
        let (status, body) = http(
            &shared.origin(),
            "POST",
            "/_local/tokens",
            Some("{}"),
            &admin,
        );
        assert_eq!(status, 200, "a session's token: {body}");
        let token: Value = serde_json::from_str(&body).expect("token JSON");
        let token = token["access_token"].as_str().expect("access_token");
        let (status, body) = http(
            &shared.origin(),
            "POST",
            "/_local/tokens",
            Some(r#"{"audience":"storage"}"#),
            &admin,
        );
        assert_eq!(status, 200, "a session's storage token: {body}");
        let storage: Value = serde_json::from_str(&body).expect("token JSON");
        let storage_token = storage["access_token"].as_str().expect("access_token");
        let n = SESSIONS.fetch_add(1, Ordering::Relaxed) + 1;
        let demo = format!("{DEMO}-{n}");
        let copy = serde_json::json!({ "displayName": demo }).to_string();
        let (status, body) = http(
            &shared.origin(),
            "POST",
            "/_local/demo-workspaces",
            Some(&copy),
            &admin,
        );
        assert_eq!(status, 201, "a session's copy of Demo: {body}");
        Server {
            child: None,
            endpoint: shared.endpoint.clone(),
            token: token.to_string(),
            storage_token: storage_token.to_string(),
            identity_header: shared.identity_header.clone(),
            home: Home::new(),
            data_dir: shared.data_dir.clone(),
            demo,
            session: true,
        }
    }

    /// `name` made this session's own: principals and workspaces belong to the server, which
    /// every session of a shared one sees, so a session's get its copy of Demo's suffix
    /// (`Agents` → `Agents-3`); on a server of its own, `name` as it is.
    pub(crate) fn own_name(&self, name: &str) -> String {
        let suffix = self.demo.strip_prefix(DEMO).unwrap_or_default();
        format!("{name}{suffix}")
    }

    /// A fabsh command against this server, not yet started (for pipes and signals).
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut command = self.home.command(args);
        command
            .env("FABSH_ENDPOINT", &self.endpoint)
            .env("FABSH_TOKEN", &self.token)
            .env("FABSH_STORAGE_TOKEN", &self.storage_token);
        command
    }

    /// `sh_line` (which names fabsh by [`bin`]) at a terminal, as a user's shell runs it:
    /// `script` gives it one, in this server's home (colour off: remove `NO_COLOR` to see
    /// it), signed in to this server. Not yet started, so the caller picks its pipes.
    pub(crate) fn at_terminal(&self, sh_line: &str) -> Command {
        let mut command = Command::new("script");
        command
            .args(["-qec", sh_line, "/dev/null"])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .envs(home_env(self.home.dir.path()))
            .env("FABSH_ENDPOINT", &self.endpoint)
            .env("FABSH_TOKEN", &self.token)
            .env("FABSH_STORAGE_TOKEN", &self.storage_token)
            .env("FABSH_LOCAL_RETRY_AFTER_SECONDS", "0");
        command
    }

    /// Runs fabsh against this server.
    pub(crate) fn fabsh(&self, args: &[&str]) -> Run {
        self.fabsh_env(args, &[])
    }

    /// Runs fabsh against this server with extra environment variables.
    pub(crate) fn fabsh_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut all = vec![
            ("FABSH_ENDPOINT", self.endpoint.as_str()),
            ("FABSH_TOKEN", self.token.as_str()),
            ("FABSH_STORAGE_TOKEN", self.storage_token.as_str()),
        ];
        all.extend_from_slice(env);
        self.home.run_env(args, &all)
    }

    /// Runs fabsh against this server with at most `kib` KiB of address space, stdin empty.
    pub(crate) fn fabsh_with_memory(&self, kib: u64, args: &[&str]) -> Run {
        let mut command = self.home.command_with_memory(kib, args);
        command
            .env("FABSH_ENDPOINT", &self.endpoint)
            .env("FABSH_TOKEN", &self.token);
        Run::of(command)
    }

    /// Runs fabsh against this server with another token.
    pub(crate) fn fabsh_as(&self, token: &str, args: &[&str]) -> Run {
        self.home.run_env(
            args,
            &[
                ("FABSH_ENDPOINT", self.endpoint.as_str()),
                ("FABSH_TOKEN", token),
            ],
        )
    }

    /// A raw GET of `path` with the admin's token: the status and the JSON body (null when
    /// the body is not JSON), for checks against what the service's API answers.
    pub(crate) fn get_json(&self, path: &str) -> (u16, Value) {
        let auth = self.bearer();
        let (status, body) = http(
            &self.origin(),
            "GET",
            path,
            None,
            &[("Authorization", auth.as_str())],
        );
        (status, serde_json::from_str(&body).unwrap_or(Value::Null))
    }

    /// The server's data dir.
    pub(crate) fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The Demo workspace's lakehouse, found by type (its SQL endpoint has the same name).
    pub(crate) fn demo_lakehouse(&self) -> Value {
        self.demo_item("Lakehouse")
    }

    /// The first of the Demo workspace's items of `item_type`, as listed.
    pub(crate) fn demo_item(&self, item_type: &str) -> Value {
        let args = [
            "item", "list", "-w", &self.demo, "--type", item_type, "-q", "[0]",
        ];
        self.fabsh(&args).ok_json()
    }

    /// The id of the first of the Demo workspace's items of `item_type`.
    pub(crate) fn demo_item_id(&self, item_type: &str) -> String {
        let item = self.demo_item(item_type);
        item["id"]
            .as_str()
            .unwrap_or_else(|| panic!("no {item_type} in {}: {item}", self.demo))
            .to_string()
    }

    /// Creates an item of `item_type` called `name` in the Demo workspace; returns its id.
    pub(crate) fn create_demo_item(&self, name: &str, item_type: &str) -> String {
        let args = [
            "item", "create", "-w", &self.demo, "--name", name, "--type", item_type,
        ];
        let created = self.fabsh(&args).ok_json();
        created["id"].as_str().expect("id").to_string()
    }

    /// An API path under the Demo workspace, `/v1/workspaces/{id}{rest}`, for raw requests.
    pub(crate) fn demo_path(&self, rest: &str) -> String {
        let id = self
            .fabsh(&["workspace", "show", "-w", &self.demo, "-q", "id"])
            .ok_json();
        format!(
            "/v1/workspaces/{}{rest}",
            id.as_str().expect("workspace id")
        )
    }

    /// The `Authorization` header value of the admin token.
    pub(crate) fn bearer(&self) -> String {
        format!("Bearer {}", self.token)
    }

    /// The origin (`http://127.0.0.1:PORT`).
    pub(crate) fn origin(&self) -> String {
        self.endpoint.trim_end_matches("/v1").to_string()
    }

    /// The request log: `{count, requests: [{method, path, query, status}]}`; a session's
    /// own requests only.
    pub(crate) fn requests(&self) -> Value {
        let auth = self.bearer();
        let mut headers = vec![("Authorization", auth.as_str())];
        if self.session {
            headers.push(("X-Local-Requests-Of", self.token.as_str()));
        }
        let (_, body) = http(&self.origin(), "GET", "/_local/requests", None, &headers);
        serde_json::from_str(&body).expect("request log JSON")
    }

    /// The request log of this server's OneLake requests made with its Storage token (a
    /// session's own): `{count, requests: [{method, path, query, status}]}`.
    pub(crate) fn storage_requests(&self) -> Value {
        let auth = self.bearer();
        let headers = [
            ("Authorization", auth.as_str()),
            ("X-Local-Requests-Of", self.storage_token.as_str()),
        ];
        let (_, body) = http(&self.origin(), "GET", "/_local/requests", None, &headers);
        serde_json::from_str(&body).expect("request log JSON")
    }

    /// The paths of the requests the server remembers (the recent ones), oldest first.
    pub(crate) fn request_paths(&self) -> Vec<String> {
        self.requests()["requests"]
            .as_array()
            .expect("requests")
            .iter()
            .filter_map(|r| r["path"].as_str().map(String::from))
            .collect()
    }

    /// How many API requests the server has seen.
    pub(crate) fn request_count(&self) -> u64 {
        self.requests()["count"].as_u64().expect("count")
    }

    /// Stops the server as Ctrl-C does (SIGINT), asserting that it exits 0, and returns its
    /// home and data dir: the store is closed cleanly, so its files can be copied.
    pub(crate) fn interrupt(mut self) -> (Home, PathBuf) {
        let child = self
            .child
            .as_mut()
            .expect("a server of its own, not a shared one");
        let status = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -INT failed");
        let exit = child.wait().expect("wait for local serve");
        assert!(exit.success(), "local serve ended with {exit} after Ctrl-C");
        let home = std::mem::replace(&mut self.home, Home::new());
        (home, self.data_dir.clone())
    }

    /// Stops the server and returns its home and data dir (to start it again).
    pub(crate) fn stop(mut self) -> (Home, PathBuf) {
        assert!(
            self.child.is_some(),
            "a server of its own, not a shared one or a session on it"
        );
        self.end_child();
        let home = std::mem::replace(&mut self.home, Home::new());
        (home, self.data_dir.clone())
    }
}

impl Server {
    fn end_child(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.end_child();
    }
}

/// The local Fabric that every test calling this with the same `key` shares (a file's tests
/// pass `module_path!()`): started once, in this process, with default knobs, and gone when
/// the test binary ends. Starting a server per test costs a store, a signing key and a
/// process; tests that only read, or that work in a workspace of their own, need none of it.
/// Tests that count requests or change shared state (the Demo workspace, principals) keep a
/// server of their own.
pub(crate) fn shared(key: &'static str) -> &'static Server {
    shared_with(key, &[])
}

/// The same for the tests passing the same `key` and `knobs`, started with those knobs.
fn shared_with(key: &'static str, knobs: &[(&str, &str)]) -> &'static Server {
    static SERVERS: Mutex<BTreeMap<(&'static str, String), &'static Server>> =
        Mutex::new(BTreeMap::new());
    let mut faults = Faults {
        // As `FABSH_LOCAL_RETRY_AFTER_SECONDS=0` does for a server of its own.
        retry_after_seconds: 0,
        ..Faults::default()
    };
    for (flag, value) in knobs {
        faults.set(flag, value).expect("a knob local serve takes");
    }
    let mut servers = SERVERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    servers
        .entry((key, format!("{knobs:?}")))
        .or_insert_with(|| Box::leak(Box::new(in_process_server(faults))))
}

/// A local Fabric served by a thread of this process. Its home lives under cargo's temp dir
/// for integration tests, in a folder named by this process's id: statics are never dropped,
/// so the folders of earlier runs are removed here instead.
fn in_process_server(faults: Faults) -> Server {
    let root = shared_homes_root();
    let home = Home {
        dir: tempfile::tempdir_in(&root).expect("shared server home"),
    };
    let data_dir = home.dir.path().join("fabric");
    let (sender, receiver) = std::sync::mpsc::channel();
    let options = ServeOptions {
        addr: "127.0.0.1:0".parse().expect("loopback"),
        data_dir: data_dir.clone(),
        faults,
        public_hosts: Vec::new(),
        public_url: None,
        llm: None,
    };
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime for the shared server");
        runtime.block_on(async move {
            let server = LocalServer::start(options)
                .await
                .expect("start local Fabric");
            let facts = (
                server.base_url().to_string(),
                server.admin_token(),
                server.identity_header().to_string(),
                server.admin_storage_token(),
            );
            sender.send(facts).expect("the test waits for the server");
            // Serves until the test binary ends.
            std::future::pending::<()>().await;
            drop(server);
        });
    });
    let (endpoint, token, identity_header, storage_token) =
        receiver.recv().expect("shared server started");
    Server {
        child: None,
        endpoint,
        token,
        storage_token,
        identity_header,
        home,
        data_dir,
        demo: DEMO.to_string(),
        session: false,
    }
}

/// `<cargo's temp dir>/shared-servers/<pid>`, after removing the folders of processes that
/// have ended.
fn shared_homes_root() -> PathBuf {
    let parent = Path::new(env!("CARGO_TARGET_TMPDIR")).join("shared-servers");
    if let Ok(entries) = std::fs::read_dir(&parent) {
        for entry in entries.flatten() {
            let pid = entry.file_name().to_string_lossy().into_owned();
            let ended = !Path::new("/proc").join(&pid).exists();
            if Path::new("/proc/self").exists() && ended {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let root = parent.join(std::process::id().to_string());
    std::fs::create_dir_all(&root).expect("shared server homes");
    root
}

/// A minimal HTTP/1.1 request over a plain socket: (status, body).
pub(crate) fn http(
    origin: &str,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> (u16, String) {
    let (status, _, body) = http_with_head(origin, method, path, body, headers);
    (status, body)
}

/// [`http`] that also returns the response head (status line and headers, as sent).
pub(crate) fn http_with_head(
    origin: &str,
    method: &str,
    path: &str,
    body: Option<&str>,
    headers: &[(&str, &str)],
) -> (u16, String, String) {
    let host = origin.trim_start_matches("http://");
    let mut stream = TcpStream::connect(host).expect("connect");
    let body = body.unwrap_or("");
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    // The address connected to, unless the caller names another host (as a browser would
    // after a DNS rebinding).
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        request.push_str(&format!("Host: {host}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("write");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    let (head, rest) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    (
        status,
        head.to_string(),
        if chunked {
            dechunk(rest)
        } else {
            rest.to_string()
        },
    )
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
    out
}

/// A token for a new service principal with `role` in `workspace`, via the token endpoint.
pub(crate) fn principal_token(server: &Server, name: &str, workspace: &str, role: &str) -> String {
    principal_with_token(server, name, &["--workspace", workspace, "--role", role]).1
}

/// A new service principal (`local principal add --name NAME` plus `extra` flags, e.g.
/// `--tenant second`) and a token for it from the token endpoint. A session's principal is
/// named as its own ([`Server::own_name`]).
pub(crate) fn principal_with_token(server: &Server, name: &str, extra: &[&str]) -> (Value, String) {
    let dir = server.data_dir().to_string_lossy().into_owned();
    let name = server.own_name(name);
    let mut args = vec![
        "local",
        "principal",
        "add",
        "--name",
        &name,
        "--data-dir",
        &dir,
    ];
    args.extend_from_slice(extra);
    let principal = server.home.run(&args).ok_json();
    let form = format!(
        "grant_type=client_credentials&client_id={}&client_secret={}&scope=https%3A%2F%2Fapi.fabric.microsoft.com%2F.default",
        principal["clientId"].as_str().expect("clientId"),
        principal["clientSecret"].as_str().expect("clientSecret"),
    );
    let path = format!(
        "/{}/oauth2/v2.0/token",
        principal["tenantId"].as_str().expect("tenantId")
    );
    let (status, body) = http(
        &server.origin(),
        "POST",
        &path,
        Some(&form),
        &[("Content-Type", "application/x-www-form-urlencoded")],
    );
    assert_eq!(status, 200, "token endpoint: {body}");
    let token: Value = serde_json::from_str(&body).expect("token JSON");
    let token = token["access_token"]
        .as_str()
        .expect("access_token")
        .to_string();
    (principal, token)
}

/// The recorded Fabric traffic (`tests/recordings/*.yaml`, copied from
/// ../shared/recordings/fabric-cli), in name order.
pub(crate) fn recording_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/recordings");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/recordings")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
        .collect();
    files.sort();
    files
}

/// A loopback port that commands are pointed at where nothing may be sent: connections
/// queue even while nobody accepts, so an empty queue proves that none came.
pub(crate) struct Trap(std::net::TcpListener);

impl Trap {
    /// A listener on an ephemeral loopback port.
    pub(crate) fn start() -> Trap {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("non-blocking");
        Trap(listener)
    }

    /// `http://127.0.0.1:PORT`.
    pub(crate) fn origin(&self) -> String {
        format!("http://{}", self.0.local_addr().expect("addr"))
    }

    /// Panics if anything connected.
    pub(crate) fn assert_untouched(&self) {
        match self.0.accept() {
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {}
            other => panic!("something connected to the trap: {other:?}"),
        }
    }
}
