//! `job list | show | cancel`: an item's runs as the service keeps them, each row with its
//! duration added.

use crate::api::jobs;
use crate::commands::args::Args;
use crate::commands::common;
use crate::commands::spec::HandlerFuture;
use crate::context::Ctx;
use crate::error::Result;
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

/// The run `--instance` names: a whole id, or the beginning of one of the item's runs'.
async fn instance_id(ctx: &Ctx, args: &Args, workspace: &str, item: &str) -> Result<String> {
    let runs = async {
        let runs = jobs::list_all(ctx.api(), workspace, item).await?;
        Ok(runs.into_iter().map(|run| run.id).collect())
    };
    common::id_beginning(
        args.str("instance")?,
        runs,
        "run",
        "fabsh job list WORKSPACE/ITEM",
    )
    .await
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
