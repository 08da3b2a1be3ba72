//! Reference queries of an evaluation (`expected_sql`): each distinct query runs once per
//! evaluation, while the agent is being asked (its result is needed only to grade), on the
//! item the question names (`expected_item`) or the agent's first datasource, and its result
//! set becomes the expected answer of every repeat. A query that fails or returns nothing
//! makes its question an error with the reason.

use crate::commands::sql::item_id;
use crate::context::Ctx;
use crate::error::Result;
use fabsh_api::agent::sql_endpoint;
use fabsh_api::api::data_agents::{Agent, Stage};
use fabsh_model::agent::evaluation::StdlibQuestion;
use fabsh_model::agent::grade_result::result_text;
use fabsh_model::agent::questions::Question;
use fabsh_model::agent::sources;
use fabsh_model::sql::ResultSet;
use futures::StreamExt;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

/// The rule of a run whose question has no expected answer: its reference query failed or
/// returned nothing (the stdlib's `evaluate::grade_runs` names it so).
pub(crate) const REFERENCE_FAILED: &str = "reference_failed";

/// Rows a reference result keeps: more cannot be an answer anyone checks by eye.
const REFERENCE_MAX_ROWS: usize = 1000;

/// The outcome of one reference query.
#[derive(Debug, Clone)]
pub(crate) enum Reference {
    /// Its result set.
    Rows(ResultSet),
    /// Why it gave no expected answer.
    Failed(String),
}

/// The item (workspace id, item id) a question's reference query runs on.
async fn target_of(
    ctx: &Ctx,
    agent: &Agent,
    question: &Question,
    first: &mut Option<Option<(String, String)>>,
) -> std::result::Result<(String, String), String> {
    if let Some(item) = &question.expected_item {
        return item_id(ctx, &agent.workspace, item)
            .await
            .map(|id| (agent.workspace.clone(), id))
            .map_err(|err| format!("expected_item {item:?}: {}", err.message));
    }
    if first.is_none() {
        *first = Some(first_datasource(ctx, agent).await);
    }
    first.clone().flatten().ok_or_else(|| {
        "the agent has no datasource to run expected_sql on; name one with expected_item"
            .to_string()
    })
}

/// The published agent's first datasource, as (workspace id, item id).
async fn first_datasource(ctx: &Ctx, agent: &Agent) -> Option<(String, String)> {
    let listed = ctx
        .api()
        .all(agent.datasources_req(Stage::Published))
        .await
        .ok()?;
    let first = listed.first()?;
    let item = sources::referenced_item(first)?.to_string();
    let workspace = ["itemReference", "lakehouseReference"]
        .iter()
        .find_map(|key| first.get(*key)?.get("workspaceId")?.as_str())
        .unwrap_or(&agent.workspace)
        .to_string();
    Some((workspace, item))
}

/// Reference queries in flight at once for an evaluation asking `concurrency` runs at once.
/// They run beside the questions, so they get a pool of their own, smaller than it (half, at
/// most [`MAX_POOL`]): the requests in flight stay within one and a half times what
/// `--concurrency` asked for, and the endpoint's own query slots are not all taken by
/// references. A quarter was too small: with three repeats a reference is a quarter of the
/// requests, and at a quarter of the requests in flight the references ended after the
/// questions, and grading waited.
pub(crate) fn pool_size(concurrency: usize) -> usize {
    concurrency.div_ceil(2).clamp(1, MAX_POOL)
}

/// The most reference queries in flight at once.
const MAX_POOL: usize = 4;

/// Runs the reference query of every question that has one, each distinct (item, query)
/// once, `concurrency` at a time. Questions without one get `None`.
pub(crate) async fn run_all(
    ctx: &Ctx,
    agent: &Agent,
    questions: &[Question],
    concurrency: usize,
    timeout: Duration,
) -> Result<Vec<Option<Reference>>> {
    let mut first = None;
    let mut targets = Vec::with_capacity(questions.len());
    for question in questions {
        let target = match &question.expected_sql {
            None => None,
            Some(_) => Some(target_of(ctx, agent, question, &mut first).await),
        };
        targets.push(target);
    }
    let mut distinct: Vec<((String, String), String)> = Vec::new();
    let mut seen = HashSet::new();
    for (question, target) in questions.iter().zip(&targets) {
        if let (Some(sql), Some(Ok(item))) = (&question.expected_sql, target)
            && seen.insert((item, sql))
        {
            distinct.push((item.clone(), sql.clone()));
        }
    }
    let outcomes: HashMap<((String, String), String), Reference> = futures::stream::iter(distinct)
        .map(|key| async move {
            let ((workspace, item), sql) = &key;
            let outcome =
                sql_endpoint::execute(ctx.api(), workspace, item, sql, false, timeout).await;
            let reference = match outcome {
                Err(err) => {
                    Reference::Failed(format!("the reference query failed: {}", err.message))
                }
                Ok(set) if set.is_empty_answer() => Reference::Failed(
                    "the reference query returned nothing (no rows, or a single NULL)".into(),
                ),
                Ok(mut set) => {
                    set.truncate(REFERENCE_MAX_ROWS);
                    Reference::Rows(set)
                }
            };
            (key, reference)
        })
        .buffer_unordered(concurrency.max(1))
        .collect()
        .await;
    Ok(questions
        .iter()
        .zip(targets)
        .map(|(question, target)| {
            let sql = question.expected_sql.as_ref()?;
            Some(match target? {
                Err(why) => Reference::Failed(why),
                Ok(item) => outcomes
                    .get(&(item, sql.clone()))
                    .cloned()
                    .unwrap_or_else(|| Reference::Failed("the reference query did not run".into())),
            })
        })
        .collect())
}

/// A question as the stdlib takes it, with its reference: `expectedSql`, and either
/// `expectedResult` (the result set; `expected` becomes its text unless the file gave one)
/// and `ordered`, or `referenceError`.
pub(crate) fn stdlib_question(
    question: &Question,
    reference: Option<&Reference>,
) -> StdlibQuestion {
    let mut out = StdlibQuestion::of(question);
    let Some(reference) = reference else {
        return out;
    };
    out.expected_sql.clone_from(&question.expected_sql);
    match reference {
        Reference::Rows(set) => {
            if question.expected.is_none() {
                out.expected = Some(result_text(set));
            }
            out.expected_result = Some(set.clone());
            out.ordered = Some(question.ordered);
        }
        Reference::Failed(why) => out.reference_error = Some(why.clone()),
    }
    out
}
