//! `Ctx`: what every handler gets — the settings in effect, the API client for this call, the
//! name resolver, the async bridge, the stdlib the front end provides, and whatever server
//! the front end started for this context (local Fabric with `--local`).

use crate::agent::judge::Judge;
use crate::bridge::Bridge;
use crate::error::Result;
use crate::output::{Progress, Tracer, trace};
use crate::stdlib::Stdlib;
use fabsh_api::api::resolve::Resolver;
use fabsh_api::api::{ApiClient, CallOptions};
use fabsh_api::auth::chain::choose_for;
use fabsh_api::auth::{Resource, Secret, StaticToken, TokenProvider};
use fabsh_api::config::Settings;
use fabsh_api::onelake::OneLake;
use std::any::Any;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// A server the front end started for this context: where it listens, a token for it, and
/// the handle that keeps it running for as long as the context lives.
pub struct AttachedServer {
    /// The API base URL (`http://127.0.0.1:PORT/v1`).
    pub base_url: String,
    /// A bearer token the server accepts.
    pub token: Secret,
    /// A bearer token its OneLake accepts (Storage audience).
    pub storage_token: Secret,
    /// How the backend is named in prompts and `fabsh::backend()` (`local`).
    pub backend: String,
    /// Dropped with the context, which stops the server.
    pub keep_alive: Box<dyn Any + Send + Sync>,
}

/// The context handed to command handlers. Cheap to clone.
#[derive(Clone)]
pub struct Ctx {
    shared: Arc<Shared>,
    api: ApiClient,
    /// Where this context's waits and notes are shown (the API client reports through it).
    progress: Progress,
    /// The model that grades answers, when a command configured one (`evaluate --llm-*`).
    judge: Option<Arc<Judge>>,
    /// How commands run stdlib functions; set by front ends that embed the script host.
    stdlib: Option<Arc<dyn Stdlib>>,
    /// What synchronous work of this context (a stdlib function's script) waits through,
    /// and is cancelled by.
    bridge: Bridge,
}

struct Shared {
    settings: Settings,
    backend: String,
    /// Where OneLake's Storage tokens come from.
    storage: StorageTokens,
    /// OneLake, made when a command first needs it.
    onelake: Mutex<Option<Arc<OneLake>>>,
    /// Kept alive for as long as the context: dropping it stops an attached server.
    _server: Option<Box<dyn Any + Send + Sync>>,
}

impl Ctx {
    /// Connects to the endpoint the settings name, with the credentials they name.
    pub fn connect(settings: &Settings, bridge: Bridge, progress: Progress) -> Result<Ctx> {
        let tracer = verbose(settings);
        let endpoint = settings.endpoint();
        let waits = Arc::new(progress.clone());
        let mut api = ApiClient::new(&endpoint, settings.token_provider()?, tracer, waits)?;
        // Local Fabric started in-process (`attach`) listens on a new port each time, so only
        // connected endpoints keep names across processes.
        if settings.persistent_names() {
            api = api.with_persistent_names();
        }
        let backend = api.base().host_str().unwrap_or("fabric").to_string();
        Ok(Self::from_parts(
            settings,
            bridge,
            (api, progress),
            (backend, StorageTokens::Chain(tracer)),
            None,
        ))
    }

    /// Connects to a server the front end started (local Fabric), keeping it running.
    pub fn attach(
        settings: &Settings,
        bridge: Bridge,
        progress: Progress,
        server: AttachedServer,
    ) -> Result<Ctx> {
        let tracer = verbose(settings);
        let auth = Arc::new(StaticToken::new(server.token, server.backend.clone()));
        let api = ApiClient::new(&server.base_url, auth, tracer, Arc::new(progress.clone()))?;
        let keep_alive = Some(server.keep_alive);
        let storage = StorageTokens::Static(server.storage_token, server.backend.clone());
        Ok(Self::from_parts(
            settings,
            bridge,
            (api, progress),
            (server.backend, storage),
            keep_alive,
        ))
    }

    /// A context for commands that send nothing to the service: no server, no credentials.
    pub fn offline(settings: &Settings, bridge: Bridge) -> Result<Ctx> {
        // Its client sends nothing, but a command run offline may sign in (`auth login`), and
        // sign-in makes its own tracer from the settings.
        trace::install();
        let api = ApiClient::new(
            fabsh_api::api::DEFAULT_ENDPOINT,
            Arc::new(fabsh_api::auth::NoCredentials),
            None,
            Arc::new(Progress::hidden()),
        )?;
        Ok(Self::from_parts(
            settings,
            bridge,
            (api, Progress::hidden()),
            ("offline".into(), StorageTokens::None),
            None,
        ))
    }

    fn from_parts(
        settings: &Settings,
        bridge: Bridge,
        (api, progress): (ApiClient, Progress),
        (backend, storage): (String, StorageTokens),
        server: Option<Box<dyn Any + Send + Sync>>,
    ) -> Ctx {
        Ctx {
            shared: Arc::new(Shared {
                settings: settings.clone(),
                backend,
                storage,
                onelake: Mutex::default(),
                _server: server,
            }),
            api,
            progress,
            judge: None,
            stdlib: None,
            bridge,
        }
    }

