//! Sign-in state: device codes waiting for approval, and the certificates and federated
//! subjects registered on service principals.

use rusqlite::{Connection, OptionalExtension, params};

/// A device code as stored; the device code itself is kept only as a digest.
#[derive(Debug, Clone)]
pub(crate) struct DeviceCode {
    /// What the user types or passes to `local approve`.
    pub user_code: String,
    /// The tenant the code was requested for.
    pub tenant_id: String,
    /// The public client that asked.
    pub client_id: String,
    /// The requested scopes, space-separated.
    pub scope: String,
    /// Unix seconds after which the code is void.
    pub expires_at: i64,
    /// The principal that approved the sign-in, once approved.
    pub approved_by: Option<String>,
}

/// What an app credential is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CredentialKind {
    /// An X.509 certificate (DER); assertions signed by its key are accepted.
    Certificate,
    /// A subject of the local OIDC issuer; federated assertions for it are accepted.
    FederatedSubject,
}

impl CredentialKind {
    fn as_str(self) -> &'static str {
        match self {
            CredentialKind::Certificate => "certificate",
            CredentialKind::FederatedSubject => "federated",
        }
    }
}

/// Stores a new device code.
pub(crate) fn insert_device_code(
    conn: &Connection,
    device_code_sha256: &str,
    code: &DeviceCode,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO device_codes
           (device_code_sha256, user_code, tenant_id, client_id, scope, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            device_code_sha256,
            code.user_code,
            code.tenant_id,
            code.client_id,
            code.scope,
            code.expires_at
        ],
    )?;
    Ok(())
}

/// The device code with this digest.
pub(crate) fn device_code(
    conn: &Connection,
    device_code_sha256: &str,
) -> rusqlite::Result<Option<DeviceCode>> {
    conn.prepare_cached(
        "SELECT user_code, tenant_id, client_id, scope, expires_at, approved_by
           FROM device_codes WHERE device_code_sha256 = ?1",
    )?
    .query_row([device_code_sha256], |r| {
        Ok(DeviceCode {
            user_code: r.get(0)?,
            tenant_id: r.get(1)?,
            client_id: r.get(2)?,
            scope: r.get(3)?,
            expires_at: r.get(4)?,
            approved_by: r.get(5)?,
        })
    })
    .optional()
}

/// Marks a pending, unexpired code approved by `principal_id`; false when there is none.
pub(crate) fn approve_device_code(
    conn: &Connection,
    user_code: &str,
    principal_id: &str,
    now: i64,
) -> rusqlite::Result<bool> {
    let changed = conn.execute(
        "UPDATE device_codes SET approved_by = ?2
          WHERE user_code = upper(?1) AND approved_by IS NULL AND expires_at > ?3",
        params![user_code.trim(), principal_id, now],
    )?;
    Ok(changed > 0)
}

/// Removes a code once it has been redeemed, and every code that has expired.
pub(crate) fn delete_device_code(
    conn: &Connection,
    device_code_sha256: &str,
    now: i64,
) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM device_codes WHERE device_code_sha256 = ?1 OR expires_at <= ?2",
        params![device_code_sha256, now],
    )?;
    Ok(())
}

/// Registers a credential on a principal.
pub(crate) fn insert_credential(
    conn: &Connection,
    principal_id: &str,
    kind: CredentialKind,
    value: &[u8],
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO app_credentials (principal_id, kind, value) VALUES (?1, ?2, ?3)",
        params![principal_id, kind.as_str(), value],
    )?;
    Ok(())
}

/// The credentials of one kind registered on a principal.
pub(crate) fn credentials(
    conn: &Connection,
    principal_id: &str,
    kind: CredentialKind,
) -> rusqlite::Result<Vec<Vec<u8>>> {
    let mut stmt = conn.prepare_cached(
        "SELECT value FROM app_credentials WHERE principal_id = ?1 AND kind = ?2 ORDER BY rowid",
    )?;
    let rows = stmt.query_map(params![principal_id, kind.as_str()], |r| r.get(0))?;
    rows.collect()
}
