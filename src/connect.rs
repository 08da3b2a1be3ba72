//! How the front ends get the context commands run on: with `--local`, local Fabric starts
//! in-process (once per context) and the client is handed its endpoint and admin token;
//! otherwise the client connects to the endpoint the settings name. Either way, commands
//! that run stdlib functions reach them through this binary's script host.

use crate::commands::serve_record;
use crate::script::StdlibHost;
use fabsh_api::auth::Secret;
use fabsh_api::config::Settings;
use fabsh_client::bridge::Bridge;
use fabsh_client::commands::{CommandSpec, Needs};
use fabsh_client::context::{AttachedServer, Ctx};
use fabsh_client::error::{Error, ErrorKind, Result};
use fabsh_client::output::Progress;
use fabsh_http::chat::{LlmClient, LlmConfig};
use fabsh_local::server_identity;
use fabsh_local::{Faults, LocalServer, ServeOptions, private_files};
use fabsh_model::agent::language_model::JsonChat;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A context connected to the backend the settings choose.
pub fn connect(settings: &Settings, bridge: Bridge, progress: Progress) -> Result<Ctx> {
    let ctx = if settings.local {
        let attached = bridge.block_on(in_process_or_served(fabsh_local::default_data_dir()))?;
        Ctx::attach(settings, bridge, progress, attached)?
    } else {
        Ctx::connect(settings, bridge, progress)?
    };
    Ok(ctx.with_stdlib(Arc::new(StdlibHost)))
}

/// How long a `--local` run waits for another one on the same store to finish.
const IN_PROCESS_WAIT: Duration = Duration::from_secs(30);
/// How long the admin token handed to a `--local` run on a served store lasts.
const ATTACHED_TOKEN_SECONDS: i64 = 12 * 3600;

/// Local Fabric for a `--local` run. One data dir has one server writing it, whichever way
/// it was started (the store lock `local serve` takes): when `local serve` runs on the store,
/// the run uses that server; when another `--local` run holds it, this one waits its turn;
/// otherwise it starts one in this process.
async fn in_process_or_served(data_dir: PathBuf) -> Result<AttachedServer> {
    private_files::create_dir(&data_dir).map_err(|err| {
        Error::usage(format!("cannot create {}", data_dir.display())).with_cause(err)
    })?;
    let started = Instant::now();
    let lock = loop {
        if let Some(lock) = server_identity::lock(&data_dir).map_err(local_error)? {
            break lock;
        }
        if let Some(served) = serve_record::proven(&data_dir).await? {
            return attach_to_served(&data_dir, &served);
        }
        if started.elapsed() > IN_PROCESS_WAIT {
            return Err(serve_record::already_served(&data_dir).await.with_hint(
                "another fabsh --local run holds this store; wait for it to finish, or share one server: `eval \"$(fabsh local serve --detach)\"` and leave out --local",
            ));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let options = ServeOptions {
        addr: ([127, 0, 0, 1], 0).into(),
        data_dir,
        faults: Faults::from_env().map_err(Error::usage)?,
        public_hosts: Vec::new(),
        public_url: None,
        llm: local_model()?,
    };
    let server = LocalServer::start(options).await.map_err(local_error)?;
    Ok(AttachedServer {
        base_url: server.base_url().to_string(),
        token: Secret::new(server.admin_token()),
        storage_token: Secret::new(server.admin_storage_token()),
        backend: "local".to_string(),
        // The server stops before its store is let go.
        keep_alive: Box::new((server, lock)),
    })
}

/// The `local serve` running on `data_dir`, which proved itself, with a fresh admin token
/// minted from the store (as its `--detach` export lines are).
fn attach_to_served(data_dir: &Path, served: &serve_record::Record) -> Result<AttachedServer> {
    let token =
        fabsh_local::admin::admin_token(data_dir, ATTACHED_TOKEN_SECONDS).map_err(local_error)?;
    let storage_token = fabsh_local::admin::admin_storage_token(data_dir, ATTACHED_TOKEN_SECONDS)
        .map_err(local_error)?;
    Ok(AttachedServer {
        base_url: served.endpoint.clone(),
        token: Secret::new(token),
        storage_token: Secret::new(storage_token),
        backend: "local".to_string(),
        keep_alive: Box::new(()),
    })
}

/// A context for commands that send nothing to the service.
pub fn offline(settings: &Settings, bridge: Bridge) -> Result<Ctx> {
    Ok(Ctx::offline(settings, bridge)?.with_stdlib(Arc::new(StdlibHost)))
}

/// The language model local Fabric's agents write SQL with, from `FABSH_LLM_*` (none when
/// unset): the client side's chat client, handed to the emulator, which never depends on it.
pub fn local_model() -> Result<Option<Arc<dyn JsonChat>>> {
    let invalid = |why: String| Error::usage(format!("local Fabric's model: {why}"));
    let Some(config) = LlmConfig::from_env().map_err(invalid)? else {
        return Ok(None);
    };
    let client = LlmClient::new(config).map_err(|err| invalid(err.to_string()))?;
    Ok(Some(Arc::new(client)))
}

/// Local Fabric's error as the client's: its kind decides the exit code.
pub fn local_error(err: fabsh_local::Error) -> Error {
    let kind = match err.kind {
        fabsh_local::ErrorKind::Invalid => ErrorKind::Usage,
        fabsh_local::ErrorKind::NotFound => ErrorKind::NotFound,
        fabsh_local::ErrorKind::Failed => ErrorKind::Runtime,
    };
    Error::from_problem(kind, err.problem)
}

/// The context a registry command runs on: connected when it needs the service, else one that
/// sends nothing (offline checks, settings, local Fabric's store).
pub fn context_for(
    spec: &CommandSpec,
    settings: &Settings,
    bridge: Bridge,
    progress: Progress,
) -> Result<Ctx> {
    match spec.traits.needs {
        Needs::Service => connect(settings, bridge, progress),
        Needs::Nothing | Needs::LocalFabric => offline(settings, bridge),
    }
}
