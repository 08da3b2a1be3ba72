//! `item move-to-folder | apply-tags | unapply-tags | update-logical-id`.

use crate::commands::common::{ITEM, WORKSPACE};
use crate::commands::folder::folder_or_root;
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, ItemTarget, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::{items, tags};
use serde_json::Value;

const FOLDER_ID: ArgSpec = ArgSpec::opt(
    "folder-id",
    ArgKind::Str,
    "Target folder id; omitted or empty means the workspace root",
)
.allowing_empty();

const LOGICAL_ID: ArgSpec = ArgSpec::req(
    "logical-id",
    ArgKind::Uuid,
    "The new logical id (a GUID, not all zeros)",
);

pub(crate) const MOVE_TO_FOLDER: CommandSpec = CommandSpec {
    group: "item",
    name: "move-to-folder",
    summary: "Move an item (and its children) to a folder of its workspace",
    about: "Prints the moved items: the item and its children (a lakehouse's SQL endpoint). Folder ids come from `fabsh folder list`.",
    args: &[WORKSPACE, ITEM, FOLDER_ID],
    traits: Traits::MUTATE.unpaged_list(),
    columns: &["id", "displayName", "type", "folderId"],
    examples: &[Example {
        command: "item move-to-folder -w Demo --id Welcome --folder-id \"$FOLDER_ID\"",
        about: "into a folder",
    }],
    handler: Handler::Data(handler::<MoveToFolder>),
};

pub(crate) const TAG_IDS: ArgSpec = ArgSpec::opt(
    "tag-ids",
    ArgKind::List,
    "Tags, comma-separated: ids or display names (see `fabsh tag list`)",
);

pub(crate) const APPLY_TAGS: CommandSpec = CommandSpec {
    group: "item",
    name: "apply-tags",
    summary: "Apply tags to an item",
    about: "Prints the item afterwards, tags included.",
    args: &[WORKSPACE, ITEM, TAG_IDS],
    traits: Traits::MUTATE,
    columns: &[],
    examples: &[Example {
        command: "item apply-tags -w Demo --id Welcome --tag-ids \"$TAG_ID\"",
        about: "one tag",
    }],
    handler: Handler::Data(handler::<ApplyTags>),
};

pub(crate) const UNAPPLY_TAGS: CommandSpec = CommandSpec {
    group: "item",
    name: "unapply-tags",
    summary: "Remove tags from an item",
    about: "Prints the item afterwards.",
    args: &[WORKSPACE, ITEM, TAG_IDS],
    traits: Traits::MUTATE,
    columns: &[],
    examples: &[Example {
        command: "item unapply-tags -w Demo --id Welcome --tag-ids \"$TAG_ID\"",
        about: "one tag",
    }],
    handler: Handler::Data(handler::<UnapplyTags>),
};

pub(crate) const UPDATE_LOGICAL_ID: CommandSpec = CommandSpec {
    group: "item",
    name: "update-logical-id",
    summary: "Set an item's logical id (the .platform config.logicalId)",
    about: "The logical id pairs an item with its copies in other workspaces (Git integration, bulk import); it must be a non-empty GUID unused in the workspace. Use it to resolve an identity conflict.",
    args: &[WORKSPACE, ITEM, LOGICAL_ID],
    traits: Traits::MUTATE,
    columns: &[],
    examples: &[Example {
        command: "item update-logical-id -w Demo --id Welcome --logical-id 3f2b8c1d-4e5a-4b6c-8d7e-9f0a1b2c3d4e",
        about: "give the item a new identity",
    }],
    handler: Handler::Data(handler::<UpdateLogicalId>),
};

typed_args! {
    /// `item move-to-folder`.
    struct MoveToFolder {
        target: ItemTarget,
        folder: Option<String> = FOLDER_ID,
    }
}

impl Command for MoveToFolder {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let folder = folder_or_root(self.folder.as_deref(), FOLDER_ID.long)?;
            let (workspace, id) = self.target.resolve(&ctx).await?;
            let moved =
                items::move_to_folder(ctx.api(), &workspace, &id, folder.as_deref()).await?;
            let moved = match moved {
                Value::Object(mut map) => map.remove("value").unwrap_or(Value::Array(Vec::new())),
                other => other,
            };
            Ok(Reply::json(moved))
        })
    }
}

/// `--tag-ids`, at least one: GUIDs or tag display names (see [`resolve_tag_ids`]).
pub(crate) fn tag_ids(ids: &[String]) -> Result<Vec<String>> {
    if ids.is_empty() {
        return Err(Error::usage("give the tags with --tag-ids")
            .with_hint("`fabsh tag list` shows the tags, by name and id"));
    }
    Ok(ids.to_vec())
}

/// One row of `GET /tags`, as far as resolving a name needs.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct TagRow {
    id: String,
    display_name: String,
}

