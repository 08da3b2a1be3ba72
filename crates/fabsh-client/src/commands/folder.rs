//! `folder list | create | delete | move`: beyond the spec, because `item move-to-folder` and
//! `item list --folder` need folder ids.

use super::common::{self, WORKSPACE};
use super::names;
use super::spec::{ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits};
use super::typed::{Command, Paging, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::folders;
use fabsh_model::naming;

const FOLDER_ID: ArgSpec = ArgSpec::req("id", ArgKind::Uuid, "Folder id");
const BELOW: ArgSpec = ArgSpec::opt("folder", ArgKind::Uuid, "Only folders below this folder");
const RECURSIVE: ArgSpec = ArgSpec::opt(
    "recursive",
    ArgKind::Enum(&["true", "false"]),
    "Include nested folders (default true)",
);
const NAME: ArgSpec = ArgSpec::req(
    "name",
    ArgKind::Str,
    "Folder name, unique among its siblings",
);
const PARENT_ID: ArgSpec = ArgSpec::opt(
    "parent-id",
    ArgKind::Uuid,
    "Parent folder (default: the workspace root)",
);
const TARGET_FOLDER_ID: ArgSpec = ArgSpec::opt(
    "target-folder-id",
    ArgKind::Str,
    "New parent folder id; omitted or empty means the workspace root",
)
.allowing_empty();

/// The folder commands.
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        group: "folder",
        name: "list",
        summary: "List the folders of a workspace",
        about: "Everything by default; --folder lists what is below one folder.",
        args: &[WORKSPACE, BELOW, RECURSIVE],
        traits: Traits::LIST,
        columns: &["id", "displayName", "parentFolderId"],
        examples: &[Example {
            command: "folder list -w Demo",
            about: "every folder and its parent",
        }],
        handler: Handler::Data(handler::<List>),
    },
    CommandSpec {
        group: "folder",
        name: "create",
        summary: "Create a folder",
        about: "A create whose answer is lost is checked by name before it is sent again.",
        args: &[WORKSPACE, NAME, PARENT_ID],
        traits: Traits::MUTATE,
        columns: &["id", "displayName", "parentFolderId"],
        examples: &[Example {
            command: "folder create -w Demo --name Reports",
            about: "a folder at the root",
        }],
        handler: Handler::Data(handler::<Create>),
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
        handler: Handler::Data(handler::<Delete>),
    },
    CommandSpec {
        group: "folder",
        name: "move",
        summary: "Move a folder under another folder or to the root",
        about: "",
        args: &[WORKSPACE, FOLDER_ID, TARGET_FOLDER_ID],
        traits: Traits::MUTATE,
        columns: &["id", "displayName", "parentFolderId"],
        examples: &[Example {
            command: "folder move -w Demo --id \"$FOLDER_ID\"",
            about: "to the root",
        }],
        handler: Handler::Data(handler::<Move>),
    },
];

typed_args! {
    /// `folder list`.
    struct List {
        workspace: String = WORKSPACE,
        below: Option<String> = BELOW,
        recursive: Option<String> = RECURSIVE,
        paging: Paging,
    }
}

impl Command for List {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let workspace = ctx.workspace_id(&self.workspace).await?;
            let recursive = self.recursive.map(|value| value == "true");
            let req = folders::list_req(&workspace, self.below.as_deref(), recursive);
            common::paged_by(ctx.api(), req, &self.paging).await
        })
    }
}

typed_args! {
    /// `folder create`.
    struct Create {
        workspace: String = WORKSPACE,
        name: String = NAME,
        parent: Option<String> = PARENT_ID,
    }
}

impl Command for Create {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            if self.name.trim().is_empty() {
                return Err(Error::usage("--name cannot be empty"));
            }
            names::checked(&NAME, &naming::FOLDER, &self.name)?;
            let workspace = ctx.workspace_id(&self.workspace).await?;
            let parent = self.parent.as_deref();
            let created = folders::create(ctx.api(), &workspace, &self.name, parent).await?;
            let reply = Reply::json(created.outcome.into_value());
            Ok(if created.recovered {
                reply.with_note("the service's answer was lost; found the new folder by name instead of creating it twice")
            } else {
                reply
            })
        })
    }
}

typed_args! {
    /// `folder delete`.
    struct Delete {
        workspace: String = WORKSPACE,
        folder: String = FOLDER_ID,
    }
}

impl Command for Delete {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let workspace = ctx.workspace_id(&self.workspace).await?;
            folders::delete(ctx.api(), &workspace, &self.folder).await?;
            Ok(Reply::done(format!("deleted folder {}", self.folder)))
        })
    }
}

/// A folder flag's value where empty means the workspace root: `None` for the root, else the
/// GUID.
pub fn folder_or_root(given: Option<&str>, flag: &str) -> Result<Option<String>> {
    match given.map(str::trim) {
        None | Some("") => Ok(None),
        Some(id) if uuid::Uuid::try_parse(id).is_ok() => Ok(Some(id.to_string())),
        Some(other) => Err(Error::usage(format!(
            "--{flag} must be a folder id (a GUID) or empty for the root, got {other:?}"
        ))
        .with_hint("`fabsh folder list -w <workspace>` shows folder ids")),
    }
}

typed_args! {
    /// `folder move`.
    struct Move {
        workspace: String = WORKSPACE,
        folder: String = FOLDER_ID,
        target: Option<String> = TARGET_FOLDER_ID,
    }
}

impl Command for Move {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let target = folder_or_root(self.target.as_deref(), TARGET_FOLDER_ID.long)?;
            let workspace = ctx.workspace_id(&self.workspace).await?;
            let folder =
                folders::move_folder(ctx.api(), &workspace, &self.folder, target.as_deref())
                    .await?;
            Ok(Reply::json(folder))
        })
    }
}
