//! fabric-cicd's `parameter.yml`: environment-specific replacements (`find_replace`,
//! `key_value_replace`, `spark_pool`) and semantic model connections
//! (`semantic_model_binding`), with `extend` pulling in template files.

use crate::boundary::{Boundary, Leaves};
use crate::error::{Error, Input, Result};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A filter or name given as one string or a list of strings (an empty key is no filter).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    /// The values as a list.
    pub fn values(&self) -> Vec<&str> {
        match self {
            OneOrMany::One(one) => vec![one.as_str()],
            OneOrMany::Many(many) => many.iter().map(String::as_str).collect(),
        }
    }
}

/// `"true"`, `"True"` or a YAML boolean.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Flag {
    Bool(bool),
    Text(String),
}

impl Flag {
    fn on(flag: &Option<Flag>) -> bool {
        match flag {
            Some(Flag::Bool(on)) => *on,
            Some(Flag::Text(text)) => text.eq_ignore_ascii_case("true"),
            None => false,
        }
    }
}

/// The file filters a rule may carry; each given one must match.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Filters {
    pub item_type: Option<OneOrMany>,
    pub item_name: Option<OneOrMany>,
    pub file_path: Option<OneOrMany>,
}

/// One `find_replace` rule.
#[derive(Debug, Clone, Deserialize)]
pub struct FindReplace {
    pub find_value: String,
    pub replace_value: BTreeMap<String, Value>,
    pub is_regex: Option<Flag>,
    pub ignore_case: Option<Flag>,
    #[serde(flatten)]
    pub filters: Filters,
}

impl FindReplace {
    /// Whether `find_value` is a pattern whose group 1 is the value to replace.
    pub fn regex(&self) -> bool {
        Flag::on(&self.is_regex)
    }

    /// Whether matching ignores case.
    pub fn ignores_case(&self) -> bool {
        Flag::on(&self.ignore_case)
    }
}

/// One `key_value_replace` rule: a JSONPath (RFC 9535) into JSON or YAML parts.
#[derive(Debug, Clone, Deserialize)]
pub struct KeyValueReplace {
    pub find_key: String,
    pub replace_value: BTreeMap<String, Value>,
    #[serde(flatten)]
    pub filters: Filters,
}

/// The pool an environment's `instance_pool_id` maps to.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PoolRef {
    #[serde(rename = "type")]
    pub pool_type: String,
    pub name: String,
}

/// One `spark_pool` rule.
#[derive(Debug, Clone, Deserialize)]
pub struct SparkPool {
    pub instance_pool_id: String,
    pub replace_value: BTreeMap<String, PoolRef>,
    pub item_name: Option<OneOrMany>,
}

/// Connection ids by environment (each one id or a list).
pub type Connections = BTreeMap<String, OneOrMany>;

/// The default connection of `semantic_model_binding`.
#[derive(Debug, Clone, Deserialize)]
pub struct DefaultBinding {
    pub connection_id: Connections,
}

/// A per-model binding.
#[derive(Debug, Clone, Deserialize)]
pub struct ModelBinding {
    pub semantic_model_name: OneOrMany,
    pub connection_id: Connections,
}

/// `semantic_model_binding`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SemanticModelBinding {
    pub default: Option<DefaultBinding>,
    #[serde(default)]
    pub models: Vec<ModelBinding>,
}

/// The whole file (after `extend`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parameters {
    #[serde(default)]
    pub extend: Vec<String>,
    #[serde(default)]
    pub find_replace: Vec<FindReplace>,
    #[serde(default)]
    pub key_value_replace: Vec<KeyValueReplace>,
    #[serde(default)]
    pub spark_pool: Vec<SparkPool>,
    pub semantic_model_binding: Option<SemanticModelBinding>,
}

/// The value for `env` in a `replace_value` map: its own key, else `_ALL_` (any case).
pub fn for_env<'a, T>(map: &'a BTreeMap<String, T>, env: Option<&str>) -> Option<&'a T> {
    env.and_then(|env| map.get(env)).or_else(|| {
        map.iter()
            .find(|(key, _)| key.eq_ignore_ascii_case("_ALL_"))
            .map(|(_, value)| value)
    })
}

impl Parameters {
    /// Reads `path` and the templates its `extend` names (relative to it), their rules
    /// appended after the file's own. A template is read only when its real path is in
    /// `repository` or in the parameter file's own folder: a parameter file in a repository
    /// cannot pull in a file from elsewhere.
    pub fn load(path: &Path, repository: &Path) -> Result<Parameters> {
        let mut params = read_one(path)?;
        let base = path.parent().unwrap_or(Path::new("."));
        let allowed: Vec<Boundary> = [repository, base]
            .into_iter()
            .filter_map(|dir| Boundary::new(dir).ok())
            .collect();
        for template in std::mem::take(&mut params.extend) {
            let named = base.join(&template);
            let shown = named.display().to_string();
            let mut found = Err(Leaves::Outside);
            for boundary in &allowed {
                found = boundary.resolve(&named);
                if !matches!(found, Err(Leaves::Outside)) {
                    break;
                }
            }
            let real = match found {
                Ok(real) => real,
                Err(Leaves::Unresolved(err)) => {
                    return Err(Error::read(Input::Parameters, shown, err));
                }
                Err(Leaves::Outside) => {
                    return Err(Error::invalid(
                        Input::Parameters,
                        shown,
                        format!(
                            "extend names {template:?}, which leads outside the repository and the parameter file's folder: not read"
                        ),
                    ));
                }
            };
            let more = read_one(&real)?;
            params.find_replace.extend(more.find_replace);
            params.key_value_replace.extend(more.key_value_replace);
            params.spark_pool.extend(more.spark_pool);
            if params.semantic_model_binding.is_none() {
                params.semantic_model_binding = more.semantic_model_binding;
            }
        }
        Ok(params)
    }

