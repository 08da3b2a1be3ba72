//! `item inspect | list-connections | list-downstream-relations | list-upstream-relations`.

use crate::commands::common::{self, ITEM, WORKSPACE};
use crate::commands::spec::{CommandSpec, Example, Handler, HandlerFuture, Traits};
use crate::commands::typed::{Command, ItemTarget, Paging, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::definitions as api_definitions;
use fabsh_api::api::{LroOutcome, items};
use serde_json::{Value, json};

/// The code the service answers for operations an item type does not support.
const NOT_SUPPORTED: &str = "OperationNotSupportedForItem";

pub(super) const INSPECT: CommandSpec = CommandSpec {
    group: "item",
    name: "inspect",
    summary: "Show an item's metadata, definition and connections in one object",
    about: "The three requests run concurrently. Prints {item, definition, connections}; definition or connections is null (with a note) when the item's type has none.",
    args: &[WORKSPACE, ITEM],
    traits: Traits::READ,
    columns: &[],
    examples: &[Example {
        command: "item inspect -w Demo --id \"Sales Report\"",
        about: "everything about one item",
    }],
    handler: Handler::Data(handler::<Inspect>),
};

pub(super) const LIST_CONNECTIONS: CommandSpec = CommandSpec {
    group: "item",
    name: "list-connections",
    summary: "List the connections an item uses",
    about: "",
    args: &[WORKSPACE, ITEM],
    traits: Traits::LIST,
    columns: &[
        "displayName",
        "connectivityType",
        "connectionDetails.type",
        "connectionDetails.path",
        "id",
    ],
    examples: &[Example {
        command: "item list-connections -w Demo --id \"Sales Model\"",
        about: "what a semantic model connects to",
    }],
    handler: Handler::Data(handler::<ListConnections>),
};

pub(super) const LIST_DOWNSTREAM_RELATIONS: CommandSpec = CommandSpec {
    group: "item",
    name: "list-downstream-relations",
    summary: "Show the items that depend on an item (beta API)",
    about: "Prints {items, relations, workspaces}; each relation says itemId depends on dependentOnItemId.",
    args: &[WORKSPACE, ITEM],
    traits: Traits::READ,
    columns: &[],
    examples: &[Example {
        command: "item list-downstream-relations -w Demo --id \"Sales Model\"",
        about: "the reports built on a model",
    }],
    handler: Handler::Data(handler::<Downstream>),
};

pub(super) const LIST_UPSTREAM_RELATIONS: CommandSpec = CommandSpec {
    group: "item",
    name: "list-upstream-relations",
    summary: "Show the items an item depends on (beta API)",
    about: "Prints {items, relations, workspaces}; each relation says itemId depends on dependentOnItemId.",
    args: &[WORKSPACE, ITEM],
    traits: Traits::READ,
    columns: &[],
    examples: &[Example {
        command: "item list-upstream-relations -w Demo --id \"Sales Report\"",
        about: "the model a report reads",
    }],
    handler: Handler::Data(handler::<Upstream>),
};

/// The value of a part of `inspect`, or `None` (with a note) when the type does not have it.
fn optional(part: &str, outcome: Result<Value>, notes: &mut Vec<String>) -> Result<Value> {
    match outcome {
        Ok(value) => Ok(value),
        Err(err) if err.has_code(NOT_SUPPORTED) => {
            notes.push(format!("this item type has no {part}"));
            Ok(Value::Null)
        }
        Err(err) => Err(err),
    }
}

typed_args! {
    /// `item inspect`.
    struct Inspect {
        target: ItemTarget,
    }
}

impl Command for Inspect {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (workspace, id) = self.target.resolve(&ctx).await?;
            let api = ctx.api();
            let (item, definition, connections) = futures::join!(
                items::get::<Value>(api, &workspace, &id, None),
                api_definitions::get(api, &workspace, &id, None),
                api.all(items::connections_req(&workspace, &id)),
            );
            let mut notes = Vec::new();
            let definition = definition.and_then(|outcome| match outcome {
                LroOutcome::Done(value) => Ok(value.get("definition").cloned().unwrap_or(value)),
                LroOutcome::Pending(_) => Err(Error::runtime("the definition was not ready")),
            });
            let value = json!({
                "item": item?,
                "definition": optional("definition", definition, &mut notes)?,
                "connections": optional("connections", connections.map(Value::Array), &mut notes)?,
            });
            Ok(notes
                .into_iter()
                .fold(Reply::json(value), crate::reply::Reply::with_note))
        })
    }
}

typed_args! {
    /// `item list-connections`.
    struct ListConnections {
        target: ItemTarget,
        paging: Paging,
    }
}

impl Command for ListConnections {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (workspace, id) = self.target.resolve(&ctx).await?;
            let req = items::connections_req(&workspace, &id);
            common::paged_by(ctx.api(), req, &self.paging).await
        })
    }
}

/// The relations of an item, one way.
fn relations(ctx: Ctx, target: ItemTarget, direction: &'static str) -> HandlerFuture {
    Box::pin(async move {
        let (workspace, id) = target.resolve(&ctx).await?;
        let value = items::relations(ctx.api(), &workspace, &id, direction).await?;
        Ok(Reply::json(value))
    })
}

typed_args! {
    /// `item list-downstream-relations`.
    struct Downstream {
        target: ItemTarget,
    }
}

impl Command for Downstream {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        relations(ctx, self.target, "downstream")
    }
}

typed_args! {
    /// `item list-upstream-relations`.
    struct Upstream {
        target: ItemTarget,
    }
}

impl Command for Upstream {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        relations(ctx, self.target, "upstream")
    }
}
