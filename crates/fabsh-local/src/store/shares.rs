//! External data shares (their invitations are the same rows, seen from the recipient's
//! tenant) and items' default identities.

use crate::clock::service_timestamp;
use fabsh_model::wire::{ExternalDataShare, Principal, ShareRecipient};
use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Map;

/// The tables of this file. Created if missing on every open rather than under a schema
/// version number, so they merge cleanly with branches that add numbered versions.
pub(crate) const TABLES: &str = r"
CREATE TABLE IF NOT EXISTS external_data_shares (
    seq                   INTEGER PRIMARY KEY AUTOINCREMENT,
    id                    TEXT NOT NULL UNIQUE,
    workspace_id          TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    item_id               TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    provider_tenant_id    TEXT NOT NULL,
    creator_id            TEXT NOT NULL,
    creator_type          TEXT NOT NULL,
    paths                 TEXT NOT NULL,
    recipient             TEXT NOT NULL,
    status                TEXT NOT NULL,
    created_at            INTEGER NOT NULL,
    expires_at            INTEGER NOT NULL,
    accepted_by_tenant_id TEXT
);
CREATE INDEX IF NOT EXISTS external_data_shares_item ON external_data_shares(item_id, seq);

CREATE TABLE IF NOT EXISTS item_identities (
    item_id      TEXT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
    principal_id TEXT NOT NULL REFERENCES principals(id) ON DELETE CASCADE
) WITHOUT ROWID;
";

/// Waiting for the recipient to accept.
pub(crate) const PENDING: &str = "Pending";
/// Accepted.
pub(crate) const ACTIVE: &str = "Active";
/// Revoked by the provider; final.
pub(crate) const REVOKED: &str = "Revoked";
/// Not accepted before it expired.
pub(crate) const EXPIRED: &str = "InvitationExpired";

/// A share row.
#[derive(Debug, Clone)]
pub(crate) struct Share {
    /// Creation sequence, the paging key.
    pub seq: i64,
    /// GUID; also the invitation id.
    pub id: String,
    /// The shared item's workspace.
    pub workspace_id: String,
    /// The shared item.
    pub item_id: String,
    /// The provider's tenant (the creator's).
    pub provider_tenant_id: String,
    /// Who created it.
    pub creator_id: String,
    /// `User` or `ServicePrincipal`.
    pub creator_type: String,
    /// The shared paths.
    pub paths: Vec<String>,
    /// The recipient as the wire shows it (`{type, userPrincipalName | principalId, tenantId?}`).
    pub recipient: ShareRecipient,
    /// Stored status; `Pending` reads as `InvitationExpired` once past `expires_at`.
    pub status: String,
    /// Unix nanoseconds.
    pub created_at: i64,
    /// Unix nanoseconds.
    pub expires_at: i64,
    /// The tenant that accepted, once accepted.
    pub accepted_by_tenant_id: Option<String>,
}

impl Share {
    /// The status at `now`: a pending invitation past its expiry has expired.
    pub(crate) fn status_at(&self, now: i64) -> &str {
        if self.status == PENDING && now >= self.expires_at {
            EXPIRED
        } else {
            &self.status
        }
    }

    /// The ExternalDataShare object; `invitation_url` is where the recipient is sent.
    pub(crate) fn to_wire(&self, now: i64, invitation_url: &str) -> ExternalDataShare {
        ExternalDataShare {
            id: self.id.clone(),
            paths: self.paths.clone(),
            creator_principal: Principal::of(&self.creator_id, &self.creator_type),
            recipient: self.recipient.clone(),
            status: self.status_at(now).to_string(),
            expiration_time_utc: Some(service_timestamp(self.expires_at)),
            workspace_id: self.workspace_id.clone(),
            item_id: self.item_id.clone(),
            invitation_url: Some(invitation_url.to_string()),
            accepted_by_tenant_id: self.accepted_by_tenant_id.clone(),
            extra: Map::new(),
        }
    }
}

const COLUMNS: &str = "seq, id, workspace_id, item_id, provider_tenant_id, creator_id,
    creator_type, paths, recipient, status, created_at, expires_at, accepted_by_tenant_id";

