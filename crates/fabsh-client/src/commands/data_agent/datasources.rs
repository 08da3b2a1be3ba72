//! `data-agent list-datasources | show-datasource | add-datasource | remove-datasource |
//! update-datasource`.

use super::{AGENT, AgentTarget, DATASOURCE, STAGE, datasource, explain_unpublished};
use crate::commands::common::{DATASOURCE_INSTRUCTIONS, WORKSPACE, paged_by};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, Paging, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::data_agents::{Agent, Stage};
use fabsh_api::api::items::{self, ListFilter};
use fabsh_api::api::resolve::is_guid;
use fabsh_model::agent::sources::{self, ARTIFACT_TYPES, SourceKind};
use fabsh_model::wire::Item;
use serde_json::{Map, Value, json};

const COLUMNS: &[&str] = &["id", "displayName", "type", "fabricItemType", "description"];

pub(super) const LIST_DATASOURCES: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "list-datasources",
    summary: "List the agent's datasources",
    about: "",
    args: &[WORKSPACE, AGENT, STAGE],
    traits: Traits::LIST,
    columns: COLUMNS,
    examples: &[Example {
        command: "data-agent list-datasources -w Demo --id \"Sales agent\"",
        about: "the draft's datasources",
    }],
    handler: Handler::Data(handler::<ListDatasources>),
};

pub(super) const SHOW_DATASOURCE: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "show-datasource",
    summary: "Show one datasource of the agent",
    about: "",
    args: &[WORKSPACE, AGENT, DATASOURCE, STAGE],
    traits: Traits::READ,
    columns: &[],
    examples: &[Example {
        command: "data-agent show-datasource -w Demo --id \"Sales agent\" --datasource SalesLakehouse",
        about: "by name",
    }],
    handler: Handler::Data(handler::<ShowDatasource>),
};

const ARTIFACT: ArgSpec = ArgSpec::req(
    "artifact",
    ArgKind::Ref,
    "The item to add: id or display name",
);
const ARTIFACT_WORKSPACE: ArgSpec = ArgSpec::opt(
    "artifact-workspace",
    ArgKind::Ref,
    "The item's workspace (default: the agent's)",
);
const ARTIFACT_TYPE: ArgSpec = ArgSpec::opt(
    "artifact-type",
    ArgKind::Enum(ARTIFACT_TYPES),
    "The item's type (detected when omitted)",
);

pub(super) const ADD_DATASOURCE: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "add-datasource",
    summary: "Add a lakehouse, warehouse, KQL database, semantic model, ... as a datasource",
    about: "The service discovers the item's schema (a long-running operation); its tables start unselected, so select them with select-tables. Lakehouses are added as LakehouseTables.",
    args: &[
        WORKSPACE,
        AGENT,
        ARTIFACT,
        ARTIFACT_WORKSPACE,
        ARTIFACT_TYPE,
        DATASOURCE_INSTRUCTIONS,
    ],
    traits: Traits::MUTATE,
    columns: &[],
    examples: &[Example {
        command: "data-agent add-datasource -w Demo --id \"Sales agent\" --artifact \"Sales Model\"",
        about: "the demo semantic model beside the lakehouse; its type is detected",
    }],
    handler: Handler::Data(handler::<AddDatasource>),
};

pub(super) const REMOVE_DATASOURCE: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "remove-datasource",
    summary: "Remove a datasource from the draft, with its selections and few-shots",
    about: "Asks for confirmation on a terminal unless --yes. Shows the removed datasource.",
    args: &[WORKSPACE, AGENT, DATASOURCE],
    traits: Traits::DESTRUCTIVE,
    columns: &[],
    examples: &[Example {
        command: "data-agent remove-datasource -w Demo --id \"Sales agent\" --datasource SalesLakehouse --yes",
        about: "without asking",
    }],
    handler: Handler::Data(handler::<RemoveDatasource>),
};

const NEW_INSTRUCTIONS: ArgSpec = ArgSpec::opt(
    "instructions",
    ArgKind::Str,
    "Instructions for querying this datasource; empty clears them",
)
.allowing_empty();
const NEW_DESCRIPTION: ArgSpec = ArgSpec::opt(
    "description",
    ArgKind::Str,
    "What the datasource holds, for routing questions to it; empty clears it",
)
.allowing_empty();

