//! The flags `deploy plan` and `apply` share, and from them what `fabsh-deploy` takes: the
//! repository opened and scoped, and the plan's options. Each is checked before any request.

use super::{
    ALLOW_MASS_DELETE, CONFIG, DELETE_ORPHANS, DELETE_TYPE, DIR, ENV_VARS, ENVIRONMENT, EXCLUDE,
    ITEMS, MAX_DELETES, TYPES,
};
use crate::commands::args::checked_item_type;
use crate::commands::typed::typed_args;
use crate::error::{Error, Result};
use fabsh_deploy::Input;
use fabsh_deploy::env_vars::{self, EnvAccess};
use fabsh_deploy::plan::{Options, Repository};
use fabsh_deploy::protected;
use fabsh_deploy::scope::Selection;
use fabsh_model::deploy::DEFAULT_MAX_DELETES;
use std::path::PathBuf;

typed_args! {
    /// Where the repository is, for which environment, and what of it is in scope.
    pub(super) struct RepositoryFlags {
        dir: Option<String> = DIR,
        config: Option<String> = CONFIG,
        environment: Option<String> = ENVIRONMENT,
        env_vars: Option<Vec<String>> = ENV_VARS,
        types: Option<Vec<String>> = TYPES,
        items: Option<Vec<String>> = ITEMS,
        exclude: Option<String> = EXCLUDE,
    }
}

typed_args! {
    /// What a plan may delete. A flag given (even as false or empty) counts: `apply --plan`
    /// refuses those that shape a plan.
    pub(super) struct DeleteFlags {
        delete_orphans: bool = DELETE_ORPHANS,
        delete_type: Option<Vec<String>> = DELETE_TYPE,
        max_deletes: Option<i64> = MAX_DELETES,
        allow_mass_delete: Option<bool> = ALLOW_MASS_DELETE,
    }
}

impl DeleteFlags {
    /// What the plan is asked for, with `diff` (`--diff`, which only `plan` takes):
    /// `--delete-type` names protected types only, and only beside `--delete-orphans`.
    pub(super) fn options(&self, diff: bool) -> Result<Options> {
        let delete_orphans = self.delete_orphans;
        let mut delete_types = Vec::new();
        for name in self.delete_type.iter().flatten() {
            let Some(found) = protected::find(name) else {
                let known: Vec<&str> = protected::PROTECTED.iter().map(|p| p.item_type).collect();
                return Err(Error::usage(format!(
                    "--delete-type {name}: not a protected type; those are {}",
                    known.join(", ")
                ))
                .with_hint(
                    "orphans of other types are deleted by --delete-orphans alone; nothing was sent",
                ));
            };
            delete_types.push(found.item_type.to_string());
        }
        if !delete_types.is_empty() && !delete_orphans {
            return Err(Error::usage(
                "--delete-type opts protected types in to --delete-orphans, which is not given",
            )
            .with_hint("add --delete-orphans; nothing was sent"));
        }
        Ok(Options {
            diff,
            delete_orphans,
            delete_types,
            max_deletes: self
                .max_deletes
                .map_or(DEFAULT_MAX_DELETES, |n| n.max(0) as usize),
            allow_mass_delete: self.allow_mass_delete == Some(true),
        })
    }

    /// The first flag given that shapes a plan (which a saved plan has already).
    pub(super) fn shaping_a_plan(&self) -> Option<&'static str> {
        [
            (self.delete_type.is_some(), DELETE_TYPE.long),
            (self.max_deletes.is_some(), MAX_DELETES.long),
            (self.allow_mass_delete.is_some(), ALLOW_MASS_DELETE.long),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }
}

impl RepositoryFlags {
    /// Opens the repository the flags name, refusing unreadable input before any request,
    /// and reads the environment variables its parameters name that the person allowed.
    pub(super) fn open(&self) -> Result<Repository> {
        let dir = self.dir.as_deref().map(PathBuf::from);
        let config = self.config.as_deref().map(PathBuf::from);
        if dir.is_none() && config.is_none() {
            return Err(Error::usage(
                "give the repository directory (DIR) or --config",
            ));
        }
        let environment = self.environment.as_deref();
        let types = match &self.types {
            Some(types) => Some(
                types
                    .iter()
                    .map(|t| checked_item_type("--types", t))
                    .collect::<Result<Vec<_>>>()?,
            ),
            None => None,
        };
        let selection = Selection {
            types,
            items: self.items.clone(),
            exclude: self.exclude.clone(),
        };
        let mut repo = fabsh_deploy::plan::open_scoped(
            dir.as_deref(),
            config.as_deref(),
            environment,
            &selection,
        )
        .map_err(|err| {
            let flag = match err.input() {
                Input::Config => "--config",
                Input::Parameters => "parameter file",
                Input::Promotion => "--prepare",
                Input::Repository if dir.is_some() => "DIR",
                Input::Repository => "core.repository_directory",
                // The error names the flag itself.
                Input::Scope => return Error::usage(err.to_string()),
            };
            let refused = Error::usage(format!("{flag}: {err}"));
            match err {
                fabsh_deploy::Error::NotRepository { .. } => refused
                    .with_hint(fabsh_deploy::repo::LAYOUT)
                    .with_hint("nothing was sent"),
                _ => refused,
            }
        })?;
        repo.read_env(self.env_access(&repo), |name| std::env::var(name).ok());
        Ok(repo)
    }

    /// Which environment variables `$ENV:NAME` may read: those `--env-vars` names when it
    /// is given (an MCP server always gives it, so a config cannot widen what the server
    /// allows), else any the parameters name when config.yml's features opt in, else none.
    fn env_access(&self, repo: &Repository) -> EnvAccess {
        if let Some(names) = &self.env_vars {
            return EnvAccess::Named(names.iter().cloned().collect());
        }
        if repo
            .settings
            .features
            .iter()
            .any(|f| f == env_vars::FEATURE)
        {
            EnvAccess::Referenced
        } else {
            EnvAccess::Off
        }
    }
}
