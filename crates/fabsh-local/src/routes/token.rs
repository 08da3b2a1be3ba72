//! POST `/{tenant}/oauth2/v2.0/token`: an Entra-compatible token endpoint. Answers and errors
//! use Entra's OAuth shapes (`error`, `error_description` with an AADSTS code), not Fabric's.
//! Grants: client credentials (secret, certificate or federated assertion), device code
//! (in `device_code.rs`) and refresh token.

use super::device_code;
use crate::api_error::ApiError;
use crate::auth::{self, secret_digest};
use crate::authority::{self, JWT_BEARER, RefreshRefusal};
use crate::bodies;
use crate::state::Shared;
use crate::store::principals::{self, Principal};
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Scopes accepted for the Fabric resource with app-only flows.
const FABRIC_SCOPES: &[&str] = &[
    "https://api.fabric.microsoft.com/.default",
    "https://analysis.windows.net/powerbi/api/.default",
];
/// Resources whose delegated scopes user sign-ins may ask for.
const FABRIC_RESOURCES: &[&str] = &[
    "https://api.fabric.microsoft.com/",
    "https://analysis.windows.net/powerbi/api/",
];
/// The Cognitive Services resource (Azure OpenAI): a keyless judge model's sign-in asks for
/// its `/.default` scope from the same credential as Fabric's.
const COGNITIVE_SERVICES: &str = "https://cognitiveservices.azure.com";
/// Resources other than Fabric a sign-in may ask a token for, by their `/.default` scope:
/// Cognitive Services (a keyless judge) and Azure Storage (OneLake's files).
const OTHER_RESOURCES: &[&str] = &[COGNITIVE_SERVICES, auth::STORAGE_AUDIENCE];
/// Scopes a user sign-in may add that are not Fabric's.
const OIDC_SCOPES: &[&str] = &["offline_access", "openid", "profile", "email"];

/// The grant type of the device-code flow.
pub(super) const DEVICE_CODE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// A form-encoded request body, as the sign-in endpoints take it: anyone may send one, so it
/// is small (`bodies::SIGN_IN_LIMIT`) and must arrive whole within the header timeout.
pub(super) struct Form(Vec<(String, String)>);

impl FromRequest<Shared> for Form {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &Shared) -> Result<Self, Self::Rejection> {
        let body = bodies::read(state, request, bodies::SIGN_IN_LIMIT, true).await?;
        Ok(Form::parse(&body))
    }
}

impl Form {
    /// Parses a form body.
    fn parse(body: &[u8]) -> Form {
        Form(form_urlencoded::parse(body).into_owned().collect())
    }

    /// A non-empty field.
    pub(super) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }

    /// A required field, or the Entra error for its absence.
    pub(super) fn require(&self, name: &str) -> Result<&str, OAuthError> {
        self.get(name).ok_or_else(|| missing(name))
    }
}

/// The Entra error for a missing form field.
fn missing(name: &str) -> OAuthError {
    OAuthError::new(
        StatusCode::BAD_REQUEST,
        "invalid_request",
        900144,
        format!("The request body must contain the following parameter: '{name}'."),
    )
}

/// An OAuth error: answered as Entra does, `error` plus an AADSTS-coded description.
#[derive(Debug)]
pub(super) struct OAuthError {
    status: StatusCode,
    error: &'static str,
    code: u32,
    description: String,
}

impl OAuthError {
    /// An error with Entra's `error` name, AADSTS code and description.
    pub(super) fn new(
        status: StatusCode,
        error: &'static str,
        code: u32,
        description: impl Into<String>,
    ) -> Self {
        OAuthError {
            status,
            error,
            code,
            description: description.into(),
        }
    }
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        let trace_id = uuid::Uuid::new_v4().to_string();
        let correlation_id = uuid::Uuid::new_v4().to_string();
        let timestamp = OffsetDateTime::now_utc()
            .replace_nanosecond(0)
            .ok()
            .and_then(|t| t.format(&Rfc3339).ok())
            // A time after 9999 has no RFC 3339 form; no token lives that long.
            .unwrap_or_default();
        let code = self.code;
        let body = json!({
            "error": self.error,
            "error_description": format!(
                "AADSTS{code}: {} Trace ID: {trace_id} Correlation ID: {correlation_id} Timestamp: {timestamp}",
                self.description
            ),
            "error_codes": [code],
            "timestamp": timestamp,
            "trace_id": trace_id,
            "correlation_id": correlation_id,
            "error_uri": format!("https://login.microsoftonline.com/error?code={code}"),
        });
        crate::respond::json(self.status, &body)
    }
}

