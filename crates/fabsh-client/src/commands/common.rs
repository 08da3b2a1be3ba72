//! Flags shared by many commands, and the ones a command's traits add to it.

use super::args::Args;
use super::spec::{ArgKind, ArgSpec, CommandSpec, LocalPath, Needs};
use super::typed::{FromArgs, Paging};
use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use fabsh_api::api::{ApiClient, CallOptions, Req};
use fabsh_api::config::Settings;
use serde_json::Value;
use std::time::Duration;

/// `-w/--workspace`: a workspace id or display name.
pub const WORKSPACE: ArgSpec =
    ArgSpec::req("workspace", ArgKind::Ref, "Workspace id or display name").short('w');
/// `--id`: an item id or display name.
pub const ITEM: ArgSpec = ArgSpec::req("id", ArgKind::Ref, "Item id or display name");

/// `WORKSPACE/ITEM`, the positional that stands for `-w` and `--id` (an item's, an
/// agent's, a folder's): see [`target_for`].
pub const TARGET_ITEM: ArgSpec = target(
    "WORKSPACE/ITEM",
    "The workspace and the item as one path (Demo/Welcome, or fab's Demo.Workspace/Welcome.Notebook); -w and --id win over it",
);
/// `WORKSPACE/AGENT`, for data-agent commands.
pub const TARGET_AGENT: ArgSpec = target(
    "WORKSPACE/AGENT",
    "The workspace and the data agent as one path (Demo/\"Sales agent\"); -w and --id win over it",
);
/// `WORKSPACE/FOLDER`, for folder commands.
pub const TARGET_FOLDER: ArgSpec = target(
    "WORKSPACE/FOLDER",
    "The workspace and the folder as one path; -w and --id win over it",
);
/// `WORKSPACE`, for commands that take a workspace and no item.
pub const TARGET_WORKSPACE: ArgSpec = target(
    "WORKSPACE",
    "The workspace (id, name, or fab's Demo.Workspace); -w wins over it",
);

const fn target(value_name: &'static str, help: &'static str) -> ArgSpec {
    ArgSpec::positional(TARGET, ArgKind::Ref, help)
        .optional()
        .value_name(value_name)
}

/// The name of the positional target in [`Args`] and script option maps.
pub const TARGET: &str = "target";

/// The positional a command gets for its workspace and item (`item show Demo/Welcome`):
/// commands with a required `-w` (or a workspace's `--id`) and no positional of their own.
/// `WORKSPACE/ITEM` when the command also takes a required `--id`, else `WORKSPACE`.
pub fn target_for(spec: &CommandSpec) -> Option<&'static ArgSpec> {
    if spec.args.iter().any(|arg| arg.positional) {
        return None;
    }
    let required = |name: &str| spec.args.iter().any(|arg| arg.long == name && arg.required);
    let workspace_id = spec.group == "workspace" && required("id");
    if workspace_id || (required("workspace") && !required("id")) {
        return Some(&TARGET_WORKSPACE);
    }
    if !required("workspace") {
        return None;
    }
    Some(match spec.group {
        "data-agent" => &TARGET_AGENT,
        "folder" => &TARGET_FOLDER,
        _ => &TARGET_ITEM,
    })
}

/// The flags a target fills, with their values: `Demo/Welcome` → `workspace` Demo and `id`
/// Welcome. A target without `/` is the item when the command takes one (`-w` or the
/// profile names the workspace), and the whole target is the workspace when it takes none
/// (workspace names may contain `/`). fab's folder path (`Demo.Workspace/F.Folder/X.Notebook`)
/// is kept whole as the item: the resolver finds the item in that folder.
pub fn target_fills(spec: &CommandSpec, target: &str) -> Vec<(&'static str, String)> {
    let Some(kind) = target_for(spec) else {
        return Vec::new();
    };
    if kind.value_name == TARGET_WORKSPACE.value_name {
        let takes_workspace = spec.args.iter().any(|arg| arg.long == "workspace");
        let long = if takes_workspace { "workspace" } else { "id" };
        return vec![(long, target.to_string())];
    }
    let Some((workspace, rest)) = target.split_once('/') else {
        return vec![("id", target.to_string())];
    };
    vec![
        ("workspace", workspace.to_string()),
        ("id", rest.to_string()),
    ]
}

