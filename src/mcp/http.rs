//! `mcp serve --http ADDR`: the MCP server over streamable HTTP at `/mcp`, behind a bearer
//! token made at start. A browser page cannot read the token, so a page the user visits
//! cannot drive their Fabric through it (the Host check guards against DNS rebinding too).

use super::request_ids::OneCallPerIdSessions;
use super::server::FabshMcp;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use fabsh_client::error::{Error, Result};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// A listening HTTP server, not yet serving.
pub struct Listening {
    listener: TcpListener,
    pub url: String,
    pub token: String,
    router: Router,
    stop: CancellationToken,
}

/// Binds `addr` (loopback unless `remote`) and builds the routes.
pub async fn bind(
    handler: FabshMcp,
    addr: SocketAddr,
    remote: bool,
    origins: Vec<String>,
) -> Result<Listening> {
    if !addr.ip().is_loopback() && !remote {
        return Err(Error::usage(format!(
            "--http {addr} listens beyond this machine"
        ))
        .with_hint("use 127.0.0.1:PORT, or add --allow-remote (anyone who can reach it and has the token acts as you)"));
    }
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|err| Error::usage(format!("--http {addr}: cannot listen")).with_cause(err))?;
    let bound = listener
        .local_addr()
        .map_err(|err| Error::runtime("cannot read the bound address").with_cause(err))?;
    let stop = CancellationToken::new();
    let mut config = StreamableHttpServerConfig::default();
    config.cancellation_token = stop.child_token();
    if remote {
        config = config.disable_allowed_hosts();
    }
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(OneCallPerIdSessions::new(LocalSessionManager::default())),
        config,
    );
    let token = uuid::Uuid::new_v4().simple().to_string();
    let router = Router::new()
        .nest_service("/mcp", service)
        .layer(middleware::from_fn_with_state(
            Arc::new(format!("Bearer {token}")),
            require_token,
        ))
        .layer(middleware::from_fn_with_state(
            Arc::new(origins),
            require_loopback_origin,
        ));
    Ok(Listening {
        listener,
        url: format!("http://{bound}/mcp"),
        token,
        router,
        stop,
    })
}

impl Listening {
    /// Serves until the future ends the process (Ctrl-C through the bridge).
    pub async fn serve(self) -> Result<()> {
        let stop = self.stop.clone();
        let served = axum::serve(self.listener, self.router)
            .with_graceful_shutdown(async move { stop.cancelled().await })
            .await;
        self.stop.cancel();
        served.map_err(|err| Error::runtime("the MCP HTTP server stopped").with_cause(err))
    }
}

/// 401 without the server's bearer token.
async fn require_token(
    State(expected): State<Arc<String>>,
    request: Request,
    next: Next,
) -> Response {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok());
    if given.is_some_and(|given| constant_time_eq(given.as_bytes(), expected.as_bytes())) {
        return next.run(request).await;
    }
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Bearer")],
        "fabsh mcp serve: send the bearer token it printed at start\n",
    )
        .into_response()
}

/// 403 for a request a web page on another site sent: its `Origin` must be loopback (any
/// port) or one the person allowed by name (`--allow-origin`); `null` and every other
/// origin are refused (the MCP transport's DNS-rebinding rule). Clients that are not
/// browsers send no `Origin`.
async fn require_loopback_origin(
    State(allowed): State<Arc<Vec<String>>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(origin) = request.headers().get(header::ORIGIN) else {
        return next.run(request).await;
    };
    // An Origin that is not text matches no allowed origin: refused.
    let accepted = origin.to_str().is_ok_and(|origin| {
        let origin = origin.trim_end_matches('/');
        is_loopback_origin(origin)
            || allowed
                .iter()
                .any(|name| name.trim_end_matches('/').eq_ignore_ascii_case(origin))
    });
    if accepted {
        return next.run(request).await;
    }
    (
        StatusCode::FORBIDDEN,
        "fabsh mcp serve: requests from this Origin are refused (see --allow-origin)\n",
    )
        .into_response()
}

/// `http(s)://localhost`, `127.x.x.x` or `[::1]`, any port.
fn is_loopback_origin(origin: &str) -> bool {
    let Some(authority) = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
    else {
        return false;
    };
    let host = match authority.strip_prefix('[') {
        // The host inside the brackets.
        Some(rest) => rest.split_once(']').map_or(rest, |(host, _)| host),
        // The host before the port.
        None => authority
            .split_once(':')
            .map_or(authority, |(host, _)| host),
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Compares without stopping at the first difference, so timing tells nothing of the token.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
