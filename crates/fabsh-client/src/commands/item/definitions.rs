//! `item get-definition | update-definition | validate-definition`.

use crate::api::definitions as api_definitions;
use crate::api::{LroOutcome, LroResponse};
use crate::commands::args::Args;
use crate::commands::common::{
    self as common, ALLOW_EXTRA, DECODE, DEFINITION, DEFINITION_DIR, DEFINITION_OPTIONS, ITEM,
    WORKSPACE,
};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, LocalPath, Needs, Traits,
};
use crate::context::Ctx;
use crate::definition::{folder, given, stream};
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_model::definition::{self, validate};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const DIR_OUT: ArgSpec = ArgSpec::opt(
    "dir",
    ArgKind::Str,
    "Write the parts as files under this new or empty folder instead of printing them",
)
.local(LocalPath::WriteDir);

pub const GET_DEFINITION: CommandSpec = CommandSpec {
    group: "item",
    name: "get-definition",
    summary: "Get an item's definition (its parts, base64-encoded)",
    about: "Prints {definition: {format?, parts: [{path, payload, payloadType}]}}, which update-definition and create accept back. With --dir the parts are written as files instead (part paths that would leave the folder are refused before anything is written) and a summary is printed.",
    args: &[
        WORKSPACE,
        ITEM,
        ArgSpec::opt(
            "format",
            ArgKind::Str,
            "Layout to ask for, per type (Notebook: ipynb or fabricGitSource; SemanticModel: TMDL or TMSL)",
        ),
        DECODE,
        DIR_OUT,
        ArgSpec::opt(
            "clean",
            ArgKind::Bool,
            "With --dir: remove the folder's previous part files (only files that are parts of the definition its .platform names; anything else is refused and nothing removed) once the new definition has arrived, so a script can re-run",
        ),
    ],
    traits: Traits::READ.lro(),
    columns: &[],
    examples: &[
        Example {
            command: "item get-definition -w Demo --id Welcome --decode -q \"definition.parts[0].decodedPayload\"",
            about: "the notebook's source",
        },
        Example {
            command: "item get-definition -w Demo --id \"Sales Model\" --dir ./sales-model",
            about: "one file per part, in the folders the part paths name",
        },
    ],
    handler: Handler::Data(get_definition),
};

pub const UPDATE_DEFINITION: CommandSpec = CommandSpec {
    group: "item",
    name: "update-definition",
    summary: "Replace an item's definition",
    about: "Give exactly one of --file, --definition, --dir. The definition is checked as validate-definition does (without --type) and refused with exit 2 if it has errors; nothing is sent then. With --dir, files that are not parts of the item type's definition (the type its .platform names: notes, editor backups, hidden files) are refused, each named, unless --allow-extra. The new parts replace all old ones. Asks for confirmation on a terminal unless --yes.",
    args: &[
        WORKSPACE,
        ITEM,
        ArgSpec::opt(
            "file",
            ArgKind::File,
            "One file, sent as a single part named after the file",
        ),
        DEFINITION,
        DEFINITION_DIR,
        ALLOW_EXTRA,
        ArgSpec::opt(
            "update-metadata",
            ArgKind::Bool,
            "Also apply the name and description of the .platform part",
        ),
        DEFINITION_OPTIONS,
    ],
    traits: Traits::DESTRUCTIVE.lro().void(),
    columns: &[],
    examples: &[
        Example {
            command: "item update-definition -w Demo --id Welcome --dir ./welcome --yes",
            about: "from files written by get-definition --dir",
        },
        Example {
            command: "item update-definition -w Demo --id Welcome --file notebook-content.py --yes",
            about: "one part",
        },
    ],
    handler: Handler::Data(update_definition),
};

pub const VALIDATE_DEFINITION: CommandSpec = CommandSpec {
    group: "item",
    name: "validate-definition",
    summary: "Check a definition offline: {valid, errors, warnings}",
    about: "Sends nothing and needs no credentials. Checks the envelope, base64, duplicate or unsafe paths, JSON payloads, the .platform part and, with --type, the type's required and canonical parts, formats and size limits. Each finding names its part path and rule. Exit 0 when valid; exit 2 when there are errors, or warnings with --strict true (the report is printed either way).",
    args: &[
        ArgSpec::opt(
            "type",
            ArgKind::ItemType,
            "Item type, enabling the per-type part checks (Notebook, Report, ...)",
        ),
        ArgSpec::opt(
            "file",
            ArgKind::File,
            "A JSON file holding the definition envelope",
        ),
        DEFINITION,
        DEFINITION_DIR,
        ArgSpec::opt("strict", ArgKind::Bool, "Treat warnings as failures"),
    ],
    traits: Traits::READ.needs(Needs::Nothing),
    columns: &[],
    examples: &[
        Example {
            command: "item validate-definition --type Notebook --dir ./welcome",
            about: "a folder written by get-definition --dir",
        },
        Example {
            command: "item validate-definition --type Report --file report.json --strict true",
            about: "warnings fail too",
        },
    ],
    handler: Handler::Data(validate_definition),
};

