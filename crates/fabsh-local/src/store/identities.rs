//! Managed identities: service principals whose tokens come from the identity endpoints
//! (`/msi/token`, `/metadata/identity/oauth2/token`) instead of a secret, and the one of them
//! that is the VM's own (the metadata service's, and the system-assigned one); and which of
//! them is a workspace's identity (`provisionIdentity`).

use super::principals::{PRINCIPAL_COLUMNS, Principal, principal_from_row};
use rusqlite::{Connection, OptionalExtension, params};

/// The tables of this file, created if missing on every open (see `shares::TABLES`). The
/// partial index keeps at most one VM identity, whatever process writes; a workspace has at
/// most one identity.
pub(crate) const TABLES: &str = r"
CREATE TABLE IF NOT EXISTS managed_identities (
    principal_id TEXT PRIMARY KEY REFERENCES principals(id) ON DELETE CASCADE,
    is_vm        INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS managed_identities_vm
    ON managed_identities(is_vm) WHERE is_vm = 1;
CREATE TABLE IF NOT EXISTS workspace_identities (
    workspace_id TEXT PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
    principal_id TEXT NOT NULL UNIQUE REFERENCES principals(id) ON DELETE CASCADE
);
";

/// Registers a principal as a managed identity; `vm` makes it the VM identity, taking that
/// over from any other (which stays a managed identity).
pub(crate) fn register(conn: &Connection, principal_id: &str, vm: bool) -> rusqlite::Result<()> {
    if vm {
        conn.execute(
            "UPDATE managed_identities SET is_vm = 0 WHERE is_vm = 1",
            [],
        )?;
    }
    conn.execute(
        "INSERT INTO managed_identities (principal_id, is_vm) VALUES (?1, ?2)",
        params![principal_id, vm],
    )?;
    Ok(())
}

/// The managed identity with this client id.
pub(crate) fn by_client_id(
    conn: &Connection,
    client_id: &str,
) -> rusqlite::Result<Option<Principal>> {
    conn.prepare_cached(&format!(
        "SELECT {PRINCIPAL_COLUMNS} FROM principals
          WHERE client_id = lower(?1)
            AND id IN (SELECT principal_id FROM managed_identities)"
    ))?
    .query_row([client_id], principal_from_row)
    .optional()
}

/// The VM identity, if one was chosen.
pub(crate) fn vm(conn: &Connection) -> rusqlite::Result<Option<Principal>> {
    conn.prepare_cached(&format!(
        "SELECT {PRINCIPAL_COLUMNS} FROM principals
          WHERE id IN (SELECT principal_id FROM managed_identities WHERE is_vm = 1)"
    ))?
    .query_row([], principal_from_row)
    .optional()
}

/// `None` for a principal that is no managed identity, else whether it is the VM identity.
pub(crate) fn kind_of(conn: &Connection, principal_id: &str) -> rusqlite::Result<Option<bool>> {
    conn.prepare_cached("SELECT is_vm FROM managed_identities WHERE principal_id = ?1")?
        .query_row([principal_id], |r| r.get(0))
        .optional()
}

/// The identity of a workspace, if one is provisioned.
pub(crate) fn of_workspace(
    conn: &Connection,
    workspace_id: &str,
) -> rusqlite::Result<Option<Principal>> {
    conn.prepare_cached(&format!(
        "SELECT {PRINCIPAL_COLUMNS} FROM principals
          WHERE id = (SELECT principal_id FROM workspace_identities WHERE workspace_id = ?1)"
    ))?
    .query_row([workspace_id], principal_from_row)
    .optional()
}

/// Makes a (managed identity) principal the workspace's identity.
pub(crate) fn set_workspace_identity(
    conn: &Connection,
    workspace_id: &str,
    principal_id: &str,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO workspace_identities (workspace_id, principal_id) VALUES (?1, ?2)",
        params![workspace_id, principal_id],
    )?;
    Ok(())
}
