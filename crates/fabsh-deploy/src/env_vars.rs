//! `$ENV:NAME` in parameter.yml: an environment variable's value goes into a definition only
//! when the person running deploy allowed it, as fabric-cicd reads them only with the feature
//! flag [`FEATURE`]; only the variables the parameters name are read, never the whole
//! environment; and a value is never shown: a plan shows `$ENV:NAME` where it goes, and
//! messages have it masked the same way.

use fabsh_model::deploy::{PlanProblem, Severity};
use std::collections::{BTreeMap, BTreeSet};

/// fabric-cicd's feature flag (config.yml's `features:`) that lets `$ENV:NAME` read variables.
pub const FEATURE: &str = "enable_environment_variable_replacement";

/// How a replacement value names an environment variable.
pub(crate) const PREFIX: &str = "$ENV:";

/// The problem code of a `$ENV:NAME` that may not be read.
const NOT_ALLOWED: &str = "EnvironmentVariableNotAllowed";

/// Which environment variables `$ENV:NAME` may read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum EnvAccess {
    /// None: the default.
    #[default]
    Off,
    /// These only (`deploy --env-vars`, or an MCP server's `--deploy-env-vars`).
    Named(BTreeSet<String>),
    /// Any the parameters name (config.yml's `features:` lists [`FEATURE`]).
    Referenced,
}

/// The variables the parameters name that may be read, with their values.
#[derive(Debug, Clone, Default)]
pub struct EnvVars {
    access: EnvAccess,
    /// By name; the ones that are set.
    values: BTreeMap<String, String>,
}

/// Whether `name` can name a variable (the platform refuses `=` and NUL in one).
pub fn is_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['=', '\0'])
}

