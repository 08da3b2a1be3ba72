//! `item get-definition | update-definition | validate-definition`.

use super::definition_flags::DefinitionFlags;
use crate::commands::args::FileArg;
use crate::commands::common::{
    self as common, ALLOW_EXTRA, DECODE, DEFINITION, DEFINITION_DIR, DEFINITION_OPTIONS, ITEM,
    WORKSPACE,
};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, LocalPath, Needs, Traits,
};
use crate::commands::typed::{Command, ItemTarget, handler, typed_args};
use crate::context::Ctx;
use crate::definition::given::{self, Source};
use crate::definition::{folder, stream};
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::definitions as api_definitions;
use fabsh_api::api::{LroOutcome, LroResponse};
use fabsh_model::definition::{self, validate};
use fabsh_model::wire::DefinitionPart;
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

const DIR_OUT: ArgSpec = ArgSpec::opt(
    "dir",
    ArgKind::Str,
    "Write the parts as files under this new or empty folder instead of printing them",
)
.local(LocalPath::WriteDir);
const FORMAT: ArgSpec = ArgSpec::opt(
    "format",
    ArgKind::Str,
    "Layout to ask for, per type (Notebook: ipynb or fabricGitSource; SemanticModel: TMDL or TMSL)",
);
const CLEAN: ArgSpec = ArgSpec::opt(
    "clean",
    ArgKind::Bool,
    "With --dir: remove the folder's previous part files (only files that are parts of the definition its .platform names; anything else is refused and nothing removed) once the new definition has arrived, so a script can re-run",
);
const PART_FILE: ArgSpec = ArgSpec::opt(
    "file",
    ArgKind::File,
    "One file, sent as a single part named after the file",
);
const UPDATE_METADATA: ArgSpec = ArgSpec::opt(
    "update-metadata",
    ArgKind::Bool,
    "Also apply the name and description of the .platform part",
);
const VALIDATE_TYPE: ArgSpec = ArgSpec::opt(
    "type",
    ArgKind::ItemType,
    "Item type, enabling the per-type part checks (Notebook, Report, ...)",
);
const ENVELOPE_FILE: ArgSpec = ArgSpec::opt(
    "file",
    ArgKind::File,
    "A JSON file holding the definition envelope",
);
const STRICT: ArgSpec = ArgSpec::opt("strict", ArgKind::Bool, "Treat warnings as failures");

pub(crate) const GET_DEFINITION: CommandSpec = CommandSpec {
    group: "item",
    name: "get-definition",
    summary: "Get an item's definition (its parts, base64-encoded)",
    about: "Prints {definition: {format?, parts: [{path, payload, payloadType}]}}, which update-definition and create accept back. With --dir the parts are written as files instead (part paths that would leave the folder are refused before anything is written) and a summary is printed.",
    args: &[WORKSPACE, ITEM, FORMAT, DECODE, DIR_OUT, CLEAN],
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
    handler: Handler::Data(handler::<GetDefinition>),
};

