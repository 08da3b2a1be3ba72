//! POST `/{tenant}/oauth2/v2.0/token`: an Entra-compatible token endpoint. Answers and errors
//! use Entra's OAuth shapes (`error`, `error_description` with an AADSTS code), not Fabric's.
//! Grants are dispatched by `grant_type`; only client credentials exist so far, and device
//! code or refresh tokens are further arms of the same match.

use crate::local::auth::{self, secret_digest};
use crate::local::state::Shared;
use crate::local::store::principals;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Lifetime of issued access tokens, as Entra reports it.
const TOKEN_SECONDS: i64 = 3599;

/// Scopes accepted for the Fabric resource.
const FABRIC_SCOPES: &[&str] = &[
    "https://api.fabric.microsoft.com/.default",
    "https://analysis.windows.net/powerbi/api/.default",
];

struct Form(Vec<(String, String)>);

impl Form {
    fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }
}

/// An OAuth error answer.
fn oauth_error(status: StatusCode, error: &str, code: u32, description: &str) -> Response {
    let trace_id = uuid::Uuid::new_v4().to_string();
    let correlation_id = uuid::Uuid::new_v4().to_string();
    let timestamp = OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
        .unwrap_or_default();
    let body = json!({
        "error": error,
        "error_description": format!(
            "AADSTS{code}: {description} Trace ID: {trace_id} Correlation ID: {correlation_id} Timestamp: {timestamp}"
        ),
        "error_codes": [code],
        "timestamp": timestamp,
        "trace_id": trace_id,
        "correlation_id": correlation_id,
        "error_uri": format!("https://login.microsoftonline.com/error?code={code}"),
    });
    crate::local::respond::json(status, &body)
}

/// The token endpoint.
pub async fn issue(
    State(state): State<Shared>,
    Path(tenant): Path<String>,
    body: Bytes,
) -> Response {
    let form = Form(form_urlencoded::parse(&body).into_owned().collect());
    match form.get("grant_type") {
        Some("client_credentials") => {
            client_credentials(&state, &tenant.to_ascii_lowercase(), &form)
        }
        None => oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            900144,
            "The request body must contain the following parameter: 'grant_type'.",
        ),
        Some(other) => oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            70003,
            &format!("The app requested an unsupported grant type '{other}'."),
        ),
    }
}

fn client_credentials(state: &Shared, tenant: &str, form: &Form) -> Response {
    let known_tenant = state
        .db
        .read(|c| principals::tenant_exists(c, tenant))
        .unwrap_or(false);
    if !known_tenant {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            90002,
            &format!(
                "Tenant '{tenant}' not found. Check to make sure you have the correct tenant ID."
            ),
        );
    }
    let Some(client_id) = form.get("client_id") else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            900144,
            "The request body must contain the following parameter: 'client_id'.",
        );
    };
    match form.get("scope") {
        Some(scope) if FABRIC_SCOPES.contains(&scope) => {}
        _ => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_scope",
                1002012,
                "The provided value for scope is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).",
            );
        }
    }
    let Some(secret) = form.get("client_secret") else {
        return oauth_error(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            7000216,
            "'client_assertion', 'client_secret' or 'request' is required for the 'client_credentials' grant type.",
        );
    };
    let found = match state
        .db
        .read(|c| principals::find_client(c, tenant, client_id))
    {
        Ok(found) => found,
        Err(e) => {
            return oauth_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "temporarily_unavailable",
                90033,
                &format!("A transient error has occurred: {e}"),
            );
        }
    };
    let Some((principal, digest)) = found else {
        return oauth_error(
            StatusCode::BAD_REQUEST,
            "unauthorized_client",
            700016,
            &format!(
                "Application with identifier '{client_id}' was not found in the directory '{tenant}'."
            ),
        );
    };
    if secret_digest(secret) != digest {
        return oauth_error(
            StatusCode::UNAUTHORIZED,
            "invalid_client",
            7000215,
            &format!(
                "Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '{client_id}'."
            ),
        );
    }
    let token = auth::issue(&state.keys, &principal, TOKEN_SECONDS);
    crate::local::respond::json(
        StatusCode::OK,
        &json!({
            "token_type": "Bearer",
            "expires_in": TOKEN_SECONDS,
            "ext_expires_in": TOKEN_SECONDS,
            "access_token": token,
        }),
    )
}