    /// The environment variables (`$ENV:NAME`) the replacement values for `env` name.
    pub fn env_names(&self, env: Option<&str>) -> BTreeSet<String> {
        let find = self.find_replace.iter().map(|r| &r.replace_value);
        let key_value = self.key_value_replace.iter().map(|r| &r.replace_value);
        find.chain(key_value)
            .filter_map(|values| for_env(values, env)?.as_str())
            .filter_map(|text| text.strip_prefix(crate::env_vars::PREFIX))
            .map(str::to_string)
            .collect()
    }

    /// The environments the rules and bindings name values for (`_ALL_`, which is any, is
    /// not one of them).
    pub fn environments(&self) -> BTreeSet<String> {
        let find = self
            .find_replace
            .iter()
            .flat_map(|r| r.replace_value.keys());
        let key_value = self
            .key_value_replace
            .iter()
            .flat_map(|r| r.replace_value.keys());
        let pools = self.spark_pool.iter().flat_map(|r| r.replace_value.keys());
        let binding = self.semantic_model_binding.as_ref();
        let default = binding
            .and_then(|b| b.default.as_ref())
            .into_iter()
            .flat_map(|d| d.connection_id.keys());
        let models = binding
            .into_iter()
            .flat_map(|b| &b.models)
            .flat_map(|m| m.connection_id.keys());
        find.chain(key_value)
            .chain(pools)
            .chain(default)
            .chain(models)
            .filter(|env| !env.eq_ignore_ascii_case("_ALL_"))
            .cloned()
            .collect()
    }

    /// The connection ids a semantic model is bound to in `env`: its own entry, else the
    /// default.
    pub fn connections_for(&self, model: &str, env: Option<&str>) -> Vec<String> {
        let Some(binding) = &self.semantic_model_binding else {
            return Vec::new();
        };
        let chosen = binding
            .models
            .iter()
            .find(|m| m.semantic_model_name.values().contains(&model))
            .map(|m| &m.connection_id)
            .or(binding.default.as_ref().map(|d| &d.connection_id));
        // No binding names this model for this environment: no connections to bind.
        chosen
            .and_then(|ids| for_env(ids, env))
            .into_iter()
            .flat_map(|ids| ids.values())
            .map(str::to_string)
            .collect()
    }
}

fn read_one(path: &Path) -> Result<Parameters> {
    let shown = path.display().to_string();
    let text = crate::yaml::read_text(path, &shown, Input::Parameters)?;
    if text.trim().is_empty() {
        return Ok(Parameters::default());
    }
    crate::yaml::parse(&text, &shown, Input::Parameters)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::tests::sample_dir;

    #[test]
    fn the_sample_parameters_load_with_their_filters() {
        let params =
            Parameters::load(&sample_dir().join("parameter.yml"), &sample_dir()).expect("params");
        assert_eq!(params.find_replace.len(), 9);
        assert_eq!(params.key_value_replace.len(), 5);
        assert_eq!(params.spark_pool.len(), 2);
        assert_eq!(
            params.environments(),
            ["PPE", "PROD", "UAT"].map(String::from).into()
        );
        let first = &params.find_replace[0];
        assert_eq!(
            first.filters.item_name.as_ref().expect("names").values(),
            ["Hello World", "Hello World Subfolder"]
        );
        assert!(params.find_replace[1].regex());
        // An empty `item_name:` is no filter.
        assert!(params.spark_pool[1].item_name.is_none());
        assert_eq!(
            for_env(&params.key_value_replace[4].replace_value, Some("PPE")),
            Some(&Value::Bool(false))
        );
        assert_eq!(
            params.connections_for("ABC", Some("PROD")),
            ["c4f8e2b1-3d2a-4f5b-9c6e-7a8b9c0d1e2f"]
        );
        assert_eq!(
            params.connections_for("cloudconnections", Some("PPE")),
            ["f96870d5-5f86-49ad-bf41-5967fd7c1c6d"]
        );
    }

    #[test]
    fn templates_stay_inside_and_errors_quote_no_file() {
        let repo = tempfile::tempdir().expect("temp dir");
        let outside = tempfile::tempdir().expect("temp dir");
        std::fs::write(outside.path().join("more.yml"), "find_replace: []\n").expect("write");
        let absolute = outside.path().join("more.yml").display().to_string();
        let outside_name = outside.path().file_name().expect("name").to_string_lossy();
        let climbing = format!("../{outside_name}/more.yml");
        for named in [absolute.as_str(), climbing.as_str()] {
            let file = repo.path().join("parameter.yml");
            std::fs::write(&file, format!("extend:\n  - {named:?}\n")).expect("write");
            let err = Parameters::load(&file, repo.path()).expect_err("refused");
            assert!(
                err.to_string()
                    .contains("which leads outside the repository and the parameter file's folder"),
                "{err}"
            );
        }
        // A secret file named as the parameter file: no more than an excerpt of its line.
        let secret = "ghp_".to_string() + &"x1".repeat(40);
        let file = outside.path().join("token");
        std::fs::write(&file, format!("{secret}\n")).expect("write");
        let err = Parameters::load(&file, repo.path()).expect_err("not parameters");
        let shown = err.to_string();
        assert!(!shown.contains(&secret), "{shown}");
        assert!(
            shown.contains("invalid type: string \"…\", expected struct Parameters (line 1, column 1; excerpt: \"ghp_x1"),
            "{shown}"
        );
    }
}