fn get_definition(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let format = args.opt_str("format").map(String::from);
        let dir = args.opt_str("dir").map(PathBuf::from);
        if dir.is_some() && args.flag("decode") {
            return Err(Error::usage("--decode and --dir cannot be used together")
                .with_hint("--dir writes each part's bytes to its own file already"));
        }
        let clean = args.flag("clean");
        if clean && dir.is_none() {
            return Err(Error::usage("--clean needs --dir")
                .with_hint("--clean removes the previous parts in the --dir folder"));
        }
        if let Some(dir) = &dir
            && !clean
        {
            folder::check_empty_or_missing(dir)?;
        }
        let workspace = ctx.workspace_id(args.str("workspace")?).await?;
        let id = ctx.item_id(&workspace, args.str("id")?, None).await?;
        if let Some(dir) = dir {
            let answer =
                api_definitions::get_response(ctx.api(), &workspace, &id, format.as_deref())
                    .await?;
            return match answer {
                LroResponse::Pending(pending) => Ok(Reply::json(pending)),
                LroResponse::Done(None) => {
                    Err(Error::runtime("the service returned no definition"))
                }
                LroResponse::Done(Some(resp)) => {
                    // Decoding and writing files is blocking work; the body moves along, so the
                    // definition is held once.
                    let summary = tokio::task::spawn_blocking(move || {
                        stream::write_answer(&resp.body, &dir, clean)
                    })
                    .await
                    .map_err(|err| Error::runtime(format!("writing the parts failed: {err}")))??;
                    Ok(Reply::json(summary))
                }
            };
        }
        let mut value =
            match api_definitions::get(ctx.api(), &workspace, &id, format.as_deref()).await? {
                LroOutcome::Pending(pending) => return Ok(Reply::json(pending)),
                LroOutcome::Done(value) => value,
            };
        let mut reply_notes = Vec::new();
        if args.flag("decode") {
            reply_notes = add_decoded(&mut value);
        }
        Ok(reply_notes
            .into_iter()
            .fold(Reply::json(value), |reply, note| reply.with_note(note)))
    })
}

/// Adds `decodedPayload` (the part's text) to each part; binary parts stay encoded, with a note.
pub(crate) fn add_decoded(value: &mut Value) -> Vec<String> {
    let mut notes = Vec::new();
    let Some(parts) = value
        .pointer_mut("/definition/parts")
        .and_then(Value::as_array_mut)
    else {
        return notes;
    };
    for part in parts {
        let path = part["path"].as_str().unwrap_or_default().to_string();
        let text = part["payload"]
            .as_str()
            .and_then(|payload| definition::decode_payload(payload).ok())
            .and_then(|bytes| String::from_utf8(bytes).ok());
        match text {
            Some(text) => part["decodedPayload"] = json!(text),
            None => notes.push(format!("part {path} is not UTF-8 text; left encoded")),
        }
    }
    notes
}

/// Where update-definition and validate-definition take a definition from.
const SOURCES: &[&str] = &["file", "definition", "dir"];

/// The definition flag given; none is a usage error.
fn required_source(args: &Args) -> Result<&'static str> {
    given::one_source(args, SOURCES)?.ok_or_else(no_source)
}

fn no_source() -> Error {
    Error::usage(format!(
        "give the definition with one of {}",
        given::source_list(SOURCES, ", ")
    ))
}

fn update_definition(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let definition = given::given_definition(&args, SOURCES, None)?.ok_or_else(no_source)?;
        let workspace = ctx.workspace_id(args.str("workspace")?).await?;
        let id = ctx.item_id(&workspace, args.str("id")?, None).await?;
        let outcome = api_definitions::update(
            ctx.api(),
            &workspace,
            &id,
            definition,
            args.flag("update-metadata"),
        )
        .await?;
        Ok(match outcome {
            LroOutcome::Pending(pending) => Reply::json(pending),
            LroOutcome::Done(_) => Reply::done(format!(
                "updated the definition of item {}",
                common::named_as(args.str("id")?, &id)
            )),
        })
    })
}

fn validate_definition(_ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let raw = match required_source(&args)? {
            "file" => {
                let file = args
                    .file("file")
                    .ok_or_else(|| Error::usage("--file is required"))?;
                serde_json::from_slice(&file.bytes).map_err(|err| {
                    Error::usage(format!(
                        "--file: {} is not valid JSON: {err}",
                        file.path.display()
                    ))
                })?
            }
            "definition" => args.json("definition").cloned().unwrap_or(Value::Null),
            // A report, not a refusal: every file is checked, and with --type the ones the
            // type does not use are warnings.
            _ => folder::read_dir(Path::new(args.str("dir")?), true, None)?,
        };
        let report = validate::validate(&raw, args.opt_str("type"));
        let failure = if !report.valid {
            Some(Error::usage(format!(
                "the definition is not valid: {} error(s)",
                report.errors.len()
            )))
        } else if args.flag("strict") && !report.warnings.is_empty() {
            Some(Error::usage(format!(
                "--strict: {} warning(s) count as failures",
                report.warnings.len()
            )))
        } else {
            None
        };
        let reply = Reply::json(report.to_json());
        Ok(match failure {
            Some(failure) => reply.with_failure(failure),
            None => reply,
        })
    })
}
