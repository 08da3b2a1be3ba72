//! `workspace list | show | create | delete`: navigation, beyond the spec, because every
//! user needs workspace ids and names; `apply-tags | unapply-tags` (swagger `Tags`).

use super::args::Args;
use super::common::{self, WORKSPACE};
use super::item::organisation::{TAG_IDS, resolve_tag_ids, tag_ids};
use super::spec::{ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits};
use crate::api::{tags, workspaces};
use crate::context::Ctx;
use crate::error::Error;
use crate::reply::Reply;
use serde_json::{Map, Value, json};

/// The workspace commands.
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        group: "workspace",
        name: "list",
        summary: "List the workspaces you have a role in",
        about: "",
        args: &[],
        traits: Traits::LIST,
        columns: &["id", "displayName", "type", "capacityId"],
        examples: &[Example {
            command: "workspace list --all",
            about: "every workspace, all pages",
        }],
        handler: Handler::Data(list),
    },
    CommandSpec {
        group: "workspace",
        name: "show",
        summary: "Show one workspace",
        about: "",
        args: &[WORKSPACE],
        traits: Traits::READ,
        columns: &[],
        examples: &[
            Example {
                command: "workspace show -w Demo",
                about: "by display name",
            },
            Example {
                command: "workspace show Demo",
                about: "the same, positional",
            },
        ],
        handler: Handler::Data(show),
    },
    CommandSpec {
        group: "workspace",
        name: "create",
        summary: "Create a workspace (you become its Admin)",
        about: "",
        args: &[
            ArgSpec::req("name", ArgKind::Str, "Display name, unique in the tenant"),
            ArgSpec::opt("description", ArgKind::Str, "Description"),
            ArgSpec::opt("capacity-id", ArgKind::Uuid, "Capacity to assign"),
        ],
        traits: Traits::MUTATE,
        columns: &[],
        examples: &[Example {
            command: "workspace create --name Marketing --description \"Marketing team\"",
            about: "a new workspace",
        }],
        handler: Handler::Data(create),
    },
    CommandSpec {
        group: "workspace",
        name: "delete",
        summary: "Delete a workspace and everything in it",
        about: "The workspace must be named: a profile's default workspace is never deleted by \
omission.",
        args: &[
            ArgSpec::req("id", ArgKind::Ref, "Workspace id or display name")
                .short('w')
                .aliases(&["workspace"]),
        ],
        traits: Traits::DESTRUCTIVE.void(),
        columns: &[],
        examples: &[Example {
            command: "workspace delete --id Scratch --yes",
            about: "without the confirmation prompt",
        }],
        handler: Handler::Data(delete),
    },
    CommandSpec {
        group: "workspace",
        name: "apply-tags",
        summary: "Apply tags to a workspace",
        about: "Prints the workspace afterwards, tags included.",
        args: &[WORKSPACE, TAG_IDS],
        traits: Traits::MUTATE,
        columns: &[],
        examples: &[Example {
            command: "workspace apply-tags -w Demo --tag-ids \"$TAG_ID\"",
            about: "one tag",
        }],
        handler: Handler::Data(apply_tags),
    },
    CommandSpec {
        group: "workspace",
        name: "unapply-tags",
        summary: "Remove tags from a workspace",
        about: "Prints the workspace afterwards.",
        args: &[WORKSPACE, TAG_IDS],
        traits: Traits::MUTATE,
        columns: &[],
        examples: &[Example {
            command: "workspace unapply-tags -w Demo --tag-ids \"$TAG_ID\"",
            about: "one tag",
        }],
        handler: Handler::Data(unapply_tags),
    },
];

fn tagging(ctx: Ctx, args: Args, apply: bool) -> HandlerFuture {
    Box::pin(async move {
        let ids = tag_ids(&args)?;
        let id = ctx.workspace_id(args.str("workspace")?).await?;
        let ids = resolve_tag_ids(&ctx, ids).await?;
        tags::tag_workspace(ctx.api(), &id, &ids, apply).await?;
        Ok(Reply::json(workspaces::get(ctx.api(), &id).await?))
    })
}

fn apply_tags(ctx: Ctx, args: Args) -> HandlerFuture {
    tagging(ctx, args, true)
}

fn unapply_tags(ctx: Ctx, args: Args) -> HandlerFuture {
    tagging(ctx, args, false)
}

fn list(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move { common::paged(ctx.api(), workspaces::list_req(), &args).await })
}

fn show(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let id = ctx.workspace_id(args.str("workspace")?).await?;
        Ok(Reply::json(workspaces::get(ctx.api(), &id).await?))
    })
}

fn create(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let name = args.str("name")?;
        if name.trim().is_empty() || name.chars().count() > 256 {
            return Err(Error::usage("--name must be 1 to 256 characters"));
        }
        let mut body = Map::new();
        body.insert("displayName".into(), json!(name));
        if let Some(description) = args.opt_str("description") {
            body.insert("description".into(), json!(description));
        }
        if let Some(capacity) = args.opt_str("capacity-id") {
            body.insert("capacityId".into(), json!(capacity));
        }
        let created = workspaces::create(ctx.api(), Value::Object(body)).await?;
        let reply = Reply::json(created.outcome.into_value());
        Ok(if created.recovered {
            reply.with_note("the service's answer was lost; found the new workspace by name")
        } else {
            reply
        })
    })
}

fn delete(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let id = ctx.workspace_id(args.str("id")?).await?;
        workspaces::delete(ctx.api(), &id).await?;
        Ok(Reply::done(format!(
            "deleted workspace {}",
            common::named_as(args.str("id")?, &id)
        )))
    })
}
