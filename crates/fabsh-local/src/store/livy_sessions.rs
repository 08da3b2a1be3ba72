//! The runs that are Livy sessions (swagger `LivySessions_*`): local Fabric starts no Spark,
//! so a session is read off the job store. A run of a notebook, a lakehouse (table
//! maintenance) or a Spark job definition is one session, named by its root activity id;
//! runs the scheduler skipped (`deduped`) started no session, and neither did a notebook run
//! asked to compute on Jupyter or a data warehouse (its `executionData.compute`).
//!
//! The beta list's filters are applied here, in the query, so that a page holds as many
//! sessions as the page size allows and its continuation is exact. A session's state and end
//! follow from the clock (`routes::jobs::status_at`); the filters compute them the same way
//! at the request's `now`.

use super::jobs::{RUN_COLUMN_COUNT, RUN_COLUMNS, Run, run_from_row};
use rusqlite::types::ToSql;
use rusqlite::{Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

/// The item types whose runs are Spark sessions (swagger `LivySessionItemType`).
pub(crate) const SESSION_ITEM_TYPES: &[&str] = &["Notebook", "Lakehouse", "SparkJobDefinition"];

/// A run with the item it ran and the workspace it ran in.
#[derive(Debug, Clone)]
pub(crate) struct SessionRun {
    pub run: Run,
    pub item_type: String,
    pub item_name: String,
    pub workspace_id: String,
    /// The workspace's capacity, when it has one (`LivySession.capacityId`).
    pub capacity_id: Option<String>,
}

/// Whose sessions a list holds.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scope<'a> {
    Item(&'a str),
    Workspace(&'a str),
}

/// The beta list's filters (`submittedDateTime`, `endDateTime`, `submitter.Id`, `state`),
/// kept in its continuation token so that later pages hold to them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Filters {
    /// Submitted at or after this time (Unix seconds: sessions print whole seconds, so a
    /// time read off a session finds it).
    #[serde(rename = "s", default, skip_serializing_if = "Option::is_none")]
    pub submitted_from: Option<i64>,
    /// Ended at or before this time (Unix seconds); a session that has not ended does not
    /// pass.
    #[serde(rename = "e", default, skip_serializing_if = "Option::is_none")]
    pub ended_by: Option<i64>,
    /// Submitted by this principal (an object id, lower case).
    #[serde(rename = "u", default, skip_serializing_if = "Option::is_none")]
    pub submitter: Option<String>,
    /// In this state (a swagger `LivySessionState` value).
    #[serde(rename = "t", default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

/// A run's session state at `:now`, as `routes::jobs::status_at` and the Livy route's
/// `state_of` make it (skipped runs are no sessions, so `Unknown` never arises).
const STATE_SQL: &str = "CASE
    WHEN cancelled_at IS NOT NULL AND cancelled_at < due_at THEN 'Cancelled'
    WHEN :now < start_at THEN 'NotStarted'
    WHEN :now < due_at THEN 'InProgress'
    WHEN failure IS NOT NULL THEN 'Failed'
    ELSE 'Succeeded' END";

/// A run's end at `:now`, as `status_at` makes it: its cancel, else its due time once passed.
const END_SQL: &str = "CASE
    WHEN cancelled_at IS NOT NULL AND cancelled_at < due_at THEN cancelled_at
    WHEN due_at <= :now THEN due_at END";

/// The runs joined with their live items, those that are sessions only, scoped by `:scope`
/// and held to `filters`; then `tail`.
fn sessions_sql(scope: Scope<'_>, filters: &Filters, tail: &str) -> String {
    let scoped = match scope {
        Scope::Item(_) => "i.id = :scope",
        Scope::Workspace(_) => "i.workspace_id = :scope",
    };
    let mut held = vec!["1 = 1".to_string()];
    if filters.submitted_from.is_some() {
        held.push("created_at / 1000000000 >= :submitted_from".into());
    }
    if filters.ended_by.is_some() {
        held.push(format!("({END_SQL}) / 1000000000 <= :ended_by"));
    }
    if filters.submitter.is_some() {
        held.push("lower(submitter_id) = :submitter".into());
    }
    if filters.state.is_some() {
        held.push(format!("({STATE_SQL}) = :state"));
    }
    let held = held.join(" AND ");
    format!(
        "SELECT {RUN_COLUMNS}, item_type, item_name, workspace_id, capacity_id FROM (
             SELECT j.*, i.type AS item_type, i.display_name AS item_name,
                    i.workspace_id AS workspace_id, w.capacity_id AS capacity_id
               FROM job_instances j JOIN items i ON i.id = j.item_id
                    JOIN workspaces w ON w.id = i.workspace_id
              WHERE {scoped} AND i.deleted_at IS NULL AND j.deduped = 0
                AND i.type IN ('Notebook', 'Lakehouse', 'SparkJobDefinition')
                AND coalesce(json_extract(j.request, '$.executionData.compute'), 'Spark')
                    = 'Spark')
          WHERE {held} {tail}"
    )
}

/// The named parameters `sessions_sql` uses for these filters, beside `extra`.
fn bound<'a>(
    key: &'a dyn ToSql,
    filters: &'a Filters,
    now: &'a i64,
    extra: Vec<(&'static str, &'a dyn ToSql)>,
) -> Vec<(&'static str, &'a dyn ToSql)> {
    let mut params: Vec<(&'static str, &dyn ToSql)> = vec![(":scope", key)];
    if let Some(at) = &filters.submitted_from {
        params.push((":submitted_from", at));
    }
    if let Some(at) = &filters.ended_by {
        params.push((":ended_by", at));
    }
    if let Some(id) = &filters.submitter {
        params.push((":submitter", id));
    }
    if let Some(state) = &filters.state {
        params.push((":state", state));
    }
    if filters.ended_by.is_some() || filters.state.is_some() {
        params.push((":now", now));
    }
    params.extend(extra);
    params
}

fn session_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<SessionRun> {
    Ok(SessionRun {
        run: run_from_row(row)?,
        item_type: row.get(RUN_COLUMN_COUNT)?,
        item_name: row.get(RUN_COLUMN_COUNT + 1)?,
        workspace_id: row.get(RUN_COLUMN_COUNT + 2)?,
        capacity_id: row.get(RUN_COLUMN_COUNT + 3)?,
    })
}

/// A page of the scope's sessions that pass `filters` at `now`, newest first: `before_seq`
/// is the last seq of the previous page (`i64::MAX` for the first).
pub(crate) fn list(
    conn: &Connection,
    scope: Scope<'_>,
    filters: &Filters,
    now: i64,
    before_seq: i64,
    limit: i64,
) -> rusqlite::Result<Vec<SessionRun>> {
    let key = match scope {
        Scope::Item(id) | Scope::Workspace(id) => id.to_string(),
    };
    let sql = sessions_sql(
        scope,
        filters,
        "AND seq < :before ORDER BY seq DESC LIMIT :limit",
    );
    let params = bound(
        &key,
        filters,
        &now,
        vec![(":before", &before_seq), (":limit", &limit)],
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params.as_slice(), session_from_row)?;
    rows.collect()
}

/// The item's session with this Livy id.
pub(crate) fn get(
    conn: &Connection,
    item_id: &str,
    livy_id: &str,
) -> rusqlite::Result<Option<SessionRun>> {
    let filters = Filters::default();
    let sql = sessions_sql(
        Scope::Item(item_id),
        &filters,
        "AND root_activity_id = :livy",
    );
    let key = item_id.to_string();
    let livy = livy_id.to_string();
    let params = bound(&key, &filters, &0, vec![(":livy", &livy)]);
    conn.prepare_cached(&sql)?
        .query_row(params.as_slice(), session_from_row)
        .optional()
}
