//! `data-agent get-definition | update-definition`: the agent's parts (`Files/Config/...`).
//! An update always sends the whole part set, since the service silently drops a partial one.

use super::{AGENT, AgentTarget};
use crate::commands::args::FileArg;
use crate::commands::common::{DECODE, WORKSPACE, named_as};
use crate::commands::item::definitions::add_decoded;
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::definition::given;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::LroOutcome;
use fabsh_api::api::definitions as api_definitions;
use fabsh_model::agent::definition::AGENT_PART;
use serde_json::{Value, json};

pub(super) const GET_DEFINITION: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "get-definition",
    summary: "Get the agent's definition: draft, published copy and publish info as parts",
    about: "",
    args: &[WORKSPACE, AGENT, DECODE],
    traits: Traits::READ.lro(),
    columns: &[],
    examples: &[Example {
        command: "data-agent get-definition -w Demo --id \"Sales agent\" --decode -q \"definition.parts[].path\"",
        about: "the part paths",
    }],
    handler: Handler::Data(handler::<GetDefinition>),
};

const FILE: ArgSpec = ArgSpec::opt(
    "file",
    ArgKind::File,
    "JSON file with a parts array ({parts} or {definition: {parts}})",
);
const CONTENT: ArgSpec = ArgSpec::opt("content", ArgKind::Json, "The same JSON, inline");
const UPDATE_METADATA: ArgSpec = ArgSpec::opt(
    "update-metadata",
    ArgKind::Bool,
    "Also apply the .platform part's name and description",
);

pub(super) const UPDATE_DEFINITION: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "update-definition",
    summary: "Replace the agent's definition",
    about: "A part set without Files/Config/data_agent.json is taken as changes: the current definition is fetched and the given parts replace their namesakes, so the whole set is sent (the service drops partial sets without saying so).",
    args: &[WORKSPACE, AGENT, FILE, CONTENT, UPDATE_METADATA],
    traits: Traits::MUTATE.lro().void(),
    columns: &[],
    examples: &[Example {
        command: "data-agent update-definition -w Demo --id \"Sales agent\" --file agent.json",
        about: "from a file saved by get-definition",
    }],
    handler: Handler::Data(handler::<UpdateDefinition>),
};

typed_args! {
    /// `data-agent get-definition`.
    struct GetDefinition {
        target: AgentTarget,
        decode: bool = DECODE,
    }
}

impl Command for GetDefinition {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            let mut value =
                match api_definitions::get(ctx.api(), &agent.workspace, &agent.id, None).await? {
                    LroOutcome::Pending(pending) => return Ok(Reply::json(pending.into())),
                    LroOutcome::Done(value) => value,
                };
            let notes = if self.decode {
                add_decoded(&mut value)
            } else {
                Vec::new()
            };
            Ok(notes
                .into_iter()
                .fold(Reply::json(value), crate::reply::Reply::with_note))
        })
    }
}

typed_args! {
    /// `data-agent update-definition`.
    struct UpdateDefinition {
        target: AgentTarget,
        file: Option<FileArg> = FILE,
        content: Option<Value> = CONTENT,
        update_metadata: bool = UPDATE_METADATA,
    }
}

impl UpdateDefinition {
    /// The user's definition from `--file` or `--content`, checked.
    fn given_definition(&self) -> Result<Value> {
        let (raw, flag) = match (&self.file, &self.content) {
            (Some(_), Some(_)) => return Err(Error::usage("give --file or --content, not both")),
            (None, None) => {
                return Err(Error::usage("give the definition with --file or --content"));
            }
            (Some(file), None) => (
                serde_json::from_slice(&file.bytes).map_err(|err| {
                    Error::usage(format!(
                        "--file: {} is not valid JSON: {err}",
                        file.path.display()
                    ))
                })?,
                "--file",
            ),
            (None, Some(content)) => (content.clone(), "--content"),
        };
        given::checked(&raw, None, flag, None)
    }
}

/// `current` with every part of `changes` put in place of its namesake (or added).
fn overlay(current: &Value, changes: &Value) -> Value {
    // An agent never configured has no parts to keep.
    let current_parts = current
        .pointer("/definition/parts")
        .and_then(Value::as_array);
    let mut parts: Vec<Value> = current_parts
        .into_iter()
        .flatten()
        .filter(|part| part["path"] != ".platform")
        .cloned()
        .collect();
    for change in changes["parts"].as_array().into_iter().flatten() {
        match parts.iter_mut().find(|part| part["path"] == change["path"]) {
            Some(slot) => *slot = change.clone(),
            None => parts.push(change.clone()),
        }
    }
    json!({"parts": parts})
}

impl Command for UpdateDefinition {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let given = self.given_definition()?;
            let agent = self.target.resolve(&ctx).await?;
            let whole = given["parts"]
                .as_array()
                .is_some_and(|parts| parts.iter().any(|part| part["path"] == AGENT_PART));
            let (definition, note) = if whole {
                (given, None)
            } else {
                let current = match api_definitions::get(
                    ctx.api(),
                    &agent.workspace,
                    &agent.id,
                    None,
                )
                .await?
                {
                    LroOutcome::Done(value) => value,
                    LroOutcome::Pending(_) => {
                        return Err(Error::usage(
                            "a partial part set needs the current definition; run without --no-wait",
                        ));
                    }
                };
                (
                    overlay(&current, &given),
                    Some(
                        "the given parts were merged into the current definition and the whole set was sent",
                    ),
                )
            };
            let outcome = api_definitions::update(
                ctx.api(),
                &agent.workspace,
                &agent.id,
                definition,
                self.update_metadata,
            )
            .await?;
            let reply = match outcome {
                LroOutcome::Pending(pending) => Reply::json(pending.into()),
                LroOutcome::Done(_) => Reply::done(format!(
                    "updated the definition of data agent {}",
                    named_as(&self.target.agent, &agent.id)
                )),
            };
            Ok(match note {
                Some(note) => reply.with_note(note),
                None => reply,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_sets_replace_their_namesakes() {
        let current = json!({"definition": {"parts": [
            {"path": AGENT_PART, "payload": "YQ=="},
            {"path": "Files/Config/draft/stage_config.json", "payload": "Yg=="},
            {"path": ".platform", "payload": "Yw=="},
        ]}});
        let changes = json!({"parts": [
            {"path": "Files/Config/draft/stage_config.json", "payload": "ZA=="},
            {"path": "Files/Config/draft/x/datasource.json", "payload": "ZQ=="},
        ]});
        let merged = overlay(&current, &changes);
        let paths: Vec<&str> = merged["parts"]
            .as_array()
            .expect("parts")
            .iter()
            .map(|p| p["path"].as_str().expect("path"))
            .collect();
        assert_eq!(
            paths,
            vec![
                AGENT_PART,
                "Files/Config/draft/stage_config.json",
                "Files/Config/draft/x/datasource.json"
            ]
        );
        assert_eq!(merged["parts"][1]["payload"], "ZA==");
    }
}
