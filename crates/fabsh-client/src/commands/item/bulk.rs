//! `item bulk-create | bulk-delete`: many items at once, client-side and concurrent. The
//! handlers check the input, then run the stdlib's `bulk::create` / `bulk::delete` (so users
//! can read and copy the loop), and report one result per input item.

use super::basics;
use crate::commands::args::{Args, RawValue};
use crate::commands::common::{HARD_DELETE, WORKSPACE, effective_args};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use crate::stdlib;
use serde_json::{Map, Value, json};

/// The most calls a bulk command runs at once.
const MAX_CONCURRENCY: i64 = 64;

const CONCURRENCY: ArgSpec = ArgSpec::opt(
    "concurrency",
    ArgKind::Int,
    "How many requests run at once (1 to 64)",
)
.default("8");

/// `item bulk-create`.
pub const BULK_CREATE: CommandSpec = CommandSpec {
    group: "item",
    name: "bulk-create",
    summary: "Create many items at once; one result per item",
    about: "Items are objects with displayName and type (and optionally description and \
definition). A create whose answer is lost (timeout, 5xx) is looked up by name before it is sent \
again, so no item is made twice. Exits 5 when some items failed; the results say which and why. \
Runs the stdlib function bulk::create.",
    args: &[
        WORKSPACE,
        ArgSpec::opt("file", ArgKind::File, "JSON file holding an array of items"),
        ArgSpec::opt(
            "content",
            ArgKind::Json,
            "Inline JSON array of items, e.g. [{\"displayName\":\"a\",\"type\":\"Notebook\"}]",
        ),
        CONCURRENCY,
    ],
    traits: Traits::MUTATE,
    columns: &["index", "displayName", "ok", "id", "error.message"],
    examples: &[
        Example {
            command: "item bulk-create -w Demo --file items.json --concurrency 16",
            about: "from a file",
        },
        Example {
            command: "item bulk-create -w Demo --content '[{\"displayName\":\"Notes\",\"type\":\"Notebook\"}]'",
            about: "inline",
        },
    ],
    handler: Handler::Data(bulk_create),
};

/// `item bulk-delete`.
pub const BULK_DELETE: CommandSpec = CommandSpec {
    group: "item",
    name: "bulk-delete",
    summary: "Delete many items at once; one result per item",
    about: "Exits 5 when some items failed; the results say which and why. Runs the stdlib \
function bulk::delete.",
    args: &[
        WORKSPACE,
        ArgSpec::req(
            "ids",
            ArgKind::List,
            "Item ids or display names, comma-separated",
        ),
        HARD_DELETE,
        CONCURRENCY,
    ],
    traits: Traits::DESTRUCTIVE,
    columns: &["index", "id", "ok", "error.message"],
    examples: &[Example {
        command: "item bulk-delete -w Demo --ids n1,n2,n3 --yes",
        about: "three items, without asking",
    }],
    handler: Handler::Data(bulk_delete),
};

fn bulk_create(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let items = items_to_create(&args)?;
        let count = items.len();
        let options = json!({"concurrency": concurrency(&args)?, "progress": "creating items"});
        let workspace = json!(args.str("workspace")?);
        let outcome = stdlib::call(
            ctx,
            "bulk::create",
            vec![workspace, Value::Array(items), options],
        )
        .await?;
        bulk_reply(
            &outcome,
            count,
            &["index", "displayName", "ok", "id", "error"],
            "created",
        )
    })
}

fn bulk_delete(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let ids = args.list("ids").to_vec();
        if ids.is_empty() {
            return Err(Error::usage("--ids names no items"));
        }
        let count = ids.len();
        let options = json!({
            "concurrency": concurrency(&args)?,
            "hard_delete": args.flag("hard-delete"),
            "progress": "deleting items",
        });
        let workspace = json!(args.str("workspace")?);
        let outcome =
            stdlib::call(ctx, "bulk::delete", vec![workspace, json!(ids), options]).await?;
        bulk_reply(&outcome, count, &["index", "id", "ok", "error"], "deleted")
    })
}

