//! Bearer tokens: RS256 JWTs signed with the store's key (`signing_keys`), the `Caller`
//! extractor every API handler starts with, and role checks.

use super::api_error::ApiError;
use super::bodies::Authenticated;
use super::middleware::RequestFlags;
use super::state::{AppState, Shared};
use super::store::principals::{self, Principal, Role};
use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use jsonwebtoken::errors::ErrorKind;
use serde::{Deserialize, Serialize};

pub(crate) use super::signing_keys::Keys;

/// The `aud` of every token local Fabric issues and accepts.
pub(crate) const AUDIENCE: &str = "https://api.fabric.microsoft.com";
/// The audience of OneLake's tokens: Azure Storage's.
pub(crate) const STORAGE_AUDIENCE: &str = "https://storage.azure.com";

/// The claims of an access token, shaped like an Entra v1 token for the Fabric resource.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Claims {
    /// Audience.
    pub aud: String,
    /// Issuer: the tenant's token service URL.
    pub iss: String,
    /// Issued at (Unix seconds).
    pub iat: i64,
    /// Not before (Unix seconds).
    pub nbf: i64,
    /// Expiry (Unix seconds).
    pub exp: i64,
    /// Tenant id.
    pub tid: String,
    /// Principal object id.
    pub oid: String,
    /// Subject (the object id again; stable per principal).
    pub sub: String,
    /// Display name.
    pub name: String,
    /// `app` for service principals, `user` for users.
    pub idtyp: String,
    /// Application id, service principals only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub appid: Option<String>,
    /// User principal name, users only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upn: Option<String>,
    /// Unique token identifier, as Entra's tokens carry: two tokens for one principal issued
    /// in the same second differ, so the request log can tell their callers apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uti: Option<String>,
}

/// A signed Fabric token for `principal`, valid for `ttl_secs` from now (negative = already
/// expired).
pub(crate) fn issue(keys: &Keys, principal: &Principal, ttl_secs: i64) -> String {
    issue_for(keys, principal, ttl_secs, AUDIENCE)
}

/// A signed token for `principal` and another resource (`audience`); the Fabric API refuses
/// it, as Fabric refuses a token meant for another resource.
pub(crate) fn issue_for(
    keys: &Keys,
    principal: &Principal,
    ttl_secs: i64,
    audience: &str,
) -> String {
    let now = super::clock::now_nanos() / 1_000_000_000;
    let is_app = principal.kind == "ServicePrincipal";
    let claims = Claims {
        aud: audience.to_string(),
        iss: format!("https://sts.windows.net/{}/", principal.tenant_id),
        iat: now.min(now + ttl_secs),
        nbf: now.min(now + ttl_secs),
        exp: now + ttl_secs,
        tid: principal.tenant_id.clone(),
        oid: principal.id.clone(),
        sub: principal.id.clone(),
        name: principal.display_name.clone(),
        idtyp: if is_app { "app" } else { "user" }.to_string(),
        appid: principal.client_id.clone(),
        upn: principal.user_principal_name.clone(),
        uti: Some(super::store::new_id()),
    };
    keys.sign(&claims)
}

/// Checks signature, audience, expiry and not-before.
pub(crate) fn verify(state: &AppState, token: &str) -> Result<Claims, ApiError> {
    // The clock jsonwebtoken checks expiry against: the system time.
    let now = crate::clock::now_nanos() / 1_000_000_000;
    if let Some(claims) = state.verified_tokens.get(token, now) {
        return Ok(claims);
    }
    match state.keys.verify::<Claims>(token) {
        Ok(claims) => {
            state.verified_tokens.put(token, &claims);
            Ok(claims)
        }
        Err(e) => Err(match e.kind() {
            ErrorKind::ExpiredSignature => ApiError::token_expired(),
            // Not `TokenExpired`: a client would refresh and could get the same token again.
            ErrorKind::ImmatureSignature => ApiError::token_not_yet_valid(),
            _ => ApiError::unauthorized(),
        }),
    }
}

/// Tokens whose signature and audience were checked, with their claims: a client sends one
/// token on every request, and checking an RS256 signature costs more than most handlers
/// (a quarter of the server's time in an evaluation). The whole token is the key, so only
/// the very bytes that were verified match; expiry and not-before are checked on every use.
#[derive(Debug, Default)]
pub(crate) struct VerifiedTokens(std::sync::Mutex<std::collections::HashMap<String, Claims>>);

/// Tokens kept at most; past it the cache starts over (a server sees few distinct tokens).
const VERIFIED_TOKENS_KEPT: usize = 1024;