/// A transient store failure, in Entra's words.
pub(super) fn unavailable(err: impl std::fmt::Display) -> OAuthError {
    OAuthError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "temporarily_unavailable",
        90033,
        format!("A transient error has occurred: {err}"),
    )
}

/// The tenant a request names: an id, or `organizations`/`common` for the default tenant.
pub(super) fn resolve_tenant(state: &Shared, tenant: &str) -> Result<String, OAuthError> {
    let tenant = tenant.to_ascii_lowercase();
    if matches!(tenant.as_str(), "organizations" | "common") {
        return Ok(state.default_tenant.clone());
    }
    match state.db.read(|c| principals::tenant_exists(c, &tenant)) {
        Ok(true) => Ok(tenant),
        Ok(false) => Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            90002,
            format!(
                "Tenant '{tenant}' not found. Check to make sure you have the correct tenant ID."
            ),
        )),
        Err(err) => Err(unavailable(err)),
    }
}

/// The resource whose `/.default` scope `scope` is, among [`OTHER_RESOURCES`].
fn other_resource(scope: &str) -> Option<&'static str> {
    let resource = scope.strip_suffix("/.default")?.trim_end_matches('/');
    OTHER_RESOURCES.iter().copied().find(|r| *r == resource)
}

/// What a user sign-in is granted: its resource scopes, whether it asked for a refresh
/// token, and the audience of its access token.
pub(super) struct Granted {
    pub scope: String,
    pub offline: bool,
    pub audience: &'static str,
}

/// The resource scopes of a user sign-in's `scope` — Fabric's, or the `/.default` of
/// Cognitive Services or Storage alone (Entra grants one resource per token) — or the Entra
/// error when it asks for none or for something else.
pub(super) fn user_scopes(scope: Option<&str>) -> Result<Granted, OAuthError> {
    // No scope at all is refused below, as an empty list of resources.
    let requested: Vec<&str> = scope.unwrap_or_default().split_whitespace().collect();
    let other = requested
        .iter()
        .find_map(|s| other_resource(s).map(|resource| (*s, resource)));
    let (resource, audience): (Vec<&str>, _) = if let Some((scope, resource)) = other {
        (vec![scope], resource)
    } else {
        let fabric = requested
            .iter()
            .copied()
            .filter(|s| FABRIC_RESOURCES.iter().any(|r| s.starts_with(r)))
            .collect();
        (fabric, auth::AUDIENCE)
    };
    let unknown = requested
        .iter()
        .any(|s| !resource.contains(s) && !OIDC_SCOPES.contains(s));
    if resource.is_empty() || unknown {
        return Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            "invalid_scope",
            70011,
            format!(
                "The provided request must include a 'scope' input parameter. The provided value for the input parameter 'scope' is not valid. The scope {} is not valid.",
                requested.join(" ")
            ),
        ));
    }
    Ok(Granted {
        scope: resource.join(" "),
        offline: requested.contains(&"offline_access"),
        audience,
    })
}

/// A successful answer: an access token for `principal` and `audience`, the granted `scope`
/// for user sign-ins, and a refresh token when the sign-in asked for `offline_access`.
pub(super) fn token_answer(
    state: &Shared,
    principal: &Principal,
    client_id: &str,
    scope: Option<&str>,
    audience: &str,
    with_refresh: bool,
) -> Response {
    let ttl = state.faults.token_seconds;
    let mut body = json!({
        "token_type": "Bearer",
        // Entra never reports a negative lifetime; an already expired token says 0.
        "expires_in": ttl.max(0),
        "ext_expires_in": ttl.max(0),
        "access_token": auth::issue_for(&state.keys, principal, ttl, audience),
    });
    if let Some(scope) = scope {
        body["scope"] = json!(scope);
    }
    if let (true, Some(scope)) = (with_refresh, scope) {
        body["refresh_token"] = json!(authority::issue_refresh(
            &state.keys,
            principal,
            client_id,
            scope,
            state.faults.refresh_token_seconds,
        ));
    }
    crate::respond::json(StatusCode::OK, &body)
}

