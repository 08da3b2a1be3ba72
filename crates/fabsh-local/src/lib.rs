//! Local Fabric: a wire-compatible Fabric REST server backed by SQLite, for trying fabsh,
//! testing clients, and developing scripts offline.
//!
//! `LocalServer::start` opens (creating and seeding on first use) the store in a data
//! directory, binds, and serves `/v1/...` like the real service, plus an Entra-style token
//! endpoint and `/_local/*` test and admin routes.

mod actions;
pub mod admin;
mod agents;
mod api_error;
mod api_quotas;
mod auth;
mod authority;
mod blocking;
mod bodies;
mod bulk_export;
mod bulk_import;
mod clock;
mod definition_answers;
mod definitions;
mod error;
mod faults;
mod hosts;
mod item_dependents;
mod item_identity;
mod item_properties;
pub mod load_table;
mod locks;
mod lro;
mod middleware;
mod name_rules;
mod onelake;
mod paging;
pub mod private_files;
pub mod public_url;
mod relations;
mod respond;
mod routes;
mod scheduled_runs;
mod seed;
mod seed_content;
mod seed_links;
mod serve;
pub mod server_identity;
mod signing_keys;
mod state;
mod store;
pub mod store_names;
/// The store's file name in a data dir (`local reset` removes it).
pub use store::DB_FILE;
mod table_loads;
mod tables;
mod workspace_identity;

pub use error::{Error, ErrorKind, Result};
pub use faults::{Faults, KNOBS, Knob};

use fabsh_model::agent::language_model::JsonChat;
use state::{AppState, Shared};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use store::principals::{self, Principal};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Lifetime of `LocalServer::admin_token`: 30 days.
const ADMIN_TOKEN_SECONDS: i64 = 30 * 24 * 3600;

/// How to run a server.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Address to bind; port 0 picks a free port.
    pub addr: SocketAddr,
    /// Directory holding the database (created if missing).
    pub data_dir: PathBuf,
    /// Fault injection settings.
    pub faults: Faults,
    /// The host names (or addresses) the server is reached by from elsewhere: requests must
    /// name one of them or a loopback host (DNS rebinding). `HOST` or `HOST:PORT` each.
    pub public_hosts: Vec<String>,
    /// The URL clients reach the server by, when it differs from `http://{Host}` (behind a
    /// TLS terminator): the origin of every absolute URL it writes. Its host is the public
    /// host unless `public_hosts` names some.
    pub public_url: Option<String>,
    /// The language model agents write SQL with; without one they answer from their
    /// few-shot examples only.
    pub llm: Option<Arc<dyn JsonChat>>,
}

/// The default data directory: `<data dir>/fabsh/local` (`$XDG_DATA_HOME` on Linux).
pub fn default_data_dir() -> PathBuf {
    dirs::data_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join("fabsh")
        .join("local")
}