    /// The same context with per-call options (`--dry-run`, `--no-wait`, `--lro-timeout`).
    pub fn for_call(&self, options: CallOptions) -> Ctx {
        Ctx {
            api: self.api.with_options(options),
            ..self.clone()
        }
    }

    /// The same context without spinners, for calls that run many at a time under one bar.
    pub fn without_progress(&self) -> Ctx {
        self.with_progress(Progress::hidden())
    }

    /// The same context waiting through `bridge`: one call's own, so cancelling it stops that
    /// call's synchronous work and no other's (the MCP server's calls).
    pub fn with_bridge(&self, bridge: Bridge) -> Ctx {
        Ctx {
            bridge,
            ..self.clone()
        }
    }

    /// The same context reporting progress through `progress` (an MCP call's own reports).
    pub fn with_progress(&self, progress: Progress) -> Ctx {
        Ctx {
            api: self.api.with_progress(Arc::new(progress.clone())),
            progress,
            ..self.clone()
        }
    }

    /// The same context grading answers with `judge` (none: the deterministic rules).
    pub fn with_judge(&self, judge: Option<Judge>) -> Ctx {
        Ctx {
            judge: judge.map(Arc::new),
            ..self.clone()
        }
    }

    /// The same context running stdlib functions with `stdlib`.
    pub fn with_stdlib(&self, stdlib: Arc<dyn Stdlib>) -> Ctx {
        Ctx {
            stdlib: Some(stdlib),
            ..self.clone()
        }
    }

    /// The judge a command configured, if any.
    pub fn judge(&self) -> Option<&Arc<Judge>> {
        self.judge.as_ref()
    }

    /// The stdlib the front end provides, if any.
    pub fn stdlib(&self) -> Option<&Arc<dyn Stdlib>> {
        self.stdlib.as_ref()
    }

    /// Where this call's waits, bars and notes are shown.
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    /// The API client of this call.
    pub fn api(&self) -> &ApiClient {
        &self.api
    }

    /// The bridge between sync front ends and async handlers.
    pub fn bridge(&self) -> &Bridge {
        &self.bridge
    }

    /// The settings in effect (flags, environment, profile).
    pub fn settings(&self) -> &Settings {
        &self.shared.settings
    }

    /// The process-wide name cache (the API client's, which it keeps fresh after writes).
    pub fn resolver(&self) -> &Resolver {
        self.api.resolver()
    }

    /// `local`, or the endpoint's host: shown in the REPL prompt.
    pub fn backend(&self) -> &str {
        &self.shared.backend
    }

    /// The directory whose stdlib modules replace the built-in ones, if any.
    pub fn stdlib_dir(&self) -> Option<PathBuf> {
        self.shared.settings.stdlib_dir()
    }

    /// The id of a workspace given by id or name.
    pub async fn workspace_id(&self, text: &str) -> Result<String> {
        self.resolver().workspace(&self.api, text).await
    }

    /// The id of a workspace given by id or name, from a listing rather than the name cache
    /// (whose ids are confirmed with a request about them).
    pub async fn workspace_id_listed(&self, text: &str) -> Result<String> {
        self.resolver()
            .workspace_from_listing(&self.api, text)
            .await
    }

    /// OneLake of this context's endpoint, its Storage tokens from the source of its Fabric
    /// ones.
    pub fn onelake(&self) -> Result<Arc<OneLake>> {
        let mut made = self
            .shared
            .onelake
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(lake) = made.as_ref() {
            return Ok(Arc::clone(lake));
        }
        let tokens: Arc<dyn TokenProvider> = match &self.shared.storage {
            StorageTokens::Chain(tracer) => {
                choose_for(&self.shared.settings, Resource::Storage, *tracer)?.provider
            }
            StorageTokens::Static(token, source) => {
                Arc::new(StaticToken::new(token.clone(), source.clone()))
            }
            StorageTokens::None => Arc::new(fabsh_api::auth::NoCredentials),
        };
        let lake = Arc::new(OneLake::new(self.api.base(), tokens));
        *made = Some(Arc::clone(&lake));
        Ok(lake)
    }

    /// The id of an item given by id or name, optionally of one type only.
    pub async fn item_id(
        &self,
        workspace_id: &str,
        text: &str,
        item_type: Option<&str>,
    ) -> Result<String> {
        self.resolver()
            .item(&self.api, workspace_id, text, item_type)
            .await
    }
}

/// Where a context's OneLake gets Storage tokens.
enum StorageTokens {
    /// The credential chain of the settings (its tracer for `--verbose`).
    Chain(Option<Tracer>),
    /// A token of the attached server, and how it is named.
    Static(Secret, String),
    /// None: a context that sends nothing.
    None,
}

/// Traces for a `--verbose` run, sent to stderr: the sink is installed first, as sign-in
/// (which makes its own tracer from the settings) may trace before any request is sent.
fn verbose(settings: &Settings) -> Option<Tracer> {
    trace::install();
    settings.verbose.then_some(Tracer)
}