impl EnvVars {
    /// Reads through `lookup` the variables of `names` that `access` allows, and no other.
    pub fn read(
        access: EnvAccess,
        names: &BTreeSet<String>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> EnvVars {
        let mut vars = EnvVars {
            access,
            values: BTreeMap::new(),
        };
        for name in names {
            if is_name(name)
                && vars.allows(name)
                && let Some(value) = lookup(name)
            {
                vars.values.insert(name.clone(), value);
            }
        }
        vars
    }

    fn allows(&self, name: &str) -> bool {
        match &self.access {
            EnvAccess::Off => false,
            EnvAccess::Named(names) => names.contains(name),
            EnvAccess::Referenced => true,
        }
    }

    /// The value of `$ENV:<name>`, or the problem code and message saying why there is none.
    pub(crate) fn resolve(&self, name: &str) -> Result<&str, (&'static str, String)> {
        if let Some(value) = self.values.get(name) {
            return Ok(value);
        }
        let message = match &self.access {
            _ if !is_name(name) => {
                return Err((
                    "InvalidVariable",
                    format!("{PREFIX}{name}: not an environment variable's name"),
                ));
            }
            EnvAccess::Off => format!(
                "{PREFIX}{name}: environment variables are read only when allowed: give --env-vars {name} (an MCP server: start it with --deploy-env-vars {name}), or list {FEATURE} in config.yml's features"
            ),
            // An MCP server always names its list; a config cannot widen an empty one.
            EnvAccess::Named(names) if names.is_empty() => format!(
                "{PREFIX}{name}: no environment variable is allowed here: give --env-vars {name} (an MCP server: start it with --deploy-env-vars {name})"
            ),
            EnvAccess::Named(names) if !names.contains(name) => format!(
                "{PREFIX}{name}: {name} is not among the environment variables allowed ({}); add it to --env-vars (an MCP server: --deploy-env-vars)",
                names.iter().cloned().collect::<Vec<_>>().join(", ")
            ),
            _ => {
                return Err((
                    "EnvironmentVariableNotSet",
                    format!("{PREFIX}{name}: the environment variable {name} is not set"),
                ));
            }
        };
        Err((NOT_ALLOWED, message))
    }

    /// The problems of the variables `names` (those the parameters use): each that may not be
    /// read or is not set, reported against parameter.yml whether or not its rule matches.
    pub(crate) fn problems(&self, names: &BTreeSet<String>) -> Vec<PlanProblem> {
        names
            .iter()
            .filter_map(|name| self.resolve(name).err())
            .map(|(code, message)| PlanProblem {
                subject: Some("parameter.yml".into()),
                severity: Severity::Error,
                code: code.into(),
                message,
            })
            .collect()
    }

    /// The same variables, each with `$ENV:NAME` as its value: what a plan shows where a
    /// value would go.
    pub fn placeholders(&self) -> EnvVars {
        EnvVars {
            access: self.access.clone(),
            values: self
                .values
                .keys()
                .map(|name| (name.clone(), format!("{PREFIX}{name}")))
                .collect(),
        }
    }

    /// Whether no variable was read.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The values read, for a front end that keeps them out of everything it shows.
    pub fn values(&self) -> impl Iterator<Item = &str> {
        self.values.values().map(String::as_str)
    }

    /// `text` with every value read (as written, and as JSON escapes it in a string)
    /// replaced by `$ENV:NAME`.
    pub fn mask(&self, text: &str) -> String {
        let mut forms: Vec<(String, &str)> = Vec::new();
        for (name, value) in &self.values {
            if value.is_empty() {
                continue;
            }
            forms.push((value.clone(), name));
            // The value as a JSON string prints it (quoted, escaped).
            let quoted = serde_json::Value::from(value.as_str()).to_string();
            let escaped = quoted.trim_start_matches('"').trim_end_matches('"');
            if escaped != value {
                forms.push((escaped.to_string(), name));
            }
        }
        // Longer first, so a value inside another is not masked half-way.
        forms.sort_by_key(|form| std::cmp::Reverse(form.0.len()));
        let mut out = text.to_string();
        for (form, name) in forms {
            if out.contains(&form) {
                out = out.replace(&form, &format!("{PREFIX}{name}"));
            }
        }
        out
    }

    /// `bytes` masked as [`EnvVars::mask`] does, when they are text.
    pub fn mask_bytes(&self, bytes: &[u8]) -> Vec<u8> {
        match std::str::from_utf8(bytes) {
            Ok(text) if !self.is_empty() => self.mask(text).into_bytes(),
            _ => bytes.to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowed_and_named_variables_are_read_and_values_mask() {
        let names: BTreeSet<String> = ["TOKEN", "OTHER"].map(String::from).into();
        let looked_up = std::sync::Mutex::new(Vec::new());
        let lookup = |name: &str| {
            looked_up.lock().expect("lock").push(name.to_string());
            Some(format!("va\"lue-of-{name}"))
        };
        let off = EnvVars::read(EnvAccess::Off, &names, lookup);
        assert!(off.is_empty());
        assert!(
            looked_up.lock().expect("lock").is_empty(),
            "nothing is read unasked"
        );
        let (code, message) = off.resolve("TOKEN").expect_err("off");
        assert_eq!(code, NOT_ALLOWED);
        assert!(message.contains("--env-vars TOKEN") && message.contains(FEATURE));
        let named = EnvVars::read(
            EnvAccess::Named(["TOKEN".to_string()].into()),
            &names,
            lookup,
        );
        assert_eq!(*looked_up.lock().expect("lock"), ["TOKEN"]);
        assert_eq!(named.resolve("TOKEN"), Ok("va\"lue-of-TOKEN"));
        assert_eq!(
            named.resolve("OTHER").expect_err("not named").0,
            NOT_ALLOWED
        );
        assert_eq!(named.problems(&names).len(), 1);
        let none = EnvVars::read(EnvAccess::Named(BTreeSet::new()), &names, lookup);
        let (code, message) = none.resolve("TOKEN").expect_err("none named");
        assert_eq!(code, NOT_ALLOWED);
        assert!(message.contains("--deploy-env-vars TOKEN") && !message.contains(FEATURE));
        assert_eq!(
            named.mask(r#"a va"lue-of-TOKEN b "va\"lue-of-TOKEN""#),
            r#"a $ENV:TOKEN b "$ENV:TOKEN""#
        );
        assert_eq!(named.placeholders().resolve("TOKEN"), Ok("$ENV:TOKEN"));
    }
}
