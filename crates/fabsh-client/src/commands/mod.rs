//! THE REGISTRY: every command, declared once. The CLI tree, the script bindings, the REPL
//! completion and `fabsh docs` are all generated from [`all`].

pub mod api;
pub mod args;
pub mod common;
pub mod data_agent;
pub mod execute;
pub mod folder;
pub mod item;
pub mod spec;
pub mod tag;
pub mod workspace;

pub use args::{ArgValue, Args, RawValue};
pub use execute::execute;
pub use spec::{ArgKind, ArgSpec, CommandSpec, Example, HandlerFuture, ReturnKind, Traits};

/// A command group as shown in help.
#[derive(Debug, Clone, Copy)]
pub struct Group {
    pub name: &'static str,
    pub summary: &'static str,
    pub commands: &'static [CommandSpec],
}

/// Every group, in the order help lists them.
pub static GROUPS: &[Group] = &[
    Group {
        name: "workspace",
        summary: "Workspaces: list, show, create, delete",
        commands: workspace::COMMANDS,
    },
    Group {
        name: "item",
        summary: "Workspace items: list, inspect, create, update, delete, definitions, copy, move, tags, bulk transfer, external data shares, identity",
        commands: item::COMMANDS,
    },
    Group {
        name: "folder",
        summary: "Workspace folders: list, create, delete, move",
        commands: folder::COMMANDS,
    },
    Group {
        name: "tag",
        summary: "Tenant tags: list",
        commands: tag::COMMANDS,
    },
    Group {
        name: "data-agent",
        summary: "Data agents: configuration, datasources, schema elements, few-shots, definitions, publish, query, evaluation",
        commands: data_agent::COMMANDS,
    },
    Group {
        name: "api",
        summary: "Send any request to the Fabric API",
        commands: api::COMMANDS,
    },
];

/// Every command of every group.
pub fn all() -> impl Iterator<Item = &'static CommandSpec> {
    GROUPS.iter().flat_map(|group| group.commands.iter())
}

/// The command `group name` (name empty for group-level commands such as `api`).
pub fn find(group: &str, name: &str) -> Option<&'static CommandSpec> {
    all().find(|spec| spec.group == group && spec.name == name)
}

/// The command written as on the command line (`item create`, `api`); snake_case names
/// (`data_agent add_fewshot`) are accepted too.
pub fn find_path(path: &str) -> Option<&'static CommandSpec> {
    find_path_in(GROUPS, path)
}

/// [`find_path`] within `groups`.
pub fn find_path_in(groups: &'static [Group], path: &str) -> Option<&'static CommandSpec> {
    let mut words = path.split_whitespace();
    let group = words.next()?.replace('_', "-");
    let name = words.next().unwrap_or("").replace('_', "-");
    if words.next().is_some() {
        return None;
    }
    groups
        .iter()
        .flat_map(|known| known.commands.iter())
        .find(|spec| spec.group == group && spec.name == name)
}
