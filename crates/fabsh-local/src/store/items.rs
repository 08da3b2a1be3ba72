//! Items and their definition parts.

use fabsh_model::definition::platform::UNSET_LOGICAL_ID;
use fabsh_model::wire::{self, AppliedTag, SensitivityLabel};
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Map;

/// An item row.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    /// Creation sequence, the paging key.
    pub seq: i64,
    /// GUID.
    pub id: String,
    /// Owning workspace.
    pub workspace_id: String,
    /// ItemType name.
    pub item_type: String,
    /// Name, unique per type in the workspace among live items.
    pub display_name: String,
    /// `None` when never set (sent as `""` on the wire).
    pub description: Option<String>,
    /// Containing folder; `None` at the workspace root.
    pub folder_id: Option<String>,
    /// The item this one belongs to (a lakehouse's SQL endpoint); moves and dies with it.
    pub parent_item_id: Option<String>,
    /// `.platform` `config.logicalId`, minted at creation.
    pub logical_id: String,
    /// Sensitivity label id, if one was applied at creation.
    pub sensitivity_label_id: Option<String>,
    /// Definition format last stored (`ipynb`, `TMDL`, ...), if any.
    pub definition_format: Option<String>,
    /// Applied tags as a JSON array of `{id, displayName}` (`[]` when none), read with the row.
    pub tags_json: String,
}

impl Item {
    /// The Item object as Fabric returns it; optional keys are absent, never null. An item
    /// without a description carries `description: ""`: recordings up to early 2026 show the
    /// key sometimes left out, every recording since 2026-04 (lists, GETs, 201s and LRO
    /// `/result`s alike) shows `""`, which is what the service does now.
    pub(crate) fn to_wire(&self) -> wire::Item {
        // The service leaves `tags` out (not null, not empty) when an item has none.
        let tags = serde_json::from_str::<Vec<AppliedTag>>(&self.tags_json)
            .ok()
            .filter(|tags| !tags.is_empty());
        wire::Item {
            id: self.id.clone(),
            item_type: self.item_type.clone(),
            display_name: self.display_name.clone(),
            // Never set is `""` on the wire (see above).
            description: Some(self.description.clone().unwrap_or_default()),
            workspace_id: self.workspace_id.clone(),
            folder_id: self.folder_id.clone(),
            sensitivity_label: self
                .sensitivity_label_id
                .as_ref()
                .map(|id| SensitivityLabel {
                    id: id.clone(),
                    extra: Map::new(),
                }),
            tags,
            properties: None,
            default_identity: None,
            extra: Map::new(),
        }
    }
}

/// One stored definition part.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Part {
    /// Relative path inside the item.
    pub path: String,
    /// Decoded bytes.
    pub payload: Vec<u8>,
}

/// Which folders a list covers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FolderScope {
    /// Everything in the workspace.
    All,
    /// Direct children of the workspace root.
    RootOnly,
    /// Direct children of this folder.
    Direct(String),
    /// This folder and everything below it.
    Subtree(String),
}

impl FolderScope {
    /// The condition an item query adds for this scope, its folder bound as parameter
    /// `?{param}`, and that folder's id (none to bind for `All` and `RootOnly`).
    pub(crate) fn item_condition(&self, param: u8) -> (String, Option<&str>) {
        match self {
            FolderScope::All => (String::new(), None),
            FolderScope::RootOnly => (" AND folder_id IS NULL".to_string(), None),
            FolderScope::Direct(id) => (format!(" AND folder_id = ?{param}"), Some(id.as_str())),
            FolderScope::Subtree(id) => (
                format!(
                    " AND folder_id IN (WITH RECURSIVE sub(id) AS
                        (SELECT ?{param} UNION ALL SELECT f.id FROM folders f JOIN sub ON f.parent_id = sub.id)
                      SELECT id FROM sub)"
                ),
                Some(id.as_str()),
            ),
        }
    }

    /// The scope of a list's `rootFolderId` and `recursive` filters.
    pub(crate) fn of(root_folder: Option<&str>, recursive: bool) -> FolderScope {
        match (root_folder, recursive) {
            (None, true) => FolderScope::All,
            (None, false) => FolderScope::RootOnly,
            (Some(folder), false) => FolderScope::Direct(folder.to_string()),
            (Some(folder), true) => FolderScope::Subtree(folder.to_string()),
        }
    }
}

