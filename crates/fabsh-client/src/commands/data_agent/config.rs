//! `data-agent get-config | update-config`: instructions, datasources and the preview-runtime
//! flag as one object.

use super::{AGENT, AgentTarget, STAGE, explain_unpublished};
use crate::commands::args::FileArg;
use crate::commands::common::WORKSPACE;
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::data_agents::Stage;
use serde_json::{Map, Value, json};

/// The `experimental` key that switches the preview runtime on.
const PREVIEW_RUNTIME_KEY: &str = "enableExperimentalFeatures";

pub(super) const GET_CONFIG: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "get-config",
    summary: "Show the agent's instructions, datasources and preview-runtime flag",
    about: "Reads the draft unless --stage published; a never-published agent has no published configuration.",
    args: &[WORKSPACE, AGENT, STAGE],
    traits: Traits::READ,
    columns: &[],
    examples: &[Example {
        command: "data-agent get-config -w Demo --id \"Sales agent\" --stage published",
        about: "what the published agent answers with",
    }],
    handler: Handler::Data(handler::<GetConfig>),
};

const INSTRUCTIONS: ArgSpec = ArgSpec::opt(
    "instructions",
    ArgKind::Str,
    "Agent instructions (data source choice, query style, tone); empty clears them",
)
.allowing_empty();
const INSTRUCTIONS_FILE: ArgSpec = ArgSpec::opt(
    "instructions-file",
    ArgKind::File,
    "Read the instructions from this text file",
);
const ENABLE_PREVIEW_RUNTIME: ArgSpec = ArgSpec::opt(
    "enable-preview-runtime",
    ArgKind::Bool,
    "Switch the preview runtime (multi-step reasoning) on",
);
const DISABLE_PREVIEW_RUNTIME: ArgSpec = ArgSpec::opt(
    "disable-preview-runtime",
    ArgKind::Bool,
    "Switch the preview runtime off (single-pass standard runtime)",
);

pub(super) const UPDATE_CONFIG: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "update-config",
    summary: "Change the draft's instructions or preview-runtime flag",
    about: "The preview runtime (multi-step reasoning) is `experimental.enableExperimentalFeatures`; the other `experimental` keys, some owned by the service, are kept.",
    args: &[
        WORKSPACE,
        AGENT,
        INSTRUCTIONS,
        INSTRUCTIONS_FILE,
        ENABLE_PREVIEW_RUNTIME,
        DISABLE_PREVIEW_RUNTIME,
    ],
    traits: Traits::MUTATE,
    columns: &[],
    examples: &[
        Example {
            command: "data-agent update-config -w Demo --id \"Sales agent\" --instructions-file instructions.md",
            about: "instructions from a file",
        },
        Example {
            command: "data-agent update-config -w Demo --id \"Sales agent\" --enable-preview-runtime",
            about: "switch the preview runtime on",
        },
    ],
    handler: Handler::Data(handler::<UpdateConfig>),
};

/// The preview-runtime flag of a settings object.
fn preview_runtime(settings: &Value) -> bool {
    settings["experimental"][PREVIEW_RUNTIME_KEY].as_bool() == Some(true)
}

typed_args! {
    /// `data-agent get-config`.
    struct GetConfig {
        target: AgentTarget,
        stage: Stage = STAGE,
    }
}

impl Command for GetConfig {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            let stage = self.stage;
            let api = ctx.api();
            let (settings, sources) = futures::future::join(
                agent.settings(api, stage),
                api.all(agent.datasources_req(stage)),
            )
            .await;
            let settings = settings.map_err(|err| explain_unpublished(err, stage))?;
            let sources = sources.map_err(|err| explain_unpublished(err, stage))?;
            Ok(Reply::json(json!({
                "stage": stage.name(),
                "instructions": settings.get("aiInstructions").cloned().unwrap_or(Value::Null),
                "previewRuntime": preview_runtime(&settings),
                "dataSources": sources,
            })))
        })
    }
}

typed_args! {
    /// `data-agent update-config`.
    struct UpdateConfig {
        target: AgentTarget,
        instructions: Option<String> = INSTRUCTIONS,
        instructions_file: Option<FileArg> = INSTRUCTIONS_FILE,
        enable_preview_runtime: Option<bool> = ENABLE_PREVIEW_RUNTIME,
        disable_preview_runtime: Option<bool> = DISABLE_PREVIEW_RUNTIME,
    }
}

impl UpdateConfig {
    /// The preview-runtime change asked for, if any; both flags at once is a usage error.
    fn wanted_preview_runtime(&self) -> Result<Option<bool>> {
        match (self.enable_preview_runtime, self.disable_preview_runtime) {
            (Some(_), Some(_)) => Err(Error::usage(
                "--enable-preview-runtime and --disable-preview-runtime cannot be used together",
            )),
            (Some(on), None) => Ok(Some(on)),
            (None, Some(off)) => Ok(Some(!off)),
            (None, None) => Ok(None),
        }
    }

    /// `--instructions` or the text of `--instructions-file`, not both.
    fn wanted_instructions(&self) -> Result<Option<String>> {
        match (&self.instructions, &self.instructions_file) {
            (Some(_), Some(_)) => Err(Error::usage(
                "give --instructions or --instructions-file, not both",
            )),
            (Some(text), None) => Ok(Some(text.clone())),
            (None, Some(file)) => String::from_utf8(file.bytes.to_vec())
                .map(Some)
                .map_err(|_| {
                    Error::usage(format!(
                        "--instructions-file: {} is not UTF-8 text",
                        file.path.display()
                    ))
                }),
            (None, None) => Ok(None),
        }
    }
}

/// `experimental` with the preview flag set, every other key as it was.
pub(super) fn with_preview_runtime(experimental: Option<&Value>, on: bool) -> Value {
    let mut bag = experimental
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_else(Map::new);
    bag.insert(PREVIEW_RUNTIME_KEY.into(), json!(on));
    Value::Object(bag)
}

impl Command for UpdateConfig {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let preview = self.wanted_preview_runtime()?;
            let instructions = self.wanted_instructions()?;
            if preview.is_none() && instructions.is_none() {
                return Err(Error::usage(
                    "nothing to update: give --instructions, --instructions-file, --enable-preview-runtime or --disable-preview-runtime",
                ));
            }
            let agent = self.target.resolve(&ctx).await?;
            let mut body = Map::new();
            if let Some(text) = instructions {
                body.insert("aiInstructions".into(), json!(text));
            }
            if let Some(on) = preview {
                // The service replaces `experimental` whole, so keys it owns are read first.
                let current = agent.settings(ctx.api(), Stage::Staging).await?;
                body.insert(
                    "experimental".into(),
                    with_preview_runtime(current.get("experimental"), on),
                );
            }
            let settings = agent.patch_settings(ctx.api(), Value::Object(body)).await?;
            Ok(Reply::json(json!({
                "instructions": settings.get("aiInstructions").cloned().unwrap_or(Value::Null),
                "previewRuntime": preview_runtime(&settings),
            })))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_preview_flag_keeps_server_owned_keys() {
        let current = json!({"mcpServers": [{"name": "x"}], "enableExperimentalFeatures": false});
        let updated = with_preview_runtime(Some(&current), true);
        assert_eq!(
            updated,
            json!({"mcpServers": [{"name": "x"}], "enableExperimentalFeatures": true})
        );
        assert_eq!(
            with_preview_runtime(None, false),
            json!({"enableExperimentalFeatures": false})
        );
    }
}
