//! `/v1/workspaces/{ws}/folders[/{id}[/move]]` (preview API).

use super::target::{ChildTarget, WorkspaceTarget};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::clock::now_nanos;
use crate::paging::{PageToken, Paging};
use crate::respond::{self, JsonBody, Origin, Query, norm, opt_id, req_str};
use crate::state::Shared;
use crate::store::folders::{self, Folder};
use crate::store::items::{self, FolderScope};
use crate::store::{new_id, principals::Role};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use rusqlite::Connection;

/// Deepest allowed nesting (a root-level folder has depth 1).
const MAX_DEPTH: i64 = 10;

fn name_in_use(name: &str) -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        "FolderDisplayNameAlreadyInUse",
        format!("A folder named '{name}' already exists at this level"),
    )
}

fn too_deep() -> ApiError {
    ApiError::bad_request(
        "FolderDepthOutOfRange",
        format!("Folders can be nested at most {MAX_DEPTH} levels deep"),
    )
}

fn get_folder(conn: &Connection, ws: &str, id: &str) -> Result<Folder, ApiError> {
    folders::get(conn, ws, id)?.ok_or_else(|| ApiError::folder_not_found(id))
}

/// Refuses a folder id given (`rootFolderId`, `folderId`, `targetFolderId`) that is none of
/// the workspace's folders: 404 `FolderNotFound`. None given is the workspace root.
pub(super) fn check_folder(conn: &Connection, ws: &str, id: Option<&str>) -> Result<(), ApiError> {
    match id {
        Some(id) => get_folder(conn, ws, id).map(drop),
        None => Ok(()),
    }
}

/// GET: a page of folders; `rootFolderId`, `recursive` (default true).
pub(super) fn list(
    State(state): State<Shared>,
    caller: Caller,
    WorkspaceTarget { ws }: WorkspaceTarget,
    paging: Paging,
    query: Query,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Viewer)?;
    let token = paging.token(PageToken::first("folders", Some(&ws)), |first| {
        let root_folder = query.get("rootFolderId").map(norm);
        if let Some(folder) = &root_folder {
            state.db.read(|c| get_folder(c, &ws, folder))?;
        }
        Ok(PageToken {
            root_folder,
            recursive: query.flag("recursive", true)?,
            ..first
        })
    })?;
    let scope = FolderScope::of(token.root_folder.as_deref(), token.recursive);
    paging.respond(
        &token,
        |after, limit| {
            state
                .db
                .read(|c| folders::list(c, &ws, &scope, after, limit))
        },
        |f| f.seq,
        Folder::to_wire,
    )
}

/// POST `{displayName, parentFolderId?}` → 201 with `Location`.
pub(super) fn create(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    WorkspaceTarget { ws }: WorkspaceTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Contributor)?;
    let obj = body.object()?;
    let name = req_str(&obj, "displayName")?;
    crate::name_rules::check_folder(&name)?;
    let folder = Folder {
        seq: 0,
        id: new_id(),
        workspace_id: ws.clone(),
        parent_id: opt_id(&obj, "parentFolderId")?,
        display_name: name,
    };
    state.db.write(|tx| {
        if let Some(parent) = &folder.parent_id {
            get_folder(tx, &ws, parent)?;
            if folders::depth(tx, parent)? + 1 > MAX_DEPTH {
                return Err(too_deep());
            }
        }
        if folders::name_taken(
            tx,
            &ws,
            folder.parent_id.as_deref(),
            &folder.display_name,
            "",
        )? {
            return Err(name_in_use(&folder.display_name));
        }
        folders::insert(tx, &folder, now_nanos())?;
        Ok::<_, ApiError>(())
    })?;
    Ok(respond::created(
        &folder.to_wire(),
        &format!("{origin}/v1/workspaces/{ws}/folders/{}", folder.id),
    ))
}

/// GET one folder.
pub(super) fn show(
    State(state): State<Shared>,
    caller: Caller,
    ChildTarget { ws, id }: ChildTarget,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Viewer)?;
    let folder = state.db.read(|c| get_folder(c, &ws, &id))?;
    Ok(respond::json(StatusCode::OK, &folder.to_wire()))
}

/// PATCH `{displayName}`.
pub(super) fn rename(
    State(state): State<Shared>,
    caller: Caller,
    ChildTarget { ws, id }: ChildTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Contributor)?;
    let name = req_str(&body.object()?, "displayName")?;
    crate::name_rules::check_folder(&name)?;
    let folder = state.db.write(|tx| {
        let mut folder = get_folder(tx, &ws, &id)?;
        if folders::name_taken(tx, &ws, folder.parent_id.as_deref(), &name, &id)? {
            return Err(name_in_use(&name));
        }
        folders::rename(tx, &id, &name)?;
        folder.display_name = name;
        Ok::<_, ApiError>(folder)
    })?;
    Ok(respond::json(StatusCode::OK, &folder.to_wire()))
}

/// DELETE: only an empty folder (no sub-folders, no live items) → else 400 `FolderNotEmpty`.
pub(super) fn remove(
    State(state): State<Shared>,
    caller: Caller,
    ChildTarget { ws, id }: ChildTarget,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Contributor)?;
    state.db.write(|tx| {
        get_folder(tx, &ws, &id)?;
        if folders::has_subfolders(tx, &id)? || items::count_in_folder(tx, &id)? > 0 {
            return Err(ApiError::bad_request(
                "FolderNotEmpty",
                "The requested folder was not empty.",
            )
            .related(&id, "Folder"));
        }
        items::detach_deleted_from_folder(tx, &id)?;
        folders::delete(tx, &id)?;
        Ok::<_, ApiError>(())
    })?;
    Ok(respond::empty_ok())
}

/// POST `…/move` `{targetFolderId?}` (absent or null = root).
pub(super) fn move_folder(
    State(state): State<Shared>,
    caller: Caller,
    ChildTarget { ws, id }: ChildTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Contributor)?;
    let target = opt_id(&body.object()?, "targetFolderId")?;
    let folder = state.db.write(|tx| {
        let mut folder = get_folder(tx, &ws, &id)?;
        let target_depth = match &target {
            Some(t) => {
                get_folder(tx, &ws, t)?;
                if folders::in_subtree(tx, &id, t)? {
                    return Err(ApiError::bad_request(
                        "InfiniteFolderHierarchyLoop",
                        "A folder cannot be moved into itself or one of its sub-folders",
                    ));
                }
                folders::depth(tx, t)?
            }
            None => 0,
        };
        if target_depth + folders::height(tx, &id)? > MAX_DEPTH {
            return Err(too_deep());
        }
        if folders::name_taken(tx, &ws, target.as_deref(), &folder.display_name, &id)? {
            return Err(name_in_use(&folder.display_name));
        }
        folders::set_parent(tx, &id, target.as_deref())?;
        folder.parent_id = target;
        Ok::<_, ApiError>(folder)
    })?;
    Ok(respond::json(StatusCode::OK, &folder.to_wire()))
}
