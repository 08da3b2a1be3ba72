//! `item bulk-export-definitions | bulk-import-definitions | bulk-move`: server-side bulk
//! operations over a workspace. Request bodies are checked before anything is sent: their
//! shape, the 128 MB request limit and the 50-item limit of a bulk move.

use super::bulk_transfer_bodies::{
    check_export_body, check_import_body, check_move_body, check_size, import_options,
};
use crate::commands::args::FileArg;
use crate::commands::common::{self, WORKSPACE};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, LocalPath, Traits,
};
use crate::commands::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::definition::bulk_tree::ImportTree;
use crate::definition::{folder, stream};
use crate::error::{Error, Result};
use crate::reply::Reply;
use bytes::Bytes;
use fabsh_api::api::{LroOutcome, LroResponse, bulk, serialized_len};
use serde_json::{Map, Value, json};
use std::path::PathBuf;

const FILE: ArgSpec = ArgSpec::opt("file", ArgKind::File, "The JSON request body, from a file");
const CONTENT: ArgSpec = ArgSpec::opt(
    "content",
    ArgKind::Json,
    "The JSON request body, inline (or @file)",
);
const EXPORT_DIR: ArgSpec = ArgSpec::opt(
    "dir",
    ArgKind::Str,
    "Write the exported items as files under this new or empty folder",
)
.local(LocalPath::WriteDir);
const IMPORT_DIR: ArgSpec = ArgSpec::opt(
    "dir",
    ArgKind::Str,
    "A folder written by bulk-export-definitions --dir, assembled into the body",
)
.local(LocalPath::ReadDir);
const ALLOW_PAIRING_BY_NAME: ArgSpec = ArgSpec::opt(
    "allow-pairing-by-name",
    ArgKind::Bool,
    "Pair items without a logical-id match by display name and type (sets options.allowPairingByName)",
);
const ITEM_OPTIONS: ArgSpec = ArgSpec::opt(
    "item-options",
    ArgKind::Json,
    "Per-item options, a JSON array of objects each with a logicalId, inline or @file (sent as options.itemOptionsByLogicalId)",
);

pub(super) const BULK_EXPORT_DEFINITIONS: CommandSpec = CommandSpec {
    group: "item",
    name: "bulk-export-definitions",
    summary: "Export the definitions of many items at once (beta API, long-running)",
    about: "The body is {\"mode\":\"All\"} (the default: every item with a definition) or {\"mode\":\"Selective\",\"items\":[{\"id\":\"...\"}]}. Prints {itemDefinitionsIndex: [{id, rootPath}], definitionParts: [{path, payload, payloadType}]}, part paths being <rootPath>/<part> with rootPath /<folders>/<name>.<Type>. With --dir the parts are written as files <folders>/<name>.<Type>/<part> under a new or empty folder instead (paths that would leave it are refused before anything is written), which bulk-import-definitions --dir reads back.",
    args: &[WORKSPACE, FILE, CONTENT, EXPORT_DIR],
    traits: Traits::READ.lro(),
    columns: &[],
    examples: &[
        Example {
            command: "item bulk-export-definitions -w Demo --dir ./export",
            about: "every item, one folder per item",
        },
        Example {
            command: "item bulk-export-definitions -w Demo --file selection.json",
            about: "only the items the file lists: {\"mode\":\"Selective\",\"items\":[{\"id\":...}]}",
        },
    ],
    handler: Handler::Data(handler::<BulkExport>),
};

/// What finishes a partly failed import: the items it made carry the logical ids of their
/// `.platform`, so the same import pairs with them again instead of making them twice.
const RERUN_IMPORT: &str = "fix the failed items and run the same import again: the items already imported pair by their logical id and are updated, not made twice";

pub(super) const BULK_IMPORT_DEFINITIONS: CommandSpec = CommandSpec {
    group: "item",
    name: "bulk-import-definitions",
    summary: "Create or update many items from definitions at once (beta API, long-running)",
    about: "Give exactly one of --file, --content ({definitionParts, options?}, as bulk-export-definitions prints) or --dir (a folder written by bulk-export-definitions --dir). Each item folder carries a .platform whose logicalId pairs it with an existing item, which is updated; unpaired items are created, or with --allow-pairing-by-name paired by display name and type. The body must stay within the service's 128 MB (128 MiB) limit: a larger one is refused before anything is sent, with its size. Prints {importItemDefinitionsDetails: [{itemId, itemDisplayName, itemType, itemLogicalId, operationType, operationStatus}]}; exit 5 when any item failed. Re-running the same import after a partial failure or an interruption is safe: the items it made carry their logical ids, so they pair and are updated, not made twice.",
    args: &[
        WORKSPACE,
        FILE,
        CONTENT,
        IMPORT_DIR,
        ALLOW_PAIRING_BY_NAME,
        ITEM_OPTIONS,
    ],
    traits: Traits::MUTATE.lro(),
    columns: &[],
    examples: &[
        Example {
            command: "item bulk-import-definitions -w Staging --dir ./demo-export",
            about: "deploy a workspace exported with bulk-export-definitions --dir",
        },
        Example {
            command: "item bulk-import-definitions -w Staging --file export.json --allow-pairing-by-name",
            about: "pair by name where logical ids differ",
        },
    ],
    handler: Handler::Data(handler::<BulkImport>),
};

