//! Managed-identity endpoints, so the client's managed-identity source runs on loopback:
//! the VM metadata service's GET `/metadata/identity/oauth2/token` (header `Metadata: true`)
//! and App Service's GET `/msi/token` (header `X-IDENTITY-HEADER`). They serve principals
//! registered as managed identities (`local principal add --managed-identity`) and nothing
//! else, since they hand out tokens without a client secret:
//! - `/msi/token` only to a caller that sends the server's identity header secret (as App
//!   Service gives its apps `IDENTITY_HEADER`; `local serve` prints it), for the managed
//!   identity `client_id` names, else the VM identity;
//! - the metadata path, which any local process can call (`Metadata: true` only stops
//!   forwarded browser requests), only for the one identity chosen as the VM's
//!   (`--vm-identity`), with or without its `client_id`.
//!
//! Both answer processes on this machine only, as the services' endpoints do: the socket's
//! peer must be a loopback address (never judged by `Host`, which a caller from afar writes
//! as it likes), and a request forwarded by a proxy (`X-Forwarded-For`, `Forwarded`) is
//! refused, as the VM metadata service refuses one.

use crate::auth;
use crate::clock::now_nanos;
use crate::state::Shared;
use crate::store::identities;
use crate::store::principals::Principal;
use axum::Extension;
use axum::extract::{ConnectInfo, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::SocketAddr;

/// Resources a managed identity may ask tokens for.
const FABRIC_RESOURCES: &[&str] = &[
    "https://api.fabric.microsoft.com",
    "https://analysis.windows.net/powerbi/api",
];

/// Which endpoint is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Endpoint {
    /// The VM metadata service: the VM identity only.
    Vm,
    /// App Service: any managed identity, behind the identity header.
    AppService,
}

fn refuse(status: StatusCode, description: &str) -> Response {
    crate::respond::json(
        status,
        &json!({"error": "invalid_request", "error_description": description}),
    )
}

/// Why a request may not have a managed identity's token: it comes from another machine, or
/// through a proxy, or from no socket at all.
fn not_from_this_machine(peer: Option<&ConnectInfo<SocketAddr>>, headers: &HeaderMap) -> bool {
    let loopback = peer.is_some_and(|ConnectInfo(addr)| addr.ip().to_canonical().is_loopback());
    let forwarded = ["x-forwarded-for", "forwarded"]
        .iter()
        .any(|name| headers.contains_key(*name));
    !loopback || forwarded
}

fn from_afar() -> Response {
    refuse(
        StatusCode::FORBIDDEN,
        "Managed-identity tokens are given only to processes on this machine",
    )
}

/// GET `/metadata/identity/oauth2/token`, the VM metadata service's shape.
pub(super) fn imds(
    State(state): State<Shared>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if not_from_this_machine(peer.as_deref(), &headers) {
        return from_afar();
    }
    if headers.get("metadata").and_then(|v| v.to_str().ok()) != Some("true") {
        return refuse(
            StatusCode::BAD_REQUEST,
            "Required metadata header not specified",
        );
    }
    answer(&state, &query, Endpoint::Vm)
}

/// GET `/msi/token`, App Service's and Functions' shape.
pub(super) fn app_service(
    State(state): State<Shared>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if not_from_this_machine(peer.as_deref(), &headers) {
        return from_afar();
    }
    let Some(given) = headers
        .get("x-identity-header")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.trim().is_empty())
    else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "The X-IDENTITY-HEADER header is required",
        );
    };
    // Digests are compared, so the time taken says nothing about the secret.
    if auth::secret_digest(given) != state.identity_header_digest {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "The X-IDENTITY-HEADER header does not match this server's identity header (IDENTITY_HEADER, printed by `fabsh local serve`)",
        );
    }
    answer(&state, &query, Endpoint::AppService)
}

/// The identity a request is for, or why there is none.
fn identity(
    state: &Shared,
    client_id: Option<&str>,
    endpoint: Endpoint,
) -> Result<Principal, (StatusCode, String)> {
    let unavailable = |err: rusqlite::Error| (StatusCode::INTERNAL_SERVER_ERROR, err.to_string());
    let found = match (endpoint, client_id) {
        (Endpoint::AppService, Some(client_id)) => state
            .db
            .read(|c| identities::by_client_id(c, client_id))
            .map_err(unavailable)?,
        (_, client_id) => {
            let vm = state.db.read(identities::vm).map_err(unavailable)?;
            if vm.is_none() && client_id.is_none() {
                return Err((
                    StatusCode::BAD_REQUEST,
                    "No VM identity: choose one with `fabsh local principal add --vm-identity`"
                        .to_string(),
                ));
            }
            let named = |vm: &Principal, id: &str| {
                vm.client_id
                    .as_deref()
                    .is_some_and(|own| own.eq_ignore_ascii_case(id))
            };
            vm.filter(|vm| client_id.is_none_or(|id| named(vm, id)))
        }
    };
    found.ok_or_else(|| (StatusCode::BAD_REQUEST, "Identity not found".to_string()))
}

fn answer(state: &Shared, query: &HashMap<String, String>, endpoint: Endpoint) -> Response {
    let resource = query.get("resource").map(|r| r.trim_end_matches('/'));
    let fabric = |r: &str| {
        FABRIC_RESOURCES
            .iter()
            .any(|known| r.trim_end_matches("/.default") == *known)
    };
    // Storage's own resource gives a token OneLake takes; Fabric's, one the API takes.
    let storage = |r: &str| r.trim_end_matches("/.default") == auth::STORAGE_AUDIENCE;
    let (resource, audience) = match resource {
        Some(r) if fabric(r) => (r, auth::AUDIENCE),
        Some(r) if storage(r) => (r, auth::STORAGE_AUDIENCE),
        _ => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "Required audience parameter not specified or not a Fabric or Storage resource",
            );
        }
    };
    let client_id = query
        .get("client_id")
        .map(String::as_str)
        .filter(|id| !id.is_empty());
    let principal = match identity(state, client_id, endpoint) {
        Ok(principal) => principal,
        Err((status, why)) => return refuse(status, &why),
    };
    let ttl = state.faults.token_seconds;
    let now = now_nanos() / 1_000_000_000;
    // Both services give numbers as strings.
    let mut body = json!({
        "access_token": auth::issue_for(&state.keys, &principal, ttl, audience),
        "expires_on": (now + ttl).to_string(),
        "resource": resource,
        "token_type": "Bearer",
        "client_id": principal.client_id,
    });
    if endpoint == Endpoint::Vm {
        let extra = json!({
            "expires_in": ttl.max(0).to_string(),
            "ext_expires_in": ttl.max(0).to_string(),
            "not_before": now.to_string(),
        });
        if let (Value::Object(body), Value::Object(extra)) = (&mut body, extra) {
            body.extend(extra);
        }
    }
    crate::respond::json(StatusCode::OK, &body)
}
