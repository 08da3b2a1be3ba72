//! Local Fabric: a wire-compatible Fabric server backed by SQLite.
//! (Placeholder with the agreed interface; the server itself lands from its own branch.)

use crate::error::{Error, Result};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// How to run the server.
pub struct ServeOptions {
    pub addr: SocketAddr,
    pub data_dir: PathBuf,
    pub faults: Faults,
}

/// Fault knobs.
#[derive(Default)]
pub struct Faults;

/// One fault knob.
pub struct Knob {
    pub flag: &'static str,
    pub env: &'static str,
    pub help: &'static str,
    pub default: &'static str,
}

/// Every knob.
pub static KNOBS: &[Knob] = &[];

impl Faults {
    /// Sets a knob.
    pub fn set(&mut self, _flag: &str, _value: &str) -> std::result::Result<(), String> {
        Err("not built yet".into())
    }
    /// Knobs from the environment.
    pub fn from_env() -> std::result::Result<Faults, String> {
        Ok(Faults)
    }
}

/// The default data dir.
pub fn default_data_dir() -> PathBuf {
    dirs::data_dir()
        .unwrap_or_default()
        .join("fabsh")
        .join("local")
}

/// A running server.
pub struct LocalServer;

impl LocalServer {
    /// Starts it.
    pub async fn start(_opts: ServeOptions) -> Result<LocalServer> {
        Err(Error::runtime("local Fabric is not built yet"))
    }
    /// Base URL.
    pub fn base_url(&self) -> &str {
        ""
    }
    /// Admin token.
    pub fn admin_token(&self) -> String {
        String::new()
    }
    /// Stop.
    pub async fn shutdown(self) {}
    /// Serve until the end.
    pub async fn wait(self) -> Result<()> {
        Ok(())
    }
}

/// Direct store access.
pub mod admin {
    use super::*;
    /// Adds a principal.
    pub fn add_principal(
        _d: &Path,
        _n: &str,
        _w: Option<&str>,
        _r: Option<&str>,
    ) -> Result<serde_json::Value> {
        Err(Error::runtime("not built yet"))
    }
    /// Lists principals.
    pub fn list_principals(_d: &Path) -> Result<serde_json::Value> {
        Err(Error::runtime("not built yet"))
    }
    /// Removes a principal.
    pub fn remove_principal(_d: &Path, _n: &str) -> Result<()> {
        Err(Error::runtime("not built yet"))
    }
}
