//! `item show-endorsement | list-endorsements`: read-only; endorsements are set in the portal.

use crate::commands::common::{ITEM, WORKSPACE};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, ItemTarget, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::{endorsements, items};
use fabsh_model::item_types::{self, ITEM_TYPES, ItemType};
use fabsh_model::wire::Item;
use serde_json::{Value, json};

/// The endorsement values, `None` meaning not endorsed.
const ENDORSEMENTS: &[&str] = &["Certified", "Promoted", "Master", "None"];

const ENDORSEMENT: ArgSpec = ArgSpec::opt(
    "endorsement",
    ArgKind::Enum(ENDORSEMENTS),
    "Only items with this endorsement",
);
const ENDORSED_TYPE: ArgSpec = ArgSpec::opt(
    "type",
    ArgKind::ItemType,
    "Only this type (default: every type with a readable endorsement: SemanticModel, Report, Dataflow, Dashboard, Datamart)",
);

const PORTAL_ONLY: &str = "Endorsement is read through the Power BI groups API; setting it is possible only in the portal.";

pub(super) const SHOW_ENDORSEMENT: CommandSpec = CommandSpec {
    group: "item",
    name: "show-endorsement",
    summary: "Show an item's endorsement (Certified, Promoted, Master or None)",
    about: PORTAL_ONLY,
    args: &[WORKSPACE, ITEM],
    traits: Traits::READ,
    columns: &[],
    examples: &[Example {
        command: "item show-endorsement -w Demo --id \"Sales Model\"",
        about: "is the model certified?",
    }],
    handler: Handler::Data(handler::<ShowEndorsement>),
};

pub(super) const LIST_ENDORSEMENTS: CommandSpec = CommandSpec {
    group: "item",
    name: "list-endorsements",
    summary: "List the endorsements of a workspace's items",
    about: PORTAL_ONLY,
    args: &[WORKSPACE, ENDORSEMENT, ENDORSED_TYPE],
    traits: Traits::READ.unpaged_list(),
    columns: &["id", "displayName", "type", "endorsement", "certifiedBy"],
    examples: &[Example {
        command: "item list-endorsements -w Demo --endorsement Certified",
        about: "the certified items",
    }],
    handler: Handler::Data(handler::<ListEndorsements>),
};

fn readable_types() -> impl Iterator<Item = &'static ItemType> {
    ITEM_TYPES
        .iter()
        .filter(|t| t.endorsement_collection.is_some())
}

fn unreadable(type_name: &str) -> Error {
    let names: Vec<&str> = readable_types().map(|t| t.name).collect();
    Error::usage(format!(
        "the endorsement of {type_name} items cannot be read; it can for {}",
        names.join(", ")
    ))
}

/// One row: the Power BI artifact in Fabric's terms.
fn row(entry: &Value, item_type: &str) -> Value {
    let text = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| entry.get(*k).and_then(Value::as_str))
            .map(str::to_string)
    };
    let details = entry.get("endorsementDetails").filter(|d| d.is_object());
    json!({
        // Dataflows are keyed by objectId in that API.
        "id": text(&["id", "objectId"]),
        "displayName": text(&["name", "displayName"]),
        "type": item_type,
        "endorsement": details
            .and_then(|d| d.get("endorsement"))
            .and_then(Value::as_str)
            .unwrap_or("None"),
        "certifiedBy": details.and_then(|d| d.get("certifiedBy")).cloned().unwrap_or(Value::Null),
    })
}

async fn rows_of(ctx: &Ctx, workspace: &str, item_type: &'static ItemType) -> Result<Vec<Value>> {
    let Some(collection) = item_type.endorsement_collection else {
        return Err(unreadable(item_type.name));
    };
    let entries = endorsements::list(ctx.api(), workspace, collection).await?;
    Ok(entries
        .iter()
        .map(|entry| row(entry, item_type.name))
        .collect())
}

typed_args! {
    /// `item show-endorsement`.
    struct ShowEndorsement {
        target: ItemTarget,
    }
}

impl Command for ShowEndorsement {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (workspace, id) = self.target.resolve(&ctx).await?;
            let item: Item = items::get(ctx.api(), &workspace, &id, None).await?;
            let item_type = item_types::find(&item.item_type)
                .filter(|t| t.endorsement_collection.is_some())
                .ok_or_else(|| unreadable(&item.item_type))?;
            let rows = rows_of(&ctx, &workspace, item_type).await?;
            let found = rows.into_iter().find(|row| {
                row["id"]
                    .as_str()
                    .is_some_and(|rid| rid.eq_ignore_ascii_case(&id))
            });
            Ok(Reply::json(found.unwrap_or_else(|| {
                json!({
                    "id": id,
                    "displayName": item.display_name,
                    "type": item_type.name,
                    "endorsement": "None",
                    "certifiedBy": null,
                })
            })))
        })
    }
}

typed_args! {
    /// `item list-endorsements`.
    struct ListEndorsements {
        workspace: String = WORKSPACE,
        endorsement: Option<String> = ENDORSEMENT,
        item_type: Option<String> = ENDORSED_TYPE,
    }
}

impl Command for ListEndorsements {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let types: Vec<&'static ItemType> = match self.item_type.as_deref() {
                Some(name) => vec![
                    item_types::find(name)
                        .filter(|t| t.endorsement_collection.is_some())
                        .ok_or_else(|| unreadable(name))?,
                ],
                None => readable_types().collect(),
            };
            let workspace = ctx.workspace_id(&self.workspace).await?;
            let lists =
                futures::future::join_all(types.iter().map(|t| rows_of(&ctx, &workspace, t))).await;
            let wanted = self.endorsement.as_deref();
            let mut rows = Vec::new();
            for list in lists {
                rows.extend(
                    list?.into_iter().filter(|row| {
                        wanted.is_none_or(|w| row["endorsement"].as_str() == Some(w))
                    }),
                );
            }
            Ok(Reply::json(Value::Array(rows)))
        })
    }
}
