//! `data-agent list-fewshots | show-fewshot | add-fewshot | update-fewshot | remove-fewshot |
//! clear-fewshots`: example questions with their answer queries, per datasource.

use super::{
    AGENT, DATASOURCE, STAGE, agent, check_fewshots_supported, datasource, explain_unpublished,
    stage,
};
use crate::api::data_agents::Stage;
use crate::commands::args::Args;
use crate::commands::common::{self, WORKSPACE};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::context::Ctx;
use crate::error::Error;
use crate::reply::Reply;
use serde_json::{Map, Value, json};

/// Columns of few-shot tables.
pub const FEWSHOT_COLUMNS: &[&str] = &["id", "question", "query", "validationStatus.value"];

/// `--answer`'s other names: the query's names in few-shot files without `answer` itself
/// (listed first there), so the command line, scripts, MCP and files agree.
const ANSWER_ALIASES: &[&str] = fabsh_model::agent::fewshot_file::QUERY_ALIASES
    .split_at(1)
    .1;
const ANSWER_HELP: &str = "The answer query, in the datasource's language (SQL, KQL, DAX or GQL)";
const QUESTION_HELP: &str = "The example question, as a user would ask it";
const FEWSHOT_ID: ArgSpec = ArgSpec::req("fewshot-id", ArgKind::Uuid, "Few-shot id");

pub const LIST_FEWSHOTS: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "list-fewshots",
    summary: "List a datasource's few-shot examples with their validation status",
    about: "",
    args: &[WORKSPACE, AGENT, DATASOURCE, STAGE],
    traits: Traits::LIST,
    columns: FEWSHOT_COLUMNS,
    examples: &[Example {
        command: "data-agent list-fewshots -w Demo --id \"Sales agent\" --datasource SalesLakehouse",
        about: "the draft's examples",
    }],
    handler: Handler::Data(list_fewshots),
};

pub const SHOW_FEWSHOT: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "show-fewshot",
    summary: "Show one few-shot example",
    about: "",
    args: &[WORKSPACE, AGENT, DATASOURCE, FEWSHOT_ID, STAGE],
    traits: Traits::READ,
    columns: &[],
    examples: &[Example {
        command: "data-agent show-fewshot -w Demo --id \"Sales agent\" --datasource SalesLakehouse --fewshot-id \"$FEWSHOT_ID\"",
        about: "by ids",
    }],
    handler: Handler::Data(show_fewshot),
};

pub const ADD_FEWSHOT: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "add-fewshot",
    summary: "Add a few-shot example (a question and its answer query)",
    about: "The service validates the query against the schema; list-fewshots shows the outcome. Semantic models and ontologies take no few-shots.",
    args: &[
        WORKSPACE,
        AGENT,
        DATASOURCE,
        ArgSpec::req("question", ArgKind::Str, QUESTION_HELP),
        ArgSpec::req("answer", ArgKind::Str, ANSWER_HELP).aliases(ANSWER_ALIASES),
    ],
    traits: Traits::MUTATE,
    columns: &[],
    examples: &[Example {
        command: "data-agent add-fewshot -w Demo --id \"Sales agent\" --datasource SalesLakehouse --question \"How many orders?\" --sql \"SELECT COUNT(*) FROM orders\"",
        about: "a SQL example",
    }],
    handler: Handler::Data(add_fewshot),
};

pub const UPDATE_FEWSHOT: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "update-fewshot",
    summary: "Change a few-shot example's question or answer",
    about: "",
    args: &[
        WORKSPACE,
        AGENT,
        DATASOURCE,
        FEWSHOT_ID,
        ArgSpec::opt("question", ArgKind::Str, QUESTION_HELP),
        ArgSpec::opt("answer", ArgKind::Str, ANSWER_HELP).aliases(ANSWER_ALIASES),
    ],
    traits: Traits::MUTATE.void(),
    columns: &[],
    examples: &[Example {
        command: "data-agent update-fewshot -w Demo --id \"Sales agent\" --datasource SalesLakehouse --fewshot-id \"$FEWSHOT_ID\" --sql \"SELECT COUNT(*) FROM dbo.orders\"",
        about: "a new answer",
    }],
    handler: Handler::Data(update_fewshot),
};

