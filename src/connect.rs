//! How the front ends get the context commands run on: with `--local`, local Fabric starts
//! in-process (once per context) and the client is handed its endpoint and admin token;
//! otherwise the client connects to the endpoint the settings name. Either way, commands
//! that run stdlib functions reach them through this binary's script host.

use crate::script::StdlibHost;
use fabsh_client::auth::Secret;
use fabsh_client::bridge::Bridge;
use fabsh_client::commands::{CommandSpec, Needs};
use fabsh_client::config::Settings;
use fabsh_client::context::{AttachedServer, Ctx};
use fabsh_client::error::{Error, ErrorKind, Result};
use fabsh_client::output::Progress;
use fabsh_http::chat::{LlmClient, LlmConfig};
use fabsh_local::server_identity::{self, StoreLock};
use fabsh_local::{Faults, LocalServer, ServeOptions, private_files};
use fabsh_model::agent::language_model::JsonChat;
use std::path::Path;
use std::sync::Arc;

/// A context connected to the backend the settings choose.
pub fn connect(settings: &Settings, bridge: Bridge, progress: Progress) -> Result<Ctx> {
    let ctx = if settings.local {
        let data_dir = fabsh_local::default_data_dir();
        let lock = bridge.block_on(store_lock(&data_dir))?;
        let options = ServeOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            data_dir,
            faults: Faults::from_env().map_err(Error::usage)?,
            public_hosts: Vec::new(),
            public_url: None,
            llm: local_model()?,
        };
        let server =
            bridge.block_on(async { LocalServer::start(options).await.map_err(local_error) })?;
        let attached = AttachedServer {
            base_url: server.base_url().to_string(),
            token: Secret::new(server.admin_token()),
            backend: "local".to_string(),
            // The server stops before its store is let go.
            keep_alive: Box::new((server, lock)),
        };
        Ctx::attach(settings, bridge, progress, attached)?
    } else {
        Ctx::connect(settings, bridge, progress)?
    };
    Ok(ctx.with_stdlib(Arc::new(StdlibHost)))
}

/// The store lock `local serve` takes, taken by an in-process server too: one data dir has
/// one server writing it, whichever way it was started.
async fn store_lock(data_dir: &Path) -> Result<StoreLock> {
    private_files::create_dir(data_dir).map_err(|err| {
        Error::usage(format!("cannot create {}", data_dir.display())).with_cause(err)
    })?;
    match server_identity::lock(data_dir).map_err(local_error)? {
        Some(lock) => Ok(lock),
        None => Err(crate::commands::serve_record::already_served(data_dir)
            .await
            .with_hint("or leave out --local: with its export lines, fabsh uses that server")),
    }
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
