//! `item url`: the item's page in the Fabric portal.

use crate::commands::common::{ITEM, WORKSPACE};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, ItemTarget, handler, typed_args};
use crate::context::Ctx;
use crate::reply::Reply;
use fabsh_api::api::items;
use fabsh_api::api::resolve::is_guid;
use fabsh_model::item_types;
use fabsh_model::wire::Item;
use serde_json::json;

/// The portal host (app.powerbi.com serves the same paths).
const PORTAL: &str = "https://app.fabric.microsoft.com";

const URL_TYPE: ArgSpec = ArgSpec::opt(
    "type",
    ArgKind::ItemType,
    "Item type, which picks the right portal page",
);

pub(super) const URL: CommandSpec = CommandSpec {
    group: "item",
    name: "url",
    summary: "Print the item's portal URL",
    about: "With ids and --type, no request is sent; otherwise the item is looked up for its type.",
    args: &[WORKSPACE, ITEM, URL_TYPE],
    traits: Traits::READ,
    columns: &[],
    examples: &[Example {
        command: "item url -w Demo --id Welcome -q url",
        about: "just the URL",
    }],
    handler: Handler::Data(handler::<Url>),
};

typed_args! {
    /// `item url`.
    struct Url {
        target: ItemTarget,
        item_type: Option<String> = URL_TYPE,
    }
}

impl Command for Url {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let workspace = ctx.workspace_id(&self.target.workspace).await?;
            let item_text = self.target.item.as_str();
            let (id, item_type) = match self.item_type.as_deref() {
                Some(item_type) if is_guid(item_text) => {
                    (item_text.to_string(), item_type.to_string())
                }
                given_type => {
                    let id = ctx.item_id(&workspace, item_text, given_type).await?;
                    let item: Item = items::get(ctx.api(), &workspace, &id, None).await?;
                    (id, item.item_type)
                }
            };
            let (url, exact) = portal_url(&workspace, &id, &item_type);
            let reply = Reply::json(
                json!({"url": url, "id": id, "type": item_type, "workspaceId": workspace}),
            );
            Ok(if exact {
                reply
            } else {
                reply.with_note(format!(
                    "the portal page for {item_type} items is not known; this URL opens the workspace"
                ))
            })
        })
    }
}

/// The portal URL of an item, and whether it points at the item itself (known type) or
/// only at its workspace.
pub(super) fn portal_url(workspace: &str, id: &str, item_type: &str) -> (String, bool) {
    match item_types::find(item_type).and_then(|t| t.portal) {
        Some(segment) => (
            format!("{PORTAL}/groups/{workspace}/{segment}/{id}?experience=fabric-developer"),
            true,
        ),
        None => (
            format!("{PORTAL}/groups/{workspace}/list?experience=fabric-developer"),
            false,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::portal_url;

    #[test]
    fn known_types_get_their_page() {
        let (url, exact) = portal_url("w", "i", "Notebook");
        assert_eq!(
            url,
            "https://app.fabric.microsoft.com/groups/w/synapsenotebooks/i?experience=fabric-developer"
        );
        assert!(exact);
        assert!(!portal_url("w", "i", "Plan").1);
    }
}
