//! The `data-agent` group: the agent item, its configuration (instructions, datasources,
//! schema elements, few-shots), its definition, publish and reset. The flags every command
//! shares and the lookups of agents and datasources by name live here.

mod basics;
mod config;
mod datasources;
mod definition;
mod elements;
mod evaluate;
pub(crate) mod evaluate_flags;
pub(crate) mod evaluation_record;
mod evaluation_reference;
mod evaluation_subject;
mod evaluations;
mod fewshot_upload;
mod fewshots;
mod publish;
mod query;
mod validate_fewshots;

/// The judge flags, for a front end that sets the judge once (`mcp serve`).
pub use evaluate_flags::{JudgeFlags, LLM_API_VERSION, LLM_ENDPOINT, LLM_KEY, LLM_MODEL};
pub use query::PUBLISHED_URL;

use super::args::Args;
use super::common::WORKSPACE;
use super::spec::{ArgKind, ArgSpec, CommandSpec};
use super::typed::{FromArg, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use fabsh_api::api::data_agents::{Agent, Stage};
use fabsh_api::api::resolve::is_guid;
use fabsh_api::api::stale;
use fabsh_model::agent::sources::{self, SourceKind};
use fabsh_model::item_types;
use fabsh_model::wire::Datasource;
use serde_json::Value;

/// The data-agent commands, in help order.
pub static COMMANDS: &[CommandSpec] = &[
    basics::LIST,
    basics::SHOW,
    basics::CREATE,
    basics::UPDATE,
    basics::DELETE,
    config::GET_CONFIG,
    config::UPDATE_CONFIG,
    datasources::LIST_DATASOURCES,
    datasources::SHOW_DATASOURCE,
    datasources::ADD_DATASOURCE,
    datasources::REMOVE_DATASOURCE,
    datasources::UPDATE_DATASOURCE,
    elements::LIST_ELEMENTS,
    elements::SELECT_TABLES,
    elements::DESCRIBE_ELEMENT,
    elements::DELETE_ELEMENT,
    fewshots::LIST_FEWSHOTS,
    fewshots::SHOW_FEWSHOT,
    fewshots::ADD_FEWSHOT,
    fewshots::UPDATE_FEWSHOT,
    fewshots::REMOVE_FEWSHOT,
    fewshots::CLEAR_FEWSHOTS,
    fewshot_upload::UPLOAD_FEWSHOTS,
    definition::GET_DEFINITION,
    definition::UPDATE_DEFINITION,
    publish::PUBLISH,
    publish::RESET,
    query::QUERY,
    query::MCP_URL,
    evaluate::EVALUATE,
    evaluations::LIST_EVALUATIONS,
    evaluations::SHOW_EVALUATION,
    evaluations::COMPARE_EVALUATIONS,
    evaluations::REPORT_EVALUATION,
    evaluations::DELETE_EVALUATION,
    validate_fewshots::VALIDATE_FEWSHOTS,
];

/// `--id`: the data agent. SPEC §4.2 types `--workspace` and `--id` as uuid on a few
/// commands (`reset`, `update-datasource`, ...); every command takes an id or a name alike,
/// through one resolver, so the same flags work the same way everywhere.
pub const AGENT: ArgSpec = ArgSpec::req("id", ArgKind::Ref, "Data agent id or display name");
/// `--stage`: which configuration a read shows.
pub const STAGE: ArgSpec = ArgSpec::opt(
    "stage",
    ArgKind::Enum(&["staging", "published"]),
    "Read the draft (staging) or the published configuration",
)
.default("staging");
/// `--datasource`: a datasource of the agent.
pub const DATASOURCE: ArgSpec = ArgSpec::req(
    "datasource",
    ArgKind::Ref,
    "Datasource id or display name (or the id of the item it reads)",
);

typed_args! {
    /// `-w` and `--id` (or the `WORKSPACE/AGENT` that stands for them): one data agent, by
    /// id or name, not yet resolved.
    pub(crate) struct AgentTarget {
        workspace: String = WORKSPACE,
        agent: String = AGENT,
    }
}

impl AgentTarget {
    /// The agent's workspace and item ids.
    pub(crate) async fn resolve(&self, ctx: &Ctx) -> Result<Agent> {
        let workspace = ctx.workspace_id(&self.workspace).await?;
        let id = ctx
            .item_id(&workspace, &self.agent, Some(item_types::DATA_AGENT))
            .await?;
        Ok(Agent { workspace, id })
    }
}

/// The stage `--stage` asks for.
impl FromArg for Stage {
    fn read(args: &Args, spec: &ArgSpec) -> Result<Self> {
        Ok(Stage::parse(args.opt_str(spec.long)))
    }
}

/// A datasource found by id, name or referenced item.
#[derive(Debug, Clone)]
pub struct Source {
    /// Its configuration-API id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Its kind, when the service says.
    pub kind: Option<&'static SourceKind>,
    /// The datasource as listed.
    pub value: Value,
}

/// The datasource `wanted` names in `list`: by id, then display name (exactly, then ignoring
/// case), then the id of the item it reads.
fn find_source<'a>(list: &'a [Value], wanted: &str) -> Option<&'a Value> {
    let text = |ds: &Value, key: &str| ds.get(key).and_then(Value::as_str).map(str::to_string);
    list.iter()
        .find(|ds| {
            is_guid(wanted) && text(ds, "id").is_some_and(|id| id.eq_ignore_ascii_case(wanted))
        })
        .or_else(|| {
            list.iter()
                .find(|ds| text(ds, "displayName").as_deref() == Some(wanted))
        })
        .or_else(|| {
            list.iter().find(|ds| {
                text(ds, "displayName").is_some_and(|name| name.eq_ignore_ascii_case(wanted))
            })
        })
        .or_else(|| {
            list.iter().find(|ds| {
                sources::referenced_item(ds).is_some_and(|id| id.eq_ignore_ascii_case(wanted))
            })
        })
}

