//! Job runs and item schedules (swagger `JobScheduler`). A run stores its times, not its
//! status: the status follows from the server clock (not started until `start_at`, in
//! progress until `due_at`, then completed or failed), or from a cancel recorded before the
//! end, so a run moves on by itself, also across restarts.

use rusqlite::{Connection, OptionalExtension, params};

/// Migration step: the runs and the schedules of items.
pub(crate) const MIGRATION: &str = r"
CREATE TABLE job_instances (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT NOT NULL UNIQUE,
    item_id          TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    job_type         TEXT NOT NULL,
    invoke_type      TEXT NOT NULL,
    root_activity_id TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    start_at         INTEGER NOT NULL,
    due_at           INTEGER NOT NULL,
    cancelled_at     INTEGER,
    failure          TEXT,
    request          TEXT
);
CREATE INDEX job_instances_item ON job_instances(item_id, seq);

CREATE TABLE item_schedules (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL UNIQUE,
    item_id       TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    job_type      TEXT NOT NULL,
    enabled       INTEGER NOT NULL,
    configuration TEXT NOT NULL,
    execution_data TEXT,
    owner_id      TEXT NOT NULL,
    owner_type    TEXT NOT NULL,
    created_at    INTEGER NOT NULL
);
CREATE INDEX item_schedules_item ON item_schedules(item_id, job_type, seq);
";

/// Migration step: schedules start runs. `anchor_at` is when a schedule's settings last
/// changed (its clock starts there, see `scheduled_runs`), `fired_until` how far along its
/// own clock runs have been started; a run the scheduler skipped is `deduped`. Schedules kept
/// from before start from now rather than owe every run since they were made.
pub(crate) const MIGRATION_FIRING: &str = r"
ALTER TABLE item_schedules ADD COLUMN anchor_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE item_schedules ADD COLUMN fired_until INTEGER NOT NULL DEFAULT 0;
UPDATE item_schedules
   SET anchor_at = CAST(strftime('%s', 'now') AS INTEGER) * 1000000000,
       fired_until = CAST(strftime('%s', 'now') AS INTEGER) * 1000000000;
ALTER TABLE job_instances ADD COLUMN deduped INTEGER NOT NULL DEFAULT 0;
";

/// Migration step: who started a run (swagger `LivySession.submitter`, a `Principal`): the
/// caller of an on-demand run, the owner of the schedule that fired a scheduled one. Runs
/// kept from before were started by someone no longer known: they keep none.
pub(crate) const MIGRATION_SUBMITTER: &str = r"
ALTER TABLE job_instances ADD COLUMN submitter_id TEXT;
ALTER TABLE job_instances ADD COLUMN submitter_type TEXT;
";

/// The principal that started a run: its id and principal type (`User`, `ServicePrincipal`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Submitter {
    pub id: String,
    pub kind: String,
}

/// One stored run.
#[derive(Debug, Clone)]
pub(crate) struct Run {
    pub seq: i64,
    pub id: String,
    pub item_id: String,
    pub job_type: String,
    pub invoke_type: String,
    pub root_activity_id: String,
    pub created_at: i64,
    pub start_at: i64,
    pub due_at: i64,
    pub cancelled_at: Option<i64>,
    /// The JSON `failureReason` the run ends with, when it is made to fail.
    pub failure: Option<String>,
    /// The request body it was started with (JSON), if any.
    pub request: Option<String>,
    /// Skipped by the scheduler: a run of its job type was still going (`Deduped`).
    pub deduped: bool,
    /// Who started it; `None` for runs stored before submitters were recorded.
    pub submitter: Option<Submitter>,
}

pub(crate) const RUN_COLUMNS: &str = "seq, id, item_id, job_type, invoke_type, root_activity_id, \
     created_at, start_at, due_at, cancelled_at, failure, request, deduped, submitter_id, \
     submitter_type";

/// How many columns `RUN_COLUMNS` reads: a query that selects more reads them after these.
pub(crate) const RUN_COLUMN_COUNT: usize = 15;