pub(super) const UPDATE_DATASOURCE: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "update-datasource",
    summary: "Change a datasource's instructions or description",
    about: "The description tells the agent when to route a question to this datasource.",
    args: &[
        WORKSPACE,
        AGENT,
        DATASOURCE,
        NEW_INSTRUCTIONS,
        NEW_DESCRIPTION,
    ],
    traits: Traits::MUTATE.void(),
    columns: &[],
    examples: &[Example {
        command: "data-agent update-datasource -w Demo --id \"Sales agent\" --datasource SalesLakehouse --instructions \"Amounts are in EUR\"",
        about: "per-source instructions",
    }],
    handler: Handler::Data(handler::<UpdateDatasource>),
};

typed_args! {
    /// `data-agent list-datasources`.
    struct ListDatasources {
        target: AgentTarget,
        stage: Stage = STAGE,
        paging: Paging,
    }
}

impl Command for ListDatasources {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            let stage = self.stage;
            paged_by(ctx.api(), agent.datasources_req(stage), &self.paging)
                .await
                .map_err(|err| explain_unpublished(err, stage))
        })
    }
}

typed_args! {
    /// `data-agent show-datasource`.
    struct ShowDatasource {
        target: AgentTarget,
        datasource: String = DATASOURCE,
        stage: Stage = STAGE,
    }
}

impl Command for ShowDatasource {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            let stage = self.stage;
            let source = datasource(&ctx, &agent, stage, &self.datasource).await?;
            let value = agent
                .datasource_get(ctx.api(), stage, &source.id)
                .await
                .map_err(|err| explain_unpublished(err, stage))?;
            Ok(Reply::json(value))
        })
    }
}

/// The item to add and its kind: `--artifact-type` narrows the lookup; without it a GUID is
/// looked up for its type and a name must match exactly one item of a source type.
async fn artifact(
    ctx: &Ctx,
    workspace: &str,
    artifact: &str,
    given: Option<&str>,
) -> Result<(String, &'static SourceKind)> {
    if let Some(given) = given {
        let kind = sources::by_item_type(given)
            .ok_or_else(|| Error::usage(format!("--artifact-type {given} is not a source type")))?;
        let id = ctx
            .item_id(workspace, artifact, Some(kind.item_type))
            .await?;
        return Ok((id, kind));
    }
    let candidates: Vec<Item> = if is_guid(artifact) {
        vec![items::get(ctx.api(), workspace, artifact.trim(), None).await?]
    } else {
        let all = items::list_all(ctx.api(), workspace, &ListFilter::default()).await?;
        let named = |exact: bool| -> Vec<Item> {
            all.iter()
                .filter(|item| {
                    let name = &item.display_name;
                    if exact {
                        name == artifact
                    } else {
                        name.eq_ignore_ascii_case(artifact)
                    }
                })
                .cloned()
                .collect()
        };
        let exact = named(true);
        if exact.is_empty() {
            named(false)
        } else {
            exact
        }
    };
    let typed: Vec<(String, &'static SourceKind)> = candidates
        .iter()
        .filter_map(|item| {
            let kind = sources::by_item_type(&item.item_type)?;
            Some((item.id.clone(), kind))
        })
        .collect();
    match typed.as_slice() {
        [one] => Ok(one.clone()),
        [] if candidates.is_empty() => Err(Error::not_found(format!(
            "no item named {artifact:?} in the workspace"
        ))
        .with_hint("give the item's id, or --artifact-workspace when it lives elsewhere")),
        [] => Err(Error::usage(format!(
            "{artifact:?} is a {}, which cannot be a data agent source",
            candidates[0].item_type
        ))
        .with_hint(format!("sources are: {}", ARTIFACT_TYPES.join(", ")))),
        many => {
            let listed: Vec<String> = many
                .iter()
                .map(|(id, kind)| format!("{id} ({})", kind.item_type))
                .collect();
            Err(Error::usage(format!(
                "{} items are named {artifact:?}: {}",
                many.len(),
                listed.join(", ")
            ))
            .with_hint("give --artifact-type or the item's id"))
        }
    }
}

typed_args! {
    /// `data-agent add-datasource`.
    struct AddDatasource {
        target: AgentTarget,
        artifact: String = ARTIFACT,
        artifact_workspace: Option<String> = ARTIFACT_WORKSPACE,
        artifact_type: Option<String> = ARTIFACT_TYPE,
        instructions: Option<String> = DATASOURCE_INSTRUCTIONS,
    }
}

impl Command for AddDatasource {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            let artifact_workspace = match &self.artifact_workspace {
                Some(text) => ctx.workspace_id(text).await?,
                None => agent.workspace.clone(),
            };
            let (item_id, kind) = artifact(
                &ctx,
                &artifact_workspace,
                &self.artifact,
                self.artifact_type.as_deref(),
            )
            .await?;
            let body = sources::create_body(kind, &item_id, &artifact_workspace);
            let created = agent.datasource_create(ctx.api(), body).await?;
            let recovered = created.recovered;
            let answer = sources::with_key_case(created.outcome.into_value(), false);
            let instructions = self.instructions.as_deref();
            let value = settle_new_datasource(&ctx, &agent, &item_id, answer, instructions).await?;
            let reply = Reply::json(value);
            Ok(if recovered {
                reply.with_note("the service's answer was lost; found the new datasource instead of adding it twice")
            } else {
                reply
            })
        })
    }
}

