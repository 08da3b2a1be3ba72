//! `item copy | move`: there is no server-side copy, so the definition is read and a new item
//! made from it in the destination (reference §2.10); a move then deletes the source.

use crate::commands::names;
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use fabsh_api::api::definitions as api_definitions;
use fabsh_api::api::{LroOutcome, items};
use fabsh_model::definition::platform;
use fabsh_model::wire::{CreateItemRequest, DefinitionPart, Item, SensitivityLabelSettings};
use fabsh_model::{item_types, naming};
use serde::Deserialize;
use serde_json::{Value, json};

const SOURCE_WORKSPACE: ArgSpec = ArgSpec::req(
    "source-workspace",
    ArgKind::Ref,
    "Workspace holding the item (id or display name)",
);
const SOURCE_ITEM: ArgSpec = ArgSpec::req("id", ArgKind::Ref, "Item id or display name");
const DEST_WORKSPACE: ArgSpec = ArgSpec::req(
    "dest-workspace",
    ArgKind::Ref,
    "Workspace to put the new item in (id or display name)",
);
const NEW_NAME: ArgSpec = ArgSpec::opt(
    "name",
    ArgKind::Str,
    "Display name of the new item (default: the source's)",
);

const ARGS: &[ArgSpec] = &[SOURCE_WORKSPACE, SOURCE_ITEM, DEST_WORKSPACE, NEW_NAME];

pub(super) const COPY: CommandSpec = CommandSpec {
    group: "item",
    name: "copy",
    summary: "Copy an item, with its definition and description, to a workspace",
    about: "Reads the definition and creates a new item from it (the copy gets its own logical id). Types without a definition cannot be copied; that is refused before anything is created.",
    args: ARGS,
    traits: Traits::MUTATE,
    columns: &["id", "displayName", "type", "workspaceId"],
    examples: &[Example {
        command: "item copy --source-workspace Demo --id Welcome --dest-workspace Sales",
        about: "same name in another workspace",
    }],
    handler: Handler::Data(handler::<CopyItem>),
};

pub(super) const MOVE: CommandSpec = CommandSpec {
    group: "item",
    name: "move",
    summary: "Move an item to another workspace (copy, then delete the source)",
    about: "The source is deleted (recoverable) only after the copy succeeded. Prints {item, source: {workspaceId, id, deleted}}. If the delete fails, the new item stays, both ids are printed with the command that finishes the move, and the exit code is 5. Asks for confirmation on a terminal unless --yes.",
    args: ARGS,
    traits: Traits::DESTRUCTIVE,
    columns: &[],
    examples: &[Example {
        command: "item move --source-workspace Demo --id Welcome --dest-workspace Sales --yes",
        about: "move without asking",
    }],
    handler: Handler::Data(handler::<MoveItem>),
};

/// A finished copy: the new item, and where it came from.
struct Copied {
    item: Value,
    source_workspace: String,
    source_id: String,
}

typed_args! {
    /// The flags `item copy` and `item move` share: the item, where it goes, its new name.
    struct Transfer {
        source_workspace: String = SOURCE_WORKSPACE,
        item: String = SOURCE_ITEM,
        dest_workspace: String = DEST_WORKSPACE,
        name: Option<String> = NEW_NAME,
    }
}

async fn copy_item(ctx: &Ctx, transfer: &Transfer) -> Result<Copied> {
    let source_workspace = ctx.workspace_id(&transfer.source_workspace).await?;
    let source_id = ctx.item_id(&source_workspace, &transfer.item, None).await?;
    let dest_workspace = ctx.workspace_id(&transfer.dest_workspace).await?;
    let api = ctx.api();
    let source: Item = items::get(api, &source_workspace, &source_id, None).await?;
    let item_type = source.item_type;
    if let Some(name) = &transfer.name {
        names::checked(&NEW_NAME, naming::item(&item_type), name)?;
    }
    if item_types::find(&item_type).is_some_and(|t| !t.has_definition) {
        return Err(Error::usage(format!(
            "{item_type} items have no definition, so they cannot be copied"
        ))
        .with_hint("nothing was created; make the item in the destination instead"));
    }
    let definition = match api_definitions::get(api, &source_workspace, &source_id, None).await? {
        LroOutcome::Done(value) => value.get("definition").cloned().unwrap_or(value),
        LroOutcome::Pending(_) => return Err(Error::runtime("the definition was not ready")),
    };
    let name = transfer.name.clone().unwrap_or(source.display_name);
    let body = CreateItemRequest {
        description: source.description.filter(|d| !d.is_empty()),
        sensitivity_label_settings: source
            .sensitivity_label
            .map(|label| SensitivityLabelSettings { label_id: label.id }),
        definition: Some(without_platform(definition)),
        ..CreateItemRequest::new(name, item_type)
    };
    let created = items::create(api, &dest_workspace, &body).await?;
    Ok(Copied {
        item: created.outcome.into_value(),
        source_workspace,
        source_id,
    })
}

/// The definition without its `.platform` part: the copy is a new item, named by the request,
/// with a logical id of its own.
fn without_platform(mut definition: Value) -> Value {
    if let Some(parts) = definition.get_mut("parts").and_then(Value::as_array_mut) {
        parts.retain(|part| {
            DefinitionPart::deserialize(part).map_or(true, |part| part.path != platform::PATH)
        });
    }
    definition
}

typed_args! {
    /// `item copy`.
    struct CopyItem {
        transfer: Transfer,
    }
}

impl Command for CopyItem {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let copied = copy_item(&ctx, &self.transfer).await?;
            Ok(Reply::json(copied.item))
        })
    }
}

typed_args! {
    /// `item move`.
    struct MoveItem {
        transfer: Transfer,
    }
}

impl Command for MoveItem {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(move_item(ctx, self.transfer))
    }
}

/// A copy, then the source's delete; a failed delete leaves both and says how to finish.
async fn move_item(ctx: Ctx, transfer: Transfer) -> Result<Reply> {
    let copied = copy_item(&ctx, &transfer).await?;
    let deleted = items::delete(
        ctx.api(),
        &copied.source_workspace,
        &copied.source_id,
        false,
    )
    .await;
    let value = json!({
        "item": copied.item,
        "source": {
            "workspaceId": copied.source_workspace,
            "id": copied.source_id,
            "deleted": deleted.is_ok(),
        },
    });
    let Err(err) = deleted else {
        return Ok(Reply::json(value));
    };
    // `?` while the create still runs (`--no-wait` printed its operation instead).
    let new_id = Item::deserialize(&copied.item).map_or_else(|_| "?".to_string(), |item| item.id);
    let failure = Error::new(
        ErrorKind::Partial,
        format!(
            "copied item {} to new item {new_id}, but could not delete the source",
            copied.source_id
        ),
    )
    .with_cause(err)
    .with_hint(format!(
        "finish the move with `fabsh item delete -w {} --id {}`, or undo it by deleting {new_id}",
        copied.source_workspace, copied.source_id
    ));
    Ok(Reply::json(value).with_failure(failure))
}
