//! `Ctx`: what every handler gets — the API client for this call, the name resolver, the
//! async bridge, and the local Fabric server when `--local` started one.

use crate::agent::judge::Judge;
use crate::api::resolve::Resolver;
use crate::api::{ApiClient, CallOptions};
use crate::auth::{Secret, StaticToken};
use crate::bridge::Bridge;
use crate::config::Settings;
use crate::error::Result;
use crate::local::{self, LocalServer, ServeOptions};
use crate::output::{Progress, Tracer};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The context handed to command handlers. Cheap to clone.
#[derive(Clone)]
pub struct Ctx {
    shared: Arc<Shared>,
    api: ApiClient,
    /// The model that grades answers, when a command configured one (`evaluate --llm-*`).
    judge: Option<Arc<Judge>>,
}

struct Shared {
    bridge: Bridge,
    resolver: Resolver,
    backend: String,
    /// `--stdlib` / `FABSH_STDLIB`: commands that run stdlib functions load them from here.
    stdlib_dir: Option<PathBuf>,
    /// Kept alive for as long as the context: dropping it stops the in-process server.
    _local: Option<LocalServer>,
}

impl Ctx {
    /// Connects to the configured backend; with `--local`, starts local Fabric first.
    pub fn connect(settings: &Settings, bridge: Bridge, progress: Progress) -> Result<Ctx> {
        let tracer = settings.verbose.then_some(Tracer);
        let (api, backend, local) = if settings.local {
            let faults = local::Faults::from_env().map_err(crate::Error::usage)?;
            let options = ServeOptions {
                addr: ([127, 0, 0, 1], 0).into(),
                data_dir: local::default_data_dir(),
                faults,
            };
            let server = bridge.block_on(LocalServer::start(options))?;
            let auth = Arc::new(StaticToken::new(
                Secret::new(server.admin_token()),
                "local Fabric",
            ));
            let api = ApiClient::new(server.base_url(), auth, tracer, progress)?;
            (api, "local".to_string(), Some(server))
        } else {
            let endpoint = settings.endpoint();
            let api = ApiClient::new(&endpoint, settings.token_provider()?, tracer, progress)?;
            let backend = api.base().host_str().unwrap_or("fabric").to_string();
            (api, backend, None)
        };
        Ok(Ctx {
            shared: Arc::new(Shared {
                bridge,
                resolver: Resolver::default(),
                backend,
                stdlib_dir: settings.stdlib_dir(),
                _local: local,
            }),
            api,
            judge: None,
        })
    }

    /// A context for commands that send nothing (offline checks): no server, no credentials.
    pub fn offline(bridge: Bridge) -> Result<Ctx> {
        let api = ApiClient::new(
            crate::api::DEFAULT_ENDPOINT,
            Arc::new(crate::auth::NoCredentials),
            None,
            Progress::hidden(),
        )?;
        Ok(Ctx {
            shared: Arc::new(Shared {
                bridge,
                resolver: Resolver::default(),
                backend: "offline".to_string(),
                stdlib_dir: None,
                _local: None,
            }),
            api,
            judge: None,
        })
    }

    /// The same context with per-call options (`--dry-run`, `--no-wait`, `--lro-timeout`).
    pub fn for_call(&self, options: CallOptions) -> Ctx {
        Ctx {
            shared: Arc::clone(&self.shared),
            api: self.api.with_options(options),
            judge: self.judge.clone(),
        }
    }

    /// The same context without spinners, for calls that run many at a time under one bar.
    pub fn without_progress(&self) -> Ctx {
        Ctx {
            shared: Arc::clone(&self.shared),
            api: self.api.with_progress(Progress::hidden()),
            judge: self.judge.clone(),
        }
    }

    /// The same context grading answers with `judge` (none: the deterministic rules).
    pub fn with_judge(&self, judge: Option<Judge>) -> Ctx {
        Ctx {
            judge: judge.map(Arc::new),
            ..self.clone()
        }
    }

    /// The judge a command configured, if any.
    pub fn judge(&self) -> Option<&Arc<Judge>> {
        self.judge.as_ref()
    }

    /// The API client of this call.
    pub fn api(&self) -> &ApiClient {
        &self.api
    }

    /// The bridge between sync front ends and async handlers.
    pub fn bridge(&self) -> &Bridge {
        &self.shared.bridge
    }

    /// The process-wide name cache.
    pub fn resolver(&self) -> &Resolver {
        &self.shared.resolver
    }

    /// `local`, or the endpoint's host: shown in the REPL prompt.
    pub fn backend(&self) -> &str {
        &self.shared.backend
    }

    /// The directory whose stdlib modules replace the built-in ones, if any.
    pub fn stdlib_dir(&self) -> Option<&Path> {
        self.shared.stdlib_dir.as_deref()
    }

    /// The id of a workspace given by id or name.
    pub async fn workspace_id(&self, text: &str) -> Result<String> {
        self.shared.resolver.workspace(&self.api, text).await
    }

    /// The id of an item given by id or name, optionally of one type only.
    pub async fn item_id(
        &self,
        workspace_id: &str,
        text: &str,
        item_type: Option<&str>,
    ) -> Result<String> {
        self.shared
            .resolver
            .item(&self.api, workspace_id, text, item_type)
            .await
    }
}
