//! `item bulk-create | bulk-delete`: many items at once, client-side and concurrent. The
//! handlers check the input, then run the stdlib's `bulk::create` / `bulk::delete` (so users
//! can read and copy the loop), and report one result per input item, each with its outcome,
//! also when Ctrl-C stops the run (then exit 130, the items not run reported `not_started`).

use super::basics;
use super::new_item::NewItem;
use crate::commands::args::{Args, FileArg, RawValue};
use crate::commands::common::{HARD_DELETE, WORKSPACE, effective_args};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, FromArgs, handler, typed_args};
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
.range(1, MAX_CONCURRENCY)
.default("8");
const ITEMS_FILE: ArgSpec =
    ArgSpec::opt("file", ArgKind::File, "JSON file holding an array of items");
const ITEMS_CONTENT: ArgSpec = ArgSpec::opt(
    "content",
    ArgKind::Json,
    "Inline JSON array of items, e.g. [{\"displayName\":\"a\",\"type\":\"Notebook\"}]",
);
const SKIP_EXISTING: ArgSpec = ArgSpec::opt(
    "skip-existing",
    ArgKind::Bool,
    "An item whose name (ignoring case) and type are already in the workspace counts as done (outcome existing) and is not sent",
);
const IDS: ArgSpec = ArgSpec::req(
    "ids",
    ArgKind::List,
    "Item ids or display names, comma-separated",
);

/// `item bulk-create`.
pub(super) const BULK_CREATE: CommandSpec = CommandSpec {
    group: "item",
    name: "bulk-create",
    summary: "Create many items at once; one result per item",
    about: "Items are objects with displayName and type (and optionally description and \
definition). A create whose answer is lost (timeout, 5xx) is looked up by name before it is sent \
again, so no item is made twice. Each result has an outcome: created, existing (with \
--skip-existing: the name and type were already there, nothing sent), failed, unknown (the \
answer was lost and could not be checked, e.g. the service went down: the item may exist) or \
not_started (Ctrl-C stopped the run first). Exits 5 when some items were not done; Ctrl-C \
reports every item so far and exits 130. Either way, running the same command again with \
--skip-existing finishes the job and settles the unknown ones. Runs the stdlib function \
bulk::create.",
    args: &[
        WORKSPACE,
        ITEMS_FILE,
        ITEMS_CONTENT,
        CONCURRENCY,
        SKIP_EXISTING,
    ],
    traits: Traits::MUTATE,
    columns: &[
        "index",
        "displayName",
        "ok",
        "outcome",
        "id",
        "error.message",
    ],
    examples: &[
        Example {
            command: "item bulk-create -w Demo --file items.json --concurrency 16",
            about: "from a file",
        },
        Example {
            command: "item bulk-create -w Demo --file items.json --skip-existing",
            about: "finish an interrupted run: items already made count as done",
        },
        Example {
            command: "item bulk-create -w Demo --content '[{\"displayName\":\"Notes\",\"type\":\"Notebook\"}]'",
            about: "inline",
        },
    ],
    handler: Handler::Data(handler::<BulkCreate>),
};

/// `item bulk-delete`.
pub(super) const BULK_DELETE: CommandSpec = CommandSpec {
    group: "item",
    name: "bulk-delete",
    summary: "Delete many items at once; one result per item",
    about: "Each result has an outcome: deleted, failed, unknown (the answer was lost) or \
not_started (Ctrl-C stopped the run first). Exits 5 when some items were not deleted; Ctrl-C \
reports every item so far and exits 130. Runs the stdlib function bulk::delete.",
    args: &[WORKSPACE, IDS, HARD_DELETE, CONCURRENCY],
    traits: Traits::DESTRUCTIVE,
    columns: &["index", "id", "ok", "outcome", "error.message"],
    examples: &[Example {
        command: "item bulk-delete -w Demo --ids n1,n2,n3 --yes",
        about: "three items, without asking",
    }],
    handler: Handler::Data(handler::<BulkDelete>),
};

typed_args! {
    /// `item bulk-create`.
    struct BulkCreate {
        workspace: String = WORKSPACE,
        file: Option<FileArg> = ITEMS_FILE,
        content: Option<Value> = ITEMS_CONTENT,
        concurrency: Option<i64> = CONCURRENCY,
        skip_existing: bool = SKIP_EXISTING,
    }
}

impl Command for BulkCreate {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let items = self.items_to_create()?;
            let count = items.len();
            let options = json!({
                "concurrency": concurrency(self.concurrency)?,
                "skip_existing": self.skip_existing,
                "progress": "creating items",
            });
            let workspace = json!(self.workspace);
            let outcome = stdlib::call(
                ctx.clone(),
                "bulk::create",
                vec![workspace, Value::Array(items), options],
            )
            .await?;
            let report = Report {
                keys: &["index", "displayName", "ok", "outcome", "id", "error"],
                verb: "created",
                rerun: "run the same command again with --skip-existing: items already made count as done, the rest are created",
            };
            report.reply(&outcome, count, ctx.bridge().take_interrupted())
        })
    }
}

typed_args! {
    /// `item bulk-delete`.
    struct BulkDelete {
        workspace: String = WORKSPACE,
        ids: Vec<String> = IDS,
        hard_delete: bool = HARD_DELETE,
        concurrency: Option<i64> = CONCURRENCY,
    }
}