pub(crate) fn run_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Run> {
    Ok(Run {
        seq: row.get(0)?,
        id: row.get(1)?,
        item_id: row.get(2)?,
        job_type: row.get(3)?,
        invoke_type: row.get(4)?,
        root_activity_id: row.get(5)?,
        created_at: row.get(6)?,
        start_at: row.get(7)?,
        due_at: row.get(8)?,
        cancelled_at: row.get(9)?,
        failure: row.get(10)?,
        request: row.get(11)?,
        deduped: row.get(12)?,
        submitter: match (row.get(13)?, row.get(14)?) {
            (Some(id), Some(kind)) => Some(Submitter { id, kind }),
            _ => None,
        },
    })
}

/// Stores a new run.
pub(crate) fn insert_run(conn: &Connection, run: &Run) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO job_instances (id, item_id, job_type, invoke_type, root_activity_id,
             created_at, start_at, due_at, cancelled_at, failure, request, deduped,
             submitter_id, submitter_type)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?
    .execute(params![
        run.id,
        run.item_id,
        run.job_type,
        run.invoke_type,
        run.root_activity_id,
        run.created_at,
        run.start_at,
        run.due_at,
        run.cancelled_at,
        run.failure,
        run.request,
        run.deduped,
        run.submitter.as_ref().map(|s| s.id.as_str()),
        run.submitter.as_ref().map(|s| s.kind.as_str())
    ])?;
    Ok(())
}

/// The item's run with this id.
pub(crate) fn get_run(conn: &Connection, item_id: &str, id: &str) -> rusqlite::Result<Option<Run>> {
    conn.prepare_cached(&format!(
        "SELECT {RUN_COLUMNS} FROM job_instances WHERE item_id = ?1 AND id = ?2"
    ))?
    .query_row(params![item_id, id], run_from_row)
    .optional()
}

/// Any item's run with this id (the admin's view of what a run was started with).
pub(crate) fn find_run(conn: &Connection, id: &str) -> rusqlite::Result<Option<Run>> {
    conn.prepare_cached(&format!(
        "SELECT {RUN_COLUMNS} FROM job_instances WHERE id = ?1"
    ))?
    .query_row(params![id], run_from_row)
    .optional()
}

/// Records a cancel at `now`; false when the run had already ended or was cancelled.
pub(crate) fn cancel_run(conn: &Connection, id: &str, now: i64) -> rusqlite::Result<bool> {
    let changed = conn
        .prepare_cached(
            "UPDATE job_instances SET cancelled_at = ?2
              WHERE id = ?1 AND cancelled_at IS NULL AND due_at > ?2",
        )?
        .execute(params![id, now])?;
    Ok(changed > 0)
}

/// The item's runs not skipped that end after `at`: those a scheduled run at or after `at`
/// could find still going.
pub(crate) fn runs_ending_after(
    conn: &Connection,
    item_id: &str,
    at: i64,
) -> rusqlite::Result<Vec<Run>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {RUN_COLUMNS} FROM job_instances
          WHERE item_id = ?1 AND due_at > ?2 AND deduped = 0 ORDER BY seq"
    ))?;
    let rows = stmt.query_map(params![item_id, at], run_from_row)?;
    rows.collect()
}

/// A page of the item's runs, newest first: `before_seq` is the last seq of the previous
/// page (`i64::MAX` for the first).
pub(crate) fn list_runs(
    conn: &Connection,
    item_id: &str,
    before_seq: i64,
    limit: i64,
) -> rusqlite::Result<Vec<Run>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {RUN_COLUMNS} FROM job_instances
          WHERE item_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3"
    ))?;
    let rows = stmt.query_map(params![item_id, before_seq, limit], run_from_row)?;
    rows.collect()
}

/// One stored schedule.
#[derive(Debug, Clone)]
pub(crate) struct Schedule {
    pub seq: i64,
    pub id: String,
    pub job_type: String,
    pub enabled: bool,
    /// The wire `configuration` (JSON).
    pub configuration: String,
    pub execution_data: Option<String>,
    pub owner_id: String,
    pub owner_type: String,
    pub created_at: i64,
    /// When its settings last changed: where its clock starts.
    pub anchor_at: i64,
    /// How far along its own clock runs have been started (nanoseconds).
    pub fired_until: i64,
}

const SCHEDULE_COLUMNS: &str = "seq, id, job_type, enabled, configuration, execution_data, \
     owner_id, owner_type, created_at, anchor_at, fired_until";

