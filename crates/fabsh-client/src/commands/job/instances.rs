//! `job list | show | cancel`: an item's runs as the service keeps them, each row with its
//! duration added.

use crate::api::jobs;
use crate::commands::args::Args;
use crate::commands::common;
use crate::commands::spec::HandlerFuture;
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::{Body, Reply};
use fabsh_model::jobs::{JobInstance, run_duration};
use futures::StreamExt;
use serde_json::{Value, json};

/// The workspace and item ids the flags name.
pub(crate) async fn item_target(ctx: &Ctx, args: &Args) -> Result<(String, String)> {
    let workspace = ctx.workspace_id(args.str("workspace")?).await?;
    let item = ctx.item_id(&workspace, args.str("id")?, None).await?;
    Ok((workspace, item))
}

/// A run as shown: the service's instance plus `duration` (seconds from start to end, null
/// while it has not ended).
pub(super) fn run_row(instance: &JobInstance) -> Value {
    let mut row = serde_json::to_value(instance).unwrap_or_default();
    if let Value::Object(map) = &mut row {
        map.insert("duration".into(), json!(run_duration(instance)));
    }
    row
}

/// A listed run as shown; an entry that is not a job instance is kept as the service sent it.
fn listed_row(value: Value) -> Value {
    match serde_json::from_value::<JobInstance>(value.clone()) {
        Ok(instance) => run_row(&instance),
        Err(_) => value,
    }
}

pub(super) fn list(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let (workspace, item) = item_target(&ctx, &args).await?;
        let mut reply = common::paged(ctx.api(), jobs::list_req(&workspace, &item), &args).await?;
        reply.body = match reply.body {
            Body::Json(Value::Array(rows)) => {
                Body::Json(Value::Array(rows.into_iter().map(listed_row).collect()))
            }
            Body::Page {
                items,
                continuation_token,
            } => Body::Page {
                items: items.into_iter().map(listed_row).collect(),
                continuation_token,
            },
            Body::Stream(pages) => Body::Stream(
                pages
                    .map(|page| page.map(|rows| rows.into_iter().map(listed_row).collect()))
                    .boxed(),
            ),
            other => other,
        };
        Ok(reply)
    })
}

/// The run `--instance` names: a whole id as given, else the one run of the item whose id
/// begins with it (a table too narrow for whole ids shows their first 8 characters).
async fn instance_id(ctx: &Ctx, args: &Args, workspace: &str, item: &str) -> Result<String> {
    let given = args.str("instance")?;
    if uuid::Uuid::try_parse(given).is_ok() {
        return Ok(given.to_string());
    }
    let prefix = given.to_ascii_lowercase();
    let runs = jobs::list_all(ctx.api(), workspace, item).await?;
    let mut matching = runs
        .into_iter()
        .map(|run| run.id)
        .filter(|id| id.to_ascii_lowercase().starts_with(&prefix));
    match (matching.next(), matching.next()) {
        (Some(id), None) => Ok(id),
        (None, _) => Err(Error::new(
            ErrorKind::NotFound,
            format!("no run of the item has an id beginning {given}"),
        )
        .with_hint("list its runs with `fabsh job list WORKSPACE/ITEM -o wide`")),
        (Some(first), Some(second)) => {
            let mut ids = vec![first, second];
            ids.extend(matching);
            Err(Error::usage(format!(
                "--instance {given} begins {} runs' ids: {}",
                ids.len(),
                ids.join(", ")
            ))
            .with_hint("give more of the id"))
        }
    }
}

pub(super) fn show(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let (workspace, item) = item_target(&ctx, &args).await?;
        let id = instance_id(&ctx, &args, &workspace, &item).await?;
        let instance = jobs::get(ctx.api(), &workspace, &item, &id).await?;
        Ok(Reply::json(run_row(&instance)))
    })
}

pub(super) fn cancel(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let (workspace, item) = item_target(&ctx, &args).await?;
        let id = instance_id(&ctx, &args, &workspace, &item).await?;
        let id = id.as_str();
        jobs::cancel(ctx.api(), &workspace, &item, id).await?;
        if ctx.api().options().dry_run {
            return Ok(Reply::empty());
        }
        let instance = jobs::get(ctx.api(), &workspace, &item, id).await?;
        let reply = Reply::json(run_row(&instance));
        if instance.status.is_final() {
            return Ok(reply);
        }
        // The service cancels asynchronously: the run may need a moment to say so.
        Ok(reply.with_note(format!(
            "cancel of run {id} requested; it is still {} for now",
            instance.status.as_str()
        )))
    })
}
