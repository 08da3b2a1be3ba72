//! How local Fabric answers a question put to a published agent, from the published
//! configuration only. With a language model configured for the server (`FABSH_LLM_*`), the
//! model writes SQL over the selected tables, guided by the instructions and the closest
//! few-shots. Without one, the few-shot whose question is closest (above a threshold) is
//! taken and its SQL run. Either way the SQL runs read-only on the source's tables and the
//! answer is made from the rows; when nothing fits, the answer says so plainly.
//!
//! The SQL runs only on data the asker may read: the service requires the asker, not only the
//! agent's author, to have access to the underlying data, and says so when it has not.
//!
//! A question may carry a conversation (as `fabsh data-agent query --thread-id` sends it):
//! the last paragraph is the question, earlier `Q:` lines are its context.

use super::access;
use super::discovery;
use super::nl2sql;
use super::sql_run::{self, MAX_COLUMNS, MAX_ROWS, ResultTable};
use crate::auth::Caller;
use crate::state::Shared;
use crate::tables::ItemData;
use axum::http::StatusCode;
use fabsh_model::agent::conversation::Conversation;
use fabsh_model::agent::definition::{DataSourceDoc, FewShotDoc, SourceFolder, StageDoc};
use fabsh_model::agent::sources;
use std::sync::Arc;

/// How close (0..1) a few-shot question must be to be used without a model.
pub(crate) const MATCH_THRESHOLD: f64 = 0.6;

/// What the agent answered.
#[derive(Debug, Clone, Default)]
pub(crate) struct Answer {
    /// The answer text.
    pub text: String,
    /// The SQL that was run (or refused), if any.
    pub sql: Option<String>,
    /// The rows, when a query ran.
    pub table: Option<ResultTable>,
    /// The datasource the query ran on.
    pub source: Option<String>,
    /// How the query was chosen: the few-shot question it came from, or the model.
    pub basis: String,
}

impl Answer {
    fn cannot(text: impl Into<String>) -> Answer {
        Answer {
            text: text.into(),
            ..Answer::default()
        }
    }
}

/// The few-shots of SQL sources, closest first, with their closeness.
pub(crate) fn ranked_examples<'a>(
    published: &'a StageDoc,
    conversation: &Conversation,
) -> Vec<(f64, &'a SourceFolder, &'a FewShotDoc)> {
    let mut ranked: Vec<(f64, &SourceFolder, &FewShotDoc)> = published
        .sources
        .iter()
        .flat_map(|source| source.fewshots.iter().flatten().map(move |fs| (source, fs)))
        .map(|(source, fs)| (conversation.closeness(&fs.question), source, fs))
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    ranked
}

/// Answers `text`, asked by `asker`, from the published configuration.
pub(crate) async fn answer(
    state: &Shared,
    asker: &Caller,
    published: &StageDoc,
    text: &str,
) -> Answer {
    let conversation = Conversation::parse(text);
    if conversation.question.is_empty() {
        return Answer::cannot("There is no question to answer.");
    }
    let ranked = ranked_examples(published, &conversation);
    if let Some(model) = &state.llm {
        return match nl2sql::write_query(model.as_ref(), published, &conversation, &ranked).await {
            Ok(nl2sql::Proposal::Query { source: None, .. }) => Answer::cannot(
                "I can't answer that: the model named no datasource, and the agent has no SQL datasource.",
            ),
            Ok(nl2sql::Proposal::Query {
                source: Some(source),
                sql,
            }) => {
                match published
                    .sources
                    .iter()
                    .find(|s| s.datasource.display_name == source)
                {
                    Some(found) => {
                        run_on(
                            state,
                            asker,
                            found,
                            &sql,
                            "written by the model".to_string(),
                        )
                        .await
                    }
                    None => Answer::cannot(format!(
                        "I can't answer that: the model chose a datasource ({source}) the agent does not have."
                    )),
                }
            }
            Ok(nl2sql::Proposal::Cannot(why)) => {
                Answer::cannot(format!("I can't answer that: {why}"))
            }
            Err(err) => Answer::cannot(format!(
                "I can't answer that right now: the model failed ({err})."
            )),
        };
    }
    let Some((score, source, example)) = ranked.first() else {
        return Answer::cannot(
            "I can't answer that: the published agent has no example questions, and no language model is configured to write a query.",
        );
    };
    if *score < MATCH_THRESHOLD {
        return Answer::cannot(format!(
            "I can't answer that: no example question of the published agent is close enough (the closest is \"{}\"), and no language model is configured to write a query.",
            example.question
        ));
    }
    // A few-shot stored without a query (the service allows one) is answered with an empty
    // statement.
    let sql = example.query.clone().unwrap_or_default();
    run_on(
        state,
        asker,
        source,
        &sql,
        format!("the example \"{}\"", example.question),
    )
    .await
}

