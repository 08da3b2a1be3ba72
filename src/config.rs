//! Process-wide settings, from flags and `FABSH_*` environment variables (flag first).

use crate::api::DEFAULT_ENDPOINT;
use crate::auth::{NoCredentials, Secret, StaticToken, TokenProvider};
use std::path::PathBuf;
use std::sync::Arc;

/// The environment variable naming the endpoint (also printed by `local serve`).
pub const ENDPOINT_VAR: &str = "FABSH_ENDPOINT";
/// The environment variable holding a bearer token (also printed by `local serve`).
pub const TOKEN_VAR: &str = "FABSH_TOKEN";
/// The environment variable naming a directory of stdlib modules that replace the built-in ones.
pub const STDLIB_VAR: &str = "FABSH_STDLIB";

/// Settings that apply to every command of the process.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `--endpoint`, when given.
    pub endpoint: Option<String>,
    /// `--local`: start local Fabric in-process and use it.
    pub local: bool,
    /// `--verbose`: trace requests and responses.
    pub verbose: bool,
    /// `--stdlib`, when given.
    pub stdlib: Option<PathBuf>,
}

impl Settings {
    /// The endpoint to use when not local: flag, then environment, then real Fabric.
    pub fn endpoint(&self) -> String {
        self.endpoint
            .clone()
            .or_else(|| env_text(ENDPOINT_VAR))
            .unwrap_or_else(|| DEFAULT_ENDPOINT.to_string())
    }

    /// Where stdlib modules that replace the built-in ones live: flag, then environment.
    pub fn stdlib_dir(&self) -> Option<PathBuf> {
        self.stdlib
            .clone()
            .or_else(|| env_text(STDLIB_VAR).map(PathBuf::from))
    }

    /// The token provider for a remote endpoint.
    pub fn token_provider(&self) -> Arc<dyn TokenProvider> {
        match env_text(TOKEN_VAR) {
            Some(token) => Arc::new(StaticToken::new(Secret::new(token), TOKEN_VAR)),
            None => Arc::new(NoCredentials),
        }
    }
}

/// A non-empty environment variable.
pub fn env_text(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}