/// The items from `--file` or `--content`, each checked as `item create` checks its flags
/// (name, type, description length, definition), before anything is sent: an item the
/// service would refuse fails the whole command up front, not one request at a time after
/// the lookups.
fn items_to_create(args: &Args) -> Result<Vec<Value>> {
    let flag = if args.has("file") {
        "--file"
    } else {
        "--content"
    };
    let value = match (args.file("file"), args.json("content")) {
        (Some(_), Some(_)) => return Err(Error::usage("give --file or --content, not both")),
        (None, None) => {
            return Err(Error::usage("give the items with --file or --content")
                .with_hint("a JSON array like [{\"displayName\":\"n1\",\"type\":\"Notebook\"}]"));
        }
        (Some(file), None) => serde_json::from_slice(&file.bytes).map_err(|err| {
            Error::usage(format!(
                "--file {}: not valid JSON: {err}",
                file.path.display()
            ))
        })?,
        (None, Some(content)) => content.clone(),
    };
    let Value::Array(items) = value else {
        return Err(Error::usage(format!(
            "{flag}: the items must be a JSON array of objects"
        )));
    };
    if items.is_empty() {
        return Err(Error::usage(format!("{flag}: the item array is empty")));
    }
    let workspace = args.str("workspace")?;
    let problems: Vec<String> = items
        .iter()
        .enumerate()
        .filter_map(|(index, item)| {
            let err = check_item(item, workspace).err()?;
            let name = item["displayName"].as_str().unwrap_or("?");
            Some(format!("item {index} ({name}): {}", err.message))
        })
        .collect();
    if problems.is_empty() {
        return Ok(items);
    }
    let mut err = Error::usage(format!(
        "{flag}: {} of {} items would be refused; nothing was sent",
        problems.len(),
        items.len()
    ));
    for problem in problems {
        err = err.with_cause(problem);
    }
    Err(err.with_hint(
        "each item takes what `item create` takes: displayName (--name), type (--type), description (--description), definition (--definition)",
    ))
}

/// Item keys and the `item create` flags they become, as the stdlib's bulk::create passes
/// them.
const ITEM_KEYS: &[(&str, &str)] = &[
    ("displayName", "name"),
    ("type", "type"),
    ("description", "description"),
    ("definition", "definition"),
];

/// One item, checked as `item create` checks the flags it becomes.
fn check_item(item: &Value, workspace: &str) -> Result<()> {
    let spec = &basics::CREATE;
    let declared = effective_args(spec);
    let flag = |name: &str| declared.iter().copied().find(|arg| arg.long == name);
    let mut raw = Vec::new();
    raw.extend(flag("workspace").map(|arg| (arg, RawValue::Text(workspace.to_string()))));
    if !item.is_object() {
        return Err(Error::usage(format!("not an object: {item}")));
    }
    for (key, name) in ITEM_KEYS {
        let (Some(arg), Some(value)) = (flag(name), item.get(*key)) else {
            continue;
        };
        let value = match value {
            Value::Null => continue,
            Value::String(text) => RawValue::Text(text.clone()),
            other if arg.kind == ArgKind::Json => RawValue::Json(other.clone()),
            other => return Err(Error::usage(format!("{key} must be text, got {other}"))),
        };
        raw.push((arg, value));
    }
    let args = Args::check(spec, &declared, raw)?;
    basics::create_body(&args).map(drop)
}

fn concurrency(args: &Args) -> Result<i64> {
    let value = args.int("concurrency").unwrap_or(8);
    if !(1..=MAX_CONCURRENCY).contains(&value) {
        return Err(Error::usage(format!(
            "--concurrency must be 1 to {MAX_CONCURRENCY}, got {value}"
        )));
    }
    Ok(value)
}

/// `{summary: {total, succeeded, failed}, results: [...]}` from the stdlib's outcome, with
/// the keys in a stable order; a failure (exit 5) when any item failed. Fewer results than
/// items (a changed stdlib) is an error: no item may go unreported.
fn bulk_reply(outcome: &Value, count: usize, keys: &[&str], verb: &str) -> Result<Reply> {
    let rows = outcome["results"].as_array().cloned().unwrap_or_default();
    if rows.len() != count {
        return Err(Error::runtime(format!(
            "the stdlib returned {} results for {count} items",
            rows.len()
        )));
    }
    let results: Vec<Value> = rows
        .iter()
        .map(|row| {
            let ordered: Map<String, Value> = keys
                .iter()
                .map(|key| {
                    let value = match (*key, &row[*key]) {
                        // Through Rhai the error map's keys come back sorted; put them back.
                        ("error", error) if error.is_object() => Error::from_json(error).to_json(),
                        (_, value) => value.clone(),
                    };
                    (key.to_string(), value)
                })
                .collect();
            Value::Object(ordered)
        })
        .collect();
    let succeeded = results
        .iter()
        .filter(|row| row["ok"] == json!(true))
        .count();
    let failed = count - succeeded;
    let value = json!({
        "summary": {"total": count, "succeeded": succeeded, "failed": failed},
        "results": results,
    });
    let reply = Reply::json(value)
        .with_table_rows("results")
        .with_note(format!("{succeeded} of {count} items {verb}"));
    Ok(if failed > 0 {
        reply.with_failure(
            Error::new(
                ErrorKind::Partial,
                format!("{failed} of {count} items failed"),
            )
            .with_hint("the results show each failed item's error; run again for those"),
        )
    } else {
        reply
    })
}