/// Turns tag display names into ids, as workspaces and items are named: GUIDs pass through
/// without a request; a name is looked up in the tenant's tags (case-insensitively when no
/// tag has it exactly); none is not found, two tags with the name an error listing both ids.
pub(crate) async fn resolve_tag_ids(ctx: &Ctx, given: Vec<String>) -> Result<Vec<String>> {
    if given.iter().all(|id| uuid::Uuid::try_parse(id).is_ok()) {
        return Ok(given);
    }
    let rows: Vec<TagRow> = ctx
        .api()
        .all(tags::list_req())
        .await?
        .into_iter()
        .filter_map(|row| serde_json::from_value(row).ok())
        .collect();
    given
        .into_iter()
        .map(|name| tag_id_named(&rows, name))
        .collect()
}

/// The id of the tag `name` names among `rows`: a GUID as it is; else the tag with exactly
/// that name, else the one with it in another case; none or two is an error, two listing both.
fn tag_id_named(rows: &[TagRow], name: String) -> Result<String> {
    if uuid::Uuid::try_parse(&name).is_ok() {
        return Ok(name);
    }
    let mut found: Vec<&TagRow> = rows.iter().filter(|row| row.display_name == name).collect();
    if found.is_empty() {
        found = rows
            .iter()
            .filter(|row| row.display_name.eq_ignore_ascii_case(&name))
            .collect();
    }
    match found.as_slice() {
        [one] => Ok(one.id.clone()),
        // Known only once the tags are listed: not found, as an unknown workspace name is
        // (exit 2 says nothing was sent).
        [] => Err(
            Error::not_found(format!("--tag-ids: no tag is named {name:?}"))
                .with_hint("`fabsh tag list` shows the tags, by name and id"),
        ),
        many => Err(Error::usage(format!(
            "--tag-ids: {} tags are named {name:?}: {}",
            many.len(),
            many.iter()
                .map(|row| row.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .with_hint("give the tag's id instead")),
    }
}

typed_args! {
    /// The item and tags of `item apply-tags` and `item unapply-tags`.
    struct Tagging {
        target: ItemTarget,
        tag_ids: Vec<String> = TAG_IDS,
    }
}

impl Tagging {
    /// Applies the tags (or removes them), then shows the item. The workspace is looked up
    /// before the tags' names, and the item after them.
    fn run(self, ctx: Ctx, apply: bool) -> HandlerFuture {
        Box::pin(async move {
            let ids = tag_ids(&self.tag_ids)?;
            let workspace = ctx.workspace_id(&self.target.workspace).await?;
            let ids = resolve_tag_ids(&ctx, ids).await?;
            let id = ctx.item_id(&workspace, &self.target.item, None).await?;
            if apply {
                tags::apply(ctx.api(), &workspace, &id, &ids).await?;
            } else {
                tags::unapply(ctx.api(), &workspace, &id, &ids).await?;
            }
            let item: Value = items::get(ctx.api(), &workspace, &id, None).await?;
            Ok(Reply::json(item))
        })
    }
}

typed_args! {
    /// `item apply-tags`.
    struct ApplyTags {
        tagging: Tagging,
    }
}

impl Command for ApplyTags {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        self.tagging.run(ctx, true)
    }
}

typed_args! {
    /// `item unapply-tags`.
    struct UnapplyTags {
        tagging: Tagging,
    }
}

impl Command for UnapplyTags {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        self.tagging.run(ctx, false)
    }
}

typed_args! {
    /// `item update-logical-id`.
    struct UpdateLogicalId {
        target: ItemTarget,
        logical_id: String = LOGICAL_ID,
    }
}

impl Command for UpdateLogicalId {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let logical_id = &self.logical_id;
            if uuid::Uuid::try_parse(logical_id).is_ok_and(|id| id.is_nil()) {
                return Err(Error::usage("--logical-id cannot be the all-zero GUID")
                    .with_hint("the service refuses it; generate a GUID with `uuidgen`"));
            }
            let (workspace, id) = self.target.resolve(&ctx).await?;
            let value = items::update_logical_id(ctx.api(), &workspace, &id, logical_id).await?;
            Ok(Reply::json(value))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, name: &str) -> TagRow {
        TagRow {
            id: id.into(),
            display_name: name.into(),
        }
    }

    #[test]
    fn a_tag_name_two_tags_share_is_refused_listing_both_ids() {
        let rows = [
            row("a-1", "Sales"),
            row("b-2", "sales"),
            row("c-3", "Finance"),
        ];
        // Exact first: the other case does not make it ambiguous.
        assert_eq!(tag_id_named(&rows, "Sales".into()).unwrap(), "a-1");
        assert_eq!(tag_id_named(&rows, "FINANCE".into()).unwrap(), "c-3");
        let twice = [row("a-1", "Sales"), row("b-2", "Sales")];
        let err = tag_id_named(&twice, "Sales".into()).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let message = err.to_string();
        assert!(
            message.contains("2 tags are named") && message.contains("a-1, b-2"),
            "{message}"
        );
        // Two that differ only in case, neither exact, are ambiguous too.
        let err = tag_id_named(&rows, "SALES".into()).unwrap_err();
        assert!(err.to_string().contains("a-1, b-2"), "{err}");
        let guid = "6f0c58ae-2b87-4c38-a2a3-9d2b0a1e7d11";
        assert_eq!(tag_id_named(&[], guid.into()).unwrap(), guid);
    }
}
