//! THE REGISTRY: every command, declared once. The CLI tree, the script bindings, the REPL
//! completion and `fabsh docs` are all generated from [`all`].

pub mod api;
pub mod args;
pub mod auth;
pub mod cache;
pub mod common;
pub mod config;
pub mod data_agent;
pub mod deploy;
pub mod execute;
pub mod folder;
pub mod item;
pub mod job;
pub mod lakehouse;
mod names;
pub mod onelake;
pub mod schedule;
pub mod spec;
pub mod sql;
pub mod tag;
pub mod typed;
pub mod workspace;

pub use args::{ArgValue, Args, RawValue};
pub use execute::execute;
pub use spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, LocalPath, Needs, ReturnKind,
    Terminal, Traits,
};

/// A command group as shown in help.
#[derive(Debug, Clone, Copy)]
pub struct Group {
    pub name: &'static str,
    pub summary: &'static str,
    pub commands: &'static [CommandSpec],
}

/// `fabsh workspace ...`.
pub const WORKSPACE: Group = Group {
    name: "workspace",
    summary: "Workspaces: list, show, create, delete",
    commands: workspace::COMMANDS,
};
/// `fabsh item ...`.
pub const ITEM: Group = Group {
    name: "item",
    summary: "Workspace items: list, inspect, create, update, delete, definitions, copy, move, tags, bulk transfer, external data shares, identity",
    commands: item::COMMANDS,
};
/// `fabsh folder ...`.
pub const FOLDER: Group = Group {
    name: "folder",
    summary: "Workspace folders: list, create, delete, move",
    commands: folder::COMMANDS,
};
/// `fabsh tag ...`.
pub const TAG: Group = Group {
    name: "tag",
    summary: "Tenant tags: list",
    commands: tag::COMMANDS,
};
/// `fabsh data-agent ...`.
pub const DATA_AGENT: Group = Group {
    name: "data-agent",
    summary: "Data agents: configuration, datasources, schema elements, few-shots, definitions, publish, query, evaluation",
    commands: data_agent::COMMANDS,
};
/// `fabsh sql ...`.
pub const SQL: Group = Group {
    name: "sql",
    summary: "T-SQL on lakehouses' SQL analytics endpoints and warehouses: query, tables",
    commands: sql::COMMANDS,
};
/// `fabsh deploy ...`.
pub const DEPLOY: Group = Group {
    name: "deploy",
    summary: "Deploy a workspace from a git folder (fabric-cicd's layout, config.yml, parameter.yml): plan, apply, export",
    commands: deploy::COMMANDS,
};
/// `fabsh job ...`.
pub const JOB: Group = Group {
    name: "job",
    summary: "Item jobs: run a notebook, pipeline, Spark job or table maintenance, wait for it, list, show and cancel runs",
    commands: job::COMMANDS,
};
/// `fabsh schedule ...`.
pub const SCHEDULE: Group = Group {
    name: "schedule",
    summary: "Item schedules: when a job runs by itself (Cron interval, daily, weekly, in a time zone): list, show, create, update, delete",
    commands: schedule::COMMANDS,
};
/// `fabsh api ...`.
pub const API: Group = Group {
    name: "api",
    summary: "Send any request to the Fabric API",
    commands: api::COMMANDS,
};
/// `fabsh auth ...`.
pub const AUTH: Group = Group {
    name: "auth",
    summary: "Sign in to Fabric, and see or end the sign-in",
    commands: auth::COMMANDS,
};
/// `fabsh config ...`.
pub const CONFIG: Group = Group {
    name: "config",
    summary: "Show and change profile settings (--profile / FABSH_PROFILE selects the profile)",
    commands: config::COMMANDS,
};

/// `fabsh cache ...`.
pub const CACHE: Group = Group {
    name: "cache",
    summary: "The name cache: show what it holds, or clear it",
    commands: cache::COMMANDS,
};

/// `fabsh lakehouse ...`.
pub const LAKEHOUSE: Group = Group {
    name: "lakehouse",
    summary: "Lakehouses' tables: tables",
    commands: lakehouse::COMMANDS,
};

/// `fabsh onelake ...`.
pub const ONELAKE: Group = Group {
    name: "onelake",
    summary: "Files in OneLake (lakehouses and other items): ls, cp, cat, rm",
    commands: onelake::COMMANDS,
};

/// The client's groups, in the order help lists them. Front ends add their own (the
/// binary's `local`, `docs`, `run`, ...) to make the registry they serve.
pub static GROUPS: &[Group] = &[
    WORKSPACE, ITEM, FOLDER, TAG, DATA_AGENT, SQL, ONELAKE, LAKEHOUSE, DEPLOY, JOB, SCHEDULE, API,
    AUTH, CONFIG, CACHE,
];

/// A set of groups: what one front end serves.
#[derive(Debug, Clone, Copy)]
pub struct Registry {
    pub groups: &'static [Group],
}

impl Registry {
    /// Every command of every group.
    pub fn all(self) -> impl Iterator<Item = &'static CommandSpec> {
        self.groups.iter().flat_map(|group| group.commands.iter())
    }

    /// The group with this name.
    pub fn group(self, name: &str) -> Option<&'static Group> {
        self.groups.iter().find(|group| group.name == name)
    }

    /// The command `group name` (name empty for group-level commands such as `api`).
    pub fn find(self, group: &str, name: &str) -> Option<&'static CommandSpec> {
        self.all()
            .find(|spec| spec.group == group && spec.name == name)
    }

    /// The command written as on the command line (`item create`, `local principal add`,
    /// `api`); snake_case names (`data_agent add_fewshot`) are accepted too.
    pub fn find_path(self, path: &str) -> Option<&'static CommandSpec> {
        let words: Vec<String> = path
            .split_whitespace()
            .map(|word| word.replace('_', "-"))
            .collect();
        let (group, name) = words.split_first()?;
        let name = name.join(" ");
        self.find(group, &name)
    }
}