/// A JSON column read as `T`; what does not parse is a corrupt row, reported as one.
fn json_column<T: serde::de::DeserializeOwned>(
    row: &rusqlite::Row<'_>,
    index: usize,
) -> rusqlite::Result<T> {
    let text: String = row.get(index)?;
    serde_json::from_str(&text)
        .map_err(|err| rusqlite::Error::FromSqlConversionFailure(index, Type::Text, Box::new(err)))
}

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Share> {
    Ok(Share {
        seq: row.get(0)?,
        id: row.get(1)?,
        workspace_id: row.get(2)?,
        item_id: row.get(3)?,
        provider_tenant_id: row.get(4)?,
        creator_id: row.get(5)?,
        creator_type: row.get(6)?,
        paths: json_column(row, 7)?,
        recipient: json_column(row, 8)?,
        status: row.get(9)?,
        created_at: row.get(10)?,
        expires_at: row.get(11)?,
        accepted_by_tenant_id: row.get(12)?,
    })
}

/// A value for a JSON column.
fn json_text(value: &impl serde::Serialize) -> rusqlite::Result<String> {
    serde_json::to_string(value)
        .map_err(|err| rusqlite::Error::ToSqlConversionFailure(Box::new(err)))
}

/// Inserts a share.
pub(crate) fn insert(conn: &Connection, share: &Share) -> rusqlite::Result<i64> {
    conn.execute(
        &format!(
            "INSERT INTO external_data_shares ({}) VALUES
             (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            COLUMNS.trim_start_matches("seq, ")
        ),
        params![
            share.id,
            share.workspace_id,
            share.item_id,
            share.provider_tenant_id,
            share.creator_id,
            share.creator_type,
            json_text(&share.paths)?,
            json_text(&share.recipient)?,
            share.status,
            share.created_at,
            share.expires_at,
            share.accepted_by_tenant_id,
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// A share of this item.
pub(crate) fn get(conn: &Connection, item_id: &str, id: &str) -> rusqlite::Result<Option<Share>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM external_data_shares WHERE id = ?1 AND item_id = ?2"
    ))?
    .query_row([id, item_id], from_row)
    .optional()
}

/// A share by id alone (an invitation, seen from the recipient's side).
pub(crate) fn get_any(conn: &Connection, id: &str) -> rusqlite::Result<Option<Share>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM external_data_shares WHERE id = ?1"
    ))?
    .query_row([id], from_row)
    .optional()
}

/// A page of an item's shares after `after_seq`, oldest first.
pub(crate) fn list(
    conn: &Connection,
    item_id: &str,
    after_seq: i64,
    limit: i64,
) -> rusqlite::Result<Vec<Share>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM external_data_shares
          WHERE item_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3"
    ))?;
    let rows = stmt.query_map(params![item_id, after_seq, limit], from_row)?;
    rows.collect()
}

/// Sets the status (and, on acceptance, the accepting tenant).
pub(crate) fn set_status(
    conn: &Connection,
    id: &str,
    status: &str,
    accepted_by_tenant_id: Option<&str>,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE external_data_shares
            SET status = ?2, accepted_by_tenant_id = coalesce(?3, accepted_by_tenant_id)
          WHERE id = ?1",
        params![id, status, accepted_by_tenant_id],
    )?;
    Ok(())
}

/// Deletes a share; returns whether it existed.
pub(crate) fn delete(conn: &Connection, id: &str) -> rusqlite::Result<bool> {
    Ok(conn.execute("DELETE FROM external_data_shares WHERE id = ?1", [id])? > 0)
}

/// Makes `principal_id` the item's default identity.
pub(crate) fn set_identity(
    conn: &Connection,
    item_id: &str,
    principal_id: &str,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO item_identities (item_id, principal_id) VALUES (?1, ?2)
         ON CONFLICT(item_id) DO UPDATE SET principal_id = excluded.principal_id",
        [item_id, principal_id],
    )?;
    Ok(())
}

/// The principal id of the item's default identity, if one was assigned.
pub(crate) fn identity(conn: &Connection, item_id: &str) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT principal_id FROM item_identities WHERE item_id = ?1")?
        .query_row([item_id], |r| r.get(0))
        .optional()
}