/// `--hard-delete`, on every command that deletes items.
pub const HARD_DELETE: ArgSpec = ArgSpec::opt(
    "hard-delete",
    ArgKind::Bool,
    "Delete permanently, skipping the recycle bin (needs workspace Admin)",
);

/// `--decode`, on commands that print definitions.
pub const DECODE: ArgSpec = ArgSpec::opt(
    "decode",
    ArgKind::Bool,
    "Add each part's text as decodedPayload",
);
/// `--sensitivity-label`, on creates.
pub const SENSITIVITY_LABEL: ArgSpec = ArgSpec::opt(
    "sensitivity-label",
    ArgKind::Uuid,
    "Sensitivity label id to apply",
);
/// `--description` of a new item (the service takes up to 256 characters).
pub const DESCRIPTION: ArgSpec = ArgSpec::opt(
    "description",
    ArgKind::Str,
    "Description, up to 256 characters",
);
/// `--description` of an update.
pub const NEW_DESCRIPTION: ArgSpec = ArgSpec::opt(
    "description",
    ArgKind::Str,
    "New description, up to 256 characters; empty clears it",
)
.allowing_empty();
/// `--name` of a new item.
pub const DISPLAY_NAME: ArgSpec = ArgSpec::req("name", ArgKind::Str, "Display name");
/// `--name` of an update.
pub const NEW_DISPLAY_NAME: ArgSpec = ArgSpec::opt("name", ArgKind::Str, "New display name");
/// `--definition`, on the commands that take an item definition.
pub const DEFINITION: ArgSpec = ArgSpec::opt(
    "definition",
    ArgKind::Json,
    "Definition as {parts:[...]} or {definition:{parts:[...]}}, inline or @file",
);
/// `--dir`, on the commands that read an item definition from a folder.
pub const DEFINITION_DIR: ArgSpec = ArgSpec::opt(
    "dir",
    ArgKind::Str,
    "A folder of part files (as written by get-definition --dir), one part per file",
)
.local(LocalPath::ReadDir);
/// `--allow-extra`, wherever `--dir` sends a definition.
pub const ALLOW_EXTRA: ArgSpec = ArgSpec::opt(
    "allow-extra",
    ArgKind::Bool,
    "With --dir, also send files that are not parts of the item type's definition (notes, editor backups, hidden files)",
);
/// `--options`, wherever a definition is sent.
pub const DEFINITION_OPTIONS: ArgSpec = ArgSpec::opt(
    "options",
    ArgKind::Json,
    "Type-specific keys merged into the definition (e.g. {\"format\":\"ipynb\"}), inline or @file; needs --definition or --dir",
);
/// `--instructions` of a data agent's datasource.
pub const DATASOURCE_INSTRUCTIONS: ArgSpec = ArgSpec::opt(
    "instructions",
    ArgKind::Str,
    "Instructions for querying this datasource",
);

/// `--dry-run`, added to every mutating command.
pub const DRY_RUN: ArgSpec = ArgSpec::opt(
    "dry-run",
    ArgKind::Bool,
    "Print the requests that would change something and send none (lookups of names still run)",
);
/// `--yes`, added to every command that can lose data (`CommandSpec::can_lose_data`).
pub const YES: ArgSpec = ArgSpec::opt(
    "yes",
    ArgKind::Bool,
    "Go ahead without asking (needed off a terminal, where there is no one to ask)",
)
.short('y');
/// `--all`, added to every paged list.
pub const ALL: ArgSpec = ArgSpec::opt(
    "all",
    ArgKind::Bool,
    "Fetch every page, streaming results as they arrive",
);
/// `--limit`, added to every paged list.
pub const LIMIT: ArgSpec = ArgSpec::opt(
    "limit",
    ArgKind::Int,
    "Return at most N items, fetching pages as needed (a deliberate cap: the rest is not mentioned)",
)
.at_least(1);
/// `--continuation-token`, added to every paged list.
pub const CONTINUATION_TOKEN: ArgSpec = ArgSpec::opt(
    "continuation-token",
    ArgKind::Str,
    "Continue a listing from the token an earlier page gave",
);
/// `--no-wait`, added to every long-running command.
pub const NO_WAIT: ArgSpec = ArgSpec::opt(
    "no-wait",
    ArgKind::Bool,
    "Return the operation id instead of waiting for the operation",
);
/// `--lro-timeout`, added to every long-running command.
pub const LRO_TIMEOUT: ArgSpec = ArgSpec::opt(
    "lro-timeout",
    ArgKind::Int,
    "Seconds to wait for the long-running operation",
)
.at_least(1)
.default("600");

