//! fabric-cicd's `config.yml`: per-environment settings of a deployment (target workspace,
//! repository directory, item types in scope, parameter file, publish and unpublish
//! filters). Every value is either one value for every environment or a map by environment.

use crate::error::{Error, Input, Result};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One value, or one per environment.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum PerEnv<T> {
    Same(T),
    ByEnv(BTreeMap<String, T>),
}

impl<T> PerEnv<T> {
    /// The value for `env`: the single value whatever the environment, or the map's entry
    /// (none when the environment is not given or not listed).
    pub fn get(&self, env: Option<&str>) -> Option<&T> {
        match self {
            PerEnv::Same(value) => Some(value),
            PerEnv::ByEnv(map) => map.get(env?),
        }
    }

    /// The environments a map names (none for one value).
    fn environments(&self) -> impl Iterator<Item = &String> {
        match self {
            PerEnv::Same(_) => None,
            PerEnv::ByEnv(map) => Some(map.keys()),
        }
        .into_iter()
        .flatten()
    }
}

/// The environments `value`, when given, names.
fn environments_of<T>(value: &Option<PerEnv<T>>) -> impl Iterator<Item = &String> {
    value.iter().flat_map(PerEnv::environments)
}

/// The `core` section.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Core {
    pub workspace: Option<PerEnv<String>>,
    pub workspace_id: Option<PerEnv<String>>,
    pub repository_directory: PerEnv<String>,
    pub item_types_in_scope: Option<PerEnv<Vec<String>>>,
    pub parameter: Option<PerEnv<String>>,
}

/// The `publish` or `unpublish` section: the filters fabsh acts on (of `unpublish`, only
/// `exclude_regex` and `skip`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Filters {
    pub exclude_regex: Option<PerEnv<String>>,
    pub skip: Option<PerEnv<bool>>,
    pub folder_exclude_regex: Option<PerEnv<String>>,
    pub items_to_include: Option<PerEnv<Vec<String>>>,
}

/// The whole file.
#[derive(Debug, Clone, Deserialize)]
pub struct ConfigFile {
    pub core: Core,
    #[serde(default)]
    pub publish: Filters,
    #[serde(default)]
    pub unpublish: Filters,
    pub features: Option<PerEnv<Vec<String>>>,
}

/// The settings of one environment, paths made absolute.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub workspace: Option<String>,
    pub workspace_id: Option<String>,
    pub repository_directory: Option<PathBuf>,
    pub item_types_in_scope: Option<Vec<String>>,
    pub parameter: Option<PathBuf>,
    pub publish_exclude: Option<regex::Regex>,
    /// `publish.items_to_include`: the items deployed (`Name.Type`).
    pub publish_items: Option<Vec<String>>,
    /// `publish.folder_exclude_regex`: items in a folder it finds (or under one) are not
    /// deployed.
    pub publish_folder_exclude: Option<regex::Regex>,
    pub publish_skip: bool,
    pub unpublish_exclude: Option<regex::Regex>,
    pub unpublish_skip: bool,
    pub features: Vec<String>,
    /// The environments the file's per-environment maps name, whichever was asked for.
    pub environments: BTreeSet<String>,
}

/// Reads `path` and resolves it for `env`.
pub fn load(path: &Path, env: Option<&str>) -> Result<Settings> {
    let shown = path.display().to_string();
    let text = crate::yaml::read_text(path, &shown, Input::Config)?;
    let file: ConfigFile = crate::yaml::parse(&text, &shown, Input::Config)?;
    let base = path.parent().unwrap_or(Path::new("."));
    resolve(&file, base, env, &shown)
}

