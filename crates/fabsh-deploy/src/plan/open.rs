//! Opening a repository: its config's settings for the environment, its items in scope and
//! its parameters.

use super::{Repository, warning};
use crate::boundary::{Boundary, Leaves, shown_target};
use crate::config::{self, Settings};
use crate::env_vars::EnvVars;
use crate::error::{Error, Input, Result};
use crate::params::Parameters;
use crate::repo;
use std::path::{Path, PathBuf};

/// Opens `dir` (or the config's repository directory) for `environment`.
pub fn open(
    dir: Option<&Path>,
    config_file: Option<&Path>,
    environment: Option<&str>,
) -> Result<Repository> {
    let settings = match config_file {
        Some(path) => config::load(path, environment)?,
        None => Settings::default(),
    };
    let root = match (dir, &settings.repository_directory) {
        (Some(dir), _) => dir.to_path_buf(),
        (None, Some(dir)) => dir.clone(),
        (None, None) => {
            return Err(Error::invalid(
                Input::Config,
                "config.yml",
                "core.repository_directory has no value for this environment",
            ));
        }
    };
    let all = repo::read(&root)?;
    let params = match parameter_file(&settings, &root)? {
        Some(path) => Parameters::load(&path, &root)?,
        None => Parameters::default(),
    };
    let mut notes = Vec::new();
    let items = all
        .into_iter()
        .filter(|item| {
            let in_scope = settings
                .item_types_in_scope
                .as_ref()
                .is_none_or(|types| types.contains(&item.item_type));
            let excluded = settings
                .publish_exclude
                .as_ref()
                .is_some_and(|re| re.is_match(&item.display_name));
            if excluded {
                notes.push(warning(
                    Some(item.key()),
                    "Excluded",
                    "matched publish.exclude_regex: not deployed".into(),
                ));
            }
            in_scope && !excluded
        })
        .collect();
    Ok(Repository {
        root,
        items,
        params,
        settings,
        environment: environment.map(str::to_string),
        notes,
        env: EnvVars::default(),
    })
}

/// The parameter file: the config's, else `parameter.yml` in the repository if there is one,
/// which, as the repository's files, must not be a link out of it.
fn parameter_file(settings: &Settings, root: &Path) -> Result<Option<PathBuf>> {
    if let Some(named) = &settings.parameter {
        return Ok(Some(named.clone()));
    }
    let path = root.join("parameter.yml");
    let Ok(own) = std::fs::symlink_metadata(&path) else {
        return Ok(None);
    };
    if !own.file_type().is_symlink() {
        return Ok(own.is_file().then_some(path));
    }
    let shown = path.display().to_string();
    let boundary =
        Boundary::new(root).map_err(|err| Error::read(Input::Parameters, &shown, err))?;
    match boundary.resolve(&path) {
        Ok(real) => Ok(Some(real)),
        Err(Leaves::Unresolved(err)) => Err(Error::read(Input::Parameters, shown, err)),
        Err(Leaves::Outside) => Err(Error::invalid(
            Input::Parameters,
            shown,
            format!(
                "{}, which leads out of the repository: not read",
                shown_target(&path)
            ),
        )),
    }
}
