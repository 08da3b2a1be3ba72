//! `data-agent list-fewshots | show-fewshot | add-fewshot | update-fewshot | remove-fewshot |
//! clear-fewshots`: example questions with their answer queries, per datasource.

use super::{
    AGENT, AgentTarget, DATASOURCE, STAGE, check_fewshots_supported, datasource,
    explain_unpublished,
};
use crate::commands::common::{self, WORKSPACE};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, Paging, handler, typed_args};
use crate::context::Ctx;
use crate::error::Error;
use crate::reply::Reply;
use fabsh_api::api::data_agents::Stage;
use serde_json::{Map, Value, json};

/// Columns of few-shot tables.
pub(super) const FEWSHOT_COLUMNS: &[&str] = &["id", "question", "query", "validationStatus.value"];

/// `--answer`'s other names: the query's names in few-shot files without `answer` itself
/// (listed first there), so the command line, scripts, MCP and files agree.
const ANSWER_ALIASES: &[&str] = fabsh_model::agent::fewshot_file::QUERY_ALIASES
    .split_at(1)
    .1;
const ANSWER_HELP: &str = "The answer query, in the datasource's language (SQL, KQL, DAX or GQL)";
const QUESTION_HELP: &str = "The example question, as a user would ask it";
const FEWSHOT_ID: ArgSpec = ArgSpec::req("fewshot-id", ArgKind::Uuid, "Few-shot id");
/// `--fewshot-id` of `remove-fewshot`: any text, trimmed before it is sent.
const REMOVED_FEWSHOT_ID: ArgSpec = ArgSpec::req("fewshot-id", ArgKind::Str, "Few-shot id");
const QUESTION: ArgSpec = ArgSpec::req("question", ArgKind::Str, QUESTION_HELP);
const ANSWER: ArgSpec = ArgSpec::req("answer", ArgKind::Str, ANSWER_HELP).aliases(ANSWER_ALIASES);
const NEW_QUESTION: ArgSpec = ArgSpec::opt("question", ArgKind::Str, QUESTION_HELP);
const NEW_ANSWER: ArgSpec =
    ArgSpec::opt("answer", ArgKind::Str, ANSWER_HELP).aliases(ANSWER_ALIASES);

pub(super) const LIST_FEWSHOTS: CommandSpec = CommandSpec {
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
    handler: Handler::Data(handler::<ListFewshots>),
};

pub(super) const SHOW_FEWSHOT: CommandSpec = CommandSpec {
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
    handler: Handler::Data(handler::<ShowFewshot>),
};

pub(super) const ADD_FEWSHOT: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "add-fewshot",
    summary: "Add a few-shot example (a question and its answer query)",
    about: "The service validates the query against the schema; list-fewshots shows the outcome. Semantic models and ontologies take no few-shots.",
    args: &[WORKSPACE, AGENT, DATASOURCE, QUESTION, ANSWER],
    traits: Traits::MUTATE,
    columns: &[],
    examples: &[Example {
        command: "data-agent add-fewshot -w Demo --id \"Sales agent\" --datasource SalesLakehouse --question \"How many orders?\" --sql \"SELECT COUNT(*) FROM orders\"",
        about: "a SQL example",
    }],
    handler: Handler::Data(handler::<AddFewshot>),
};

pub(super) const UPDATE_FEWSHOT: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "update-fewshot",
    summary: "Change a few-shot example's question or answer",
    about: "",
    args: &[
        WORKSPACE,
        AGENT,
        DATASOURCE,
        FEWSHOT_ID,
        NEW_QUESTION,
        NEW_ANSWER,
    ],
    traits: Traits::MUTATE.void(),
    columns: &[],
    examples: &[Example {
        command: "data-agent update-fewshot -w Demo --id \"Sales agent\" --datasource SalesLakehouse --fewshot-id \"$FEWSHOT_ID\" --sql \"SELECT COUNT(*) FROM dbo.orders\"",
        about: "a new answer",
    }],
    handler: Handler::Data(handler::<UpdateFewshot>),
};

pub(super) const REMOVE_FEWSHOT: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "remove-fewshot",
    summary: "Remove one few-shot example",
    about: "Asks for confirmation on a terminal unless --yes. Shows the removed example.",
    args: &[WORKSPACE, AGENT, DATASOURCE, REMOVED_FEWSHOT_ID],
    traits: Traits::DESTRUCTIVE,
    columns: &[],
    examples: &[Example {
        command: "data-agent remove-fewshot -w Demo --id \"Sales agent\" --datasource SalesLakehouse --fewshot-id \"$FEWSHOT_ID\" --yes",
        about: "without asking",
    }],
    handler: Handler::Data(handler::<RemoveFewshot>),
};

