//! The token cache: what `auth login` keeps per profile (refresh token, app credentials,
//! the last access token). One JSON file in the user's state dir, mode 0600 in a 0700
//! directory; a file others can read is refused rather than used.

use super::Secret;
use super::binding::MadeFor;
use super::method::Method;
use crate::config::env_text;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Names the cache file instead of `<state dir>/fabsh/tokens.json`.
pub const CACHE_PATH_VAR: &str = "FABSH_TOKEN_CACHE";

/// One profile's sign-in.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Login {
    /// How it signed in.
    pub method: Method,
    /// The tenant signed in to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The app, user-assigned identity or public client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// A signed-in user's refresh token.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "secret_text")]
    pub refresh_token: Option<Secret>,
    /// A service principal's secret.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "secret_text")]
    pub client_secret: Option<Secret>,
    /// A service principal's certificate (PEM or PFX), read at each sign-in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certificate: Option<PathBuf>,
    /// The PFX password.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "secret_text")]
    pub certificate_password: Option<Secret>,
    /// A federated token file, read at each sign-in since CI systems rotate it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub federated_token_file: Option<PathBuf>,
    /// The last access token.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "secret_text")]
    pub access_token: Option<Secret>,
    /// When it expires (Unix seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_on: Option<i64>,
    /// The endpoint, authority and audience the sign-in was made for: its tokens go nowhere
    /// else (see [`super::binding`]). `None` only in entries of versions that did not record
    /// it, which signed in for the default endpoint and are taken as made for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub made_for: Option<MadeFor>,
}

impl Login {
    /// A sign-in with nothing but its method.
    pub fn new(method: Method) -> Login {
        Login {
            method,
            tenant: None,
            client_id: None,
            refresh_token: None,
            client_secret: None,
            certificate: None,
            certificate_password: None,
            federated_token_file: None,
            access_token: None,
            expires_on: None,
            made_for: None,
        }
    }
}

/// `Secret` has no serde on purpose (so it cannot end up in output); this file is the one
/// place that writes secrets, and opts in field by field.
mod secret_text {
    use super::Secret;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the secret's text.
    pub(super) fn serialize<S: Serializer>(
        value: &Option<Secret>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(secret) => s.serialize_some(secret.expose()),
            None => s.serialize_none(),
        }
    }

    /// Reads a secret's text.
    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Secret>, D::Error> {
        Ok(Option::<String>::deserialize(d)?.map(Secret::new))
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    #[serde(default)]
    profiles: BTreeMap<String, Login>,
}

/// The token cache file.
#[derive(Debug, Clone)]
pub struct TokenCache {
    path: PathBuf,
}

impl TokenCache {
    /// The cache at its usual place (or where `FABSH_TOKEN_CACHE` says).
    pub fn open() -> TokenCache {
        let path = match env_text(CACHE_PATH_VAR) {
            Some(path) => PathBuf::from(path),
            None => dirs::state_dir()
                .or_else(dirs::config_dir)
                .unwrap_or_else(|| PathBuf::from("."))
                .join("fabsh")
                .join("tokens.json"),
        };
        TokenCache { path }
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Result<CacheFile> {
        let bytes = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Ok(CacheFile::default());
            }
            Err(err) => {
                return Err(
                    Error::auth(format!("cannot read {}", self.path.display())).with_cause(err)
                );
            }
        };
        self.check_private()?;
        // The parser's message could quote the file, so it is not passed on.
        serde_json::from_slice(&bytes).map_err(|_| {
            Error::auth(format!(
                "{} is not a valid token cache",
                self.path.display()
            ))
            .with_hint("remove it and sign in again with `fabsh auth login`")
        })
    }

    /// The rule of every file fabsh keeps (exit 2): the file, and the folder it is in when
    /// that is fabsh's own (not a folder `FABSH_TOKEN_CACHE` chose).
    fn check_private(&self) -> Result<()> {
        let mut paths = vec![self.path.as_path()];
        if env_text(CACHE_PATH_VAR).is_none()
            && let Some(folder) = self.path.parent()
        {
            paths.push(folder);
        }
        crate::config::private_file::check_private("the token cache", &paths, None)
            .map_err(|err| err.with_hint("or remove it and sign in again"))
    }

    fn write(&self, file: &CacheFile) -> Result<()> {
        let failed = |err: std::io::Error| {
            Error::runtime(format!("cannot write {}", self.path.display())).with_cause(err)
        };
        let bytes = serde_json::to_vec_pretty(file)?;
        crate::config::private_file::write(&self.path, &bytes).map_err(failed)
    }

    /// The sign-in of `profile`, if any.
    pub fn load(&self, profile: &str) -> Result<Option<Login>> {
        Ok(self.read()?.profiles.remove(profile))
    }

    /// Saves the sign-in of `profile`.
    pub fn store(&self, profile: &str, login: &Login) -> Result<()> {
        let mut file = self.read()?;
        file.profiles.insert(profile.to_string(), login.clone());
        self.write(&file)
    }

    /// Forgets `profile`'s sign-in; false when there was none. The file goes once empty.
    pub fn remove(&self, profile: &str) -> Result<bool> {
        let mut file = self.read()?;
        if file.profiles.remove(profile).is_none() {
            return Ok(false);
        }
        if file.profiles.is_empty() {
            std::fs::remove_file(&self.path).map_err(|err| {
                Error::runtime(format!("cannot remove {}", self.path.display())).with_cause(err)
            })?;
            return Ok(true);
        }
        self.write(&file).map(|()| true)
    }
}
