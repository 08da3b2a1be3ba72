//! The Assistants-compatible surface's objects (assistants, threads, messages, runs, run
//! steps, files), one row each with the object as the JSON the surface answers with. Files
//! keep their bytes too. Rows belong to the agent they were made for.

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

/// The table of this file, created if missing on every open (see `shares::TABLES`).
pub(crate) const TABLES: &str = r"
CREATE TABLE IF NOT EXISTS assistant_objects (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    id        TEXT NOT NULL UNIQUE,
    agent_id  TEXT NOT NULL,
    kind      TEXT NOT NULL,
    thread_id TEXT,
    body      TEXT NOT NULL,
    content   BLOB
);
CREATE INDEX IF NOT EXISTS assistant_objects_thread ON assistant_objects(thread_id, kind, seq);
";

/// Stores a new object (`kind`: assistant, thread, message, run, step, file) under its `id`
/// (the one its body carries).
pub(crate) fn insert(
    conn: &Connection,
    agent_id: &str,
    kind: &str,
    id: &str,
    thread_id: Option<&str>,
    body: &Value,
    content: Option<&[u8]>,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO assistant_objects (id, agent_id, kind, thread_id, body, content) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![id, agent_id, kind, thread_id, body.to_string(), content],
    )?;
    Ok(())
}

/// Replaces an object's JSON.
pub(crate) fn update(conn: &Connection, id: &str, body: &Value) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE assistant_objects SET body = ?2 WHERE id = ?1",
        params![id, body.to_string()],
    )?;
    Ok(())
}

/// One object of an agent, by kind and id.
pub(crate) fn get(
    conn: &Connection,
    agent_id: &str,
    kind: &str,
    id: &str,
) -> rusqlite::Result<Option<Value>> {
    let body: Option<String> = conn
        .query_row(
            "SELECT body FROM assistant_objects WHERE id = ?1 AND agent_id = ?2 AND kind = ?3",
            params![id, agent_id, kind],
            |r| r.get(0),
        )
        .optional()?;
    Ok(body.and_then(|text| serde_json::from_str(&text).ok()))
}

/// A file's bytes.
pub(crate) fn content(
    conn: &Connection,
    agent_id: &str,
    id: &str,
) -> rusqlite::Result<Option<Vec<u8>>> {
    conn.query_row(
        "SELECT content FROM assistant_objects WHERE id = ?1 AND agent_id = ?2 AND kind = 'file'",
        params![id, agent_id],
        |r| r.get(0),
    )
    .optional()
    .map(Option::flatten)
}

/// The objects of one kind in a thread, oldest first.
pub(crate) fn in_thread(
    conn: &Connection,
    thread_id: &str,
    kind: &str,
) -> rusqlite::Result<Vec<Value>> {
    let mut stmt = conn.prepare_cached(
        "SELECT body FROM assistant_objects WHERE thread_id = ?1 AND kind = ?2 ORDER BY seq",
    )?;
    let rows = stmt.query_map(params![thread_id, kind], |r| r.get::<_, String>(0))?;
    Ok(rows
        .filter_map(|row| row.ok().and_then(|text| serde_json::from_str(&text).ok()))
        .collect())
}

/// Deletes a thread and what it holds (files stay: answers may still point at them).
pub(crate) fn delete_thread(
    conn: &Connection,
    agent_id: &str,
    thread_id: &str,
) -> rusqlite::Result<bool> {
    let deleted = conn.execute(
        "DELETE FROM assistant_objects WHERE agent_id = ?1 AND kind = 'thread' AND id = ?2",
        params![agent_id, thread_id],
    )?;
    conn.execute(
        "DELETE FROM assistant_objects WHERE agent_id = ?1 AND thread_id = ?2 AND kind <> 'file'",
        params![agent_id, thread_id],
    )?;
    Ok(deleted > 0)
}