/// The datasource `wanted` (`--datasource`) names in `stage`. The list is fetched once per
/// process and agent (many calls at once, as in a few-shot upload, share it), and again when
/// the name is not in the cached copy.
pub async fn datasource(ctx: &Ctx, agent: &Agent, stage: Stage, wanted: &str) -> Result<Source> {
    let wanted = wanted.trim();
    let key = stale::datasources_key(&agent.workspace, &agent.id, stage.name());
    let fetch = || ctx.api().all(agent.datasources_req(stage));
    let all = ctx
        .resolver()
        .cached_list(key, fetch, |list| find_source(list, wanted).is_some())
        .await
        .map_err(|err| explain_unpublished(err, stage))?;
    let text = |ds: &Value, key: &str| ds.get(key).and_then(Value::as_str).map(str::to_string);
    let Some(found) = find_source(&all, wanted) else {
        let names: Vec<String> = all
            .iter()
            .filter_map(|ds| text(ds, "displayName"))
            .collect();
        let err = Error::not_found(format!(
            "the {} configuration has no datasource {wanted:?}",
            stage.name()
        ));
        return Err(if names.is_empty() {
            err.with_hint("add one with `fabsh data-agent add-datasource`")
        } else {
            err.with_hint(format!("its datasources: {}", names.join(", ")))
        });
    };
    // Its id addresses it in every later request: a datasource listed without one (or a name)
    // is refused, not sent on as an empty id.
    let listed: Datasource = serde_json::from_value(found.clone()).map_err(|err| {
        Error::runtime("the service answered a datasource in an unexpected shape").with_cause(err)
    })?;
    Ok(Source {
        id: listed.id,
        name: listed.display_name,
        kind: sources::of_wire(found),
        value: found.clone(),
    })
}

/// The datasource `wanted` (`--datasource`) names in `stage`, and what `read` gives for its
/// id. When `--datasource` is an id, `read` runs alongside the lookup instead of after it, saving a
/// round trip; should the id turn out to be that of the item a datasource reads, `read` runs
/// again with the datasource's own id. So `read` must only read. Its result is returned as
/// is, for the caller to weigh after its own checks of the source.
pub async fn with_datasource<T, F, Fut>(
    ctx: &Ctx,
    agent: &Agent,
    stage: Stage,
    wanted: &str,
    read: F,
) -> Result<(Source, Result<T>)>
where
    F: Fn(String) -> Fut,
    Fut: Future<Output = Result<T>>,
{
    let wanted = wanted.trim();
    if !is_guid(wanted) {
        let source = datasource(ctx, agent, stage, wanted).await?;
        let value = read(source.id.clone()).await;
        return Ok((source, value));
    }
    let (source, early) = tokio::join!(
        datasource(ctx, agent, stage, wanted),
        read(wanted.to_string())
    );
    let source = source?;
    if source.id.eq_ignore_ascii_case(wanted) {
        Ok((source, early))
    } else {
        let value = read(source.id.clone()).await;
        Ok((source, value))
    }
}

/// Refuses few-shot work on sources that take none, before anything is sent.
pub fn check_fewshots_supported(source: &Source) -> Result<()> {
    match source.kind.and_then(sources::fewshots_refusal) {
        Some(reason) => Err(Error::usage(format!("{reason} ({:?})", source.name))
            .with_hint("few-shot examples work with SQL, KQL and graph sources")),
        None => Ok(()),
    }
}

/// The service's answer to a read of the published stage of a never-published agent,
/// turned into a plain "not published" error.
pub fn explain_unpublished(err: Error, stage: Stage) -> Error {
    if stage == Stage::Published && err.has_code("DataAgentNotPublished") {
        Error::not_found("the data agent has not been published yet")
            .with_code("DataAgentNotPublished")
            .with_hint("publish it with `fabsh data-agent publish`, or read --stage staging")
    } else {
        err
    }
}