const COLUMNS: &str = "seq, id, workspace_id, type, display_name, description, folder_id,
    parent_item_id, logical_id, sensitivity_label_id, definition_format,
    (SELECT json_group_array(json_object('id', tag_id, 'displayName', tag_name)) FROM
       (SELECT t.id AS tag_id, t.display_name AS tag_name
          FROM item_tags it JOIN tags t ON t.id = it.tag_id
         WHERE it.item_id = items.id ORDER BY it.seq))";

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Item> {
    Ok(Item {
        seq: row.get(0)?,
        id: row.get(1)?,
        workspace_id: row.get(2)?,
        item_type: row.get(3)?,
        display_name: row.get(4)?,
        description: row.get(5)?,
        folder_id: row.get(6)?,
        parent_item_id: row.get(7)?,
        logical_id: row.get(8)?,
        sensitivity_label_id: row.get(9)?,
        definition_format: row.get(10)?,
        tags_json: row.get(11)?,
    })
}

/// Inserts an item row (parts are stored separately).
pub(crate) fn insert(conn: &Connection, item: &Item, now: i64) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO items (id, workspace_id, type, display_name, description, folder_id,
                            parent_item_id, logical_id, sensitivity_label_id, definition_format,
                            created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?
    .execute(params![
        item.id,
        item.workspace_id,
        item.item_type,
        item.display_name,
        item.description,
        item.folder_id,
        item.parent_item_id,
        item.logical_id,
        item.sensitivity_label_id,
        item.definition_format,
        now
    ])?;
    Ok(conn.last_insert_rowid())
}

/// A live (not deleted) item of the workspace.
pub(crate) fn get(
    conn: &Connection,
    workspace_id: &str,
    id: &str,
) -> rusqlite::Result<Option<Item>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM items WHERE id = ?1 AND workspace_id = ?2 AND deleted_at IS NULL"
    ))?
    .query_row([id, workspace_id], from_row)
    .optional()
}

/// Whether another live item of this type already uses the name (case-insensitive). Never
/// for a type whose names the service lets two items share
/// ([`fabsh_model::item_types::names_unique`]).
pub(crate) fn name_taken(
    conn: &Connection,
    workspace_id: &str,
    item_type: &str,
    name: &str,
    except_id: &str,
) -> rusqlite::Result<bool> {
    if !fabsh_model::item_types::names_unique(item_type) {
        return Ok(false);
    }
    conn.prepare_cached(
        "SELECT EXISTS(SELECT 1 FROM items
          WHERE workspace_id = ?1 AND type = ?2 AND display_name = ?3 COLLATE NOCASE
            AND deleted_at IS NULL AND id <> ?4)",
    )?
    .query_row([workspace_id, item_type, name, except_id], |r| r.get(0))
}

/// A page of live items after `after_seq`, in creation order. Keyset paging: each page costs
/// the same however deep into the list it is.
pub(crate) fn list(
    conn: &Connection,
    workspace_id: &str,
    item_type: Option<&str>,
    scope: &FolderScope,
    after_seq: i64,
    limit: i64,
) -> rusqlite::Result<Vec<Item>> {
    let mut sql = format!(
        "SELECT {COLUMNS} FROM items
          WHERE workspace_id = ?1 AND deleted_at IS NULL AND seq > ?2"
    );
    if item_type.is_some() {
        sql.push_str(" AND type = ?3");
    }
    let (condition, folder) = scope.item_condition(4);
    sql.push_str(&condition);
    // ?5 is always referenced, so binding five values is valid whichever filters are present.
    sql.push_str(" ORDER BY seq LIMIT ?5");
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(
        params![workspace_id, after_seq, item_type, folder, limit],
        from_row,
    )?;
    rows.collect()
}

