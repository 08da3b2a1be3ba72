//! Process-wide settings. Each comes from, in order: a flag, a `FABSH_*` environment
//! variable, the selected profile of the config file, then the built-in default.

mod file;
pub mod private_file;

pub use file::{CONFIG_PATH_VAR, ConfigFile, Profile, config_path};

use crate::api::{DEFAULT_ENDPOINT, normalize_endpoint};
use crate::auth::{Method, TokenProvider};
use crate::error::{Error, Result};
use crate::watch::Tracer;
use std::path::PathBuf;
use std::sync::Arc;

/// The environment variable naming the endpoint (also printed by `local serve`).
pub const ENDPOINT_VAR: &str = "FABSH_ENDPOINT";
/// The environment variable holding a bearer token (also printed by `local serve`).
pub const TOKEN_VAR: &str = "FABSH_TOKEN";
/// The environment variable holding a bearer token for OneLake's storage audience, for the
/// OneLake of `FABSH_ENDPOINT` (also printed by `local serve`).
pub const STORAGE_TOKEN_VAR: &str = "FABSH_STORAGE_TOKEN";
/// The environment variable naming a directory of stdlib modules that replace the built-in ones.
pub const STDLIB_VAR: &str = "FABSH_STDLIB";
/// The environment variable selecting a profile.
pub const PROFILE_VAR: &str = "FABSH_PROFILE";
/// The output formats a profile's `output` (or `FABSH_OUTPUT`) may name: every format the
/// client writes but html, which only some commands make.
pub const OUTPUT_NAMES: &[&str] = &["json", "table", "wide", "tsv", "csv", "yaml"];
/// The profile used when none is selected.
pub const DEFAULT_PROFILE: &str = "default";
/// Where sign-ins go unless configured: Entra's public cloud.
pub const DEFAULT_AUTHORITY_HOST: &str = "https://login.microsoftonline.com";

/// A setting a profile may hold.
#[derive(Debug, Clone, Copy)]
pub struct ConfigKey {
    /// The key in the config file and on `config get|set|unset`.
    pub name: &'static str,
    /// The environment variable that overrides it.
    pub env: &'static str,
    /// One-line help.
    pub help: &'static str,
}

/// Every setting a profile may hold. Secrets are not among them: they live in the token cache.
pub const KEYS: &[ConfigKey] = &KEY_TABLE;

/// The settings' names, in the order of [`KEYS`] (`config get`'s values).
pub const KEY_NAMES: &[&str] = &key_names(KEY_TABLE);

const fn key_names<const N: usize>(keys: [ConfigKey; N]) -> [&'static str; N] {
    let mut names = [""; N];
    let mut at = 0;
    while at < N {
        names[at] = keys[at].name;
        at += 1;
    }
    names
}

const KEY_TABLE: [ConfigKey; 7] = [
    ConfigKey {
        name: "endpoint",
        env: ENDPOINT_VAR,
        help: "Fabric API base URL (flag --endpoint)",
    },
    ConfigKey {
        name: "tenant",
        env: "FABSH_TENANT_ID",
        help: "Entra tenant id or domain to sign in to",
    },
    ConfigKey {
        name: "auth-method",
        env: "FABSH_AUTH_METHOD",
        help: "device-code, service-principal, managed-identity or azure-cli (set by `auth login`)",
    },
    ConfigKey {
        name: "client-id",
        env: "FABSH_CLIENT_ID",
        help: "Application (client) id: the service principal, user-assigned identity or public client",
    },
    ConfigKey {
        name: "authority-host",
        env: "FABSH_AUTHORITY_HOST",
        help: "Where to sign in (default: the endpoint's origin for a loopback endpoint, else login.microsoftonline.com)",
    },
    ConfigKey {
        name: "workspace",
        env: "FABSH_WORKSPACE",
        help: "Default workspace for commands that take -w/--workspace",
    },
    ConfigKey {
        name: "output",
        env: "FABSH_OUTPUT",
        help: "Default output format: json, table, tsv, csv or yaml (flag -o)",
    },
];

/// The key named `name`.
pub fn key(name: &str) -> Result<&'static ConfigKey> {
    KEYS.iter().find(|k| k.name == name).ok_or_else(|| {
        let names: Vec<&str> = KEYS.iter().map(|k| k.name).collect();
        Error::usage(format!("unknown setting `{name}`"))
            .with_hint(format!("settings: {}", names.join(", ")))
    })
}

/// Checks a value before it is stored, so a bad profile fails at `config set`, not later.
pub fn check_value(key: &ConfigKey, value: &str) -> Result<String> {
    let value = value.trim();
    let bad = |why: &str| Error::usage(format!("invalid {}: {why}", key.name));
    match key.name {
        "endpoint" => normalize_endpoint(value).map(|url| url.to_string()),
        "authority-host" => match reqwest::Url::parse(value) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => {
                Ok(value.trim_end_matches('/').to_string())
            }
            _ => Err(bad("give a URL such as https://login.microsoftonline.com")),
        },
        "auth-method" => Method::parse(value)
            .map(|m| m.as_str().to_string())
            .ok_or_else(|| bad(&format!("one of {}", Method::NAMES.join(", ")))),
        "output" => OUTPUT_NAMES
            .iter()
            .find(|name| name.eq_ignore_ascii_case(value))
            .map(std::string::ToString::to_string)
            .ok_or_else(|| bad(&format!("one of {}", OUTPUT_NAMES.join(", ")))),
        _ if value.is_empty() => Err(bad("empty value")),
        _ => Ok(value.to_string()),
    }
}

/// Where a setting's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A command-line flag.
    Flag,
    /// A `FABSH_*` variable.
    Env,
    /// The selected profile.
    Profile,
    /// The built-in default.
    Default,
}