/// The configured value of a flag the caller left out: the default workspace, for a command
/// that needs a workspace (never for an optional `--workspace`, which would quietly act on
/// the default one).
pub fn configured_default(settings: &Settings, arg: &ArgSpec) -> Option<String> {
    if !arg.required {
        return None;
    }
    settings.flag_default(arg.long)
}

/// The command's own flags plus those its traits add, in that order.
pub fn effective_args(spec: &'static CommandSpec) -> Vec<&'static ArgSpec> {
    let mut args: Vec<&'static ArgSpec> = target_for(spec).into_iter().collect();
    args.extend(spec.args.iter());
    let traits = spec.traits;
    if traits.paged {
        args.extend([&ALL, &LIMIT, &CONTINUATION_TOKEN]);
    }
    if traits.lro {
        args.extend([&NO_WAIT, &LRO_TIMEOUT]);
    }
    // Dry runs are made by the HTTP layer, so only commands that change things through the
    // service get the flag: a settings or sign-in change would happen anyway.
    if traits.mutates && traits.needs == Needs::Service {
        args.push(&DRY_RUN);
    }
    if spec.can_lose_data() {
        args.push(&YES);
    }
    args
}

/// How a confirmation names what the user named: `"Welcome" (id)`, or the id alone when it
/// was given by id.
pub fn named_as(given: &str, id: &str) -> String {
    if given.trim() == id {
        id.to_string()
    } else {
        format!("{given:?} ({id})")
    }
}

/// The flags a command's traits add, as the runner and the front ends read them for any
/// command: each false (or absent) where the command has no such flag.
#[derive(Debug, Clone, Copy, Default)]
pub struct TraitFlags {
    pub dry_run: bool,
    pub yes: bool,
    pub no_wait: bool,
    pub lro_timeout: Option<i64>,
}

impl TraitFlags {
    pub fn of(args: &Args) -> TraitFlags {
        TraitFlags {
            dry_run: args.flag(DRY_RUN.long),
            yes: args.flag(YES.long),
            no_wait: args.flag(NO_WAIT.long),
            lro_timeout: args.int(LRO_TIMEOUT.long),
        }
    }
}

/// The per-call options the trait flags ask for.
pub fn call_options(args: &Args) -> CallOptions {
    let flags = TraitFlags::of(args);
    let defaults = CallOptions::default();
    CallOptions {
        dry_run: flags.dry_run,
        no_wait: flags.no_wait,
        lro_timeout: flags.lro_timeout.map_or(defaults.lro_timeout, |secs| {
            Duration::from_secs(secs.max(0) as u64)
        }),
        ..defaults
    }
}

/// What a command's long-running operation waits on, as the user named it: the command and
/// the thing it acts on (`item get-definition Welcome`), so a spinner says more than an
/// operation's GUID.
pub fn operation_label(spec: &CommandSpec, args: &Args) -> String {
    let target = ["id", "agent", "name", "workspace"]
        .iter()
        .find_map(|name| args.opt_str(name));
    match target {
        Some(target) => format!("{} {target}", spec.path()),
        None => spec.path(),
    }
}

/// A paged list: every page streamed with `--all`, the first N items with `--limit N`, else
/// one page and its token.
pub async fn paged(api: &ApiClient, req: Req, args: &Args) -> Result<Reply> {
    paged_by(api, req, &Paging::from_args(args)?).await
}

/// A paged list as `paging` asks for it: the first `limit` items, every page, or one page.
pub(crate) async fn paged_by(api: &ApiClient, req: Req, paging: &Paging) -> Result<Reply> {
    let token = paging.continuation_token.clone();
    if let Some(limit) = paging.limit {
        let limit = usize::try_from(limit)
            .ok()
            .filter(|n| *n >= 1)
            .ok_or_else(|| Error::usage(format!("--limit must be 1 or more, got {limit}")))?;
        return Ok(Reply::json(Value::Array(
            first_items(api, req, token, limit).await?,
        )));
    }
    if paging.all {
        return Ok(Reply::stream(api.pages(req, token)));
    }
    let page = api.page(&req, token.as_deref()).await?;
    Ok(Reply::page(page.items, page.continuation_token))
}

/// The first `limit` items of a list, fetching only the pages that takes.
async fn first_items(
    api: &ApiClient,
    req: Req,
    token: Option<String>,
    limit: usize,
) -> Result<Vec<Value>> {
    use futures::StreamExt;
    let mut pages = api.pages(req, token);
    let mut items = Vec::new();
    while items.len() < limit
        && let Some(page) = pages.next().await
    {
        items.extend(page?);
    }
    items.truncate(limit);
    Ok(items)
}

/// A service answer that reports per item (`value[list][i][field]`), as the reply: when some
/// entries say `Failed`, the reply is a partial failure (exit 5) saying `N <what>`.
pub fn per_item_reply(value: Value, list: &str, field: &str, what: &str) -> Reply {
    let failed = value[list].as_array().map_or(0, |entries| {
        entries.iter().filter(|e| e[field] == "Failed").count()
    });
    let reply = Reply::json(value);
    if failed == 0 {
        return reply;
    }
    reply.with_failure(Error::new(ErrorKind::Partial, format!("{failed} {what}")))
}

/// The id `given` names among `ids`: itself when it is a whole GUID, else the one id it
/// begins (a table too narrow for whole ids shows GUIDs as their first 8 characters, and
/// `ArgKind::UuidPrefix` lets that through). `ids` are listed only for a beginning; `what`
/// names them ("run") and `list` is the command that lists them, for the errors.
pub(crate) async fn id_beginning<F>(
    given: &str,
    ids: F,
    what: &str,
    list: &str,
) -> crate::error::Result<String>
where
    F: std::future::Future<Output = crate::error::Result<Vec<String>>>,
{
    use crate::error::{Error, ErrorKind};
    if uuid::Uuid::try_parse(given).is_ok() {
        return Ok(given.to_string());
    }
    let prefix = given.to_ascii_lowercase();
    let mut matching: Vec<String> = ids
        .await?
        .into_iter()
        .filter(|id| id.to_ascii_lowercase().starts_with(&prefix))
        .collect();
    match matching.len() {
        1 => Ok(matching.remove(0)),
        0 => Err(Error::new(
            ErrorKind::NotFound,
            format!("no {what} has an id beginning {given}"),
        )
        .with_hint(format!("list them with `{list} -o wide`"))),
        n => Err(Error::usage(format!(
            "{given} begins the ids of {n} {what}s: {}",
            matching.join(", ")
        ))
        .with_hint("give more of the id")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::{GROUPS, Registry};

    fn spec(path: &str) -> &'static CommandSpec {
        Registry { groups: GROUPS }.find_path(path).expect(path)
    }

    #[test]
    fn a_target_fills_the_workspace_and_the_item() {
        let show = spec("item show");
        assert_eq!(
            target_fills(show, "Demo/Welcome"),
            [
                ("workspace", "Demo".to_string()),
                ("id", "Welcome".to_string())
            ]
        );
        assert_eq!(
            target_fills(show, "Welcome"),
            [("id", "Welcome".to_string())]
        );
        assert_eq!(
            target_fills(show, "Demo.Workspace/F.Folder/Welcome.Notebook"),
            [
                ("workspace", "Demo.Workspace".to_string()),
                ("id", "F.Folder/Welcome.Notebook".to_string())
            ],
            "fab's folder path stays whole, for the resolver to check the folders"
        );
        assert_eq!(
            target_fills(spec("workspace show"), "A/B"),
            [("workspace", "A/B".to_string())],
            "a workspace-only command takes the whole word"
        );
        assert_eq!(
            target_fills(spec("workspace delete"), "Scratch"),
            [("id", "Scratch".to_string())]
        );
        assert!(target_for(spec("item copy")).is_none(), "no plain -w there");
    }
}
