//! Where bearer tokens come from. The HTTP core only sees the [`TokenProvider`] trait, so
//! sign-in flows can be added without touching it.

pub mod azure_cli;
pub mod binding;
pub mod cache;
pub mod certificate;
pub mod chain;
pub mod claims;
pub mod credential;
pub mod managed_identity;
mod method;
pub mod model_tokens;
pub mod oauth;
mod resource;

pub use fabsh_model::Secret;
pub use method::Method;
pub use resource::Resource;

use crate::error::{Error, Result};
use futures::future::BoxFuture;

/// A source of bearer tokens for the Fabric API.
pub trait TokenProvider: Send + Sync {
    /// A token for the next request; `refresh` asks for a new one after a 401 `TokenExpired`.
    fn token(&self, refresh: bool) -> BoxFuture<'_, Result<Secret>>;

    /// Names the source in messages and hints (`FABSH_TOKEN`, `local Fabric`).
    fn source(&self) -> &str;

    /// What to do when the service rejects this source's tokens.
    fn sign_in_hint(&self) -> String {
        format!("get a new token for {}, or sign in again", self.source())
    }
}

/// The tokens a sign-in gives.
#[derive(Debug, Clone)]
pub struct TokenSet {
    /// The bearer token.
    pub access_token: Secret,
    /// When it expires (Unix seconds).
    pub expires_on: i64,
    /// A user's (rotated) refresh token.
    pub refresh_token: Option<Secret>,
}

/// Now, in Unix seconds.
pub fn now_secs() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

/// A fixed token: `FABSH_TOKEN`, or the one local Fabric issued.
pub struct StaticToken {
    token: Secret,
    source: String,
}

impl StaticToken {
    /// A provider that always answers `token`.
    pub fn new(token: Secret, source: impl Into<String>) -> Self {
        StaticToken {
            token,
            source: source.into(),
        }
    }
}

impl TokenProvider for StaticToken {
    fn token(&self, refresh: bool) -> BoxFuture<'_, Result<Secret>> {
        Box::pin(async move {
            if refresh {
                // A fixed token cannot be renewed; the caller reports the 401 with a hint.
                return Err(
                    Error::auth(format!("the token from {} has expired", self.source))
                        .with_hint(format!("set a fresh token in {}", self.source)),
                );
            }
            Ok(self.token.clone())
        })
    }

    fn source(&self) -> &str {
        &self.source
    }

    fn sign_in_hint(&self) -> String {
        format!("set a fresh token in {}", self.source)
    }
}

/// A source that cannot give tokens, with the reason and what to do; fails on first use,
/// before anything is sent.
pub struct Refusing {
    source: String,
    error: Error,
}

impl Refusing {
    /// A source named `source` that fails with `error` (its first hint says what to do).
    pub fn new(source: String, error: Error) -> Self {
        Refusing { source, error }
    }
}

impl TokenProvider for Refusing {
    fn token(&self, _refresh: bool) -> BoxFuture<'_, Result<Secret>> {
        Box::pin(async { Err(self.error.clone()) })
    }

    fn source(&self) -> &str {
        &self.source
    }

    fn sign_in_hint(&self) -> String {
        self.error
            .hints
            .first()
            .cloned()
            .unwrap_or_else(|| format!("sign in again, or get a new token for {}", self.source))
    }
}

/// No credentials configured: fails on first use, so offline commands still work.
pub struct NoCredentials;

impl TokenProvider for NoCredentials {
    fn token(&self, _refresh: bool) -> BoxFuture<'_, Result<Secret>> {
        Box::pin(async {
            Err(Error::auth("no credentials for Fabric").with_hint(
                "sign in with `fabsh auth login`, set FABSH_TOKEN to a bearer token, or try `fabsh --local ...` to use local Fabric",
            ))
        })
    }

    fn source(&self) -> &'static str {
        "no credentials"
    }
}