/// The live item of the workspace holding this logical id, other than `except_id`: its own
/// (set), or the one a bulk export gave it when it has none (see [`exported_logical_id`]).
/// The all-zero GUID is no item's: it says "none".
pub(crate) fn logical_id_owner(
    conn: &Connection,
    workspace_id: &str,
    logical_id: &str,
    except_id: &str,
) -> rusqlite::Result<Option<String>> {
    let wanted = logical_id.trim().to_ascii_lowercase();
    if wanted.is_empty() || wanted == UNSET_LOGICAL_ID {
        return Ok(None);
    }
    let own: Option<String> = conn
        .prepare_cached(
            "SELECT id FROM items
              WHERE workspace_id = ?1 AND logical_id = ?2 COLLATE NOCASE
                AND deleted_at IS NULL AND id <> ?3",
        )?
        .query_row([workspace_id, &wanted, except_id], |r| r.get(0))
        .optional()?;
    if own.is_some() {
        return Ok(own);
    }
    let mut unset = conn.prepare_cached(
        "SELECT id FROM items
          WHERE workspace_id = ?1 AND logical_id = ?2 AND deleted_at IS NULL AND id <> ?3",
    )?;
    let ids = unset.query_map([workspace_id, UNSET_LOGICAL_ID, except_id], |r| {
        r.get::<_, String>(0)
    })?;
    for id in ids {
        let id = id?;
        if exported_logical_id(&id, UNSET_LOGICAL_ID) == wanted {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// The logical id a bulk export writes for an item: its own when set, else one derived from
/// its id (stable, so exporting twice agrees and an import pairs on it). The service's bulk
/// exports show such ids (version nibble 8, not random v4) for items that have none, while
/// its getDefinition writes the all-zero GUID for them (recordings/fabric-cli bulk_export and
/// export).
pub(crate) fn exported_logical_id(item_id: &str, logical_id: &str) -> String {
    if logical_id != UNSET_LOGICAL_ID {
        return logical_id.to_string();
    }
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("logicalId:{}", item_id.to_ascii_lowercase()));
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    // RFC 9562 version 8 (custom) and variant bits.
    bytes[6] = (bytes[6] & 0x0f) | 0x80;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    uuid::Uuid::from_bytes(bytes).to_string()
}

/// The live item of this type and name (case-insensitive) in the workspace: the oldest, for
/// a type whose names repeat ([`fabsh_model::item_types::names_unique`]), so that the same
/// name finds the same item every time.
pub(crate) fn find_named(
    conn: &Connection,
    workspace_id: &str,
    item_type: &str,
    name: &str,
) -> rusqlite::Result<Option<Item>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM items
          WHERE workspace_id = ?1 AND type = ?2 AND display_name = ?3 COLLATE NOCASE
            AND deleted_at IS NULL ORDER BY seq LIMIT 1"
    ))?
    .query_row([workspace_id, item_type, name], from_row)
    .optional()
}

/// Sets the logical id.
pub(crate) fn set_logical_id(
    conn: &Connection,
    id: &str,
    logical_id: &str,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE items SET logical_id = ?2 WHERE id = ?1",
        [id, logical_id],
    )?;
    Ok(())
}

/// `(name, type, id)` of every live item of the workspace (OneLake's listing of it).
pub(crate) fn names_and_ids(
    conn: &Connection,
    workspace_id: &str,
) -> rusqlite::Result<Vec<(String, String, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT display_name, type, id FROM items
          WHERE workspace_id = ?1 AND deleted_at IS NULL ORDER BY seq",
    )?;
    let rows = stmt.query_map([workspace_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    rows.collect()
}

/// Every live item of a type, in any workspace (for deriving relations).
pub(crate) fn all_of_type(conn: &Connection, item_type: &str) -> rusqlite::Result<Vec<Item>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM items WHERE type = ?1 AND deleted_at IS NULL ORDER BY seq"
    ))?;
    let rows = stmt.query_map([item_type], from_row)?;
    rows.collect()
}

/// A live item by id, whatever its workspace.
pub(crate) fn get_any(conn: &Connection, id: &str) -> rusqlite::Result<Option<Item>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM items WHERE id = ?1 AND deleted_at IS NULL"
    ))?
    .query_row([id], from_row)
    .optional()
}

/// One stored part, if the item has it.
pub(crate) fn part(
    conn: &Connection,
    item_id: &str,
    path: &str,
) -> rusqlite::Result<Option<Vec<u8>>> {
    conn.prepare_cached("SELECT payload FROM definition_parts WHERE item_id = ?1 AND path = ?2")?
        .query_row([item_id, path], |r| r.get(0))
        .optional()
}

/// When the item was created (Unix nanoseconds), if it exists.
pub(crate) fn created_at(conn: &Connection, id: &str) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT created_at FROM items WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()
}

/// Live items whose parent is this item.
pub(crate) fn children(conn: &Connection, parent_id: &str) -> rusqlite::Result<Vec<Item>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM items WHERE parent_item_id = ?1 AND deleted_at IS NULL ORDER BY seq"
    ))?;
    let rows = stmt.query_map([parent_id], from_row)?;
    rows.collect()
}

/// Sets name and description.
pub(crate) fn update_metadata(
    conn: &Connection,
    id: &str,
    display_name: &str,
    description: Option<&str>,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE items SET display_name = ?2, description = ?3 WHERE id = ?1",
        params![id, display_name, description],
    )?;
    Ok(())
}

