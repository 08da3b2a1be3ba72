//! `folder list | create | delete | move`: beyond the spec, because `item move-to-folder` and
//! `item list --folder` need folder ids.

use super::args::Args;
use super::common::{self, WORKSPACE};
use super::spec::{ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits};
use crate::api::folders;
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;

const FOLDER_ID: ArgSpec = ArgSpec::req("id", ArgKind::Uuid, "Folder id");

/// The folder commands.
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        group: "folder",
        name: "list",
        summary: "List the folders of a workspace",
        about: "Everything by default; --folder lists what is below one folder.",
        args: &[
            WORKSPACE,
            ArgSpec::opt("folder", ArgKind::Uuid, "Only folders below this folder"),
            ArgSpec::opt(
                "recursive",
                ArgKind::Enum(&["true", "false"]),
                "Include nested folders (default true)",
            ),
        ],
        traits: Traits::LIST,
        columns: &["id", "displayName", "parentFolderId"],
        examples: &[Example {
            command: "folder list -w Demo",
            about: "every folder and its parent",
        }],
        handler: Handler::Data(list),
    },
    CommandSpec {
        group: "folder",
        name: "create",
        summary: "Create a folder",
        about: "A create whose answer is lost is checked by name before it is sent again.",
        args: &[
            WORKSPACE,
            ArgSpec::req(
                "name",
                ArgKind::Str,
                "Folder name, unique among its siblings",
            ),
            ArgSpec::opt(
                "parent-id",
                ArgKind::Uuid,
                "Parent folder (default: the workspace root)",
            ),
        ],
        traits: Traits::MUTATE,
        columns: &["id", "displayName", "parentFolderId"],
        examples: &[Example {
            command: "folder create -w Demo --name Reports",
            about: "a folder at the root",
        }],
        handler: Handler::Data(create),
    },
    CommandSpec {
        group: "folder",
        name: "delete",
        summary: "Delete an empty folder",
        about: "A folder that still holds items or folders is refused (FolderNotEmpty). Asks for confirmation on a terminal unless --yes.",
        args: &[WORKSPACE, FOLDER_ID],
        traits: Traits::DESTRUCTIVE.void(),
        columns: &[],
        examples: &[Example {
            command: "folder delete -w Demo --id \"$FOLDER_ID\" --yes",
            about: "without asking",
        }],
        handler: Handler::Data(delete),
    },
    CommandSpec {
        group: "folder",
        name: "move",
        summary: "Move a folder under another folder or to the root",
        about: "",
        args: &[
            WORKSPACE,
            FOLDER_ID,
            ArgSpec::opt(
                "target-folder-id",
                ArgKind::Str,
                "New parent folder id; omitted or empty means the workspace root",
            )
            .allowing_empty(),
        ],
        traits: Traits::MUTATE,
        columns: &["id", "displayName", "parentFolderId"],
        examples: &[Example {
            command: "folder move -w Demo --id \"$FOLDER_ID\"",
            about: "to the root",
        }],
        handler: Handler::Data(move_folder),
    },
];

fn list(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let workspace = ctx.workspace_id(args.str("workspace")?).await?;
        let recursive = args.opt_str("recursive").map(|value| value == "true");
        let req = folders::list_req(&workspace, args.opt_str("folder"), recursive);
        common::paged(ctx.api(), req, &args).await
    })
}

fn create(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let name = args.str("name")?;
        if name.trim().is_empty() {
            return Err(Error::usage("--name cannot be empty"));
        }
        let workspace = ctx.workspace_id(args.str("workspace")?).await?;
        let created =
            folders::create(ctx.api(), &workspace, name, args.opt_str("parent-id")).await?;
        let reply = Reply::json(created.outcome.into_value());
        Ok(if created.recovered {
            reply.with_note("the service's answer was lost; found the new folder by name instead of creating it twice")
        } else {
            reply
        })
    })
}

fn delete(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let workspace = ctx.workspace_id(args.str("workspace")?).await?;
        folders::delete(ctx.api(), &workspace, args.str("id")?).await?;
        Ok(Reply::done(format!("deleted folder {}", args.str("id")?)))
    })
}

/// A folder flag where empty means the workspace root: `None` for the root, else the GUID.
pub fn folder_or_root(args: &Args, flag: &str) -> Result<Option<String>> {
    match args.opt_str(flag).map(str::trim) {
        None | Some("") => Ok(None),
        Some(id) if uuid::Uuid::try_parse(id).is_ok() => Ok(Some(id.to_string())),
        Some(other) => Err(Error::usage(format!(
            "--{flag} must be a folder id (a GUID) or empty for the root, got {other:?}"
        ))
        .with_hint("`fabsh folder list -w <workspace>` shows folder ids")),
    }
}

fn move_folder(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let target = folder_or_root(&args, "target-folder-id")?;
        let workspace = ctx.workspace_id(args.str("workspace")?).await?;
        let folder =
            folders::move_folder(ctx.api(), &workspace, args.str("id")?, target.as_deref()).await?;
        Ok(Reply::json(folder))
    })
}
