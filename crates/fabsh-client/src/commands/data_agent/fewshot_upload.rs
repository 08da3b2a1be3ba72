//! `data-agent upload-fewshots`: every example of a JSON or CSV file, checked row by row
//! before anything is sent, then uploaded concurrently with one outcome per row.

use super::{AGENT, AgentTarget, DATASOURCE, check_fewshots_supported, with_datasource};
use crate::commands::args::FileArg;
use crate::commands::common::WORKSPACE;
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use crate::stdlib;
use fabsh_api::api::data_agents::Stage;
use fabsh_model::agent::fewshot_file::{self, FewShotRow};
use serde_json::{Value, json};

/// Uploads in flight at once.
pub(super) const UPLOAD_CONCURRENCY: usize = 8;

const FILE: ArgSpec = ArgSpec::req("file", ArgKind::File, "JSON or CSV file of examples");

pub(super) const UPLOAD_FEWSHOTS: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "upload-fewshots",
    summary: "Upload few-shot examples from a JSON or CSV file; one outcome per row",
    about: "The file is a JSON array of {\"question\", \"query\"} objects or CSV with the columns question,query; the query may also be named answer, sql, kql, dax or gql (the result says which was read). Every row is checked first: if any is malformed, each problem is reported with its line number and nothing is uploaded. Rows the agent already has are left alone; a known question with a new query is updated. Exits 5 when some rows failed. Runs the stdlib function fewshots::upload.",
    args: &[WORKSPACE, AGENT, DATASOURCE, FILE],
    traits: Traits::MUTATE,
    columns: &["line", "question", "outcome", "id", "error.message"],
    examples: &[Example {
        command: "data-agent upload-fewshots -w Demo --id \"Sales agent\" --datasource SalesLakehouse --file examples.csv",
        about: "from CSV",
    }],
    handler: Handler::Data(handler::<UploadFewshots>),
};

typed_args! {
    /// `data-agent upload-fewshots`.
    struct UploadFewshots {
        target: AgentTarget,
        datasource: String = DATASOURCE,
        file: Option<FileArg> = FILE,
    }
}

/// The rows of `--file`, or a usage error listing every malformed row by line.
pub(super) fn read_rows(file: Option<&FileArg>) -> Result<Vec<FewShotRow>> {
    let file = file.ok_or_else(|| Error::usage("--file is required"))?;
    Ok(fewshot_file::read_checked(&file.path, &file.bytes)?)
}

impl Command for UploadFewshots {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let rows = read_rows(self.file.as_ref())?;
            let count = rows.len();
            let column_note = fewshot_file::query_columns_note(&rows);
            // The script engine is built while the agent and its examples are looked up.
            let stdlib = stdlib::prepare(&ctx)?;
            let agent = self.target.resolve(&ctx).await?;
            // The draft's examples, to compare the rows with, are listed with the lookup.
            let list_existing = |id: String| {
                let (agent, api) = (&agent, ctx.api());
                async move { api.all(agent.fewshots_req(Stage::Staging, &id)).await }
            };
            let (source, existing) = with_datasource(
                &ctx,
                &agent,
                Stage::Staging,
                &self.datasource,
                list_existing,
            )
            .await?;
            check_fewshots_supported(&source)?;
            let existing = existing?;
            let rows: Vec<Value> = rows
                .into_iter()
                .map(|row| json!({"line": row.line, "question": row.question, "query": row.query}))
                .collect();
            let options = json!({"concurrency": UPLOAD_CONCURRENCY, "progress": "uploading few-shots", "existing": existing});
            let outcome = stdlib
                .call(
                    "fewshots::upload",
                    vec![
                        json!(agent.workspace),
                        json!(agent.id),
                        json!(source.id),
                        Value::Array(rows),
                        options,
                    ],
                )
                .await?;
            let Some(results) = outcome["results"].as_array() else {
                return Err(Error::runtime(
                    "the stdlib's few-shot upload returned no results",
                ));
            };
            let results: Vec<Value> = results
            .iter()
            .map(|row| {
                json!({
                    "line": row["line"],
                    "question": row["question"],
                    "outcome": row["outcome"],
                    "id": row["id"],
                    // Through Rhai the error map's keys come back sorted; put them back.
                    "error": if row["error"].is_object() { Error::from_json(&row["error"]).to_json() } else { Value::Null },
                })
            })
            .collect();
            if results.len() != count {
                return Err(Error::runtime(format!(
                    "the stdlib returned {} results for {count} rows",
                    results.len()
                )));
            }
            let reply = upload_reply(results);
            Ok(match column_note {
                Some(note) => reply.with_note(note),
                None => reply,
            })
        })
    }
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
    .with_table_rows("results")
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