fn schedule_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Schedule> {
    Ok(Schedule {
        seq: row.get(0)?,
        id: row.get(1)?,
        job_type: row.get(2)?,
        enabled: row.get(3)?,
        configuration: row.get(4)?,
        execution_data: row.get(5)?,
        owner_id: row.get(6)?,
        owner_type: row.get(7)?,
        created_at: row.get(8)?,
        anchor_at: row.get(9)?,
        fired_until: row.get(10)?,
    })
}

/// Stores a new schedule of the item.
pub(crate) fn insert_schedule(
    conn: &Connection,
    item_id: &str,
    s: &Schedule,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO item_schedules (id, item_id, job_type, enabled, configuration,
             execution_data, owner_id, owner_type, created_at, anchor_at, fired_until)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        s.id,
        item_id,
        s.job_type,
        s.enabled,
        s.configuration,
        s.execution_data,
        s.owner_id,
        s.owner_type,
        s.created_at,
        s.anchor_at,
        s.fired_until
    ])?;
    Ok(())
}

/// Replaces a schedule's settings and owner (the one who changed it last), and where its
/// clock stands.
pub(crate) fn update_schedule(conn: &Connection, s: &Schedule) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE item_schedules SET enabled = ?2, configuration = ?3, execution_data = ?4,
             owner_id = ?5, owner_type = ?6, anchor_at = ?7, fired_until = ?8
          WHERE id = ?1",
    )?
    .execute(params![
        s.id,
        s.enabled,
        s.configuration,
        s.execution_data,
        s.owner_id,
        s.owner_type,
        s.anchor_at,
        s.fired_until
    ])?;
    Ok(())
}

/// Every enabled schedule of the item, of every job type.
pub(crate) fn enabled_schedules(
    conn: &Connection,
    item_id: &str,
) -> rusqlite::Result<Vec<Schedule>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {SCHEDULE_COLUMNS} FROM item_schedules
          WHERE item_id = ?1 AND enabled = 1 ORDER BY seq"
    ))?;
    let rows = stmt.query_map(params![item_id], schedule_from_row)?;
    rows.collect()
}

/// Records how far along its clock a schedule has started runs.
pub(crate) fn set_fired_until(
    conn: &Connection,
    id: &str,
    fired_until: i64,
) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE item_schedules SET fired_until = ?2 WHERE id = ?1")?
        .execute(params![id, fired_until])?;
    Ok(())
}

/// The item's schedule of `job_type` with this id.
pub(crate) fn get_schedule(
    conn: &Connection,
    item_id: &str,
    job_type: &str,
    id: &str,
) -> rusqlite::Result<Option<Schedule>> {
    conn.prepare_cached(&format!(
        "SELECT {SCHEDULE_COLUMNS} FROM item_schedules
          WHERE item_id = ?1 AND job_type = ?2 AND id = ?3"
    ))?
    .query_row(params![item_id, job_type, id], schedule_from_row)
    .optional()
}

/// A page of the item's schedules of `job_type` after `after_seq`.
pub(crate) fn list_schedules(
    conn: &Connection,
    item_id: &str,
    job_type: &str,
    after_seq: i64,
    limit: i64,
) -> rusqlite::Result<Vec<Schedule>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {SCHEDULE_COLUMNS} FROM item_schedules
          WHERE item_id = ?1 AND job_type = ?2 AND seq > ?3 ORDER BY seq LIMIT ?4"
    ))?;
    let rows = stmt.query_map(
        params![item_id, job_type, after_seq, limit],
        schedule_from_row,
    )?;
    rows.collect()
}

/// How many schedules the item has, of every job type.
pub(crate) fn count_schedules(conn: &Connection, item_id: &str) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT count(*) FROM item_schedules WHERE item_id = ?1")?
        .query_row(params![item_id], |row| row.get(0))
}

/// Deletes a schedule; false when there was none.
pub(crate) fn delete_schedule(conn: &Connection, id: &str) -> rusqlite::Result<bool> {
    let changed = conn
        .prepare_cached("DELETE FROM item_schedules WHERE id = ?1")?
        .execute(params![id])?;
    Ok(changed > 0)
}
