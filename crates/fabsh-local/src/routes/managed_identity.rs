//! Managed-identity endpoints, so the client's managed-identity source runs on loopback:
//! the VM metadata service's GET `/metadata/identity/oauth2/token` (header `Metadata: true`)
//! and App Service's GET `/msi/token` (header `X-IDENTITY-HEADER`). Without `client_id` they
//! answer for the system-assigned identity, a service principal created on first use; with it,
//! for the registered service principal of that client id (a user-assigned identity).

use crate::auth;
use crate::clock::now_nanos;
use crate::state::Shared;
use crate::store::new_id;
use crate::store::principals::{self, Principal};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};
use std::collections::HashMap;

/// Display name of the system-assigned identity.
const SYSTEM_IDENTITY: &str = "Local Managed Identity";
/// Resources a managed identity may ask tokens for.
const FABRIC_RESOURCES: &[&str] = &[
    "https://api.fabric.microsoft.com",
    "https://analysis.windows.net/powerbi/api",
];

fn refuse(status: StatusCode, description: &str) -> Response {
    crate::respond::json(
        status,
        &json!({"error": "invalid_request", "error_description": description}),
    )
}

/// GET `/metadata/identity/oauth2/token`, the VM metadata service's shape.
pub async fn imds(
    State(state): State<Shared>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if headers.get("metadata").and_then(|v| v.to_str().ok()) != Some("true") {
        return refuse(
            StatusCode::BAD_REQUEST,
            "Required metadata header not specified",
        );
    }
    answer(&state, &query, true)
}

/// GET `/msi/token`, App Service's and Functions' shape.
pub async fn app_service(
    State(state): State<Shared>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let has_header = headers
        .get("x-identity-header")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| !v.trim().is_empty());
    if !has_header {
        return refuse(
            StatusCode::BAD_REQUEST,
            "The X-IDENTITY-HEADER header is required",
        );
    }
    answer(&state, &query, false)
}

fn answer(state: &Shared, query: &HashMap<String, String>, vm_shape: bool) -> Response {
    let resource = query.get("resource").map(|r| r.trim_end_matches('/'));
    let Some(resource) = resource.filter(|r| {
        FABRIC_RESOURCES
            .iter()
            .any(|known| r.trim_end_matches("/.default") == *known)
    }) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "Required audience parameter not specified or not a Fabric resource",
        );
    };
    let identity = match query.get("client_id").filter(|id| !id.is_empty()) {
        Some(client_id) => state
            .db
            .read(|c| principals::find_client(c, &state.default_tenant, client_id))
            .map(|found| found.map(|(principal, _)| principal)),
        None => system_identity(state).map(Some),
    };
    let principal = match identity {
        Ok(Some(principal)) => principal,
        Ok(None) => return refuse(StatusCode::BAD_REQUEST, "Identity not found"),
        Err(err) => {
            return refuse(StatusCode::INTERNAL_SERVER_ERROR, &err.to_string());
        }
    };
    let ttl = state.faults.token_seconds;
    let now = now_nanos() / 1_000_000_000;
    // Both services give numbers as strings.
    let mut body = json!({
        "access_token": auth::issue(&state.keys, &principal, ttl),
        "expires_on": (now + ttl).to_string(),
        "resource": resource,
        "token_type": "Bearer",
        "client_id": principal.client_id,
    });
    if vm_shape {
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

/// The system-assigned identity, created the first time it is asked for.
fn system_identity(state: &Shared) -> rusqlite::Result<Principal> {
    state.db.write(|tx| {
        if let Some(found) = principals::find_principal(tx, SYSTEM_IDENTITY)? {
            return Ok(found);
        }
        let principal = Principal {
            id: new_id(),
            tenant_id: state.default_tenant.clone(),
            kind: "ServicePrincipal".into(),
            display_name: SYSTEM_IDENTITY.into(),
            user_principal_name: None,
            client_id: Some(new_id()),
        };
        principals::insert_principal(tx, &principal, None, now_nanos())?;
        Ok(principal)
    })
}