/// Runs `sql` on a datasource, if the asker may read it, and words the result. The access
/// check, opening the data and the query all run within the server's query budget.
async fn run_on(
    state: &Shared,
    asker: &Caller,
    source: &SourceFolder,
    sql: &str,
    basis: String,
) -> Answer {
    let doc = &source.datasource;
    let mut answer = Answer {
        sql: Some(sql.to_string()),
        source: Some(doc.display_name.clone()),
        basis,
        ..Answer::default()
    };
    let kind = sources::by_definition_type(&doc.kind);
    if !kind.is_some_and(|k| k.sql) {
        let language = kind.map_or("this", |k| k.language);
        answer.text = format!(
            "I can't answer that here: the query is {language}, which is not executable locally (only SQL sources run in local Fabric)."
        );
        return answer;
    }
    let (task_state, asker, doc, sql) = (
        state.clone(),
        asker.clone(),
        Arc::clone(doc),
        sql.to_string(),
    );
    let outcome = state
        .queries
        .run(move |limits| {
            let (mut conn, tables) = open_readable(&task_state, &asker, &doc)?;
            sql_run::run(&mut conn, tables, &sql, limits)
        })
        .await;
    match outcome {
        Ok(table) => {
            answer.text = describe(&table);
            answer.table = Some(table);
        }
        Err(why) if why.contains("read-only") => {
            answer.text = format!("I won't run that: {why}.");
        }
        Err(why) => answer.text = format!("I can't answer that: {why}."),
    }
    answer
}

/// The datasource's data, opened for a query, with the tables it holds, if the asker may read
/// it; else why not.
fn open_readable<'a>(
    state: &'a Shared,
    asker: &Caller,
    doc: &DataSourceDoc,
) -> Result<ItemData<'a>, String> {
    if let Err(refusal) = access::check_source(state, asker, doc) {
        return Err(if refusal.status == StatusCode::FORBIDDEN {
            format!(
                "you do not have access to the datasource {} (reading it takes at least the Viewer role in its workspace)",
                doc.display_name
            )
        } else {
            refusal.message
        });
    }
    let data = state
        .db
        .read(|conn| discovery::open_data(conn, &state.tables, doc));
    match data {
        Ok(Some(data)) => Ok(data),
        Ok(None) => Err(format!(
            "the datasource {} holds no tables",
            doc.display_name
        )),
        Err(err) => Err(format!(
            "the datasource {} cannot be read: {}",
            doc.display_name, err.message
        )),
    }
}

/// The answer text for a result: the value alone for one cell, else a table.
pub(crate) fn describe(table: &ResultTable) -> String {
    if table.rows.is_empty() {
        return "The query returned no rows.".to_string();
    }
    if table.rows.len() == 1 && table.columns.len() == 1 {
        let cell = sql_run::cell_text(&table.rows[0][0]);
        // A NULL or empty cell (SUM over no rows, MAX of nothing) is no answer: say so in
        // words rather than "The answer is .".
        if cell.trim().is_empty() {
            return format!(
                "The query returned no value for {} (the result was empty).",
                table.columns[0]
            );
        }
        return format!("The answer is {cell}.");
    }
    let mut text = format!(
        "| {} |\n|{}\n",
        table.columns.join(" | "),
        "---|".repeat(table.columns.len())
    );
    for row in &table.rows {
        let cells: Vec<String> = row.iter().map(sql_run::cell_text).collect();
        text.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    if table.more_rows {
        text.push_str(&format!("(only the first {MAX_ROWS} rows are shown)\n"));
    }
    if table.more_columns {
        text.push_str(&format!(
            "(only the first {MAX_COLUMNS} columns are shown)\n"
        ));
    }
    text.trim_end().to_string()
}
