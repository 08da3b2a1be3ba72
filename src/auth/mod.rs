//! Where bearer tokens come from. The HTTP core only sees the [`TokenProvider`] trait, so
//! sign-in flows can be added without touching it.

mod secret;

pub use secret::Secret;

use crate::error::{Error, Result};
use futures::future::BoxFuture;

/// A source of bearer tokens for the Fabric API.
pub trait TokenProvider: Send + Sync {
    /// A token for the next request; `refresh` asks for a new one after a 401 `TokenExpired`.
    fn token(&self, refresh: bool) -> BoxFuture<'_, Result<Secret>>;

    /// Names the source in messages and hints (`FABSH_TOKEN`, `local Fabric`).
    fn source(&self) -> &str;
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
}

/// No credentials configured: fails on first use, so offline commands still work.
pub struct NoCredentials;

impl TokenProvider for NoCredentials {
    fn token(&self, _refresh: bool) -> BoxFuture<'_, Result<Secret>> {
        Box::pin(async {
            Err(Error::auth("no credentials for Fabric").with_hint(
                "set FABSH_TOKEN to a bearer token, or try `fabsh --local ...` to use local Fabric",
            ))
        })
    }

    fn source(&self) -> &str {
        "no credentials"
    }
}