impl VerifiedTokens {
    fn get(&self, token: &str, now: i64) -> Option<Claims> {
        let cache = crate::locks::lock(&self.0);
        let claims = cache.get(token)?;
        (claims.nbf <= now && now < claims.exp).then(|| claims.clone())
    }

    fn put(&self, token: &str, claims: &Claims) {
        let mut cache = crate::locks::lock(&self.0);
        if cache.len() >= VERIFIED_TOKENS_KEPT {
            cache.clear();
        }
        cache.insert(token.to_string(), claims.clone());
    }
}

/// The authenticated caller of an API request. Extracting it only checks the token; the
/// principal's existence is checked together with its role by `workspace` or `known`.
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    /// Principal object id.
    pub principal_id: String,
    /// Set when the fault layer will discard this response: LRO-capable calls then finish
    /// inline so the change is committed before the (lost) answer.
    pub inline_only: bool,
}

impl FromRequestParts<Shared> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Shared,
    ) -> Result<Self, Self::Rejection> {
        let header = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(ApiError::unauthorized)?;
        let token = match header.split_once(' ') {
            Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
            _ => return Err(ApiError::unauthorized()),
        };
        let claims = verify(state, token)?;
        parts.extensions.insert(Authenticated);
        let inline_only = parts
            .extensions
            .get::<RequestFlags>()
            .is_some_and(|f| f.lost_response);
        Ok(Caller {
            principal_id: claims.oid,
            inline_only,
        })
    }
}

impl Caller {
    /// Checks that the caller still exists and holds at least `needed` in the workspace.
    /// Unknown workspace → 404 `WorkspaceNotFound`; no role at all → 403
    /// `InsufficientPrivileges` (the code and message the service gives a principal that was
    /// never added to an existing workspace); too low a role → 403 `InsufficientWorkspaceRole`.
    pub(crate) fn workspace(
        &self,
        state: &Shared,
        workspace_id: &str,
        needed: Role,
    ) -> Result<Role, ApiError> {
        let access = state
            .db
            .read(|conn| principals::access(conn, &self.principal_id, workspace_id))?;
        if !access.principal_exists {
            return Err(ApiError::unauthorized());
        }
        if !access.workspace_exists {
            return Err(ApiError::workspace_not_found(workspace_id));
        }
        let role = access
            .role
            .ok_or_else(|| ApiError::insufficient_privileges(workspace_id))?;
        if role < needed {
            return Err(ApiError::insufficient_role(needed.as_str()));
        }
        Ok(role)
    }

    /// Checks that the caller may read the data a workspace's items hold (a lakehouse's rows):
    /// Viewer or above there, as Fabric requires of whoever reads them, directly or through a
    /// data agent. The one rule every path that hands data on applies.
    pub(crate) fn may_read(&self, state: &Shared, workspace_id: &str) -> Result<(), ApiError> {
        self.workspace(state, workspace_id, Role::Viewer).map(drop)
    }

    /// Checks that the caller's principal still exists (routes outside a workspace).
    pub(crate) fn known(&self, state: &Shared) -> Result<(), ApiError> {
        let exists = state
            .db
            .read(|conn| principals::principal_exists(conn, &self.principal_id))?;
        if exists {
            Ok(())
        } else {
            Err(ApiError::unauthorized())
        }
    }
}

/// Hex SHA-256 of a client secret; only digests are stored.
pub(crate) fn secret_digest(secret: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(secret.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(nbf: i64, exp: i64) -> Claims {
        Claims {
            aud: AUDIENCE.into(),
            iss: "https://sts.windows.net/t/".into(),
            iat: nbf,
            nbf,
            exp,
            tid: "t".into(),
            oid: "o".into(),
            sub: "o".into(),
            name: "n".into(),
            idtyp: "user".into(),
            appid: None,
            upn: None,
            uti: None,
        }
    }

    #[test]
    fn a_verified_token_is_reused_only_while_valid_and_only_for_the_same_bytes() {
        let cache = VerifiedTokens::default();
        cache.put("a.b.c", &claims(100, 200));
        assert_eq!(cache.get("a.b.c", 150).map(|c| c.oid), Some("o".into()));
        // Expired or not yet valid: the signature check runs again and gives the error.
        assert!(cache.get("a.b.c", 200).is_none());
        assert!(cache.get("a.b.c", 99).is_none());
        // Another signature over the same claims is another token.
        assert!(cache.get("a.b.d", 150).is_none());
    }

    #[test]
    fn the_cache_stays_bounded() {
        let cache = VerifiedTokens::default();
        for i in 0..=VERIFIED_TOKENS_KEPT {
            cache.put(&format!("t{i}"), &claims(0, 10));
        }
        let kept = cache.0.lock().expect("lock").len();
        assert!(kept <= VERIFIED_TOKENS_KEPT, "{kept}");
    }
}
