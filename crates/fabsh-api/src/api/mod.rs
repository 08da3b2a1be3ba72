//! The HTTP core: one client for every request, with auth, retries, the shared rate limiter,
//! long-running operations, paging, Fabric errors, `--verbose` traces and `--dry-run`.
//! The resource files beside it (`items`, `workspaces`, ...) describe requests; they never
//! deal with any of that.

pub mod bulk;
pub mod connections;
mod create;
pub mod data_agents;
pub mod definitions;
pub mod dry_run;
pub mod endorsements;
pub mod fabric_error;
pub mod folders;
pub mod items;
pub mod jobs;
pub mod lakehouses;
mod list_cache;
mod lro;
pub mod names;
mod paging;
pub use paging::PageStream;
pub mod request;
pub mod resolve;
mod send;
pub mod shares;
pub mod stale;
pub mod tags;
pub mod throttle;
pub mod trusted_hosts;
pub(crate) mod typed;
pub mod workspaces;

pub use create::{Created, is_name_conflict};
pub use lro::{LroOutcome, LroResponse};
pub use paging::Page;
pub use request::{Req, Resp, Safety, serialized_len};

use crate::auth::TokenProvider;
use crate::error::{Error, Result};
use crate::watch::{Tracer, Waits};
use names::NameCache;
use names::confirm::CallScope;
use reqwest::Url;
use resolve::Resolver;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use throttle::RateLimiter;
use trusted_hosts::TrustedHosts;

/// The Fabric endpoint used when none is configured.
pub const DEFAULT_ENDPOINT: &str = "https://api.fabric.microsoft.com/v1";

/// Per-call behaviour chosen by the command's flags.
#[derive(Debug, Clone)]
pub struct CallOptions {
    /// Record mutating requests and answer them with a made-up success instead of sending
    /// them (see [`dry_run`]).
    pub dry_run: bool,
    /// Return the operation instead of waiting for long-running operations.
    pub no_wait: bool,
    /// Give up waiting for a long-running operation after this long.
    pub lro_timeout: Duration,
    /// Let the call's next request confirm the cached ids its lookups hand out, rather than
    /// each lookup at once (set by the command runner above, `fabsh-client`'s
    /// `commands::execute`, which starts a command over when a confirmation fails; see
    /// [`names::confirm`]).
    pub confirm_names_later: bool,
    /// What a long-running operation's spinner says is being waited for (`item
    /// get-definition Welcome`); the operation's id when no command set one.
    pub label: Option<String>,
    /// A name without its type is taken from the name cache only when this call listed it:
    /// a destructive command confirms with the service that the name is unique now, not 15
    /// minutes ago (another client may have made a second item of that name since).
    pub names_listed_now: bool,
}

impl Default for CallOptions {
    fn default() -> Self {
        CallOptions {
            dry_run: false,
            no_wait: false,
            lro_timeout: Duration::from_secs(600),
            confirm_names_later: false,
            label: None,
            names_listed_now: false,
        }
    }
}

/// The API client. Cheap to clone; clones share the connection pool, the rate limiter, the
/// name cache (which the client keeps fresh after writes) and the dry-run plan.
#[derive(Clone)]
pub struct ApiClient {
    http: reqwest::Client,
    base: Url,
    auth: Arc<dyn TokenProvider>,
    limiter: Arc<RateLimiter>,
    tracer: Option<Tracer>,
    progress: Arc<dyn Waits>,
    options: CallOptions,
    resolver: Arc<Resolver>,
    names: Arc<NameCache>,
    call: Arc<CallScope>,
    dry_run_plan: Arc<Mutex<dry_run::Plan>>,
    trusted: Arc<TrustedHosts>,
    /// Open MCP sessions (agents, SQL endpoints): one handshake per endpoint and process.
    mcp_sessions: Arc<crate::agent::mcp::Sessions>,
}

impl ApiClient {
    /// A client for `endpoint` (with or without the `/v1` suffix).
    pub fn new(
        endpoint: &str,
        auth: Arc<dyn TokenProvider>,
        tracer: Option<Tracer>,
        progress: Arc<dyn Waits>,
    ) -> Result<Self> {
        let base = normalize_endpoint(endpoint)?;
        let http = fabsh_http::client(base.scheme() == "http")?;
        Ok(ApiClient {
            http,
            auth,
            limiter: Arc::new(RateLimiter::default()),
            tracer,
            progress,
            options: CallOptions::default(),
            resolver: Arc::default(),
            names: Arc::new(NameCache::new(base.as_str(), false)),
            call: Arc::new(CallScope::new(false)),
            dry_run_plan: Arc::default(),
            trusted: Arc::new(TrustedHosts::from_env()),
            mcp_sessions: Arc::default(),
            base,
        })
    }

    /// The same client keeping its name cache in the state dir, per endpoint and principal,
    /// for later processes (see [`names`]); without it, names are cached for this process.
    pub fn with_persistent_names(self) -> Self {
        ApiClient {
            names: Arc::new(NameCache::new(self.base.as_str(), true)),
            ..self
        }
    }

