//! `workspace list | show | create | delete`: navigation, beyond the spec, because every
//! user needs workspace ids and names; `apply-tags | unapply-tags` (swagger `Tags`).

use super::common::{self, WORKSPACE};
use super::item::organisation::{TAG_IDS, resolve_tag_ids, tag_ids};
use super::names;
use super::spec::{ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits};
use super::typed::{Command, Paging, handler, typed_args};
use crate::context::Ctx;
use crate::error::Error;
use crate::reply::Reply;
use fabsh_api::api::{tags, workspaces};
use fabsh_model::naming;
use fabsh_model::wire::CreateWorkspaceRequest;
use serde_json::Value;

const NAME: ArgSpec = ArgSpec::req("name", ArgKind::Str, "Display name, unique in the tenant");
const DESCRIPTION: ArgSpec = ArgSpec::opt("description", ArgKind::Str, "Description");
const CAPACITY_ID: ArgSpec = ArgSpec::opt("capacity-id", ArgKind::Uuid, "Capacity to assign");
/// `workspace delete`'s workspace, named `--id` (and `-w`): never a profile's default.
const DELETED: ArgSpec = ArgSpec::req("id", ArgKind::Ref, "Workspace id or display name")
    .short('w')
    .aliases(&["workspace"]);

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
        handler: Handler::Data(handler::<List>),
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
        handler: Handler::Data(handler::<Show>),
    },
    CommandSpec {
        group: "workspace",
        name: "create",
        summary: "Create a workspace (you become its Admin)",
        about: "",
        args: &[NAME, DESCRIPTION, CAPACITY_ID],
        traits: Traits::MUTATE,
        columns: &[],
        examples: &[Example {
            command: "workspace create --name Marketing --description \"Marketing team\"",
            about: "a new workspace",
        }],
        handler: Handler::Data(handler::<Create>),
    },
    CommandSpec {
        group: "workspace",
        name: "delete",
        summary: "Delete a workspace and everything in it",
        about: "The workspace must be named: a profile's default workspace is never deleted by \
omission.",
        args: &[DELETED],
        traits: Traits::DESTRUCTIVE.void(),
        columns: &[],
        examples: &[Example {
            command: "workspace delete --id Scratch --yes",
            about: "without the confirmation prompt",
        }],
        handler: Handler::Data(handler::<Delete>),
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
        handler: Handler::Data(handler::<ApplyTags>),
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
        handler: Handler::Data(handler::<UnapplyTags>),
    },
];

typed_args! {
    /// `workspace apply-tags` and `unapply-tags`: a workspace and tags.
    struct Tagging {
        workspace: String = WORKSPACE,
        tag_ids: Vec<String> = TAG_IDS,
    }
}

impl Tagging {
    fn run(self, ctx: Ctx, apply: bool) -> HandlerFuture {
        Box::pin(async move {
            let ids = tag_ids(&self.tag_ids)?;
            let id = ctx.workspace_id(&self.workspace).await?;
            let ids = resolve_tag_ids(&ctx, ids).await?;
            tags::tag_workspace(ctx.api(), &id, &ids, apply).await?;
            Ok(Reply::json(workspaces::get::<Value>(ctx.api(), &id).await?))
        })
    }
}

typed_args! {
    /// `workspace apply-tags`.
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
    /// `workspace unapply-tags`.
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
    /// `workspace list`.
    struct List {
        paging: Paging,
    }
}

impl Command for List {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(
            async move { common::paged_by(ctx.api(), workspaces::list_req(), &self.paging).await },
        )
    }
}

typed_args! {
    /// `workspace show`.
    struct Show {
        workspace: String = WORKSPACE,
    }
}

impl Command for Show {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let id = ctx.workspace_id(&self.workspace).await?;
            Ok(Reply::json(workspaces::get::<Value>(ctx.api(), &id).await?))
        })
    }
}

typed_args! {
    /// `workspace create`.
    struct Create {
        name: String = NAME,
        description: Option<String> = DESCRIPTION,
        capacity: Option<String> = CAPACITY_ID,
    }
}

impl Command for Create {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let name = &self.name;
            if name.trim().is_empty() {
                return Err(Error::usage("--name cannot be empty"));
            }
            names::checked(&NAME, &naming::WORKSPACE, name)?;
            let body = CreateWorkspaceRequest {
                display_name: name.clone(),
                description: self.description.clone(),
                capacity_id: self.capacity.clone(),
            };
            let created = workspaces::create(ctx.api(), &body).await?;
            let reply = Reply::json(created.outcome.into_value());
            Ok(if created.recovered {
                reply.with_note("the service's answer was lost; found the new workspace by name")
            } else {
                reply
            })
        })
    }
}

typed_args! {
    /// `workspace delete`.
    struct Delete {
        workspace: String = DELETED,
    }
}

impl Command for Delete {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let id = ctx.workspace_id(&self.workspace).await?;
            workspaces::delete(ctx.api(), &id).await?;
            Ok(Reply::done(format!(
                "deleted workspace {}",
                common::named_as(&self.workspace, &id)
            )))
        })
    }
}
