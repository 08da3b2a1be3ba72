//! Opening a repository: its config's settings for the environment, its items in scope and
//! its parameters.

use super::{Repository, warning};
use crate::boundary::{Boundary, Leaves, shown_target};
use crate::config::{self, Settings};
use crate::env_vars::EnvVars;
use crate::error::{Error, Input, Result};
use crate::params::Parameters;
use crate::repo;
use crate::scope::{self, Selection};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Opens `dir` (or the config's repository directory) for `environment`, its scope as the
/// config gives it.
pub fn open(
    dir: Option<&Path>,
    config_file: Option<&Path>,
    environment: Option<&str>,
) -> Result<Repository> {
    open_scoped(dir, config_file, environment, &Selection::default())
}

/// Opens `dir` (or the config's repository directory) for `environment`, its scope as
/// `selection` and then the config give it.
pub fn open_scoped(
    dir: Option<&Path>,
    config_file: Option<&Path>,
    environment: Option<&str>,
    selection: &Selection,
) -> Result<Repository> {
    let mut settings = match config_file {
        Some(path) => config::load(path, environment)?,
        None => Settings::default(),
    };
    let root = match (dir, &settings.repository_directory) {
        (Some(dir), _) => dir.to_path_buf(),
        (None, Some(dir)) => dir.clone(),
        (None, None) => {
            let shown = match environment {
                Some(env) => format!("environment {env:?}"),
                None => "no environment (give --environment)".to_string(),
            };
            return Err(Error::invalid(
                Input::Config,
                "config.yml",
                format!(
                    "core.repository_directory has no value for {shown}; the file knows {}",
                    listed(&settings.environments)
                ),
            ));
        }
    };
    let all = repo::read(&root)?;
    let params = match parameter_file(&settings, &root)? {
        Some(path) => Parameters::load(&path, &root)?,
        None => Parameters::default(),
    };
    let mut notes = Vec::new();
    if let Some(env) = environment {
        let files = [
            (
                "config.yml",
                &settings.environments,
                "its per-environment values (workspace, parameter, filters, skip) are not set for it",
            ),
            (
                "parameter.yml",
                &params.environments(),
                "every rule and binding without an _ALL_ value is skipped",
            ),
        ];
        for (file, known, skipped) in files {
            if !known.is_empty() && !known.contains(env) {
                notes.push(warning(
                    Some(file.to_string()),
                    "UnknownEnvironment",
                    format!(
                        "environment {env:?} is not one it knows ({}{}): {skipped}",
                        listed(known),
                        meant(env, known)
                    ),
                ));
            }
        }
    }
    let (items, outside) = scope::partition(all, selection, &mut settings, &mut notes)?;
    Ok(Repository {
        root,
        items,
        outside,
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

/// The environments `known`, for a message.
fn listed(known: &BTreeSet<String>) -> String {
    if known.is_empty() {
        return "none by name".to_string();
    }
    known.iter().cloned().collect::<Vec<_>>().join(", ")
}

/// `; did you mean X?` when `env` differs from a known environment in case only: the names
/// are compared as written, as fabric-cicd compares them.
fn meant(env: &str, known: &BTreeSet<String>) -> String {
    known
        .iter()
        .find(|k| k.eq_ignore_ascii_case(env))
        .map(|k| format!("; names are case-sensitive: did you mean {k}?"))
        // No near name: the message has nothing to add.
        .unwrap_or_default()
}