    /// The same client with per-call options. A dry run that starts here gets a plan of its
    /// own; one already under way keeps sharing its plan (commands a command runs).
    pub fn with_options(&self, options: CallOptions) -> Self {
        let dry_run_plan = if options.dry_run && !self.options.dry_run {
            Arc::default()
        } else {
            Arc::clone(&self.dry_run_plan)
        };
        // A command run by a command (bulk work) shares its caller's names: what one
        // confirmed or listed, the others use.
        let call = if options.confirm_names_later && self.options.confirm_names_later {
            Arc::clone(&self.call)
        } else {
            Arc::new(CallScope::new(options.confirm_names_later))
        };
        ApiClient {
            options,
            call,
            dry_run_plan,
            ..self.clone()
        }
    }

    /// The same client reporting progress through `progress` (hidden inside bulk work, whose
    /// own bar says how far it is).
    pub fn with_progress(&self, progress: Arc<dyn Waits>) -> Self {
        ApiClient {
            progress,
            ..self.clone()
        }
    }

    /// Where this call reports progress.
    pub fn progress(&self) -> &dyn Waits {
        &*self.progress
    }

    /// The options of this call.
    pub fn options(&self) -> &CallOptions {
        &self.options
    }

    /// The endpoint, ending in `/v1`.
    pub fn base(&self) -> &Url {
        &self.base
    }

    /// Where the token comes from, for messages.
    pub fn auth_source(&self) -> &str {
        self.auth.source()
    }

    /// The name cache, shared by every clone of this client.
    pub fn resolver(&self) -> &Resolver {
        &self.resolver
    }

    /// This process's open MCP sessions.
    pub(crate) fn mcp_sessions(&self) -> &crate::agent::mcp::Sessions {
        &self.mcp_sessions
    }

    /// The name cache, opened for the signed-in principal on first use.
    pub async fn names(&self) -> Result<&NameCache> {
        if !self.names.is_open() {
            let token = self.auth.token(false).await?;
            self.names.open(&names::principal_of(token.expose()))?;
        }
        Ok(&self.names)
    }

    /// Writes what the name cache learnt to its file, if it was opened at all.
    pub fn flush_names(&self) {
        if self.names.is_open() {
            self.names.flush();
        }
    }

    /// The id of this call (see [`names::confirm`]).
    pub(crate) fn call_id(&self) -> u64 {
        self.call.id
    }

    /// The shared rate limiter.
    pub fn limiter(&self) -> &RateLimiter {
        &self.limiter
    }

    /// Takes the requests recorded by `--dry-run` so far.
    pub fn take_dry_run_log(&self) -> Vec<Value> {
        self.dry_run_plan
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take_requests()
    }

    /// Sends `req` and parses the JSON answer.
    pub async fn json(&self, req: Req) -> Result<Value> {
        self.send(req).await?.json()
    }

    /// True when requests may go to `url`: the endpoint's host, or a host trusted with its
    /// token (a front end refusing a URL argument before anything runs asks this).
    pub fn reaches(&self, url: &str) -> bool {
        Url::parse(url).is_ok_and(|url| self.trusted.allows(&self.base, &url))
    }

    /// The absolute URL for a target path or link. Links from the service (operation,
    /// result and next-page links) are followed only where the token may go (see
    /// [`trusted_hosts`]).
    pub fn url_for(&self, target: &str) -> Result<Url> {
        if !(target.starts_with("http://") || target.starts_with("https://")) {
            let path = target.trim_start_matches('/');
            let joined = format!("{}/{}", self.base.as_str().trim_end_matches('/'), path);
            return Url::parse(&joined)
                .map_err(|err| Error::usage(format!("invalid path {target}: {err}")));
        }
        let url = Url::parse(target)
            .map_err(|err| Error::runtime(format!("invalid URL {target}: {err}")))?;
        if self.trusted.allows(&self.base, &url) {
            Ok(url)
        } else {
            Err(Error::runtime(format!(
                "{url} is not on the endpoint's host; not sending credentials there"
            ))
            .with_hint(format!(
                "if that host is yours to trust, name it in {}",
                trusted_hosts::TRUSTED_HOSTS_VAR
            )))
        }
    }
}

/// Parses an endpoint, adding `/v1` when only a host was given.
pub fn normalize_endpoint(endpoint: &str) -> Result<Url> {
    let mut url = Url::parse(endpoint.trim()).map_err(|err| {
        Error::usage(format!("invalid endpoint {endpoint:?}: {err}"))
            .with_hint("give a URL such as https://api.fabric.microsoft.com/v1")
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Error::usage(format!(
            "invalid endpoint {endpoint:?}: the scheme must be http or https"
        )));
    }
    if url.path() == "/" || url.path().is_empty() {
        url.set_path("/v1");
    }
    let trimmed = url.path().trim_end_matches('/').to_string();
    url.set_path(&trimmed);
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::normalize_endpoint;

    #[test]
    fn endpoints_get_v1_when_only_a_host_is_given() {
        let url = normalize_endpoint("http://127.0.0.1:8765").expect("valid");
        assert_eq!(url.as_str(), "http://127.0.0.1:8765/v1");
        let url = normalize_endpoint("https://api.fabric.microsoft.com/v1/").expect("valid");
        assert_eq!(url.as_str(), "https://api.fabric.microsoft.com/v1");
        assert!(normalize_endpoint("ftp://x").is_err());
    }
}
