//! `fabsh local serve` and `fabsh local stop`. A server prints `export FABSH_ENDPOINT=...`,
//! `export FABSH_TOKEN=...`, `export IDENTITY_HEADER=...` and `export FABSH_STORAGE_TOKEN=...`
//! (the admin's token for OneLake) first, so
//! `eval "$(fabsh local serve --detach)"` points the shell at it; it records where it listens
//! in `serve.json` in its data dir, which is how `local stop` finds it.

use super::local::store_dir;
use crate::connect::local_error;
use fabsh_api::auth::managed_identity::IDENTITY_HEADER_VAR;
use fabsh_api::config::{ENDPOINT_VAR, STORAGE_TOKEN_VAR, TOKEN_VAR};
use fabsh_client::commands::typed::{
    self, FromArg, FromArgs, TerminalCommand, at_terminal, handler, typed_args,
};
use fabsh_client::commands::{
    ArgKind, ArgSpec, Args, CommandSpec, Example, Handler, HandlerFuture, Needs, Terminal, Traits,
};
use fabsh_client::context::Ctx;
use fabsh_client::error::{Error, ErrorKind, Result};
use fabsh_client::reply::Reply;
use fabsh_local::{Faults, KNOBS, LocalServer, ServeOptions, private_files};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

pub(super) use super::serve_record::SERVE_FILE;
use super::serve_record::{self as record, Record};

/// The detached server's output, in its data dir.
const LOG_FILE: &str = "serve.log";
/// How many `export` lines a server prints first (a detached server's parent passes them on).
const EXPORT_LINES: usize = 4;
/// How long the admin token printed for an already running server lasts (as long as the one
/// a server prints when it starts).
const LIVE_TOKEN_SECONDS: i64 = 30 * 24 * 3600;
/// How long `local stop` waits for the server to finish its requests.
const STOP_WAIT: Duration = Duration::from_secs(15);

const DATA_DIR: ArgSpec = ArgSpec::opt(
    "data-dir",
    ArgKind::Str,
    "Where local Fabric keeps its state (default: the user data dir)",
);
const ADDR: ArgSpec = ArgSpec::opt(
    "addr",
    ArgKind::Str,
    "Address to listen on, HOST:PORT (port 0 picks a free one)",
)
.default("127.0.0.1:0");
const DETACH: ArgSpec = ArgSpec::opt(
    "detach",
    ArgKind::Bool,
    "Run in the background: print the export lines, then return (stop it with `local stop`)",
);
const PUBLIC_HOST: ArgSpec = ArgSpec::opt(
    "public-host",
    ArgKind::List,
    "The host names or addresses other machines reach the server by (HOST or HOST:PORT; repeat the flag or separate with commas for several, as deployment tools call api.fabric.microsoft.com and api.powerbi.com in one run): requests must name one of them, a loopback host or the bound address in Host; others are refused (against DNS rebinding)",
);

const PUBLIC_URL: ArgSpec = ArgSpec::opt(
    "public-url",
    ArgKind::Str,
    "The URL clients reach the server by when it is not http://HOST (behind a TLS terminator: https://HOST[:PORT]): operation, paging and invitation links use it; its host is the public host unless --public-host names one. Without it, a proxy's X-Forwarded-Proto or Forwarded proto= sets the scheme",
);

/// `serve`'s flags before the fault knobs.
const FIXED_ARGS: usize = 5;
/// `serve`'s flags: the address, the data dir, detach, the public host and URL, and one flag
/// per fault knob.
const SERVE_ARGS: [ArgSpec; FIXED_ARGS + KNOBS.len()] = serve_args();

const fn serve_args() -> [ArgSpec; FIXED_ARGS + KNOBS.len()] {
    let mut args = [ADDR; FIXED_ARGS + KNOBS.len()];
    args[1] = DATA_DIR;
    args[2] = DETACH;
    args[3] = PUBLIC_HOST;
    args[4] = PUBLIC_URL;
    let mut at = 0;
    while at < KNOBS.len() {
        let knob = KNOBS[at];
        // A switch (`--legacy-assistants`) when the knob is true or false, a value otherwise.
        let kind = if is_switch(knob.default) {
            ArgKind::Bool
        } else {
            ArgKind::Str
        };
        args[FIXED_ARGS + at] = ArgSpec::opt(knob.flag, kind, knob.help)
            .env(knob.env)
            .default(knob.default);
        at += 1;
    }
    args
}

/// Whether a knob's default is `true` or `false` (so the knob is a switch).
const fn is_switch(default: &str) -> bool {
    let text = default.as_bytes();
    matches!(text, b"true" | b"false")
}

