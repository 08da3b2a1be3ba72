//! GET `/v1/workspaces/{ws}/sqlDatabases/restorableDeletedDatabases` (swagger sqlDatabase
//! `Items_ListRestorableDeletedSQLDatabases`, `RestorableDeletedSQLDatabases`; Viewer): the
//! workspace's SQL databases deleted softly, named as fabric-cli's recording
//! test_mkdir_sqldatabase_restore_and_restore_deleted_with_creation_payload_success
//! (2026-07-01, newer than the swagger's example) shows the service naming them: the display
//! name `<name>-<id>`, the restore name `<name>-<id>,<deletion as a FILETIME>`, the latest
//! deleted first. A hard-deleted database is gone and not listed.

use super::target::WorkspaceTarget;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::clock::{file_time, restore_point_timestamp};
use crate::respond::{self, Query, norm};
use crate::state::Shared;
use crate::store::deleted_items::{self, DeletedItem};
use crate::store::items::FolderScope;
use crate::store::principals::Role;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;

/// Nanoseconds in a second.
const SECOND: i64 = 1_000_000_000;

/// Swagger `RestorableDeletedSQLDatabases` (one page: nothing is left out).
#[derive(Serialize)]
struct RestorableList {
    value: Vec<Restorable>,
}

/// Swagger `RestorableDeletedSQLDatabase`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Restorable {
    display_name: String,
    properties: RestorableProperties,
}

/// Swagger `RestorableDeletedSQLDatabaseProperties`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RestorableProperties {
    restorable_deleted_database_name: String,
    earliest_restore_point: String,
    latest_restore_point: String,
    deletion_timestamp: String,
}

impl From<DeletedItem> for Restorable {
    fn from(deleted: DeletedItem) -> Self {
        let display_name = format!("{}-{}", deleted.display_name, deleted.id);
        Restorable {
            properties: RestorableProperties {
                restorable_deleted_database_name: format!(
                    "{display_name},{}",
                    file_time(deleted.deleted_at)
                ),
                // The service's first restore point is its first backup, minutes after the
                // create, to the second; local Fabric takes no backups and counts from the create.
                earliest_restore_point: restore_point_timestamp(
                    deleted.created_at - deleted.created_at.rem_euclid(SECOND),
                ),
                latest_restore_point: restore_point_timestamp(deleted.deleted_at),
                deletion_timestamp: restore_point_timestamp(deleted.deleted_at),
            },
            display_name,
        }
    }
}

/// GET: `rootFolderId` and `recursive` (default true) scope it as they do an item list.
pub(super) fn list(
    State(state): State<Shared>,
    caller: Caller,
    WorkspaceTarget { ws }: WorkspaceTarget,
    query: Query,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Viewer)?;
    let root_folder = query.get("rootFolderId").map(norm);
    let scope = FolderScope::of(root_folder.as_deref(), query.flag("recursive", true)?);
    let deleted = state.db.read(|c| {
        super::folders::check_folder(c, &ws, root_folder.as_deref())?;
        Ok::<_, ApiError>(deleted_items::of_type(c, &ws, "SQLDatabase", &scope)?)
    })?;
    let list = RestorableList {
        value: deleted.into_iter().map(Restorable::from).collect(),
    };
    Ok(respond::json(StatusCode::OK, &list))
}