pub(super) const BULK_MOVE: CommandSpec = CommandSpec {
    group: "item",
    name: "bulk-move",
    summary: "Move up to 50 items (and their children) to a folder at once",
    about: "The body is {\"items\": [item ids], \"targetFolderId\"?: folder id (absent: the workspace root)}. The service moves all or none and takes at most 50 items per call; more are refused before anything is sent. Prints {value: [moved items, children included]}.",
    args: &[WORKSPACE, FILE, CONTENT],
    traits: Traits::MUTATE.lro(),
    columns: &[],
    examples: &[Example {
        command: "item bulk-move -w Demo --file move.json",
        about: "the items and folder the file names: {\"items\":[ids],\"targetFolderId\":id}",
    }],
    handler: Handler::Data(handler::<BulkMove>),
};

typed_args! {
    /// `--file` and `--content`: a request body, given one way or the other.
    struct BodyFlags {
        file: Option<FileArg> = FILE,
        content: Option<Value> = CONTENT,
    }
}

impl BodyFlags {
    /// The body given with `--file` or `--content` (never both), and the flag's name.
    fn given_body(self) -> Result<Option<(Value, &'static str)>> {
        match (self.file, self.content) {
            (Some(_), Some(_)) => Err(Error::usage("give only one of --file, --content")),
            (Some(file), None) => {
                let value = serde_json::from_slice(&file.bytes).map_err(|err| {
                    Error::usage(format!(
                        "--file: {} is not valid JSON: {err}",
                        file.path.display()
                    ))
                })?;
                Ok(Some((value, "--file")))
            }
            (None, Some(value)) => Ok(Some((value, "--content"))),
            (None, None) => Ok(None),
        }
    }
}

typed_args! {
    /// `item bulk-export-definitions`.
    struct BulkExport {
        workspace: String = WORKSPACE,
        body: BodyFlags,
        dir: Option<String> = EXPORT_DIR,
    }
}

impl Command for BulkExport {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let body = match self.body.given_body()? {
                Some((body, flag)) => check_export_body(body, flag)?,
                None => json!({"mode": "All"}),
            };
            check_size(serialized_len(&body))?;
            let dir = self.dir.map(PathBuf::from);
            if let Some(dir) = &dir {
                folder::check_empty_or_missing(dir)?;
            }
            let workspace = ctx.workspace_id(&self.workspace).await?;
            let resp = match bulk::export(ctx.api(), &workspace, body).await? {
                LroResponse::Pending(pending) => return Ok(Reply::json(pending.into())),
                LroResponse::Done(None) => {
                    return Err(Error::runtime("the service returned no export"));
                }
                LroResponse::Done(Some(resp)) => resp,
            };
            let Some(dir) = dir else {
                return Ok(Reply::json(resp.json()?));
            };
            // Decoding and writing files is blocking work; the body moves along, held once.
            let summary =
                tokio::task::spawn_blocking(move || stream::write_bulk_export(&resp.body, &dir))
                    .await
                    .map_err(|err| Error::runtime(format!("writing the export failed: {err}")))??;
            Ok(Reply::json(summary))
        })
    }
}

typed_args! {
    /// `item bulk-import-definitions`.
    struct BulkImport {
        workspace: String = WORKSPACE,
        body: BodyFlags,
        dir: Option<String> = IMPORT_DIR,
        allow_pairing_by_name: Option<bool> = ALLOW_PAIRING_BY_NAME,
        item_options: Option<Value> = ITEM_OPTIONS,
    }
}

/// The import body, checked and within the size limit, as the bytes to send.
async fn import_body(
    body: BodyFlags,
    dir: Option<String>,
    options: Map<String, Value>,
) -> Result<Bytes> {
    let dir = dir.map(PathBuf::from);
    let given = body.given_body()?;
    match (given, dir) {
        (Some(_), Some(_)) => Err(Error::usage("give only one of --file, --content, --dir")),
        (None, None) => Err(Error::usage(
            "give the definitions with one of --file, --content, --dir",
        )),
        (None, Some(dir)) => {
            let tree = ImportTree::scan(&dir)?;
            let options = serde_json::to_vec(&Value::Object(options))?;
            check_size(tree.body_len(&options))?;
            let body = tokio::task::spawn_blocking(move || tree.build(&options))
                .await
                .map_err(|err| Error::runtime(format!("reading --dir failed: {err}")))??;
            Ok(Bytes::from(body))
        }
        (Some((mut body, flag)), None) => {
            check_import_body(&mut body, flag, options)?;
            check_size(serialized_len(&body))?;
            Ok(Bytes::from(serde_json::to_vec(&body)?))
        }
    }
}

impl Command for BulkImport {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let options = import_options(self.allow_pairing_by_name, self.item_options.as_ref())?;
            let body = import_body(self.body, self.dir, options).await?;
            let workspace = ctx.workspace_id(&self.workspace).await?;
            let value = match bulk::import(ctx.api(), &workspace, body).await? {
                LroOutcome::Pending(pending) => return Ok(Reply::json(pending.into())),
                LroOutcome::Done(value) => value,
            };
            let mut reply = common::per_item_reply(
                value,
                "importItemDefinitionsDetails",
                "operationStatus",
                "item(s) could not be imported",
            );
            reply.failure = reply.failure.map(|failure| failure.with_hint(RERUN_IMPORT));
            Ok(reply)
        })
    }
}

typed_args! {
    /// `item bulk-move`.
    struct BulkMove {
        workspace: String = WORKSPACE,
        body: BodyFlags,
    }
}

impl Command for BulkMove {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (body, flag) = self.body.given_body()?.ok_or_else(|| {
                Error::usage("give the body with --file or --content")
                    .with_hint("{\"items\": [item ids], \"targetFolderId\": folder id}")
            })?;
            let body = check_move_body(body, flag)?;
            let workspace = ctx.workspace_id(&self.workspace).await?;
            let outcome = bulk::move_items(ctx.api(), &workspace, body).await?;
            Ok(Reply::json(outcome.into_value()))
        })
    }
}
