//! `job list | show | cancel`: an item's runs as the service keeps them, each row with its
//! duration added.

use super::INSTANCE;
use crate::commands::common;
use crate::commands::spec::HandlerFuture;
use crate::commands::typed::{Command, ItemTarget, Paging, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::{Body, Reply};
use fabsh_api::api::jobs;
use fabsh_model::jobs::{JobInstance, run_duration};
use futures::StreamExt;
use serde_json::{Value, json};

/// A run as shown: the service's instance plus `duration` (seconds from start to end, null
/// while it has not ended).
pub(super) fn run_row(instance: &JobInstance) -> Result<Value> {
    let mut row = serde_json::to_value(instance)
        .map_err(|err| Error::runtime("a job run could not be shown").with_cause(err))?;
    if let Value::Object(map) = &mut row {
        map.insert("duration".into(), json!(run_duration(instance)));
    }
    Ok(row)
}

/// A listed run as shown; an entry that is not a job instance is kept as the service sent it.
fn listed_row(value: Value) -> Value {
    let instance = serde_json::from_value::<JobInstance>(value.clone());
    match instance.ok().map(|instance| run_row(&instance)) {
        Some(Ok(row)) => row,
        _ => value,
    }
}

typed_args! {
    /// `job list`.
    pub(super) struct List {
        target: ItemTarget,
        paging: Paging,
    }
}

impl Command for List {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (workspace, item) = self.target.resolve(&ctx).await?;
            let req = jobs::list_req(&workspace, &item);
            let mut reply = common::paged_by(ctx.api(), req, &self.paging).await?;
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
}

typed_args! {
    /// One run of an item, by `--instance`.
    pub(super) struct OneRun {
        target: ItemTarget,
        instance: String = INSTANCE,
    }
}

impl OneRun {
    /// The workspace's and item's ids, and the whole id of the run `--instance` names (a
    /// whole id, or the beginning of one of the item's runs').
    async fn resolve(&self, ctx: &Ctx) -> Result<(String, String, String)> {
        let (workspace, item) = self.target.resolve(ctx).await?;
        let runs = async {
            let runs = jobs::list_all(ctx.api(), &workspace, &item).await?;
            Ok(runs.into_iter().map(|run| run.id).collect())
        };
        let id = common::id_beginning(&self.instance, runs, "run", "fabsh job list WORKSPACE/ITEM")
            .await?;
        Ok((workspace, item, id))
    }
}

typed_args! {
    /// `job show`.
    pub(super) struct Show {
        run: OneRun,
    }
}

impl Command for Show {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (workspace, item, id) = self.run.resolve(&ctx).await?;
            let instance = jobs::get(ctx.api(), &workspace, &item, &id).await?;
            Ok(Reply::json(run_row(&instance)?))
        })
    }
}

typed_args! {
    /// `job cancel`.
    pub(super) struct Cancel {
        run: OneRun,
    }
}

impl Command for Cancel {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (workspace, item, id) = self.run.resolve(&ctx).await?;
            let id = id.as_str();
            jobs::cancel(ctx.api(), &workspace, &item, id).await?;
            if ctx.api().options().dry_run {
                return Ok(Reply::empty());
            }
            let instance = jobs::get(ctx.api(), &workspace, &item, id).await?;
            let reply = Reply::json(run_row(&instance)?);
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
}
