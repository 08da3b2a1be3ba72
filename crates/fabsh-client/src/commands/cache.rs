//! `fabsh cache show|clear`: the name cache (see [`fabsh_api::api::names`]) for the curious, and
//! the way to forget it.

use crate::commands::args::Args;
use crate::commands::spec::{CommandSpec, Example, Handler, HandlerFuture, Needs, Traits};
use crate::context::Ctx;
use crate::error::Error;
use crate::reply::Reply;
use fabsh_api::api::names::{self, file};
use fabsh_api::auth::claims::timestamp;
use serde_json::{Value, json};

/// Every `cache` command.
pub static COMMANDS: &[CommandSpec] = &[SHOW, CLEAR];

const ABOUT: &str = "fabsh keeps the workspaces, and the items of the workspaces used most \
recently, as of their last listing, per endpoint and signed-in principal, in the state dir \
(0600), so a name costs one request instead of a listing. A cached id is only used once the \
service has answered for it with the same name and type; a stale one makes fabsh list \
again. A cached name rules out another item of the same name for 15 minutes after the \
listing. --no-cache (or FABSH_NO_CACHE=1) leaves the file alone for one command.";

const SHOW: CommandSpec = CommandSpec {
    group: "cache",
    name: "show",
    summary: "Show what the name cache holds, per endpoint and principal",
    about: ABOUT,
    args: &[],
    traits: Traits::READ.needs(Needs::Nothing).unpaged_list(),
    columns: &[
        "endpoint",
        "principal",
        "workspaces",
        "itemLists",
        "listedAt",
    ],
    examples: &[Example {
        command: "cache show",
        about: "each cache file: endpoint, principal, how many names, when listed",
    }],
    handler: Handler::Data(show),
};

const CLEAR: CommandSpec = CommandSpec {
    group: "cache",
    name: "clear",
    summary: "Forget every cached name (the next lookups list again)",
    about: ABOUT,
    args: &[],
    traits: Traits::MUTATE.needs(Needs::Nothing),
    columns: &[],
    examples: &[Example {
        command: "cache clear",
        about: "remove the name cache files of every endpoint and principal",
    }],
    handler: Handler::Data(clear),
};

fn show(_ctx: Ctx, _args: Args) -> HandlerFuture {
    Box::pin(async move {
        let rows: Vec<Value> = file::caches(&file::dir())
            .into_iter()
            .filter_map(|dir| shown(&dir))
            .collect();
        Ok(Reply::json(Value::Array(rows)))
    })
}

/// The row of one cache directory; `None` when it holds no readable list.
fn shown(dir: &std::path::Path) -> Option<Value> {
    let lists = file::read_cache(dir);
    let first = lists.first()?;
    let workspaces = lists.iter().find(|shown| shown.workspace.is_none());
    let items: Vec<Value> = lists
        .iter()
        .filter_map(|shown| {
            let workspace = shown.workspace.as_deref()?;
            let name = workspaces.and_then(|listed| {
                listed
                    .list
                    .entries
                    .iter()
                    .find(|entry| entry.id().eq_ignore_ascii_case(workspace))
                    .map(|entry| entry.name().to_string())
            });
            Some(json!({
                "workspaceId": workspace,
                "workspace": name,
                "items": shown.list.entries.len(),
                "listedAt": when(shown.list.listed_at),
                "usedAt": shown.used_at.map_or(Value::Null, |at| when(unix(at))),
            }))
        })
        .collect();
    Some(json!({
        "dir": dir.display().to_string(),
        "endpoint": first.endpoint,
        "principal": first.principal,
        "workspaces": workspaces.map_or(0, |listed| listed.list.entries.len()),
        "listedAt": when(workspaces.map_or(0, |listed| listed.list.listed_at)),
        "itemLists": items.len(),
        "items": items,
        "freshForSeconds": names::FRESH_FOR_SECS,
    }))
}

fn clear(_ctx: Ctx, _args: Args) -> HandlerFuture {
    Box::pin(async move {
        let dir = file::dir();
        let caches = file::caches(&dir);
        for cache in &caches {
            std::fs::remove_dir_all(cache).map_err(|err| {
                Error::runtime(format!("cannot remove {}", cache.display())).with_cause(err)
            })?;
        }
        Ok(Reply::json(
            json!({"removed": caches.len(), "dir": dir.display().to_string()}),
        ))
    })
}

/// Unix seconds of `at`.
fn unix(at: std::time::SystemTime) -> i64 {
    at.duration_since(std::time::UNIX_EPOCH).map_or(0, |since| {
        i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
    })
}

/// A unix time as RFC 3339; `null` for never (0).
fn when(unix: i64) -> Value {
    match unix {
        0 => Value::Null,
        _ => timestamp(unix).map_or(Value::Null, Value::String),
    }
}