fn resolve(file: &ConfigFile, base: &Path, env: Option<&str>, shown: &str) -> Result<Settings> {
    let regex = |value: &Option<PerEnv<String>>, key: &str| -> Result<Option<regex::Regex>> {
        match value.as_ref().and_then(|v| v.get(env)) {
            None => Ok(None),
            Some(pattern) => regex::Regex::new(pattern)
                .map(Some)
                .map_err(|err| Error::invalid(Input::Config, shown, format!("{key}: {err}"))),
        }
    };
    let path = |value: &String| base.join(value);
    let core = &file.core;
    if let Some(id) = core.workspace_id.as_ref().and_then(|v| v.get(env))
        && uuid_like(id).is_none()
    {
        return Err(Error::invalid(
            Input::Config,
            shown,
            format!("core.workspace_id {id:?} is not a GUID"),
        ));
    }
    Ok(Settings {
        workspace: core.workspace.as_ref().and_then(|v| v.get(env)).cloned(),
        workspace_id: core.workspace_id.as_ref().and_then(|v| v.get(env)).cloned(),
        repository_directory: core.repository_directory.get(env).map(path),
        item_types_in_scope: core
            .item_types_in_scope
            .as_ref()
            .and_then(|v| v.get(env))
            .cloned(),
        parameter: core.parameter.as_ref().and_then(|v| v.get(env)).map(path),
        publish_exclude: regex(&file.publish.exclude_regex, "publish.exclude_regex")?,
        publish_items: file
            .publish
            .items_to_include
            .as_ref()
            .and_then(|v| v.get(env))
            .cloned(),
        publish_folder_exclude: regex(
            &file.publish.folder_exclude_regex,
            "publish.folder_exclude_regex",
        )?,
        publish_skip: file.publish.skip.as_ref().and_then(|v| v.get(env)) == Some(&true),
        unpublish_exclude: regex(&file.unpublish.exclude_regex, "unpublish.exclude_regex")?,
        unpublish_skip: file.unpublish.skip.as_ref().and_then(|v| v.get(env)) == Some(&true),
        // No feature flags for this environment: none are on.
        features: file
            .features
            .as_ref()
            .and_then(|v| v.get(env))
            .into_iter()
            .flatten()
            .cloned()
            .collect(),
        environments: environments(file),
    })
}

fn environments(file: &ConfigFile) -> BTreeSet<String> {
    let core = &file.core;
    let mut names: BTreeSet<String> = core.repository_directory.environments().cloned().collect();
    for value in [&core.workspace, &core.workspace_id, &core.parameter] {
        names.extend(environments_of(value).cloned());
    }
    names.extend(environments_of(&core.item_types_in_scope).cloned());
    for filters in [&file.publish, &file.unpublish] {
        names.extend(environments_of(&filters.exclude_regex).cloned());
        names.extend(environments_of(&filters.folder_exclude_regex).cloned());
        names.extend(environments_of(&filters.skip).cloned());
        names.extend(environments_of(&filters.items_to_include).cloned());
    }
    names.extend(environments_of(&file.features).cloned());
    names
}

/// `Some` when `text` has a GUID's shape.
fn uuid_like(text: &str) -> Option<()> {
    let groups: Vec<&str> = text.split('-').collect();
    let lens = [8, 4, 4, 4, 12];
    (groups.len() == 5
        && groups
            .iter()
            .zip(lens)
            .all(|(g, n)| g.len() == n && g.chars().all(|c| c.is_ascii_hexdigit())))
    .then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::tests::sample_dir;

    #[test]
    fn the_sample_config_resolves_per_environment() {
        let dir = sample_dir();
        let test = load(&dir.join("config.yml"), Some("test")).expect("config");
        assert_eq!(test.workspace.as_deref(), Some("Fabric-Test-Engineering"));
        assert_eq!(
            test.workspace_id.as_deref(),
            Some("2f4b9e8d-1a7c-4d3e-b8e2-5c9f7a2d4e1b")
        );
        assert_eq!(
            test.item_types_in_scope.as_deref(),
            Some(
                &[
                    "VariableLibrary",
                    "Dataflow",
                    "DataPipeline",
                    "Notebook",
                    "Environment"
                ]
                .map(String::from)[..]
            )
        );
        assert!(!test.publish_skip);
        assert!(test.unpublish_exclude.expect("regex").is_match("DEBUG_x"));
        assert_eq!(
            test.environments,
            ["dev", "prod", "test"].map(String::from).into()
        );
        let dev = load(&dir.join("config.yml"), Some("dev")).expect("config");
        assert!(dev.publish_skip && dev.unpublish_skip);
        assert_eq!(dev.parameter.expect("parameter"), dir.join("parameter.yml"));
        // An environment the maps do not list has no workspace.
        let other = load(&dir.join("config.yml"), Some("PPE")).expect("config");
        assert_eq!(other.workspace, None);
        assert!(!other.publish_skip);
    }
}
