//! The config file: named profiles of plain settings (never secrets, which live in the token
//! cache). JSON, in the user's config dir unless `FABSH_CONFIG` names another file.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Names the config file instead of `<config dir>/fabsh/config.json`.
pub const CONFIG_PATH_VAR: &str = "FABSH_CONFIG";

/// One profile's settings, by key.
pub type Profile = BTreeMap<String, String>;

/// The parsed config file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ConfigFile {
    /// Profiles by name.
    #[serde(default)]
    pub profiles: BTreeMap<String, Profile>,
}

/// Where the config file is.
pub fn config_path() -> PathBuf {
    match super::env_text(CONFIG_PATH_VAR) {
        Some(path) => PathBuf::from(path),
        None => dirs::config_dir()
            .unwrap_or_else(|| PathBuf::from("."))
            .join("fabsh")
            .join("config.json"),
    }
}

impl ConfigFile {
    /// Reads the file; a missing file is an empty config.
    pub fn load(path: &Path) -> Result<ConfigFile> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Ok(ConfigFile::default());
            }
            Err(err) => {
                return Err(
                    Error::runtime(format!("cannot read {}", path.display())).with_cause(err)
                );
            }
        };
        serde_json::from_str(&text).map_err(|err| {
            Error::usage(format!(
                "{} is not a valid fabsh config file",
                path.display()
            ))
            .with_cause(err)
            .with_hint("fix it by hand, or remove it and set values again with `fabsh config set`")
        })
    }

    /// Writes the file, creating its directory.
    pub fn save(&self, path: &Path) -> Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|err| {
                Error::runtime(format!("cannot create {}", dir.display())).with_cause(err)
            })?;
        }
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        std::fs::write(path, text).map_err(|err| {
            Error::runtime(format!("cannot write {}", path.display())).with_cause(err)
        })
    }

    /// Sets `key` in `profile`, creating the profile.
    pub fn set(&mut self, profile: &str, key: &str, value: &str) {
        self.profiles
            .entry(profile.to_string())
            .or_default()
            .insert(key.to_string(), value.to_string());
    }

    /// Removes `key` from `profile` (and the profile once empty); false when it was not set.
    pub fn unset(&mut self, profile: &str, key: &str) -> bool {
        let Some(values) = self.profiles.get_mut(profile) else {
            return false;
        };
        let removed = values.remove(key).is_some();
        if values.is_empty() {
            self.profiles.remove(profile);
        }
        removed
    }
}