/// The fault knobs' values as text, in the order of [`KNOBS`]: a switch's `true`/`false`, or
/// the value given (each has a default, so each has a value). Read by the specs generated
/// from the knob table, which is where their names are written.
struct Knobs(Vec<(&'static str, String)>);

impl FromArgs for Knobs {
    fn from_args(args: &Args) -> Result<Self> {
        SERVE_ARGS[FIXED_ARGS..]
            .iter()
            .map(|spec| {
                let value = match Option::<bool>::from_arg(args, spec)? {
                    Some(on) => on.to_string(),
                    None => String::from_arg(args, spec)?,
                };
                Ok((spec.long, value))
            })
            .collect::<Result<_>>()
            .map(Knobs)
    }
}

typed_args! {
    /// `local serve`.
    struct Serve {
        addr: String = ADDR,
        data_dir: Option<String> = DATA_DIR,
        detach: bool = DETACH,
        public_hosts: Vec<String> = PUBLIC_HOST,
        public_url: Option<String> = PUBLIC_URL,
        knobs: Knobs,
    }
}

/// `fabsh local serve`.
pub(super) const SERVE: CommandSpec = CommandSpec {
    group: "local",
    name: "serve",
    summary: "Run local Fabric as a server; prints `export FABSH_ENDPOINT=...`, `export FABSH_TOKEN=...`, `export IDENTITY_HEADER=...` and `export FABSH_STORAGE_TOKEN=...` first",
    about: "Serves until Ctrl-C or `fabsh local stop`; with --detach it runs in the \
background and the command returns once it listens, so `eval \"$(fabsh local serve \
--detach)\"` sets up the shell. IDENTITY_HEADER is the secret its managed-identity endpoint \
(/msi/token, which IDENTITY_ENDPOINT names for a process that should sign in as a managed \
identity) wants, kept in the store like the token's key. The fault flags (latency, quotas, error rates, page size, LRO \
timing) make it behave like a busy or failing service for tests and benchmarks.",
    args: &SERVE_ARGS,
    traits: Traits::READ.needs(Needs::LocalFabric),
    columns: &[],
    examples: &[
        Example {
            command: "local serve --data-dir ./fabric --page-size 5",
            about: "a server with small pages, its state in ./fabric; Ctrl-C stops it",
        },
        Example {
            command: "local serve --detach --data-dir ./fabric",
            about: "in the background; `eval \"$(...)\"` exports its endpoint and token",
        },
        Example {
            command: "local serve --addr 0.0.0.0:8765 --public-host fabric.example.com",
            about: "reachable from other machines as fabric.example.com:8765",
        },
    ],
    handler: Handler::Interactive(at_terminal::<Serve>),
};

/// `fabsh local stop`.
pub(super) const STOP: CommandSpec = CommandSpec {
    group: "local",
    name: "stop",
    summary: "Stop the local Fabric server running on a data dir (one `local serve` started)",
    about: "Asks the server to finish its requests and stop, and waits until it has.",
    args: &[DATA_DIR],
    traits: Traits::MUTATE.needs(Needs::LocalFabric),
    columns: &[],
    examples: &[Example {
        command: "local stop --data-dir ./fabric",
        about: "the server `local serve --detach --data-dir ./fabric` started",
    }],
    handler: Handler::Data(handler::<Stop>),
};

impl TerminalCommand for Serve {
    fn run(self, terminal: &Terminal<'_>) -> Result<ExitCode> {
        serve(terminal, self)
    }
}

fn serve(terminal: &Terminal<'_>, args: Serve) -> Result<ExitCode> {
    let addr: SocketAddr = args
        .addr
        .parse()
        .map_err(|err| Error::usage(format!("--addr: {err}")))?;
    let mut faults = Faults::default();
    for (flag, value) in &args.knobs.0 {
        faults
            .set(flag, value)
            .map_err(|err| Error::usage(format!("--{flag}: {err}")))?;
    }
    if let Some(url) = &args.public_url {
        fabsh_local::public_url::parse(url)
            .map_err(|why| Error::usage(format!("--public-url: {why}")))?;
    }
    let dir = std::path::absolute(store_dir(args.data_dir.as_deref()))
        .map_err(|err| Error::usage("--data-dir: not a usable path").with_cause(err))?;
    prepare_dir(&dir)?;
    if !addr.ip().is_loopback() {
        terminal.printer.warn(&exposure_warning(addr));
    }
    if args.detach {
        return detach(terminal, &args, &dir, addr);
    }
    let bridge = terminal.bridge;
    // Held until this process ends: one data dir has one server.
    let Some(_lock) = fabsh_local::server_identity::lock(&dir).map_err(local_error)? else {
        return bridge.block_on(async { Err(record::already_served(&dir).await) });
    };
    let options = ServeOptions {
        addr,
        data_dir: dir.clone(),
        faults,
        public_hosts: args.public_hosts,
        public_url: args.public_url,
        llm: crate::connect::local_model()?,
    };
    let server =
        bridge.block_on(async { LocalServer::start(options).await.map_err(local_error) })?;
    let own = Record {
        pid: std::process::id(),
        endpoint: server.base_url().to_string(),
    };
    record::write(&dir, &own)?;
    // Listening for Ctrl-C before the endpoint is printed: whoever reads it may press Ctrl-C
    // at once, and that must stop the server as cleanly as a later one (the token stays
    // cancelled until `wait` sees it).
    bridge.cancel_on_ctrl_c();
    terminal.printer.text(&format!(
        "export {ENDPOINT_VAR}={}\nexport {TOKEN_VAR}={}\nexport {IDENTITY_HEADER_VAR}={}\nexport {STORAGE_TOKEN_VAR}={}\n",
        server.base_url(),
        server.admin_token(),
        server.identity_header(),
        server.admin_storage_token()
    ))?;
    // IDENTITY_ENDPOINT is not exported: with it, every Azure SDK in the shell would take
    // its tokens from here.
    terminal.printer.note(&format!(
        "managed identities (`local principal add --managed-identity`) sign in with \
         IDENTITY_ENDPOINT={}/msi/token and IDENTITY_HEADER set",
        server.base_url().trim_end_matches("/v1")
    ));
    terminal
        .printer
        .note("local Fabric is running; Ctrl-C or `fabsh local stop` stops it");
    let outcome = bridge.block_on(async { server.wait().await.map_err(local_error) });
    record::remove(&dir, Some(own.pid));
    match outcome {
        Err(err) if err.kind == ErrorKind::Cancelled => Ok(ExitCode::SUCCESS),
        other => other.map(|()| ExitCode::SUCCESS),
    }
}

/// Starts this binary as `local serve` (same flags, without --detach) in its own process
/// group, so the shell's Ctrl-C does not reach it; prints its export lines once it listens
/// and returns.
fn detach(terminal: &Terminal<'_>, args: &Serve, dir: &Path, addr: SocketAddr) -> Result<ExitCode> {
    if record::is_served(dir) {
        return print_live(terminal, dir);
    }
    let log_path = dir.join(LOG_FILE);
    let log = private_files::rewrite(&log_path).map_err(|err| {
        Error::runtime(format!("cannot write {}", log_path.display())).with_cause(err)
    })?;
    let exe = std::env::current_exe()
        .map_err(|err| Error::runtime("cannot find the fabsh binary").with_cause(err))?;
    let mut command = Command::new(exe);
    command
        .args(["local", "serve", "--addr", &addr.to_string(), "--data-dir"])
        .arg(dir);
    for host in &args.public_hosts {
        command.args(["--public-host", host]);
    }
    if let Some(value) = &args.public_url {
        command.args(["--public-url", value]);
    }
    for (flag, value) in &args.knobs.0 {
        command.arg(format!("--{flag}")).arg(value);
    }
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log);
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command
        .spawn()
        .map_err(|err| Error::runtime("cannot start local Fabric").with_cause(err))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| Error::runtime("local Fabric's output was not captured"))?;
    let lines: Vec<String> = BufReader::new(stdout)
        .lines()
        .take(EXPORT_LINES)
        .map_while(std::io::Result::ok)
        .collect();
    if lines.len() < EXPORT_LINES {
        let _ = child.wait();
        // Another `serve --detach` on this dir won the race for the store lock.
        if record::is_served(dir) {
            return print_live(terminal, dir);
        }
        // The log may not exist yet: the error then says only that the server did not start.
        let why = std::fs::read_to_string(&log_path).unwrap_or_default();
        return Err(Error::runtime("local Fabric did not start").with_cause(why.trim()));
    }
    terminal.printer.text(&format!("{}\n", lines.join("\n")))?;
    terminal.printer.note(&format!(
        "local Fabric runs in the background (pid {}, log {}); `fabsh local stop --data-dir {}` stops it",
        child.id(),
        log_path.display(),
        dir.display()
    ));
    Ok(ExitCode::SUCCESS)
}