impl Command for BulkDelete {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let ids = self.ids;
            if ids.is_empty() {
                return Err(Error::usage("--ids names no items"));
            }
            let count = ids.len();
            let options = json!({
                "concurrency": concurrency(self.concurrency)?,
                "hard_delete": self.hard_delete,
                "progress": "deleting items",
            });
            let workspace = json!(self.workspace);
            let outcome = stdlib::call(
                ctx.clone(),
                "bulk::delete",
                vec![workspace, json!(ids), options],
            )
            .await?;
            let report = Report {
                keys: &["index", "id", "ok", "outcome", "error"],
                verb: "deleted",
                rerun: "run again with the ids of the items not deleted: `-q \"results[?!ok].id\"` lists them",
            };
            report.reply(&outcome, count, ctx.bridge().take_interrupted())
        })
    }
}

impl BulkCreate {
    /// The items from `--file` or `--content`, each checked as `item create` checks its flags
    /// (name, type, description length, definition), before anything is sent: an item the
    /// service would refuse fails the whole command up front, not one request at a time after
    /// the lookups.
    fn items_to_create(&self) -> Result<Vec<Value>> {
        let flag = if self.file.is_some() {
            "--file"
        } else {
            "--content"
        };
        let value = match (&self.file, &self.content) {
            (Some(_), Some(_)) => return Err(Error::usage("give --file or --content, not both")),
            (None, None) => {
                return Err(
                    Error::usage("give the items with --file or --content").with_hint(
                        "a JSON array like [{\"displayName\":\"n1\",\"type\":\"Notebook\"}]",
                    ),
                );
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
        let workspace = &self.workspace;
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
    NewItem::from_args(&args)?.body().map(drop)
}

/// `--concurrency` (its default when absent), within what a bulk command runs at once.
fn concurrency(given: Option<i64>) -> Result<i64> {
    let value = given.unwrap_or(8);
    if !(1..=MAX_CONCURRENCY).contains(&value) {
        return Err(Error::usage(format!(
            "--concurrency must be 1 to {MAX_CONCURRENCY}, got {value}"
        )));
    }
    Ok(value)
}

/// The summary keys, in order (the stdlib counts them).
const SUMMARY_KEYS: &[&str] = &[
    "total",
    "succeeded",
    "existing",
    "failed",
    "unknown",
    "notStarted",
];

/// How a bulk command reports: its row keys, in order, what a done item is, and how to finish
/// the job after a partial failure or Ctrl-C.
struct Report {
    keys: &'static [&'static str],
    verb: &'static str,
    rerun: &'static str,
}

impl Report {
    /// `{summary, results}` from the stdlib's outcome, keys in a stable order; a failure when
    /// any item is not done: cancelled (exit 130) when Ctrl-C stopped the run, else partial
    /// (exit 5). Fewer results than items (a changed stdlib) is an error: no item may go
    /// unreported.
    fn reply(&self, outcome: &Value, count: usize, interrupted: bool) -> Result<Reply> {
        let Some(rows) = outcome["results"].as_array() else {
            return Err(Error::runtime(format!(
                "the stdlib returned no results for {count} items"
            )));
        };
        if rows.len() != count {
            return Err(Error::runtime(format!(
                "the stdlib returned {} results for {count} items",
                rows.len()
            )));
        }
        let results: Vec<Value> = rows.iter().map(|row| self.ordered(row)).collect();
        let summary: Map<String, Value> = SUMMARY_KEYS
            .iter()
            .map(|key| (key.to_string(), outcome["summary"][*key].clone()))
            .collect();
        let number = |key: &str| summary[key].as_u64().unwrap_or(0);
        let done = number("succeeded");
        let existing = number("existing");
        let mut note = if existing > 0 {
            format!(
                "{done} of {count} items done: {} {}, {existing} already there",
                done - existing,
                self.verb
            )
        } else {
            format!("{done} of {count} items {}", self.verb)
        };
        for (key, what) in [
            ("unknown", "with an unknown outcome"),
            ("notStarted", "not started"),
        ] {
            if number(key) > 0 {
                note.push_str(&format!("; {} {what}", number(key)));
            }
        }
        let not_done = count as u64 - done;
        let reply = Reply::json(json!({"summary": summary, "results": results}))
            .with_table_rows("results")
            .with_note(note);
        if not_done == 0 && !interrupted {
            return Ok(reply);
        }
        let mut failure = if interrupted {
            Error::new(
                ErrorKind::Cancelled,
                format!("cancelled: {not_done} of {count} items not done"),
            )
        } else if number("unknown") > 0 {
            Error::new(
                ErrorKind::Partial,
                format!(
                    "{not_done} of {count} items not done: {} failed, {} with an unknown outcome",
                    number("failed"),
                    number("unknown")
                ),
            )
        } else {
            Error::new(
                ErrorKind::Partial,
                format!("{not_done} of {count} items failed"),
            )
        };
        if number("unknown") > 0 {
            failure = failure.with_hint(format!(
                "{} outcome(s) are unknown: the service may have acted on them",
                number("unknown")
            ));
        }
        Ok(reply.with_failure(
            failure
                .with_hint("the results give each item's outcome and error")
                .with_hint(self.rerun),
        ))
    }

    /// A row with this report's keys, in order.
    fn ordered(&self, row: &Value) -> Value {
        let ordered: Map<String, Value> = self
            .keys
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
    }
}
