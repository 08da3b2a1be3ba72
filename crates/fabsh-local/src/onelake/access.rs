//! Who may touch OneLake's files, as the service decides it. The bearer token must be one for
//! Azure Storage (`aud` `https://storage.azure.com`); a Fabric token is refused as Azure
//! Storage refuses a token for another resource (401 `InvalidAuthenticationInfo`, "Audience
//! validation failed"). The caller then needs Contributor or above in the workspace, for
//! reading as for writing: in a lakehouse "Admin, Member and Contributor can perform all CRUD
//! operations on all data; a Viewer can only read data stored in tables using the SQL
//! analytics endpoint" (Fabric docs, "Workspace roles in Lakehouse"), and local Fabric has no
//! item-level ReadAll sharing that would let a Viewer read files. A caller without that role
//! gets 403 `AuthorizationPermissionMismatch`, as Azure answers a principal whose role does
//! not allow the operation.

use super::answer::StorageError;
use super::names::ItemRef;
use crate::auth::{Claims, STORAGE_AUDIENCE};
use crate::state::Shared;
use crate::store::principals::{self, Role};
use crate::store::{items, workspaces};
use axum::http::{HeaderMap, StatusCode, header};
use jsonwebtoken::errors::ErrorKind;
use rusqlite::Connection;

/// The role OneLake's data wants, for reads and writes alike (see the module comment).
const NEEDED: Role = Role::Contributor;

/// `WWW-Authenticate` as Azure Storage sends it with a 401: where a client gets a token.
fn challenge(state: &Shared) -> String {
    format!(
        "Bearer authorization_uri={}/{}/oauth2/authorize resource_id={STORAGE_AUDIENCE}",
        state.public_url.as_deref().unwrap_or(&state.bound_origin),
        state.default_tenant
    )
}

/// 401 `InvalidAuthenticationInfo` with Azure's detail.
fn invalid(state: &Shared, detail: &str) -> StorageError {
    StorageError::new(
        StatusCode::UNAUTHORIZED,
        "InvalidAuthenticationInfo",
        format!("Server failed to authenticate the request. Please refer to the information in the www-authenticate header.\nAuthenticationErrorDetail: {detail}"),
    )
    .header(header::WWW_AUTHENTICATE, challenge(state))
}

/// 403 `AuthorizationPermissionMismatch`.
fn mismatch() -> StorageError {
    StorageError::new(
        StatusCode::FORBIDDEN,
        "AuthorizationPermissionMismatch",
        "This request is not authorized to perform this operation using this permission.",
    )
}

/// The principal of the request's Storage token, or the 401 Azure Storage answers.
pub(crate) fn authenticate(state: &Shared, headers: &HeaderMap) -> Result<String, StorageError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(StorageError::new(
            StatusCode::UNAUTHORIZED,
            "NoAuthenticationInformation",
            "Server failed to authenticate the request. Please refer to the information in the www-authenticate header.",
        )
        .header(header::WWW_AUTHENTICATE, challenge(state)));
    };
    let token = value
        .to_str()
        .ok()
        .and_then(|text| text.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
        .ok_or_else(|| invalid(state, "The Authorization header is not a bearer token."))?;
    let now = crate::clock::now_nanos() / 1_000_000_000;
    if let Some(claims) = state.verified_storage_tokens.get(token, now) {
        return Ok(claims.oid);
    }
    match state.keys.decode::<Claims>(token, STORAGE_AUDIENCE) {
        Ok(claims) => {
            state.verified_storage_tokens.put(token, &claims);
            Ok(claims.oid)
        }
        Err(err) => Err(invalid(
            state,
            match err.kind() {
                ErrorKind::InvalidAudience => "Audience validation failed. Audience did not match.",
                ErrorKind::ExpiredSignature => "Lifetime validation failed. The token is expired.",
                ErrorKind::ImmatureSignature => {
                    "Lifetime validation failed. The token is not yet valid."
                }
                _ => "Signature validation failed.",
            },
        )),
    }
}

/// A workspace the caller may work in, and the item a request names in it.
#[derive(Debug, Clone)]
pub(crate) struct Granted {
    /// The workspace's id.
    pub workspace_id: String,
}

/// The workspace `segment` (id or name) names, if `principal` holds [`NEEDED`] there: 404
/// `ContainerNotFound` when there is none, 403 when the role falls short (or the principal
/// was removed since its token was issued).
pub(crate) fn workspace(
    conn: &Connection,
    principal: &str,
    segment: &str,
) -> Result<Granted, StorageError> {
    let workspace =
        workspaces::find(conn, segment)?.ok_or_else(StorageError::container_not_found)?;
    let access = principals::access(conn, principal, &workspace.id)?;
    match access.role {
        Some(role) if access.principal_exists && role >= NEEDED => Ok(Granted {
            workspace_id: workspace.id,
        }),
        _ => Err(mismatch()),
    }
}

/// The id of the live item `segment` names in the workspace, or 404 `ResourceNotFound`.
pub(crate) fn item(
    conn: &Connection,
    workspace_id: &str,
    segment: &str,
) -> Result<String, StorageError> {
    let found = match ItemRef::parse(segment) {
        Some(ItemRef::Id(id)) => items::get(conn, workspace_id, &id)?,
        Some(ItemRef::Named { name, item_type }) => {
            match fabsh_model::item_types::find(&item_type) {
                Some(known) => items::find_named(conn, workspace_id, known.name, &name)?,
                None => None,
            }
        }
        None => None,
    };
    found
        .map(|item| item.id)
        .ok_or_else(|| StorageError::item_not_found(segment))
}

/// Every live item of the workspace as `Name.Type` with its id, for a listing of the whole
/// workspace.
pub(crate) fn all_items(
    conn: &Connection,
    workspace_id: &str,
) -> Result<Vec<(String, String)>, StorageError> {
    Ok(items::names_and_ids(conn, workspace_id)?
        .into_iter()
        .map(|(name, item_type, id)| (format!("{name}.{item_type}"), id))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_and_writers_both_need_contributor() {
        assert!(Role::Viewer < NEEDED);
        assert!(Role::Contributor >= NEEDED);
        assert!(Role::Admin >= NEEDED);
    }

    #[test]
    fn the_storage_audience_is_not_fabrics() {
        assert_ne!(crate::auth::AUDIENCE, STORAGE_AUDIENCE);
    }
}
