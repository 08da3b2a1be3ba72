//! `item list | show | exists | create | update | delete`.

use super::new_item::{ITEM_TYPE, NewItem};
// Data-agent create and update reach these as `item::basics`.
pub(crate) use super::new_item::{checked_description, renamed_as, update_body};
use crate::commands::common::{
    self, ALLOW_EXTRA, DEFINITION, DEFINITION_DIR, DEFINITION_OPTIONS, DESCRIPTION, DISPLAY_NAME,
    HARD_DELETE, ITEM, NEW_DESCRIPTION, NEW_DISPLAY_NAME, SENSITIVITY_LABEL, WORKSPACE,
};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, ItemTarget, Paging, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::Created;
use fabsh_api::api::items::{self, ListFilter};
use fabsh_model::wire::Item;
use serde_json::{Value, json};

/// Item-list values of `--include` that the service itself understands.
const SERVICE_INCLUDES: &[&str] = &["DefaultIdentity"];

const LIST_TYPE: ArgSpec = ArgSpec::opt(
    "type",
    ArgKind::ItemType,
    "Only items of this type (Notebook, Lakehouse, ...)",
);
const IN_FOLDER: ArgSpec = ArgSpec::opt("folder", ArgKind::Uuid, "Only items under this folder id");
const RECURSIVE: ArgSpec = ArgSpec::opt(
    "recursive",
    ArgKind::Enum(&["true", "false"]),
    "Include nested subfolders (default true)",
);
const LIST_INCLUDE: ArgSpec = ArgSpec::opt(
    "include",
    ArgKind::List,
    "Extra properties to show as columns (e.g. folderId, DefaultIdentity)",
);
const SHOW_INCLUDE: ArgSpec = ArgSpec::opt(
    "include",
    ArgKind::List,
    "Extra properties the service adds (DefaultIdentity)",
);

pub(crate) const LIST: CommandSpec = CommandSpec {
    group: "item",
    name: "list",
    summary: "List the items of a workspace",
    about: "Without --all, one page is returned with the token for the next one (the command line prints it on stderr; --continuation-token continues there).",
    args: &[WORKSPACE, LIST_TYPE, IN_FOLDER, RECURSIVE, LIST_INCLUDE],
    traits: Traits::LIST,
    columns: &["id", "displayName", "type", "description"],
    examples: &[
        Example {
            command: "item list -w Demo --type Notebook",
            about: "the notebooks of a workspace",
        },
        Example {
            command: "item list -w Demo --all -q \"[].displayName\"",
            about: "every item's name",
        },
    ],
    handler: Handler::Data(handler::<List>),
};

pub(crate) const SHOW: CommandSpec = CommandSpec {
    group: "item",
    name: "show",
    summary: "Show one item",
    about: "",
    args: &[WORKSPACE, ITEM, SHOW_INCLUDE],
    traits: Traits::READ,
    columns: &[],
    examples: &[
        Example {
            command: "item show -w Demo --id Welcome",
            about: "by display name",
        },
        Example {
            command: "item show Demo/Welcome",
            about: "the same, as one path",
        },
        Example {
            command: "item show Demo.Workspace/Welcome.Notebook",
            about: "fab's path form, which also tells same-named items of different types apart",
        },
    ],
    handler: Handler::Data(handler::<Show>),
};

pub(crate) const EXISTS: CommandSpec = CommandSpec {
    group: "item",
    name: "exists",
    summary: "Tell whether an item exists: {\"exists\": true|false}",
    about: "Only \"not found\" answers false; any other failure (auth, network) is an error.",
    args: &[WORKSPACE, ITEM],
    traits: Traits::READ,
    columns: &[],
    examples: &[Example {
        command: "item exists -w Demo --id Welcome -q exists",
        about: "prints true or false",
    }],
    handler: Handler::Data(handler::<Exists>),
};