typed_args! {
    /// `local stop`.
    struct Stop {
        data_dir: Option<String> = DATA_DIR,
    }
}

impl typed::Command for Stop {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        stop(ctx, self)
    }
}

fn stop(_ctx: Ctx, args: Stop) -> HandlerFuture {
    Box::pin(async move {
        let dir = store_dir(args.data_dir.as_deref());
        let found = record::read(&dir).ok_or_else(|| {
            Error::not_found(format!(
                "no local Fabric server is recorded in {}",
                dir.display()
            ))
            .with_hint("`local stop` stops a server that `local serve` started on that data dir")
        })?;
        let recorded = format!("pid {}, {}", found.pid, found.endpoint);
        // Nothing secret goes anywhere until the server has shown it is the one of this
        // store: after a crash another program may hold the recorded port.
        if !record::is_served(&dir) {
            record::remove(&dir, None);
            return Ok(Reply::empty().with_note(format!(
                "the recorded local Fabric server ({recorded}) is gone: no server holds the store of {}; removed its record",
                dir.display()
            )));
        }
        if !record::proves_itself(&dir, &found).await? {
            // A server holds the store, but not the one recorded: removing the record would
            // lose the only trace, and leave the next `serve --detach` waiting for one.
            return Err(record::mismatched(&dir, &found));
        }
        let (store, seconds) = (dir.clone(), 60);
        let token =
            tokio::task::spawn_blocking(move || fabsh_local::admin::admin_token(&store, seconds))
                .await
                .map_err(|err| Error::runtime("local Fabric's store failed").with_cause(err))?
                .map_err(local_error)?;
        let http = fabsh_http::client(true)?;
        let origin = found.origin().to_string();
        let sent = http
            .post(format!("{origin}/_local/shutdown"))
            .bearer_auth(&token)
            .send()
            .await;
        if sent.is_err() && !record::is_served(&dir) {
            record::remove(&dir, Some(found.pid));
            return Ok(Reply::empty().with_note("local Fabric was not running"));
        }
        // Stopped when it lets go of the store.
        let started = Instant::now();
        while record::is_served(&dir) {
            if started.elapsed() > STOP_WAIT {
                return Err(Error::runtime(format!(
                    "local Fabric at {origin} is still running after {} s",
                    STOP_WAIT.as_secs()
                )));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // The server removes it too as it exits; whoever comes first, it is gone on return.
        record::remove(&dir, Some(found.pid));
        Ok(Reply::empty().with_note(format!("local Fabric at {origin} stopped")))
    })
}

/// The origin of the server running on `dir`: the one holding its store lock, or (for a
/// server without one) whatever answers at the recorded endpoint.
pub(super) async fn running_on(dir: &Path) -> Option<String> {
    let found = record::read(dir)?;
    let running = record::is_served(dir) || answers(found.address()).await;
    running.then(|| found.origin().to_string())
}

/// Creates the data dir private (or makes an empty one private) and refuses a store others
/// can read: here, with its hint and exit code, rather than in the log of a server that did
/// not start.
fn prepare_dir(dir: &Path) -> Result<()> {
    private_files::create_dir(dir)
        .map_err(|err| Error::usage(format!("cannot create {}", dir.display())).with_cause(err))?;
    private_files::check_store(dir).map_err(local_error)
}

/// What a bind beyond loopback exposes, for stderr.
fn exposure_warning(addr: SocketAddr) -> String {
    format!(
        "local Fabric listens on {addr}, beyond this machine: anyone who can reach it may call its API with a token, sign principals in at its token endpoint with their secrets, and open its device-code page; its managed-identity endpoints still answer only this machine"
    )
}

/// The export lines of the server already running on `dir`, as it printed them (a fresh
/// admin token, the same endpoint and identity header), so `eval "$(fabsh local serve
/// --detach ...)"` may be repeated.
fn print_live(terminal: &Terminal<'_>, dir: &Path) -> Result<ExitCode> {
    let bridge = terminal.bridge;
    let found = bridge.block_on(async {
        match record::proven(dir).await? {
            Some(found) => Ok(found),
            None => Err(record::already_served(dir).await),
        }
    })?;
    let token = fabsh_local::admin::admin_token(dir, LIVE_TOKEN_SECONDS).map_err(local_error)?;
    let header = fabsh_local::server_identity::identity_header(dir).map_err(local_error)?;
    let storage =
        fabsh_local::admin::admin_storage_token(dir, LIVE_TOKEN_SECONDS).map_err(local_error)?;
    terminal.printer.text(&format!(
        "export {ENDPOINT_VAR}={}\nexport {TOKEN_VAR}={token}\nexport {IDENTITY_HEADER_VAR}={header}\nexport {STORAGE_TOKEN_VAR}={storage}\n",
        found.endpoint
    ))?;
    terminal.printer.note(&format!(
        "local Fabric already runs on {} (pid {}); these are its export lines",
        dir.display(),
        found.pid
    ));
    Ok(ExitCode::SUCCESS)
}

/// True while something accepts connections at `address`.
async fn answers(address: Option<SocketAddr>) -> bool {
    match address {
        Some(addr) => tokio::net::TcpStream::connect(addr).await.is_ok(),
        None => false,
    }
}
