//! An environment's last publish (`POST …/environments/{id}/staging/publish`): what
//! `publishDetails` reports. An environment never published has no row.

use rusqlite::{Connection, OptionalExtension, params};

/// Migration step: the table of publishes, one row per environment (the last one).
pub(crate) const MIGRATION: &str = r"
CREATE TABLE environment_publishes (
    item_id        TEXT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
    state          TEXT NOT NULL,
    target_version TEXT NOT NULL,
    started_at     INTEGER NOT NULL,
    ended_at       INTEGER
) WITHOUT ROWID;
";

/// The last publish of an environment.
#[derive(Debug, Clone)]
pub(crate) struct Publish {
    /// `Running`, then `Success` (swagger `EnvironmentPublishState`).
    pub state: String,
    /// The version being published.
    pub target_version: String,
    pub started_at: i64,
    pub ended_at: Option<i64>,
}

/// Records a publish that has started (replacing the last one).
pub(crate) fn start(
    conn: &Connection,
    item_id: &str,
    target_version: &str,
    now: i64,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO environment_publishes
             (item_id, state, target_version, started_at, ended_at)
         VALUES (?1, 'Running', ?2, ?3, NULL)",
    )?
    .execute(params![item_id, target_version, now])?;
    Ok(())
}

/// Marks the environment's running publish as succeeded.
pub(crate) fn succeed(conn: &Connection, item_id: &str, now: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE environment_publishes SET state = 'Success', ended_at = ?2
          WHERE item_id = ?1 AND state = 'Running'",
    )?
    .execute(params![item_id, now])?;
    Ok(())
}

/// The environment's last publish, if it was ever published.
pub(crate) fn last(conn: &Connection, item_id: &str) -> rusqlite::Result<Option<Publish>> {
    conn.prepare_cached(
        "SELECT state, target_version, started_at, ended_at
           FROM environment_publishes WHERE item_id = ?1",
    )?
    .query_row([item_id], |row| {
        Ok(Publish {
            state: row.get(0)?,
            target_version: row.get(1)?,
            started_at: row.get(2)?,
            ended_at: row.get(3)?,
        })
    })
    .optional()
}