pub(super) const CLEAR_FEWSHOTS: CommandSpec = CommandSpec {
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
    handler: Handler::Data(handler::<ClearFewshots>),
};

typed_args! {
    /// `data-agent list-fewshots`.
    struct ListFewshots {
        target: AgentTarget,
        datasource: String = DATASOURCE,
        stage: Stage = STAGE,
        paging: Paging,
    }
}

impl Command for ListFewshots {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            let stage = self.stage;
            let source = datasource(&ctx, &agent, stage, &self.datasource).await?;
            common::paged_by(
                ctx.api(),
                agent.fewshots_req(stage, &source.id),
                &self.paging,
            )
            .await
            .map_err(|err| explain_unpublished(err, stage))
        })
    }
}

typed_args! {
    /// `data-agent show-fewshot`.
    struct ShowFewshot {
        target: AgentTarget,
        datasource: String = DATASOURCE,
        fewshot: String = FEWSHOT_ID,
        stage: Stage = STAGE,
    }
}

impl Command for ShowFewshot {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            let stage = self.stage;
            let source = datasource(&ctx, &agent, stage, &self.datasource).await?;
            let fewshot = agent
                .fewshot_get(ctx.api(), stage, &source.id, &self.fewshot)
                .await?;
            Ok(Reply::json(fewshot))
        })
    }
}

typed_args! {
    /// `data-agent add-fewshot`.
    struct AddFewshot {
        target: AgentTarget,
        datasource: String = DATASOURCE,
        question: String = QUESTION,
        answer: String = ANSWER,
    }
}

impl Command for AddFewshot {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let question = self.question.trim().to_string();
            let answer = self.answer.trim().to_string();
            if question.is_empty() || answer.is_empty() {
                return Err(Error::usage("--question and --answer cannot be empty"));
            }
            let agent = self.target.resolve(&ctx).await?;
            let source = datasource(&ctx, &agent, Stage::Staging, &self.datasource).await?;
            check_fewshots_supported(&source)?;
            let created = agent
                .fewshot_create(ctx.api(), &source.id, &question, &answer)
                .await?;
            Ok(Reply::json(created))
        })
    }
}

typed_args! {
    /// `data-agent update-fewshot`.
    struct UpdateFewshot {
        target: AgentTarget,
        datasource: String = DATASOURCE,
        fewshot: String = FEWSHOT_ID,
        question: Option<String> = NEW_QUESTION,
        answer: Option<String> = NEW_ANSWER,
    }
}

impl Command for UpdateFewshot {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let mut body = Map::new();
            for (given, flag, key) in [
                (&self.question, NEW_QUESTION.long, "question"),
                (&self.answer, NEW_ANSWER.long, "query"),
            ] {
                if let Some(text) = given {
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
            let agent = self.target.resolve(&ctx).await?;
            let source = datasource(&ctx, &agent, Stage::Staging, &self.datasource).await?;
            check_fewshots_supported(&source)?;
            agent
                .fewshot_patch(ctx.api(), &source.id, &self.fewshot, Value::Object(body))
                .await?;
            Ok(Reply::empty())
        })
    }
}

typed_args! {
    /// `data-agent remove-fewshot`.
    struct RemoveFewshot {
        target: AgentTarget,
        datasource: String = DATASOURCE,
        fewshot: String = REMOVED_FEWSHOT_ID,
    }
}

impl Command for RemoveFewshot {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            let source = datasource(&ctx, &agent, Stage::Staging, &self.datasource).await?;
            let id = self.fewshot.trim();
            let fewshot = agent
                .fewshot_get(ctx.api(), Stage::Staging, &source.id, id)
                .await?;
            agent.fewshot_delete(ctx.api(), &source.id, id).await?;
            Ok(Reply::json(fewshot))
        })
    }
}

typed_args! {
    /// `data-agent clear-fewshots`.
    struct ClearFewshots {
        target: AgentTarget,
        datasource: String = DATASOURCE,
    }
}

impl Command for ClearFewshots {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            let source = datasource(&ctx, &agent, Stage::Staging, &self.datasource).await?;
            agent.fewshots_delete_all(ctx.api(), &source.id).await?;
            Ok(Reply::empty())
        })
    }
}
