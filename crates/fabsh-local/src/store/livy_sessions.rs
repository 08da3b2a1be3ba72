//! The runs that are Livy sessions (swagger `LivySessions_*`): local Fabric starts no Spark,
//! so a session is read off the job store. A run of a notebook, a lakehouse (table
//! maintenance) or a Spark job definition is one session, named by its root activity id;
//! runs the scheduler skipped (`deduped`) started no session, and neither did a notebook run
//! asked to compute on Jupyter or a data warehouse (its `executionData.compute`).

use super::jobs::{RUN_COLUMNS, Run, run_from_row};
use rusqlite::{Connection, OptionalExtension, params};

/// The item types whose runs are Spark sessions (swagger `LivySessionItemType`).
pub(crate) const SESSION_ITEM_TYPES: &[&str] = &["Notebook", "Lakehouse", "SparkJobDefinition"];

/// A run with the item it ran.
#[derive(Debug, Clone)]
pub(crate) struct SessionRun {
    pub run: Run,
    pub item_type: String,
    pub item_name: String,
    pub workspace_id: String,
}

/// Whose sessions a list holds.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scope<'a> {
    Item(&'a str),
    Workspace(&'a str),
}

/// The runs joined with their live items, those that are sessions only; `?1` is the scope.
fn sessions_sql(scope: Scope<'_>, tail: &str) -> String {
    let scoped = match scope {
        Scope::Item(_) => "i.id = ?1",
        Scope::Workspace(_) => "i.workspace_id = ?1",
    };
    format!(
        "SELECT {RUN_COLUMNS}, item_type, item_name, workspace_id FROM (
             SELECT j.*, i.type AS item_type, i.display_name AS item_name,
                    i.workspace_id AS workspace_id
               FROM job_instances j JOIN items i ON i.id = j.item_id
              WHERE {scoped} AND i.deleted_at IS NULL AND j.deduped = 0
                AND i.type IN ('Notebook', 'Lakehouse', 'SparkJobDefinition')
                AND coalesce(json_extract(j.request, '$.executionData.compute'), 'Spark')
                    = 'Spark')
          {tail}"
    )
}

fn session_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRun> {
    Ok(SessionRun {
        run: run_from_row(row)?,
        item_type: row.get(13)?,
        item_name: row.get(14)?,
        workspace_id: row.get(15)?,
    })
}

/// A page of the scope's sessions, newest first: `before_seq` is the last seq of the
/// previous page (`i64::MAX` for the first).
pub(crate) fn list(
    conn: &Connection,
    scope: Scope<'_>,
    before_seq: i64,
    limit: i64,
) -> rusqlite::Result<Vec<SessionRun>> {
    let key = match scope {
        Scope::Item(id) | Scope::Workspace(id) => id,
    };
    let sql = sessions_sql(scope, "WHERE seq < ?2 ORDER BY seq DESC LIMIT ?3");
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params![key, before_seq, limit], session_from_row)?;
    rows.collect()
}

/// The item's session with this Livy id.
pub(crate) fn get(
    conn: &Connection,
    item_id: &str,
    livy_id: &str,
) -> rusqlite::Result<Option<SessionRun>> {
    let sql = sessions_sql(Scope::Item(item_id), "WHERE root_activity_id = ?2");
    conn.prepare_cached(&sql)?
        .query_row(params![item_id, livy_id], session_from_row)
        .optional()
}
