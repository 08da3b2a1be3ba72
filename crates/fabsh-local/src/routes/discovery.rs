//! The authority's OpenID Connect metadata, where MSAL-based clients look for its endpoints
//! and token validators for its keys, shaped as Entra answers them:
//! GET `/{tenant}/v2.0/.well-known/openid-configuration` and the JWKS at
//! `/{tenant}/discovery/v2.0/keys` and `/discovery/v2.0/keys`. No token is needed.

use super::token::resolve_tenant;
use crate::respond::{self, Origin};
use crate::state::Shared;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// The tenants Entra keeps in the endpoints as named (they stand for the user's own tenant).
const MULTI_TENANT: &[&str] = &["common", "organizations"];

/// The claims local Fabric's tokens carry.
const CLAIMS: &[&str] = &[
    "aud", "iss", "iat", "nbf", "exp", "tid", "oid", "sub", "name", "idtyp", "appid", "upn",
];

/// GET `/{tenant}/v2.0/.well-known/openid-configuration`.
pub(super) fn openid_configuration(
    State(state): State<Shared>,
    Path(tenant): Path<String>,
    Origin(origin): Origin,
) -> Response {
    let resolved = match resolve_tenant(&state, &tenant) {
        Ok(resolved) => resolved,
        Err(refusal) => return refusal.into_response(),
    };
    let named = tenant.to_ascii_lowercase();
    // For `common`, Entra's endpoints keep `common` and its issuer a `{tenantid}` placeholder
    // (each tenant's tokens name their own).
    let (path_tenant, issuer_tenant) = if MULTI_TENANT.contains(&named.as_str()) {
        (named, "{tenantid}".to_string())
    } else {
        (resolved.clone(), resolved)
    };
    let base = format!("{origin}/{path_tenant}");
    let document = json!({
        "token_endpoint": format!("{base}/oauth2/v2.0/token"),
        // Client secrets are read from the form only, as Entra prefers them.
        "token_endpoint_auth_methods_supported": ["client_secret_post", "private_key_jwt"],
        "jwks_uri": format!("{base}/discovery/v2.0/keys"),
        "response_modes_supported": ["query", "fragment", "form_post"],
        "subject_types_supported": ["pairwise"],
        "id_token_signing_alg_values_supported": ["RS256"],
        "response_types_supported": ["code", "id_token", "code id_token", "id_token token"],
        "scopes_supported": ["openid", "profile", "email", "offline_access"],
        "issuer": format!("{origin}/{issuer_tenant}/v2.0"),
        "request_uri_parameter_supported": false,
        // Interactive sign-in has no page here (it says so); MSAL wants the endpoint named.
        "authorization_endpoint": format!("{base}/oauth2/v2.0/authorize"),
        "device_authorization_endpoint": format!("{base}/oauth2/v2.0/devicecode"),
        "grant_types_supported": [
            "client_credentials",
            "refresh_token",
            "urn:ietf:params:oauth:grant-type:device_code",
        ],
        "claims_supported": CLAIMS,
    });
    respond::json(StatusCode::OK, &document)
}

/// GET `/discovery/v2.0/keys`: the keys tokens are signed with.
pub(super) async fn keys(State(state): State<Shared>) -> Response {
    jwks(&state)
}

fn jwks(state: &Shared) -> Response {
    respond::json(StatusCode::OK, &json!({"keys": [state.keys.jwk()]}))
}

/// GET `/{tenant}/discovery/v2.0/keys` (`/common/...` too): the same keys, for a tenant the
/// authority knows.
pub(super) fn tenant_keys(State(state): State<Shared>, Path(tenant): Path<String>) -> Response {
    match resolve_tenant(&state, &tenant) {
        Ok(_) => jwks(&state),
        Err(refusal) => refusal.into_response(),
    }
}