/// The new datasource as the service now holds it, with `instructions` set. A 201 carries
/// the datasource; a 202 (Staging_CreateDatasource's example answers with headers only) may
/// end in an operation without a result, so the datasource is then found by the item it
/// reads. The create request takes no instructions (`CreateDataAgentDatasourceRequest` has
/// `type` and a reference only), so they follow in a PATCH, which answers the datasource.
async fn settle_new_datasource(
    ctx: &Ctx,
    agent: &Agent,
    item_id: &str,
    answer: Value,
    instructions: Option<&str>,
) -> Result<Value> {
    let datasource = if answer.get("id").and_then(Value::as_str).is_some() {
        answer
    } else {
        agent
            .draft_datasource_reading(ctx.api(), item_id)
            .await?
            .ok_or_else(|| {
                Error::runtime("the service accepted the datasource but does not list it")
                    .with_hint(
                        "see the draft's datasources with `fabsh data-agent list-datasources`",
                    )
            })?
    };
    match instructions {
        Some(text) => {
            let id = datasource["id"]
                .as_str()
                .ok_or_else(|| Error::runtime("the service's new datasource has no id"))?;
            agent
                .datasource_patch(ctx.api(), id, json!({"instructions": text}))
                .await
        }
        None => Ok(datasource),
    }
}

typed_args! {
    /// `data-agent remove-datasource`.
    struct RemoveDatasource {
        target: AgentTarget,
        datasource: String = DATASOURCE,
    }
}

impl Command for RemoveDatasource {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            let source = datasource(&ctx, &agent, Stage::Staging, &self.datasource).await?;
            agent.datasource_delete(ctx.api(), &source.id).await?;
            Ok(Reply::json(source.value))
        })
    }
}

typed_args! {
    /// `data-agent update-datasource`.
    struct UpdateDatasource {
        target: AgentTarget,
        datasource: String = DATASOURCE,
        instructions: Option<String> = NEW_INSTRUCTIONS,
        description: Option<String> = NEW_DESCRIPTION,
    }
}

impl Command for UpdateDatasource {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let mut body = Map::new();
            for (given, key) in [
                (&self.instructions, "instructions"),
                (&self.description, "description"),
            ] {
                if let Some(text) = given {
                    body.insert(key.into(), json!(text));
                }
            }
            if body.is_empty() {
                return Err(Error::usage(
                    "nothing to update: give --instructions and/or --description",
                ));
            }
            let agent = self.target.resolve(&ctx).await?;
            let source = datasource(&ctx, &agent, Stage::Staging, &self.datasource).await?;
            agent
                .datasource_patch(ctx.api(), &source.id, Value::Object(body))
                .await?;
            Ok(Reply::empty())
        })
    }
}
