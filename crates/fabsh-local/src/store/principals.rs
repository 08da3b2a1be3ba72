//! Tenants, principals (users and service principals), workspace role assignments, and the
//! small key/value `meta` table.

use rusqlite::{Connection, OptionalExtension, params};

pub(crate) use fabsh_model::roles::Role;

/// A user or service principal.
#[derive(Debug, Clone)]
pub(crate) struct Principal {
    /// Object id (GUID).
    pub id: String,
    /// Home tenant.
    pub tenant_id: String,
    /// `User` or `ServicePrincipal`.
    pub kind: String,
    /// Unique display name.
    pub display_name: String,
    /// Users only.
    pub user_principal_name: Option<String>,
    /// Service principals only: the application (client) id.
    pub client_id: Option<String>,
}

/// The columns [`principal_from_row`] reads, in its order.
pub(crate) const PRINCIPAL_COLUMNS: &str =
    "id, tenant_id, kind, display_name, user_principal_name, client_id";

/// A principal from a row selecting [`PRINCIPAL_COLUMNS`] first.
pub(crate) fn principal_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Principal> {
    Ok(Principal {
        id: row.get(0)?,
        tenant_id: row.get(1)?,
        kind: row.get(2)?,
        display_name: row.get(3)?,
        user_principal_name: row.get(4)?,
        client_id: row.get(5)?,
    })
}

/// Reads a `meta` value.
pub(crate) fn meta_get(conn: &Connection, key: &str) -> rusqlite::Result<Option<Vec<u8>>> {
    conn.prepare_cached("SELECT value FROM meta WHERE key = ?1")?
        .query_row([key], |r| r.get(0))
        .optional()
}

/// Writes a `meta` value.
pub(crate) fn meta_set(conn: &Connection, key: &str, value: &[u8]) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?1, ?2)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![key, value],
    )?;
    Ok(())
}

/// Removes a `meta` value, if there is one.
pub(crate) fn meta_delete(conn: &Connection, key: &str) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM meta WHERE key = ?1", [key])?;
    Ok(())
}

/// Adds a tenant.
pub(crate) fn insert_tenant(
    conn: &Connection,
    id: &str,
    name: &str,
    is_default: bool,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO tenants (id, display_name, is_default) VALUES (?1, ?2, ?3)",
        params![id, name, is_default],
    )?;
    Ok(())
}

/// Tenant ids: the default one first.
pub(crate) fn tenant_ids(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT id FROM tenants ORDER BY is_default DESC, rowid")?;
    let ids = stmt.query_map([], |r| r.get(0))?;
    ids.collect()
}

/// A tenant's display name.
pub(crate) fn tenant_name(conn: &Connection, id: &str) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT display_name FROM tenants WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()
}

/// True when the tenant exists.
pub(crate) fn tenant_exists(conn: &Connection, id: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT EXISTS(SELECT 1 FROM tenants WHERE id = ?1)")?
        .query_row([id], |r| r.get(0))
}

/// Adds a principal; `secret_sha256` is the hex digest of a service principal's secret.
pub(crate) fn insert_principal(
    conn: &Connection,
    p: &Principal,
    secret_sha256: Option<&str>,
    now: i64,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO principals
           (id, tenant_id, kind, display_name, user_principal_name, client_id, secret_sha256, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            p.id,
            p.tenant_id,
            p.kind,
            p.display_name,
            p.user_principal_name,
            p.client_id,
            secret_sha256,
            now
        ],
    )?;
    Ok(())
}

/// The principal with this object id.
pub(crate) fn get_principal(conn: &Connection, id: &str) -> rusqlite::Result<Option<Principal>> {
    conn.prepare_cached(&format!(
        "SELECT {PRINCIPAL_COLUMNS} FROM principals WHERE id = ?1"
    ))?
    .query_row([id], principal_from_row)
    .optional()
}

/// The principal with this object id, client id, or display name (case-insensitive).
pub(crate) fn find_principal(conn: &Connection, key: &str) -> rusqlite::Result<Option<Principal>> {
    conn.prepare_cached(&format!(
        "SELECT {PRINCIPAL_COLUMNS} FROM principals
         WHERE id = lower(?1) OR client_id = lower(?1) OR display_name = ?1 COLLATE NOCASE
         LIMIT 1"
    ))?
    .query_row([key], principal_from_row)
    .optional()
}

/// A service principal by tenant and client id, with its secret digest if it has a secret.
pub(crate) fn find_client(
    conn: &Connection,
    tenant_id: &str,
    client_id: &str,
) -> rusqlite::Result<Option<(Principal, Option<String>)>> {
    conn.prepare_cached(&format!(
        "SELECT {PRINCIPAL_COLUMNS}, secret_sha256 FROM principals
         WHERE tenant_id = ?1 AND client_id = lower(?2) AND kind = 'ServicePrincipal'"
    ))?
    .query_row([tenant_id, client_id], |row| {
        Ok((principal_from_row(row)?, row.get::<_, Option<String>>(6)?))
    })
    .optional()
}

/// Every principal in creation order.
pub(crate) fn list_principals(conn: &Connection) -> rusqlite::Result<Vec<Principal>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {PRINCIPAL_COLUMNS} FROM principals ORDER BY created_at, rowid"
    ))?;
    let rows = stmt.query_map([], principal_from_row)?;
    rows.collect()
}

