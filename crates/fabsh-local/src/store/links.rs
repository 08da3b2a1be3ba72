//! What local Fabric records about an item beyond its row and parts: the connections it uses
//! and its endorsement.

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

/// Replaces the item's connections (each a Fabric connection object).
pub(crate) fn set_connections(
    conn: &Connection,
    item_id: &str,
    connections: &[Value],
) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM item_connections WHERE item_id = ?1", [item_id])?;
    let mut stmt = conn.prepare_cached(
        "INSERT INTO item_connections (item_id, ord, connection) VALUES (?1, ?2, ?3)",
    )?;
    for (ord, connection) in connections.iter().enumerate() {
        stmt.execute(params![item_id, ord as i64 + 1, connection.to_string()])?;
    }
    Ok(())
}

/// A page of the item's connections after position `after`, with each one's position.
pub(crate) fn connections(
    conn: &Connection,
    item_id: &str,
    after: i64,
    limit: i64,
) -> rusqlite::Result<Vec<(i64, Value)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT ord, connection FROM item_connections
          WHERE item_id = ?1 AND ord > ?2 ORDER BY ord LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![item_id, after, limit], |r| {
        let text: String = r.get(1)?;
        Ok((
            r.get(0)?,
            serde_json::from_str(&text).unwrap_or(Value::Null),
        ))
    })?;
    rows.collect()
}

/// An item's endorsement: `(endorsement, certified_by)`.
pub(crate) fn endorsement(
    conn: &Connection,
    item_id: &str,
) -> rusqlite::Result<Option<(String, Option<String>)>> {
    conn.prepare_cached("SELECT endorsement, certified_by FROM endorsements WHERE item_id = ?1")?
        .query_row([item_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()
}

/// Sets an item's endorsement (`Certified`, `Promoted`, `Master`).
pub(crate) fn set_endorsement(
    conn: &Connection,
    item_id: &str,
    endorsement: &str,
    certified_by: Option<&str>,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO endorsements (item_id, endorsement, certified_by) VALUES (?1, ?2, ?3)
         ON CONFLICT (item_id) DO UPDATE SET endorsement = ?2, certified_by = ?3",
        params![item_id, endorsement, certified_by],
    )?;
    Ok(())
}