pub(crate) const CREATE: CommandSpec = CommandSpec {
    group: "item",
    name: "create",
    summary: "Create an item, optionally from a definition",
    about: "The definition (--definition or --dir) is checked as validate-definition does (without --type) and refused with exit 2 if it has errors; with --dir, files that are not parts of a --type definition (notes, editor backups, hidden files) are refused, each named, unless --allow-extra. A create whose answer is lost (5xx, timeout) is checked by name before it is sent again, so it never makes two items.",
    args: &[
        WORKSPACE,
        DISPLAY_NAME,
        ITEM_TYPE,
        DESCRIPTION,
        SENSITIVITY_LABEL,
        DEFINITION,
        DEFINITION_DIR,
        ALLOW_EXTRA,
        DEFINITION_OPTIONS,
    ],
    traits: Traits::MUTATE.lro(),
    columns: &["id", "displayName", "type"],
    examples: &[
        Example {
            command: "item create -w Demo --name Scratch --type Notebook",
            about: "an empty notebook",
        },
        Example {
            command: "item create -w Demo --name Copy --type Notebook --definition @notebook.json",
            about: "from a definition file",
        },
        Example {
            command: "item create -w Sales --name Welcome --type Notebook --dir ./welcome",
            about: "from files written by get-definition --dir (its .platform keeps the item's logical id, so another workspace)",
        },
    ],
    handler: Handler::Data(handler::<Create>),
};

pub(crate) const UPDATE: CommandSpec = CommandSpec {
    group: "item",
    name: "update",
    summary: "Rename an item or change its description",
    about: "",
    args: &[WORKSPACE, ITEM, NEW_DISPLAY_NAME, NEW_DESCRIPTION],
    traits: Traits::MUTATE,
    columns: &[],
    examples: &[Example {
        command: "item update -w Demo --id Welcome --name \"Welcome (old)\"",
        about: "rename",
    }],
    handler: Handler::Data(handler::<Update>),
};

pub(crate) const DELETE: CommandSpec = CommandSpec {
    group: "item",
    name: "delete",
    summary: "Delete an item (recoverable unless --hard-delete)",
    about: "Asks for confirmation on a terminal unless --yes.",
    args: &[WORKSPACE, ITEM, HARD_DELETE],
    traits: Traits::DESTRUCTIVE.void(),
    columns: &[],
    examples: &[Example {
        command: "item delete -w Demo --id Draft --hard-delete true --yes",
        about: "permanently, without asking",
    }],
    handler: Handler::Data(handler::<Delete>),
};

typed_args! {
    /// `item list`.
    struct List {
        workspace: String = WORKSPACE,
        item_type: Option<String> = LIST_TYPE,
        folder: Option<String> = IN_FOLDER,
        recursive: Option<String> = RECURSIVE,
        include: Vec<String> = LIST_INCLUDE,
        paging: Paging,
    }
}

impl Command for List {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let workspace = ctx.workspace_id(&self.workspace).await?;
            let includes = &self.include;
            let service_include: Vec<&str> = includes
                .iter()
                .filter_map(|name| {
                    SERVICE_INCLUDES
                        .iter()
                        .find(|s| s.eq_ignore_ascii_case(name))
                })
                .copied()
                .collect();
            let filter = ListFilter {
                item_type: self.item_type,
                root_folder_id: self.folder,
                recursive: self.recursive.map(|value| value == "true"),
                include: (!service_include.is_empty()).then(|| service_include.join(",")),
            };
            let req = items::list_req(&workspace, &filter);
            let reply = common::paged_by(ctx.api(), req, &self.paging).await?;
            let extra: Vec<String> = includes
                .iter()
                .map(|name| {
                    match SERVICE_INCLUDES
                        .iter()
                        .find(|s| s.eq_ignore_ascii_case(name))
                    {
                        // The service adds `DefaultIdentity` as `defaultIdentity`.
                        Some(_) => "defaultIdentity".to_string(),
                        None => name.clone(),
                    }
                })
                .collect();
            Ok(reply.with_extra_columns(extra))
        })
    }
}

typed_args! {
    /// `item show`.
    struct Show {
        target: ItemTarget,
        include: Vec<String> = SHOW_INCLUDE,
    }
}

impl Command for Show {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (workspace, id) = self.target.resolve(&ctx).await?;
            // A list flag as on `item list`; the service takes its values comma-separated.
            let include = Some(self.include.join(",")).filter(|text| !text.is_empty());
            let item: Value = items::get(ctx.api(), &workspace, &id, include.as_deref()).await?;
            Ok(Reply::json(item))
        })
    }
}