/// Removes a principal and (by cascade) its role assignments.
pub(crate) fn delete_principal(conn: &Connection, id: &str) -> rusqlite::Result<usize> {
    conn.execute("DELETE FROM principals WHERE id = ?1", [id])
}

/// What one lookup says about a caller and a workspace.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Access {
    /// The token's principal still exists.
    pub principal_exists: bool,
    /// The workspace exists.
    pub workspace_exists: bool,
    /// The caller's role there, if any.
    pub role: Option<Role>,
}

/// Principal existence, workspace existence and role in one statement: this is on the path of
/// every workspace-scoped request.
pub(crate) fn access(
    conn: &Connection,
    principal_id: &str,
    workspace_id: &str,
) -> rusqlite::Result<Access> {
    conn.prepare_cached(
        "SELECT EXISTS(SELECT 1 FROM principals WHERE id = ?1),
                EXISTS(SELECT 1 FROM workspaces WHERE id = ?2),
                (SELECT role FROM role_assignments WHERE workspace_id = ?2 AND principal_id = ?1)",
    )?
    .query_row([principal_id, workspace_id], |r| {
        let role: Option<String> = r.get(2)?;
        Ok(Access {
            principal_exists: r.get(0)?,
            workspace_exists: r.get(1)?,
            role: role.as_deref().and_then(Role::parse),
        })
    })
}

/// True when the principal exists.
pub(crate) fn principal_exists(conn: &Connection, id: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT EXISTS(SELECT 1 FROM principals WHERE id = ?1)")?
        .query_row([id], |r| r.get(0))
}

/// One role assignment with its principal.
#[derive(Debug, Clone)]
pub(crate) struct Assignment {
    /// Creation sequence, the paging key.
    pub seq: i64,
    /// The principal.
    pub principal: Principal,
    /// The role.
    pub role: Role,
}

const ASSIGNMENT_SELECT: &str = "SELECT ra.seq, ra.role, p.id, p.tenant_id, p.kind, p.display_name,
        p.user_principal_name, p.client_id
   FROM role_assignments ra JOIN principals p ON p.id = ra.principal_id";

fn assignment_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Assignment> {
    let role: String = row.get(1)?;
    Ok(Assignment {
        seq: row.get(0)?,
        role: Role::parse(&role).unwrap_or(Role::Viewer),
        principal: Principal {
            id: row.get(2)?,
            tenant_id: row.get(3)?,
            kind: row.get(4)?,
            display_name: row.get(5)?,
            user_principal_name: row.get(6)?,
            client_id: row.get(7)?,
        },
    })
}

/// A page of a workspace's role assignments after `after_seq`.
pub(crate) fn list_assignments(
    conn: &Connection,
    workspace_id: &str,
    after_seq: i64,
    limit: i64,
) -> rusqlite::Result<Vec<Assignment>> {
    let mut stmt = conn.prepare_cached(&format!(
        "{ASSIGNMENT_SELECT} WHERE ra.workspace_id = ?1 AND ra.seq > ?2 ORDER BY ra.seq LIMIT ?3"
    ))?;
    let rows = stmt.query_map(params![workspace_id, after_seq, limit], assignment_from_row)?;
    rows.collect()
}

/// One assignment; its id is the principal's id, as in Fabric.
pub(crate) fn get_assignment(
    conn: &Connection,
    workspace_id: &str,
    principal_id: &str,
) -> rusqlite::Result<Option<Assignment>> {
    conn.prepare_cached(&format!(
        "{ASSIGNMENT_SELECT} WHERE ra.workspace_id = ?1 AND ra.principal_id = ?2"
    ))?
    .query_row([workspace_id, principal_id], assignment_from_row)
    .optional()
}

/// Gives a principal a role (replacing any earlier one).
pub(crate) fn set_role(
    conn: &Connection,
    workspace_id: &str,
    principal_id: &str,
    role: Role,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO role_assignments (workspace_id, principal_id, role) VALUES (?1, ?2, ?3)
         ON CONFLICT(workspace_id, principal_id) DO UPDATE SET role = excluded.role",
        params![workspace_id, principal_id, role.as_str()],
    )?;
    Ok(())
}

/// Removes a role assignment; returns whether one existed.
pub(crate) fn delete_role(
    conn: &Connection,
    workspace_id: &str,
    principal_id: &str,
) -> rusqlite::Result<bool> {
    let n = conn.execute(
        "DELETE FROM role_assignments WHERE workspace_id = ?1 AND principal_id = ?2",
        [workspace_id, principal_id],
    )?;
    Ok(n > 0)
}

/// A principal's roles as `(workspace id, workspace name, role)`.
pub(crate) fn roles_of(
    conn: &Connection,
    principal_id: &str,
) -> rusqlite::Result<Vec<(String, String, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT w.id, w.display_name, ra.role FROM role_assignments ra
           JOIN workspaces w ON w.id = ra.workspace_id
          WHERE ra.principal_id = ?1 ORDER BY w.seq",
    )?;
    let rows = stmt.query_map([principal_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    rows.collect()
}
