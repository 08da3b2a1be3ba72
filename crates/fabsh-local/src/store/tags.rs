//! Tenant tags and the items they are applied to.

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::{Value, json};

/// A tag row.
#[derive(Debug, Clone)]
pub(crate) struct Tag {
    /// Creation sequence, the paging key.
    pub seq: i64,
    /// GUID.
    pub id: String,
    /// Name, unique in the tenant.
    pub display_name: String,
    /// The domain of a domain-scoped tag; `None` for tenant tags.
    pub domain_id: Option<String>,
}

impl Tag {
    /// The tag as `GET /tags` returns it.
    pub(crate) fn to_wire(&self) -> Value {
        let scope = match &self.domain_id {
            Some(domain) => json!({"type": "Domain", "domainId": domain}),
            None => json!({"type": "Tenant"}),
        };
        json!({"id": self.id, "displayName": self.display_name, "scope": scope})
    }
}

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Tag> {
    Ok(Tag {
        seq: row.get(0)?,
        id: row.get(1)?,
        display_name: row.get(2)?,
        domain_id: row.get(3)?,
    })
}

/// Inserts a tag.
pub(crate) fn insert(conn: &Connection, id: &str, display_name: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO tags (id, display_name) VALUES (?1, ?2)",
        [id, display_name],
    )?;
    Ok(())
}

/// The tag with this id.
pub(crate) fn get(conn: &Connection, id: &str) -> rusqlite::Result<Option<Tag>> {
    conn.prepare_cached("SELECT seq, id, display_name, domain_id FROM tags WHERE id = ?1")?
        .query_row([id], from_row)
        .optional()
}

/// A page of tags after `after_seq`.
pub(crate) fn list(conn: &Connection, after_seq: i64, limit: i64) -> rusqlite::Result<Vec<Tag>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, id, display_name, domain_id FROM tags WHERE seq > ?1 ORDER BY seq LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![after_seq, limit], from_row)?;
    rows.collect()
}

/// Applies a tag to an item; applying it again changes nothing.
pub(crate) fn apply(conn: &Connection, item_id: &str, tag_id: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT OR IGNORE INTO item_tags (item_id, tag_id, seq)
         VALUES (?1, ?2, (SELECT coalesce(max(seq), 0) + 1 FROM item_tags WHERE item_id = ?1))",
        [item_id, tag_id],
    )?;
    Ok(())
}

/// Removes a tag from an item (a tag that is not there is no error).
pub(crate) fn unapply(conn: &Connection, item_id: &str, tag_id: &str) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM item_tags WHERE item_id = ?1 AND tag_id = ?2",
        [item_id, tag_id],
    )?;
    Ok(())
}