/// Marks the item and its children deleted; the rows stay.
pub(crate) fn soft_delete(conn: &Connection, id: &str, now: i64) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE items SET deleted_at = ?2
          WHERE (id = ?1 OR parent_item_id = ?1) AND deleted_at IS NULL",
        params![id, now],
    )?;
    Ok(())
}

/// Removes the item, its children and their parts for good.
pub(crate) fn hard_delete(conn: &Connection, id: &str) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM items WHERE id = ?1 OR parent_item_id = ?1",
        [id],
    )?;
    Ok(())
}

/// Moves the item and its children to a folder (`None` = root).
pub(crate) fn move_to_folder(
    conn: &Connection,
    id: &str,
    folder_id: Option<&str>,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE items SET folder_id = ?2 WHERE id = ?1 OR parent_item_id = ?1",
        params![id, folder_id],
    )?;
    Ok(())
}

/// Number of live items directly in a folder.
pub(crate) fn count_in_folder(conn: &Connection, folder_id: &str) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT count(*) FROM items WHERE folder_id = ?1 AND deleted_at IS NULL")?
        .query_row([folder_id], |r| r.get(0))
}

/// The item's parts version: bumped by every change to its parts, by any process.
pub(crate) fn parts_version(conn: &Connection, item_id: &str) -> rusqlite::Result<i64> {
    conn.prepare_cached("SELECT parts_version FROM items WHERE id = ?1")?
        .query_row([item_id], |r| r.get(0))
}

fn bump_parts_version(conn: &Connection, item_id: &str) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE items SET parts_version = parts_version + 1 WHERE id = ?1")?
        .execute([item_id])?;
    Ok(())
}

/// The stored parts, in the order they were given.
pub(crate) fn parts(conn: &Connection, item_id: &str) -> rusqlite::Result<Vec<Part>> {
    let mut stmt = conn.prepare_cached(
        "SELECT path, payload FROM definition_parts WHERE item_id = ?1 ORDER BY ord",
    )?;
    let rows = stmt.query_map([item_id], |r| {
        Ok(Part {
            path: r.get(0)?,
            payload: r.get(1)?,
        })
    })?;
    rows.collect()
}

/// Sets the payload of the part at `ord` (a change to one file of a definition whose part list
/// stays the same, without rewriting the others).
pub(crate) fn set_part_payload(
    conn: &Connection,
    item_id: &str,
    ord: usize,
    payload: &[u8],
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE definition_parts SET payload = ?3 WHERE item_id = ?1 AND ord = ?2",
    )?
    .execute(params![item_id, ord as i64, payload])?;
    bump_parts_version(conn, item_id)
}

/// Replaces all parts and the stored format (updateDefinition is a full replacement).
pub(crate) fn replace_parts(
    conn: &Connection,
    item_id: &str,
    format: Option<&str>,
    parts: &[Part],
) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM definition_parts WHERE item_id = ?1", [item_id])?;
    let mut stmt = conn.prepare_cached(
        "INSERT INTO definition_parts (item_id, ord, path, payload) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (ord, part) in parts.iter().enumerate() {
        stmt.execute(params![item_id, ord as i64, part.path, part.payload])?;
    }
    conn.execute(
        "UPDATE items SET definition_format = ?2 WHERE id = ?1",
        params![item_id, format],
    )?;
    bump_parts_version(conn, item_id)
}

/// Sets one part, adding it after the others when the item does not have it yet.
pub(crate) fn upsert_part(
    conn: &Connection,
    item_id: &str,
    path: &str,
    payload: &[u8],
) -> rusqlite::Result<()> {
    let updated = conn.execute(
        "UPDATE definition_parts SET payload = ?3 WHERE item_id = ?1 AND path = ?2",
        params![item_id, path, payload],
    )?;
    if updated == 0 {
        conn.execute(
            "INSERT INTO definition_parts (item_id, ord, path, payload)
             SELECT ?1, coalesce(max(ord), -1) + 1, ?2, ?3 FROM definition_parts WHERE item_id = ?1",
            params![item_id, path, payload],
        )?;
    }
    bump_parts_version(conn, item_id)
}

/// Detaches soft-deleted items from a folder about to be deleted.
pub(crate) fn detach_deleted_from_folder(
    conn: &Connection,
    folder_id: &str,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE items SET folder_id = NULL WHERE folder_id = ?1 AND deleted_at IS NOT NULL",
        [folder_id],
    )?;
    Ok(())
}
