//! `data-agent validate-fewshots`: the few-shot examples of one datasource checked for
//! duplicates, conflicts, broken queries, unknown names and values the query misses; with a
//! judge model, also rated for clarity, mapping and relatedness.

use super::evaluate_flags::{JudgeFlags, LLM_API_VERSION, LLM_ENDPOINT, LLM_KEY, LLM_MODEL};
use super::{AGENT, AgentTarget, DATASOURCE, STAGE, datasource};
use crate::agent::fewshot_review::Issue;
use crate::agent::fewshot_review::{self, Example, JUDGE_CHECKS};
use crate::commands::common::WORKSPACE;
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example as UsageExample, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::agent::sql_endpoint;
use fabsh_api::agent::walk;
use fabsh_api::api::data_agents::Stage;
use fabsh_api::auth::model_tokens::model_client;
use fabsh_model::agent::element_path;
use fabsh_model::agent::fewshot_review::{
    FewshotReview, ListedFewshot, ReviewIssue, ReviewSummary, SkippedChecks,
};
use fabsh_model::agent::sql_check::KnownSchema;
use fabsh_model::item_types;
use serde_json::Value;

const NO_RUN: ArgSpec = ArgSpec::opt(
    "no-run",
    ArgKind::Bool,
    "Do not run the queries against the data (empty_result, query_failed)",
);
const MAX_ROWS: ArgSpec = ArgSpec::opt(
    "max-rows",
    ArgKind::Int,
    "Rows each query may return when run",
)
.range(1, 1_000_000)
.default("1000");
const QUERY_TIMEOUT: ArgSpec = ArgSpec::opt(
    "timeout",
    ArgKind::Int,
    "Seconds each query may take when run",
)
.range(1, 3600)
.default("60");

pub(crate) const VALIDATE_FEWSHOTS: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "validate-fewshots",
    summary: "Check a datasource's few-shot examples: duplicates, conflicts, broken queries, quality",
    about: "Always: exact and near-duplicate questions, conflicts (one question, different queries), empty or unparsable queries and names the datasource lacks (SQL sources), and literal values of the question missing from its query. For a lakehouse or warehouse, each read-only query also runs through the item's SQL endpoint (at most --max-rows rows, --timeout seconds each; --no-run skips this): a query that returns no rows or a single NULL is an empty_result, one that fails a query_failed with the error; either keeps the overall quality from good. With a judge (--llm-* or FABSH_LLM_*), each example is also rated for clarity, mapping and relatedness, ten per request; without one the output lists those checks as skipped. Output: {issues: [{fewshotIds, type, severity, explanation, suggestion}], summary, overallQuality} with overallQuality good, fair, poor, or unknown when the judge failed on some examples (summary.judgeFailures says why); a judge that failed also makes the exit code 1.",
    args: &[
        WORKSPACE,
        AGENT,
        DATASOURCE,
        STAGE,
        LLM_ENDPOINT,
        LLM_KEY,
        LLM_MODEL,
        LLM_API_VERSION,
        NO_RUN,
        MAX_ROWS,
        QUERY_TIMEOUT,
    ],
    traits: Traits::READ,
    columns: &["severity", "type", "questions", "suggestion"],
    examples: &[UsageExample {
        command: "data-agent validate-fewshots -w Demo --id \"Sales agent\" --datasource SalesLakehouse",
        about: "the deterministic checks",
    }],
    handler: Handler::Data(handler::<ValidateFewshots>),
};

/// The tables and columns of a SQL datasource, from its element tree in `stage`.
async fn schema_of(
    ctx: &Ctx,
    target: &AgentTarget,
    stage: Stage,
    source_id: &str,
) -> Result<KnownSchema> {
    let agent = target.resolve(ctx).await?;
    let nodes = walk::walk(ctx.api(), &agent, stage, source_id, |_| true).await?;
    let mut schema = KnownSchema::default();
    for table in nodes
        .iter()
        .filter(|n| element_path::is_table_like(&n.kind))
    {
        let prefix = format!("{}.", table.path);
        let columns = nodes
            .iter()
            .filter(|n| n.kind == "Column" && n.path.starts_with(&prefix))
            .map(|n| n.name.as_str());
        schema.add_table(&table.name, columns);
    }
    Ok(schema)
}

/// The (workspace id, item id) a configuration-API datasource reads.
fn referenced(datasource: &Value, agent_workspace: &str) -> Option<(String, String)> {
    let item = fabsh_model::agent::sources::referenced_item(datasource)?.to_string();
    let workspace = [
        "itemReference",
        "lakehouseReference",
        "ItemReference",
        "LakehouseReference",
    ]
    .iter()
    .find_map(|key| {
        let reference = datasource.get(*key)?;
        reference
            .get("workspaceId")
            .or_else(|| reference.get("WorkspaceId"))?
            .as_str()
    })
    .unwrap_or(agent_workspace)
    .to_string();
    Some((workspace, item))
}

