//! `data-agent get-config | update-config`: instructions, datasources and the preview-runtime
//! flag as one object.

use super::{AGENT, STAGE, agent, explain_unpublished, stage};
use crate::commands::args::Args;
use crate::commands::common::WORKSPACE;
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use serde_json::{Map, Value, json};

/// The `experimental` key that switches the preview runtime on.
const PREVIEW_RUNTIME_KEY: &str = "enableExperimentalFeatures";

pub const GET_CONFIG: CommandSpec = CommandSpec {
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
    handler: Handler::Data(get_config),
};

pub const UPDATE_CONFIG: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "update-config",
    summary: "Change the draft's instructions or preview-runtime flag",
    about: "The preview runtime (multi-step reasoning) is `experimental.enableExperimentalFeatures`; the other `experimental` keys, some owned by the service, are kept.",
    args: &[
        WORKSPACE,
        AGENT,
        ArgSpec::opt(
            "instructions",
            ArgKind::Str,
            "Agent instructions (data source choice, query style, tone); empty clears them",
        )
        .allowing_empty(),
        ArgSpec::opt(
            "instructions-file",
            ArgKind::File,
            "Read the instructions from this text file",
        ),
        ArgSpec::opt(
            "enable-preview-runtime",
            ArgKind::Bool,
            "Switch the preview runtime (multi-step reasoning) on",
        ),
        ArgSpec::opt(
            "disable-preview-runtime",
            ArgKind::Bool,
            "Switch the preview runtime off (single-pass standard runtime)",
        ),
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
    handler: Handler::Data(update_config),
};

/// The preview-runtime flag of a settings object.
fn preview_runtime(settings: &Value) -> bool {
    settings["experimental"][PREVIEW_RUNTIME_KEY].as_bool() == Some(true)
}

fn get_config(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let agent = agent(&ctx, &args).await?;
        let stage = stage(&args);
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

/// The preview-runtime change asked for, if any; both flags at once is a usage error.
fn wanted_preview_runtime(args: &Args) -> Result<Option<bool>> {
    match (
        args.opt_bool("enable-preview-runtime"),
        args.opt_bool("disable-preview-runtime"),
    ) {
        (Some(_), Some(_)) => Err(Error::usage(
            "--enable-preview-runtime and --disable-preview-runtime cannot be used together",
        )),
        (Some(on), None) => Ok(Some(on)),
        (None, Some(off)) => Ok(Some(!off)),
        (None, None) => Ok(None),
    }
}

/// `--instructions` or the text of `--instructions-file`, not both.
fn wanted_instructions(args: &Args) -> Result<Option<String>> {
    match (args.opt_str("instructions"), args.file("instructions-file")) {
        (Some(_), Some(_)) => Err(Error::usage(
            "give --instructions or --instructions-file, not both",
        )),
        (Some(text), None) => Ok(Some(text.to_string())),
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

/// `experimental` with the preview flag set, every other key as it was.
pub fn with_preview_runtime(experimental: Option<&Value>, on: bool) -> Value {
    let mut bag = experimental
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_else(Map::new);
    bag.insert(PREVIEW_RUNTIME_KEY.into(), json!(on));
    Value::Object(bag)
}

fn update_config(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let preview = wanted_preview_runtime(&args)?;
        let instructions = wanted_instructions(&args)?;
        if preview.is_none() && instructions.is_none() {
            return Err(Error::usage(
                "nothing to update: give --instructions, --instructions-file, --enable-preview-runtime or --disable-preview-runtime",
            ));
        }
        let agent = agent(&ctx, &args).await?;
        let mut body = Map::new();
        if let Some(text) = instructions {
            body.insert("aiInstructions".into(), json!(text));
        }
        if let Some(on) = preview {
            // The service replaces `experimental` whole, so keys it owns are read first.
            let current = agent
                .settings(ctx.api(), crate::api::data_agents::Stage::Staging)
                .await?;
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
