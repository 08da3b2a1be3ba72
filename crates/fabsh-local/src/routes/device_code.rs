//! The device-code flow: POST `/{tenant}/oauth2/v2.0/devicecode` starts a sign-in, the token
//! endpoint answers `authorization_pending` until `fabsh local approve <user_code>` (or POST
//! `/_local/devicecodes/approve`) approves it, then issues tokens for the local admin user.

use super::token::{
    Form, OAuthError, resolve_tenant, signed_in, token_answer, unavailable, user_scopes,
};
use crate::admin;
use crate::api_error::ApiError;
use crate::auth::secret_digest;
use crate::clock::now_nanos;
use crate::respond::{self, JsonBody, Origin, req_str};
use crate::state::Shared;
use crate::store::sign_in::{self, DeviceCode};
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::json;

/// How long a user has to approve a sign-in, as Entra gives.
const EXPIRES_SECONDS: i64 = 900;
/// Seconds between polls. Entra asks for 5; one keeps local sign-ins and tests quick.
const POLL_INTERVAL_SECONDS: i64 = 1;
/// User codes avoid letters and digits that read alike.
const USER_CODE_ALPHABET: &[u8] = b"BCDFGHJKLMNPQRSTVWXZ23456789";

fn now_secs() -> i64 {
    now_nanos() / 1_000_000_000
}

fn user_code() -> String {
    let mut bytes = [0u8; 9];
    rand::fill(&mut bytes[..]);
    bytes
        .iter()
        .map(|b| char::from(USER_CODE_ALPHABET[usize::from(*b) % USER_CODE_ALPHABET.len()]))
        .collect()
}

/// POST `/{tenant}/oauth2/v2.0/devicecode`.
pub(super) fn start(
    State(state): State<Shared>,
    Path(tenant): Path<String>,
    Origin(origin): Origin,
    form: Form,
) -> Response {
    let answer = (|| {
        let tenant = resolve_tenant(&state, &tenant)?;
        let client_id = form.require("client_id")?;
        let scope = user_scopes(form.get("scope"))?.scope;
        let mut device_code = [0u8; 48];
        rand::fill(&mut device_code[..]);
        let device_code = URL_SAFE_NO_PAD.encode(device_code);
        let code = DeviceCode {
            user_code: user_code(),
            tenant_id: tenant,
            client_id: client_id.to_ascii_lowercase(),
            scope: form.get("scope").unwrap_or(&scope).to_string(),
            expires_at: now_secs() + EXPIRES_SECONDS,
            approved_by: None,
        };
        state
            .db
            .write(|tx| sign_in::insert_device_code(tx, &secret_digest(&device_code), &code))
            .map_err(unavailable)?;
        let page = format!("{origin}/_local/devicelogin");
        Ok(respond::json(
            StatusCode::OK,
            &json!({
                "user_code": code.user_code,
                "device_code": device_code,
                "verification_uri": page,
                "expires_in": EXPIRES_SECONDS,
                "interval": POLL_INTERVAL_SECONDS,
                "message": format!(
                    "To sign in, use a web browser to open the page {page} and enter the code {} to authenticate, or run `fabsh local approve {}`.",
                    code.user_code, code.user_code
                ),
            }),
        ))
    })();
    answer.unwrap_or_else(|refusal: OAuthError| refusal.into_response())
}

/// The device-code grant of the token endpoint.
pub(super) fn redeem(state: &Shared, tenant: &str, form: &Form) -> Result<Response, OAuthError> {
    let device_code = form.require("device_code")?;
    let client_id = form.require("client_id")?;
    let digest = secret_digest(device_code);
    let code = state
        .db
        .read(|c| sign_in::device_code(c, &digest))
        .map_err(unavailable)?
        .filter(|code| code.tenant_id == tenant && code.client_id.eq_ignore_ascii_case(client_id))
        .ok_or_else(|| {
            OAuthError::new(
                StatusCode::BAD_REQUEST,
                "invalid_grant",
                70000,
                "Provided grant is invalid or malformed.",
            )
        })?;
    let now = now_secs();
    if code.expires_at <= now {
        return Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            "expired_token",
            70020,
            "The provided value for the input parameter 'device_code' is not valid. This device code has expired.",
        ));
    }
    let Some(principal_id) = code.approved_by else {
        return Err(OAuthError::new(
            StatusCode::BAD_REQUEST,
            "authorization_pending",
            70016,
            "OAuth 2.0 device flow error. Authorization is pending. Continue polling.",
        ));
    };
    let principal = signed_in(state, &principal_id)?;
    // A device code is redeemed once.
    state
        .db
        .write(|tx| sign_in::delete_device_code(tx, &digest, now))
        .map_err(unavailable)?;
    let granted = user_scopes(Some(&code.scope))?;
    Ok(token_answer(
        state,
        &principal,
        &code.client_id,
        Some(&granted.scope),
        granted.audience,
        granted.offline,
    ))
}

/// GET `/_local/devicelogin`: what a browser sees at the verification URI.
pub(super) async fn login_page() -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "Local Fabric has no sign-in page: approve the code with `fabsh local approve <code>`.\n",
    )
        .into_response()
}

/// POST `/_local/devicecodes/approve` `{userCode}`: approves a pending sign-in as the local
/// admin user (admin only, as every admin route).
pub(super) fn approve(State(state): State<Shared>, body: JsonBody) -> Result<Response, ApiError> {
    let user_code = req_str(&body.object()?, "userCode")?;
    let approved = admin::approve_device_code_in(&state.db, &state.admin_id, &user_code)?;
    Ok(respond::json(StatusCode::OK, &approved))
}