/// Runs every read-only query once against the data (`--max-rows`, `--timeout` each): an
/// issue for each that fails or returns nothing. Queries run one after another: a few-shot
/// set is small, and the endpoint's own concurrency is the service's to spend.
async fn run_queries(
    ctx: &Ctx,
    command: &ValidateFewshots,
    workspace: &str,
    item: &str,
    examples: &[Example],
) -> Vec<Issue> {
    use fabsh_model::sql::{StatementKind, statement_kind};
    let max_rows = command.max_rows.unwrap_or(1000).max(1) as usize;
    let timeout = std::time::Duration::from_secs(command.timeout.unwrap_or(60).max(1) as u64);
    let mut issues = Vec::new();
    for example in examples {
        // An empty, unparsable or writing query is the offline checks' to report.
        if statement_kind(&example.query) != Ok(StatementKind::Reads) {
            continue;
        }
        let ids = vec![example.id.clone()];
        match sql_endpoint::execute(ctx.api(), workspace, item, &example.query, false, timeout)
            .await
        {
            Ok(mut set) => {
                set.truncate(max_rows);
                if set.is_empty_answer() {
                    issues.push(Issue {
                        fewshot_ids: ids,
                        kind: "empty_result",
                        severity: "high",
                        explanation: "the query returns no rows (or a single NULL) on the data: an agent that follows it answers with nothing".into(),
                        suggestion: "check the literal values against the data (case, spelling, dates) with `fabsh sql query`".into(),
                    });
                }
            }
            Err(err) => issues.push(Issue {
                fewshot_ids: ids,
                kind: "query_failed",
                severity: "high",
                explanation: format!("the query fails on the data: {}", err.message),
                suggestion: "fix the query; `fabsh sql query` runs it as the agent would".into(),
            }),
        }
    }
    issues
}

typed_args! {
    /// `data-agent validate-fewshots`.
    struct ValidateFewshots {
        target: AgentTarget,
        datasource: String = DATASOURCE,
        stage: Stage = STAGE,
        judge: JudgeFlags,
        no_run: bool = NO_RUN,
        max_rows: Option<i64> = MAX_ROWS,
        timeout: Option<i64> = QUERY_TIMEOUT,
    }
}

impl Command for ValidateFewshots {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let model = self
                .judge
                .config()?
                .map(|config| model_client(config, ctx.settings()))
                .transpose()?;
            let agent = self.target.resolve(&ctx).await?;
            let stage = self.stage;
            let source = datasource(&ctx, &agent, stage, &self.datasource).await?;
            let listed = ctx.api().all(agent.fewshots_req(stage, &source.id)).await?;
            let examples = listed
                .into_iter()
                .map(|listed| serde_json::from_value::<ListedFewshot>(listed).map(Example::from))
                .collect::<serde_json::Result<Vec<Example>>>()?;
            let sql = source.kind.is_some_and(|kind| kind.sql);
            let schema = if sql {
                Some(schema_of(&ctx, &self.target, stage, &source.id).await?)
            } else {
                None
            };
            let mut issues = fewshot_review::check(&examples, schema.as_ref());
            let names = |checks: &[&str]| {
                checks
                    .iter()
                    .map(std::string::ToString::to_string)
                    .collect()
            };
            let mut summary = ReviewSummary {
                datasource: source.name.clone(),
                fewshots: examples.len(),
                checks: names(&[
                    "duplicate",
                    "near_duplicate",
                    "conflict",
                    "invalid_query",
                    "unknown_name",
                    "literal_mismatch",
                ]),
                notes: None,
                judge: None,
                judge_failures: None,
                skipped: None,
                issues: 0,
            };
            let runnable = sql
                && source.kind.is_some_and(|kind| {
                    kind.item_type == item_types::LAKEHOUSE
                        || kind.item_type == item_types::WAREHOUSE
                });
            if runnable && !self.no_run {
                let item = referenced(&source.value, &agent.workspace);
                match item {
                    Some((workspace, item)) => {
                        issues.extend(run_queries(&ctx, &self, &workspace, &item, &examples).await);
                        summary
                            .checks
                            .extend(names(&["empty_result", "query_failed"]));
                    }
                    None => {
                        summary.notes = Some(names(&[
                            "the queries were not run: the datasource names no item",
                        ]));
                    }
                }
            }
            if !sql {
                summary.notes = Some(names(&[
                    "queries are checked only for being empty: the source's language is not SQL",
                ]));
            }
            let mut judge_failures = 0;
            match &model {
                Some(model) if !examples.is_empty() => {
                    let (judged, failures) = fewshot_review::judge(model, &examples).await;
                    issues.extend(judged);
                    summary.judge = Some(model.config().label());
                    summary.checks.extend(names(JUDGE_CHECKS));
                    judge_failures = failures.len();
                    if !failures.is_empty() {
                        summary.judge_failures = Some(failures);
                    }
                }
                _ => {
                    let reason = if model.is_some() {
                        "there are no examples"
                    } else {
                        "no judge model: give --llm-endpoint (or set FABSH_LLM_ENDPOINT)"
                    };
                    summary.skipped = Some(SkippedChecks {
                        checks: names(JUDGE_CHECKS),
                        reason: reason.to_string(),
                    });
                }
            }
            summary.issues = issues.len();
            let overall =
                fewshot_review::overall_quality(&issues, examples.len(), judge_failures > 0);
            // A person reads the questions, not the few-shot ids, to know which examples to fix.
            let question_of = |id: &String| {
                examples
                    .iter()
                    .find(|example| &example.id == id)
                    .map(|example| example.question.clone())
            };
            let issues: Vec<ReviewIssue> = issues
                .iter()
                .map(|issue| {
                    issue.reviewed(issue.fewshot_ids.iter().filter_map(question_of).collect())
                })
                .collect();
            let note = format!(
                "{} issue(s) in {} example(s); overall quality {}",
                issues.len(),
                examples.len(),
                overall.name()
            );
            let review = FewshotReview {
                issues,
                summary,
                overall_quality: overall,
            };
            let reply = Reply::json(serde_json::to_value(review)?)
                .with_table_rows("issues")
                .with_note(note);
            if judge_failures == 0 {
                return Ok(reply);
            }
            Ok(reply.with_failure(
            Error::runtime(format!(
                "the judge failed on {judge_failures} request(s): some examples were not reviewed"
            ))
            .with_hint(
                "summary.judgeFailures says why; check --llm-endpoint, --llm-model and --llm-key",
            ),
        ))
        })
    }
}