pub(crate) const UPDATE_DEFINITION: CommandSpec = CommandSpec {
    group: "item",
    name: "update-definition",
    summary: "Replace an item's definition",
    about: "Give exactly one of --file, --definition, --dir. The definition is checked as validate-definition does (without --type) and refused with exit 2 if it has errors; nothing is sent then. With --dir, files that are not parts of the item type's definition (the type its .platform names: notes, editor backups, hidden files) are refused, each named, unless --allow-extra. The new parts replace all old ones. Asks for confirmation on a terminal unless --yes.",
    args: &[
        WORKSPACE,
        ITEM,
        PART_FILE,
        DEFINITION,
        DEFINITION_DIR,
        ALLOW_EXTRA,
        UPDATE_METADATA,
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
    handler: Handler::Data(handler::<UpdateDefinition>),
};

pub(crate) const VALIDATE_DEFINITION: CommandSpec = CommandSpec {
    group: "item",
    name: "validate-definition",
    summary: "Check a definition offline: {valid, errors, warnings}",
    about: "Sends nothing and needs no credentials. Checks the envelope, base64, duplicate or unsafe paths, JSON payloads, the .platform part and, with --type, the type's required and canonical parts, formats and size limits. Each finding names its part path and rule. Exit 0 when valid; exit 2 when there are errors, or warnings with --strict true (the report is printed either way).",
    args: &[
        VALIDATE_TYPE,
        ENVELOPE_FILE,
        DEFINITION,
        DEFINITION_DIR,
        STRICT,
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
    handler: Handler::Data(handler::<ValidateDefinition>),
};

typed_args! {
    /// `item get-definition`.
    struct GetDefinition {
        target: ItemTarget,
        format: Option<String> = FORMAT,
        decode: bool = DECODE,
        dir: Option<String> = DIR_OUT,
        clean: bool = CLEAN,
    }
}

impl Command for GetDefinition {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let format = self.format;
            let dir = self.dir.map(PathBuf::from);
            if dir.is_some() && self.decode {
                return Err(Error::usage("--decode and --dir cannot be used together")
                    .with_hint("--dir writes each part's bytes to its own file already"));
            }
            let clean = self.clean;
            if clean && dir.is_none() {
                return Err(Error::usage("--clean needs --dir")
                    .with_hint("--clean removes the previous parts in the --dir folder"));
            }
            if let Some(dir) = &dir
                && !clean
            {
                folder::check_empty_or_missing(dir)?;
            }
            let (workspace, id) = self.target.resolve(&ctx).await?;
            if let Some(dir) = dir {
                let answer =
                    api_definitions::get_response(ctx.api(), &workspace, &id, format.as_deref())
                        .await?;
                return match answer {
                    LroResponse::Pending(pending) => Ok(Reply::json(pending.into())),
                    LroResponse::Done(None) => {
                        Err(Error::runtime("the service returned no definition"))
                    }
                    LroResponse::Done(Some(resp)) => {
                        // Decoding and writing files is blocking work; the body moves along, so
                        // the definition is held once.
                        let summary = tokio::task::spawn_blocking(move || {
                            stream::write_answer(&resp.body, &dir, clean)
                        })
                        .await
                        .map_err(|err| {
                            Error::runtime(format!("writing the parts failed: {err}"))
                        })??;
                        Ok(Reply::json(summary))
                    }
                };
            }
            let mut value =
                match api_definitions::get(ctx.api(), &workspace, &id, format.as_deref()).await? {
                    LroOutcome::Pending(pending) => return Ok(Reply::json(pending.into())),
                    LroOutcome::Done(value) => value,
                };
            let mut reply_notes = Vec::new();
            if self.decode {
                reply_notes = add_decoded(&mut value);
            }
            Ok(reply_notes
                .into_iter()
                .fold(Reply::json(value), crate::reply::Reply::with_note))
        })
    }
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
        // Read as a part; the answer itself is printed as the service sent it, plus the text.
        let Ok(read) = DefinitionPart::deserialize(&*part) else {
            notes.push("a part without a path or payload is left as the service sent it".into());
            continue;
        };
        let text = definition::decode_payload(&read.payload)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok());
        match (text, part.as_object_mut()) {
            (Some(text), Some(fields)) => {
                fields.insert("decodedPayload".into(), Value::String(text));
            }
            _ => notes.push(format!(
                "part {} is not UTF-8 text; left encoded",
                read.path
            )),
        }
    }
    notes
}

/// Where update-definition and validate-definition take a definition from.
const SOURCES: &[Source] = &[Source::File, Source::Definition, Source::Dir];

fn no_source() -> Error {
    Error::usage(format!(
        "give the definition with one of {}",
        given::source_list(SOURCES, ", ")
    ))
}

typed_args! {
    /// `item update-definition`.
    struct UpdateDefinition {
        target: ItemTarget,
        file: Option<FileArg> = PART_FILE,
        sources: DefinitionFlags,
        update_metadata: bool = UPDATE_METADATA,
    }
}

impl Command for UpdateDefinition {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let given = self.sources.given(self.file);
            let definition = given.definition(SOURCES, None)?.ok_or_else(no_source)?;
            let (workspace, id) = self.target.resolve(&ctx).await?;
            let outcome = api_definitions::update(
                ctx.api(),
                &workspace,
                &id,
                definition,
                self.update_metadata,
            )
            .await?;
            Ok(match outcome {
                LroOutcome::Pending(pending) => Reply::json(pending.into()),
                LroOutcome::Done(_) => Reply::done(format!(
                    "updated the definition of item {}",
                    common::named_as(&self.target.item, &id)
                )),
            })
        })
    }
}

typed_args! {
    /// `item validate-definition`.
    struct ValidateDefinition {
        item_type: Option<String> = VALIDATE_TYPE,
        file: Option<FileArg> = ENVELOPE_FILE,
        definition: Option<Value> = DEFINITION,
        dir: Option<String> = DEFINITION_DIR,
        strict: bool = STRICT,
    }
}

impl ValidateDefinition {
    /// The definition flag given; none is a usage error.
    fn required_source(&self) -> Result<Source> {
        let given = |source| match source {
            Source::File => self.file.is_some(),
            Source::Definition => self.definition.is_some(),
            Source::Dir => self.dir.is_some(),
        };
        given::one_source(SOURCES, given)?.ok_or_else(no_source)
    }
}

impl Command for ValidateDefinition {
    fn run(self, _ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let source = self.required_source()?;
            let raw = match (source, self.file, self.definition, self.dir) {
                (Source::File, Some(file), _, _) => {
                    serde_json::from_slice(&file.bytes).map_err(|err| {
                        Error::usage(format!(
                            "--file: {} is not valid JSON: {err}",
                            file.path.display()
                        ))
                    })?
                }
                // A report, not a refusal: every file is checked, and with --type the ones the
                // type does not use are warnings.
                (Source::Dir, _, _, Some(dir)) => folder::read_dir(Path::new(&dir), true, None)?,
                (_, _, definition, _) => definition.unwrap_or(Value::Null),
            };
            let report = validate::validate(&raw, self.item_type.as_deref());
            let failure = if !report.valid {
                Some(Error::usage(format!(
                    "the definition is not valid: {} error(s)",
                    report.errors.len()
                )))
            } else if self.strict && !report.warnings.is_empty() {
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
}