typed_args! {
    /// `item exists`.
    struct Exists {
        target: ItemTarget,
    }
}

impl Command for Exists {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let workspace = ctx.workspace_id(&self.target.workspace).await?;
            let id = match ctx.item_id(&workspace, &self.target.item, None).await {
                Ok(id) => id,
                Err(err) if err.is_not_found() => {
                    return Ok(Reply::json(json!({"exists": false})));
                }
                Err(err) => return Err(err),
            };
            match items::get::<Item>(ctx.api(), &workspace, &id, None).await {
                Ok(item) => Ok(Reply::json(
                    json!({"exists": true, "id": item.id, "type": item.item_type}),
                )),
                // A missing workspace is not a missing item: that is the user's mistake to see.
                Err(err) if err.is_not_found() && !err.has_code("WorkspaceNotFound") => {
                    Ok(Reply::json(json!({"exists": false})))
                }
                Err(err) => Err(err),
            }
        })
    }
}

typed_args! {
    /// `item create`.
    struct Create {
        workspace: String = WORKSPACE,
        item: NewItem,
    }
}

impl Command for Create {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let body = self.item.body()?;
            let workspace = ctx.workspace_id(&self.workspace).await?;
            let created = items::create(ctx.api(), &workspace, &body).await?;
            Ok(created_reply(created, "item"))
        })
    }
}

/// The created thing, with a note when the service's answer was lost and it was found by
/// name instead of being created twice.
pub(crate) fn created_reply(created: Created, what: &str) -> Reply {
    let reply = Reply::json(created.outcome.into_value());
    if created.recovered {
        reply.with_note(format!(
            "the service's answer was lost; found the new {what} by name instead of creating it twice"
        ))
    } else {
        reply
    }
}

typed_args! {
    /// `item update`.
    struct Update {
        target: ItemTarget,
        name: Option<String> = NEW_DISPLAY_NAME,
        description: Option<String> = NEW_DESCRIPTION,
    }
}

impl Command for Update {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let body = update_body(self.name.as_deref(), self.description.as_deref())?;
            let (workspace, id) = self.target.resolve(&ctx).await?;
            if let Some(name) = &self.name {
                let item_type = async {
                    let item: Item = items::get(ctx.api(), &workspace, &id, None).await?;
                    Ok(item.item_type)
                };
                renamed_as(name, item_type).await?;
            }
            if ctx.api().options().dry_run
                && let Some(name) = &self.name
            {
                name_free_for(&ctx, &workspace, &id, name).await?;
            }
            let item: Value = items::update(ctx.api(), &workspace, &id, &body).await?;
            Ok(Reply::json(item))
        })
    }
}

/// A dry run's check of what the service would refuse: another item of the same type in the
/// workspace already has the new name (`ItemDisplayNameAlreadyInUse`, exit 2, before any
/// PATCH is planned).
async fn name_free_for(ctx: &Ctx, workspace: &str, id: &str, name: &str) -> Result<()> {
    let item: Item = items::get(ctx.api(), workspace, id, None).await?;
    let item_type = &item.item_type;
    // Types whose names the service lets repeat: it refuses no name.
    if !fabsh_model::item_types::names_unique(item_type) {
        return Ok(());
    }
    let Some(other) = items::find_by_name::<Item>(ctx.api(), workspace, name, item_type).await?
    else {
        return Ok(());
    };
    if other.id == id {
        return Ok(());
    }
    Err(Error::usage(format!(
        "--name: the workspace already has a {item_type} named {name:?} ({}); the service \
         would refuse the rename with ItemDisplayNameAlreadyInUse",
        other.id
    ))
    .with_code("ItemDisplayNameAlreadyInUse")
    .with_hint("choose another --name"))
}

typed_args! {
    /// `item delete`.
    struct Delete {
        target: ItemTarget,
        hard_delete: bool = HARD_DELETE,
    }
}

impl Command for Delete {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (workspace, id) = self.target.resolve(&ctx).await?;
            let hard = self.hard_delete;
            items::delete(ctx.api(), &workspace, &id, hard).await?;
            let how = if hard { " permanently" } else { "" };
            Ok(Reply::done(format!(
                "deleted item {}{how}",
                common::named_as(&self.target.item, &id)
            )))
        })
    }
}
