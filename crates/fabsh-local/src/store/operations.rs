//! Long-running operations with the action they will apply when due.

use rusqlite::{Connection, OptionalExtension, params};

/// Stored status of an operation still to run (the wire shows NotStarted or Running).
pub(crate) const PENDING: &str = "Running";
/// Terminal success.
pub(crate) const SUCCEEDED: &str = "Succeeded";
/// Terminal failure.
pub(crate) const FAILED: &str = "Failed";

/// An operation row.
#[derive(Debug, Clone)]
pub(crate) struct Operation {
    /// GUID.
    pub id: String,
    /// Who started it; only they may poll it.
    pub principal_id: String,
    /// `Running`, `Succeeded` or `Failed`.
    pub status: String,
    /// Unix nanoseconds.
    pub created_at: i64,
    /// Unix nanoseconds.
    pub updated_at: i64,
    /// When the action is applied, Unix nanoseconds.
    pub due_at: i64,
    /// The pending action as JSON (cleared once applied).
    pub action: Option<String>,
    /// Whether a successful run produces a `/result` body.
    pub has_result: bool,
    /// The result body as JSON.
    pub result: Option<String>,
    /// The error body as JSON when failed.
    pub error: Option<String>,
}

const COLUMNS: &str =
    "id, principal_id, status, created_at, updated_at, due_at, action, has_result, result, error";

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Operation> {
    Ok(Operation {
        id: row.get(0)?,
        principal_id: row.get(1)?,
        status: row.get(2)?,
        created_at: row.get(3)?,
        updated_at: row.get(4)?,
        due_at: row.get(5)?,
        action: row.get(6)?,
        has_result: row.get(7)?,
        result: row.get(8)?,
        error: row.get(9)?,
    })
}

/// Inserts an operation.
pub(crate) fn insert(conn: &Connection, op: &Operation) -> rusqlite::Result<()> {
    conn.execute(
        &format!(
            "INSERT INTO operations ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
        ),
        params![
            op.id,
            op.principal_id,
            op.status,
            op.created_at,
            op.updated_at,
            op.due_at,
            op.action,
            op.has_result,
            op.result,
            op.error
        ],
    )?;
    Ok(())
}

/// The operation with this id.
pub(crate) fn get(conn: &Connection, id: &str) -> rusqlite::Result<Option<Operation>> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} FROM operations WHERE id = ?1"))?
        .query_row([id], from_row)
        .optional()
}

/// Records the outcome and drops the pending action.
pub(crate) fn finish(
    conn: &Connection,
    id: &str,
    status: &str,
    now: i64,
    result: Option<&str>,
    error: Option<&str>,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE operations SET status = ?2, updated_at = ?3, result = ?4, error = ?5, action = NULL
          WHERE id = ?1",
        params![id, status, now, result, error],
    )?;
    Ok(())
}

/// Every operation not yet applied, as `(id, due_at)`.
pub(crate) fn pending(conn: &Connection) -> rusqlite::Result<Vec<(String, i64)>> {
    let mut stmt =
        conn.prepare("SELECT id, due_at FROM operations WHERE status = 'Running' ORDER BY due_at")?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}