impl Origin {
    /// The name shown by `config list`.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Flag => "flag",
            Origin::Env => "env",
            Origin::Profile => "profile",
            Origin::Default => "default",
        }
    }
}

/// Settings that apply to every command of the process.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `--endpoint`, when given.
    pub endpoint: Option<String>,
    /// `--local`: start local Fabric in-process and use it.
    pub local: bool,
    /// `--verbose`: trace requests and responses.
    pub verbose: bool,
    /// `--profile`, when given.
    pub profile: Option<String>,
    /// The selected profile's values, once [`Settings::load_profile`] has read them.
    pub profile_values: Profile,
    /// `--stdlib`, when given.
    pub stdlib: Option<PathBuf>,
    /// `--no-cache`: keep names in memory for this process only (see
    /// [`Settings::persistent_names`]).
    pub no_cache: bool,
}

impl Settings {
    /// Reads the selected profile from the config file. Selecting a profile that does not
    /// exist is an error (a typo would otherwise go unnoticed), except the default one, and
    /// when `may_create` (`auth login` and `config set` make new profiles).
    pub fn load_profile(&mut self, may_create: bool) -> Result<()> {
        let path = config_path();
        let config = ConfigFile::load(&path)?;
        let name = self.profile_name();
        match config.profiles.get(&name) {
            Some(values) => self.profile_values = values.clone(),
            None if may_create || name == DEFAULT_PROFILE => {}
            None => {
                return Err(Error::usage(format!(
                    "no profile named `{name}` in {}",
                    path.display()
                ))
                .with_hint(format!(
                    "create it with `fabsh --profile {name} config set KEY VALUE`"
                )));
            }
        }
        Ok(())
    }

    /// The selected profile: `--profile`, then `FABSH_PROFILE`, then `default`.
    pub fn profile_name(&self) -> String {
        self.profile
            .clone()
            .or_else(|| env_text(PROFILE_VAR))
            .unwrap_or_else(|| DEFAULT_PROFILE.to_string())
    }

    /// A setting with where it came from: flag (endpoint only), environment, profile.
    pub fn lookup(&self, name: &str) -> Option<(String, Origin)> {
        if name == "endpoint"
            && let Some(flag) = &self.endpoint
        {
            return Some((flag.clone(), Origin::Flag));
        }
        let key = KEYS.iter().find(|k| k.name == name)?;
        if let Some(value) = env_text(key.env) {
            return Some((value, Origin::Env));
        }
        self.profile_values
            .get(name)
            .map(|value| (value.clone(), Origin::Profile))
    }

    /// A setting's value, without its origin.
    pub fn value(&self, name: &str) -> Option<String> {
        self.lookup(name).map(|(value, _)| value)
    }

    /// Whether names are cached in the state dir for later processes: not with `--no-cache`
    /// or `FABSH_NO_CACHE` set (to anything but `0` or `false`).
    pub fn persistent_names(&self) -> bool {
        let off_by_env = env_text(crate::api::names::NO_CACHE_VAR)
            .is_some_and(|value| !matches!(value.trim(), "0" | "false"));
        !(self.no_cache || off_by_env)
    }

    /// The endpoint to use when not local.
    pub fn endpoint(&self) -> String {
        self.value("endpoint")
            .unwrap_or_else(|| DEFAULT_ENDPOINT.to_string())
    }

    /// Where stdlib modules that replace the built-in ones live: flag, then environment.
    pub fn stdlib_dir(&self) -> Option<PathBuf> {
        self.stdlib
            .clone()
            .or_else(|| env_text(STDLIB_VAR).map(PathBuf::from))
    }

    /// Where to sign in. A loopback endpoint is local Fabric, whose authority is its origin.
    pub fn authority_host(&self) -> (String, Origin) {
        if let Some(found) = self.lookup("authority-host") {
            return found;
        }
        let loopback = normalize_endpoint(&self.endpoint()).ok().filter(|url| {
            url.host_str()
                .is_some_and(|h| h == "localhost" || h == "[::1]" || h.starts_with("127."))
        });
        match loopback {
            Some(url) => (url.origin().ascii_serialization(), Origin::Default),
            None => (DEFAULT_AUTHORITY_HOST.to_string(), Origin::Default),
        }
    }

    /// The output format the environment or profile asks for when `-o` is not given, by
    /// its name (one of [`OUTPUT_NAMES`] when it is one fabsh writes).
    pub fn output_name(&self) -> Option<String> {
        self.value("output")
    }

    /// The default workspace for commands that take one.
    pub fn default_workspace(&self) -> Option<String> {
        self.value("workspace")
    }

    /// The configured value of a flag the user left out, for the CLI and scripts alike: only
    /// `--workspace` has one (the default workspace).
    pub fn flag_default(&self, long: &str) -> Option<String> {
        match long {
            "workspace" => self.default_workspace(),
            _ => None,
        }
    }

    /// The sign-in method chosen by the environment or profile, if any.
    pub fn auth_method(&self) -> Result<Option<Method>> {
        match self.value("auth-method") {
            None => Ok(None),
            Some(name) => Method::parse(&name).map(Some).ok_or_else(|| {
                Error::usage(format!("unknown auth method `{name}`"))
                    .with_hint(format!("one of {}", Method::NAMES.join(", ")))
            }),
        }
    }

    /// The token provider for a remote endpoint, from the credential chain.
    pub fn token_provider(&self) -> Result<Arc<dyn TokenProvider>> {
        let tracer = self.verbose.then_some(Tracer);
        crate::auth::chain::choose(self, tracer).map(|chosen| chosen.provider)
    }
}

/// A non-empty environment variable.
pub fn env_text(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}