/// A running local Fabric server. Dropping it stops the server.
pub struct LocalServer {
    base_url: String,
    state: Shared,
    admin: Principal,
    identity_header: String,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

impl std::fmt::Debug for LocalServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalServer")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

impl LocalServer {
    /// Opens or creates the store, binds, starts serving, and returns once listening.
    pub async fn start(opts: ServeOptions) -> crate::Result<LocalServer> {
        let public_url = match opts.public_url.as_deref() {
            Some(text) => Some(public_url::parse(text).map_err(|why| {
                crate::Error::invalid(format!("the public URL '{text}' is not usable: {why}"))
            })?),
            None => None,
        };
        let mut public_hosts: Vec<&str> = opts.public_hosts.iter().map(String::as_str).collect();
        if public_hosts.is_empty()
            && let Some((_, host)) = &public_url
        {
            public_hosts.push(host);
        }
        let hosts = hosts::Hosts::new(&public_hosts, opts.addr.ip())?;
        let data_dir = opts.data_dir.clone();
        let (db, facts, admin) = blocking::run(move || open(&data_dir)).await.map_err(|e| {
            crate::Error::failed("opening the local Fabric store failed").with_cause(e.message)
        })??;
        // From here on the store is the server's, used only through `blocking`.
        db.guard_async_workers();
        let listener = tokio::net::TcpListener::bind(opts.addr)
            .await
            .map_err(|e| {
                crate::Error::failed(format!("cannot listen on {}", opts.addr)).with_cause(e)
            })?;
        let local = listener.local_addr()?;
        // An unspecified bind address is not something a client can connect to.
        let host = match local.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        let origin = format!("http://{}", SocketAddr::new(host, local.port()));
        let state = Arc::new(AppState {
            definitions: Default::default(),
            tables: tables::Tables::new(db.data_dir()),
            db,
            queries: agents::budget::QueryBudget::new(opts.faults.query_seconds),
            faults: opts.faults,
            quota: Default::default(),
            api_quotas: Default::default(),
            spreads: Default::default(),
            large_bodies: Default::default(),
            requests: Default::default(),
            keys: facts.keys,
            verified_tokens: Default::default(),
            verified_storage_tokens: Default::default(),
            onelake_commits: Default::default(),
            onelake_staging: Default::default(),
            identity_header_digest: auth::secret_digest(&facts.identity_header),
            default_tenant: facts.default_tenant,
            second_tenant: facts.second_tenant,
            admin_id: facts.admin_id,
            bound_origin: origin.clone(),
            public_url: public_url.map(|(origin, _)| origin),
            hosts,
            llm: opts.llm,
            shutdown: CancellationToken::new(),
        });
        lro::resume_pending(&state).await.map_err(|e| {
            crate::Error::failed("cannot resume pending operations").with_cause(e.message)
        })?;
        let app = routes::router(state.clone());
        let timeouts = serve::Timeouts {
            header: Duration::from_millis(state.faults.header_timeout_ms),
            idle: Duration::from_millis(state.faults.idle_timeout_ms),
        };
        let max_connections = state.faults.max_connections as usize;
        let stop = state.shutdown.clone();
        let task = tokio::spawn(serve::run(listener, app, timeouts, max_connections, stop));
        Ok(LocalServer {
            base_url: format!("{origin}/v1"),
            state,
            admin,
            identity_header: facts.identity_header,
            task: Some(task),
        })
    }

    /// The API base URL, `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// A bearer token for the seeded local admin user, valid 30 days.
    pub fn admin_token(&self) -> String {
        auth::issue(&self.state.keys, &self.admin, ADMIN_TOKEN_SECONDS)
    }

    /// A bearer token for Azure Storage (OneLake's files) for the seeded local admin user,
    /// valid 30 days; the Fabric API refuses it, as `admin_token` is refused by OneLake.
    pub fn admin_storage_token(&self) -> String {
        auth::issue_for(
            &self.state.keys,
            &self.admin,
            ADMIN_TOKEN_SECONDS,
            auth::STORAGE_AUDIENCE,
        )
    }

    /// The secret `/msi/token` (App Service's managed-identity endpoint) wants in
    /// `X-IDENTITY-HEADER`, as App Service hands its apps `IDENTITY_HEADER`. Kept in the store.
    pub fn identity_header(&self) -> &str {
        &self.identity_header
    }

    /// Stops accepting requests, lets in-flight ones finish, and returns when stopped.
    pub async fn shutdown(mut self) {
        self.state.shutdown.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }

    /// Serves until the server stops (`POST /_local/shutdown`) or the process is asked to
    /// stop (Ctrl-C, SIGTERM); then stops gracefully.
    pub async fn wait(mut self) -> crate::Result<()> {
        let Some(mut task) = self.task.take() else {
            return Ok(());
        };
        let outcome = tokio::select! {
            outcome = &mut task => outcome,
            () = stop_signal() => {
                self.state.shutdown.cancel();
                task.await
            }
        };
        match outcome {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(crate::Error::failed("local Fabric stopped").with_cause(e)),
            Err(e) => Err(crate::Error::failed("local Fabric stopped").with_cause(e)),
        }
    }
}

/// Opens (creating and seeding if need be) the store in `data_dir`, with the facts a server
/// keeps and its admin user.
fn open(data_dir: &std::path::Path) -> crate::Result<(store::Db, seed::StoreFacts, Principal)> {
    let (db, facts) = admin::open_store(data_dir)?;
    let admin = db
        .read(|c| principals::get_principal(c, &facts.admin_id))
        .ok()
        .flatten()
        .ok_or_else(|| crate::Error::failed("the local Fabric store has no admin user"))?;
    Ok((db, facts, admin))
}

/// Ctrl-C, or on Unix SIGTERM too (`kill`, service managers).
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut terminate) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        self.state.shutdown.cancel();
    }
}