pub const REMOVE_FEWSHOT: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "remove-fewshot",
    summary: "Remove one few-shot example",
    about: "Asks for confirmation on a terminal unless --yes. Shows the removed example.",
    args: &[
        WORKSPACE,
        AGENT,
        DATASOURCE,
        ArgSpec::req("fewshot-id", ArgKind::Str, "Few-shot id"),
    ],
    traits: Traits::DESTRUCTIVE,
    columns: &[],
    examples: &[Example {
        command: "data-agent remove-fewshot -w Demo --id \"Sales agent\" --datasource SalesLakehouse --fewshot-id \"$FEWSHOT_ID\" --yes",
        about: "without asking",
    }],
    handler: Handler::Data(remove_fewshot),
};

pub const CLEAR_FEWSHOTS: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "clear-fewshots",
    summary: "Remove every few-shot example of a datasource",
    about: "Asks for confirmation on a terminal unless --yes.",
    args: &[WORKSPACE, AGENT, DATASOURCE],
    traits: Traits::DESTRUCTIVE.void(),
    columns: &[],
    examples: &[Example {
        command: "data-agent clear-fewshots -w \"$WORKSPACE_ID\" --id \"$AGENT_ID\" --datasource SalesLakehouse --yes",
        about: "start over",
    }],
    handler: Handler::Data(clear_fewshots),
};

fn list_fewshots(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let agent = agent(&ctx, &args).await?;
        let stage = stage(&args);
        let source = datasource(&ctx, &agent, stage, &args).await?;
        common::paged(ctx.api(), agent.fewshots_req(stage, &source.id), &args)
            .await
            .map_err(|err| explain_unpublished(err, stage))
    })
}

fn show_fewshot(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let agent = agent(&ctx, &args).await?;
        let stage = stage(&args);
        let source = datasource(&ctx, &agent, stage, &args).await?;
        let fewshot = agent
            .fewshot_get(ctx.api(), stage, &source.id, args.str("fewshot-id")?)
            .await?;
        Ok(Reply::json(fewshot))
    })
}

fn add_fewshot(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let question = args.str("question")?.trim().to_string();
        let answer = args.str("answer")?.trim().to_string();
        if question.is_empty() || answer.is_empty() {
            return Err(Error::usage("--question and --answer cannot be empty"));
        }
        let agent = agent(&ctx, &args).await?;
        let source = datasource(&ctx, &agent, Stage::Staging, &args).await?;
        check_fewshots_supported(&source)?;
        let created = agent
            .fewshot_create(ctx.api(), &source.id, &question, &answer)
            .await?;
        Ok(Reply::json(created))
    })
}

fn update_fewshot(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let mut body = Map::new();
        for (flag, key) in [("question", "question"), ("answer", "query")] {
            if let Some(text) = args.opt_str(flag) {
                if text.trim().is_empty() {
                    return Err(Error::usage(format!("--{flag} cannot be empty")));
                }
                body.insert(key.into(), json!(text.trim()));
            }
        }
        if body.is_empty() {
            return Err(Error::usage(
                "nothing to update: give --question and/or --answer",
            ));
        }
        let agent = agent(&ctx, &args).await?;
        let source = datasource(&ctx, &agent, Stage::Staging, &args).await?;
        check_fewshots_supported(&source)?;
        agent
            .fewshot_patch(
                ctx.api(),
                &source.id,
                args.str("fewshot-id")?,
                Value::Object(body),
            )
            .await?;
        Ok(Reply::empty())
    })
}

fn remove_fewshot(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let agent = agent(&ctx, &args).await?;
        let source = datasource(&ctx, &agent, Stage::Staging, &args).await?;
        let id = args.str("fewshot-id")?.trim();
        let fewshot = agent
            .fewshot_get(ctx.api(), Stage::Staging, &source.id, id)
            .await?;
        agent.fewshot_delete(ctx.api(), &source.id, id).await?;
        Ok(Reply::json(fewshot))
    })
}

fn clear_fewshots(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let agent = agent(&ctx, &args).await?;
        let source = datasource(&ctx, &agent, Stage::Staging, &args).await?;
        agent.fewshots_delete_all(ctx.api(), &source.id).await?;
        Ok(Reply::empty())
    })
}
