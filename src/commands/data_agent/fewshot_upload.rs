//! `data-agent upload-fewshots`: every example of a JSON or CSV file, checked row by row
//! before anything is sent, then uploaded concurrently with one outcome per row.

use super::{AGENT, DATASOURCE, agent, check_fewshots_supported, datasource};
use crate::agent::fewshot_file::{self, FewShotRow};
use crate::api::data_agents::{Agent, Stage};
use crate::commands::args::Args;
use crate::commands::common::WORKSPACE;
use crate::commands::spec::{ArgKind, ArgSpec, CommandSpec, Example, HandlerFuture, Traits};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use futures::StreamExt;
use serde_json::{Value, json};

/// Uploads in flight at once.
pub const UPLOAD_CONCURRENCY: usize = 8;

pub const UPLOAD_FEWSHOTS: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "upload-fewshots",
    summary: "Upload few-shot examples from a JSON or CSV file; one outcome per row",
    about: "The file is a JSON array of {\"question\", \"query\"} objects or CSV with the columns question,query. Every row is checked first: if any is malformed, each problem is reported with its line number and nothing is uploaded. Rows the agent already has are left alone; a known question with a new query is updated. Exits 5 when some rows failed.",
    args: &[
        WORKSPACE,
        AGENT,
        DATASOURCE,
        ArgSpec::req("file", ArgKind::File, "JSON or CSV file of examples"),
    ],
    traits: Traits::MUTATE,
    columns: &["line", "question", "outcome", "id", "error.message"],
    examples: &[Example {
        command: "data-agent upload-fewshots -w Demo --id \"Sales agent\" --datasource SalesLakehouse --file examples.csv",
        about: "from CSV",
    }],
    handler: upload_fewshots,
};

/// The rows of `--file`, or a usage error listing every malformed row by line.
pub fn read_rows(args: &Args) -> Result<Vec<FewShotRow>> {
    let file = args
        .file("file")
        .ok_or_else(|| Error::usage("--file is required"))?;
    fewshot_file::parse(&file.file_name(), &file.bytes).map_err(|problems| {
        let count = problems.len();
        let mut err = Error::usage(format!(
            "{}: {count} malformed row{}; nothing was uploaded",
            file.path.display(),
            if count == 1 { "" } else { "s" }
        ));
        for problem in problems {
            err = err.with_cause(problem);
        }
        err.with_hint("each row needs a non-empty question and query")
    })
}

/// What to do with one row, given what the datasource already has.
enum Plan {
    Add,
    Update(String),
    Keep(String),
}

fn key(text: &str) -> String {
    text.trim().to_lowercase()
}

fn plan(row: &FewShotRow, existing: &[Value]) -> Plan {
    let same_question = existing.iter().find(|fs| {
        fs["question"]
            .as_str()
            .is_some_and(|q| key(q) == key(&row.question))
    });
    match same_question {
        None => Plan::Add,
        Some(fs) => {
            let id = fs["id"].as_str().unwrap_or_default().to_string();
            if fs["query"].as_str().map(str::trim) == Some(row.query.as_str()) {
                Plan::Keep(id)
            } else {
                Plan::Update(id)
            }
        }
    }
}

async fn run_row(
    ctx: &Ctx,
    agent: &Agent,
    datasource: &str,
    row: &FewShotRow,
    plan: Plan,
) -> Value {
    let api = ctx.api();
    let outcome = match plan {
        Plan::Keep(id) => Ok(("unchanged", id)),
        Plan::Add => agent
            .fewshot_create(api, datasource, &row.question, &row.query)
            .await
            .map(|created| {
                (
                    "added",
                    created["id"].as_str().unwrap_or_default().to_string(),
                )
            }),
        Plan::Update(id) => agent
            .fewshot_patch(api, datasource, &id, json!({"query": row.query}))
            .await
            .map(|_| ("updated", id)),
    };
    match outcome {
        Ok((outcome, id)) => json!({
            "line": row.line, "question": row.question, "outcome": outcome, "id": id, "error": null,
        }),
        Err(err) => json!({
            "line": row.line, "question": row.question, "outcome": "failed", "id": null,
            "error": err.to_json(),
        }),
    }
}

fn upload_fewshots(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let rows = read_rows(&args)?;
        let agent = agent(&ctx, &args).await?;
        let source = datasource(&ctx, &agent, Stage::Staging, &args).await?;
        check_fewshots_supported(&source)?;
        let existing = ctx
            .api()
            .all(agent.fewshots_req(Stage::Staging, &source.id))
            .await?;
        // Collected first: a lazy map of borrowing closures trips the compiler's Send check.
        let calls: Vec<_> = rows
            .iter()
            .map(|row| run_row(&ctx, &agent, &source.id, row, plan(row, &existing)))
            .collect();
        let results: Vec<Value> = futures::stream::iter(calls)
            .buffered(UPLOAD_CONCURRENCY)
            .collect()
            .await;
        Ok(upload_reply(results))
    })
}

/// `{summary, results}` with a partial failure (exit 5) when any row failed.
fn upload_reply(results: Vec<Value>) -> Reply {
    let count = |outcome: &str| results.iter().filter(|r| r["outcome"] == outcome).count();
    let (added, updated, unchanged, failed) = (
        count("added"),
        count("updated"),
        count("unchanged"),
        count("failed"),
    );
    let total = results.len();
    let reply = Reply::json(json!({
        "summary": {"total": total, "added": added, "updated": updated, "unchanged": unchanged, "failed": failed},
        "results": results,
    }))
    .with_note(format!(
        "{added} added, {updated} updated, {unchanged} unchanged, {failed} failed"
    ));
    if failed > 0 {
        reply.with_failure(
            Error::new(
                ErrorKind::Partial,
                format!("{failed} of {total} rows failed"),
            )
            .with_hint("the results show each failed row's error; run again to retry them"),
        )
    } else {
        reply
    }
}