/// The principal a user grant was issued to, unless it has been removed since.
pub(super) fn signed_in(state: &Shared, principal_id: &str) -> Result<Principal, OAuthError> {
    state
        .db
        .read(|c| principals::get_principal(c, principal_id))
        .map_err(unavailable)?
        .ok_or_else(|| {
            OAuthError::new(
                StatusCode::BAD_REQUEST,
                "invalid_grant",
                50034,
                "The user account does not exist in the directory.",
            )
        })
}

/// The token endpoint.
pub(super) fn issue(
    State(state): State<Shared>,
    Path(tenant): Path<String>,
    form: Form,
) -> Response {
    let tenant = match resolve_tenant(&state, &tenant) {
        Ok(tenant) => tenant,
        Err(refusal) => return refusal.into_response(),
    };
    let answer = match form.get("grant_type") {
        Some("client_credentials") => client_credentials(&state, &tenant, &form),
        Some("refresh_token") => refresh(&state, &tenant, &form),
        Some(DEVICE_CODE_GRANT) => device_code::redeem(&state, &tenant, &form),
        None => Err(missing("grant_type")),
        Some(other) => Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            70003,
            format!("The app requested an unsupported grant type '{other}'."),
        )),
    };
    answer.unwrap_or_else(IntoResponse::into_response)
}

fn client_credentials(state: &Shared, tenant: &str, form: &Form) -> Result<Response, OAuthError> {
    let client_id = form.require("client_id")?;
    let audience = match form.get("scope") {
        Some(scope) if FABRIC_SCOPES.contains(&scope) => Some(auth::AUDIENCE),
        Some(scope) => other_resource(scope),
        None => None,
    };
    let Some(audience) = audience else {
        return Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            "invalid_scope",
            1002012,
            "The provided value for scope is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).",
        ));
    };
    let found = state
        .db
        .read(|c| principals::find_client(c, tenant, client_id))
        .map_err(unavailable)?;
    let Some((principal, digest)) = found else {
        return Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            "unauthorized_client",
            700016,
            format!(
                "Application with identifier '{client_id}' was not found in the directory '{tenant}'."
            ),
        ));
    };
    if let Some(assertion) = form.get("client_assertion") {
        if form.get("client_assertion_type") != Some(JWT_BEARER) {
            return Err(OAuthError::new(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                50027,
                format!("The 'client_assertion_type' must be '{JWT_BEARER}'."),
            ));
        }
        authority::verify_assertion(state, &principal, assertion).map_err(
            |(code, description)| {
                OAuthError::new(
                    StatusCode::UNAUTHORIZED,
                    "invalid_client",
                    code,
                    &description,
                )
            },
        )?;
    } else {
        let Some(secret) = form.get("client_secret") else {
            return Err(OAuthError::new(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                7000216,
                "'client_assertion', 'client_secret' or 'request' is required for the 'client_credentials' grant type.",
            ));
        };
        if digest.as_deref() != Some(secret_digest(secret).as_str()) {
            return Err(OAuthError::new(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                7000215,
                format!(
                    "Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '{client_id}'."
                ),
            ));
        }
    }
    // App tokens carry no `scope` in Entra's answer.
    Ok(token_answer(
        state, &principal, client_id, None, audience, false,
    ))
}

fn refresh(state: &Shared, tenant: &str, form: &Form) -> Result<Response, OAuthError> {
    let token = form.require("refresh_token")?;
    let client_id = form.require("client_id")?;
    let claims = authority::verify_refresh(&state.keys, token).map_err(|refusal| {
        let (code, description) = match refusal {
            RefreshRefusal::Expired => (
                700082,
                "The refresh token has expired due to inactivity. The token was issued on a date past its lifetime.",
            ),
            RefreshRefusal::Invalid => (9002313, "Invalid request. Request is malformed or invalid."),
        };
        OAuthError::new(StatusCode::BAD_REQUEST, "invalid_grant", code, description)
    })?;
    if claims.tid != tenant || !claims.cid.eq_ignore_ascii_case(client_id) {
        return Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            "invalid_grant",
            70000,
            "Provided grant is invalid or malformed.",
        ));
    }
    let principal = signed_in(state, &claims.sub)?;
    let granted = user_scopes(Some(form.get("scope").unwrap_or(&claims.scp)))?;
    // Refresh tokens rotate: every redemption answers a new one.
    Ok(token_answer(
        state,
        &principal,
        client_id,
        Some(&granted.scope),
        granted.audience,
        true,
    ))
}
