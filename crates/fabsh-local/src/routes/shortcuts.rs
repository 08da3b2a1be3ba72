//! OneLake shortcuts (swagger platform `OneLakeShortcuts_*`): list, create with
//! `shortcutConflictPolicy`, bulkCreate, get, delete, on `…/items/{id}/shortcuts`. A shortcut
//! lives under the item's `Files` or `Tables`; a OneLake target must name an item the caller
//! can read and a path under its `Files` or `Tables` that exists (a file or folder of its
//! OneLake storage, or a table of its SQL data), else 400 "Target path doesn't exist" as the
//! service refuses it (its exact code is not recorded: `BadRequest`, as for other bodies).

use super::target::ItemTarget;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::paging::{PageToken, Paging};
use crate::respond::{self, JsonBody, Origin, Query, norm};
use crate::state::Shared;
use crate::store::items;
use crate::store::principals::Role;
use crate::store::shortcuts::{self, Shortcut};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use rusqlite::Connection;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The target kinds of swagger `CreatableShortcutTarget`, with the `type` each reports.
const TARGET_KINDS: &[(&str, &str)] = &[
    ("oneLake", "OneLake"),
    ("adlsGen2", "AdlsGen2"),
    ("amazonS3", "AmazonS3"),
    ("googleCloudStorage", "GoogleCloudStorage"),
    ("s3Compatible", "S3Compatible"),
    ("dataverse", "Dataverse"),
    ("azureBlobStorage", "AzureBlobStorage"),
    ("oneDriveSharePoint", "OneDriveSharePoint"),
];

/// A path inside an item: no leading or trailing `/`, under `Files` or `Tables`.
fn item_path(text: &str, field: &str) -> Result<String, ApiError> {
    let path = text.trim().trim_matches('/').to_string();
    let root = path.split_once('/').map_or(path.as_str(), |(root, _)| root);
    if root.eq_ignore_ascii_case("Files") || root.eq_ignore_ascii_case("Tables") {
        Ok(path)
    } else {
        Err(ApiError::invalid_body(format!(
            "'{field}' must be a path under Files or Tables, not '{text}'"
        )))
    }
}

fn wire(shortcut: &Shortcut) -> Value {
    json!({"path": shortcut.path, "name": shortcut.name, "target": shortcut.target})
}

fn not_found(path: &str, name: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "EntityNotFound",
        format!("The shortcut '{path}/{name}' was not found"),
    )
}

/// A create request checked: where the shortcut goes and its wire target.
struct Wanted {
    path: String,
    name: String,
    target: Value,
}

impl Wanted {
    /// The shortcut as the service answers it.
    fn wire(&self) -> Value {
        json!({"path": self.path, "name": self.name, "target": self.target})
    }
}

/// Checks a `CreateShortcutRequest`; a OneLake target must exist (see the module comment).
fn wanted(
    conn: &Connection,
    caller: &Caller,
    state: &Shared,
    request: &Map<String, Value>,
) -> Result<Wanted, ApiError> {
    let text = |key: &str| {
        request
            .get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| ApiError::invalid_body(format!("The '{key}' field is required")))
    };
    let path = item_path(text("path")?, "path")?;
    let name = text("name")?.trim().to_string();
    if name.is_empty() || name.contains('/') {
        return Err(ApiError::invalid_body(
            "'name' must be a non-empty name without '/'",
        ));
    }
    let given = request
        .get("target")
        .and_then(Value::as_object)
        .ok_or_else(|| ApiError::invalid_body("The 'target' field is required"))?;
    let kinds: Vec<&(&str, &str)> = TARGET_KINDS
        .iter()
        .filter(|(key, _)| given.get(*key).is_some_and(Value::is_object))
        .collect();
    let [(key, kind)] = kinds.as_slice() else {
        return Err(ApiError::invalid_body(
            "'target' must name exactly one destination (oneLake, adlsGen2, amazonS3, ...)",
        ));
    };
    let mut destination = given[*key].clone();
    if *key == "oneLake" {
        destination = one_lake_target(conn, caller, state, &destination)?;
    }
    Ok(Wanted {
        path,
        name,
        target: json!({"type": kind, *key: destination}),
    })
}

/// A OneLake target as stored: `workspaceId`, `itemId`, `path` (checked to exist).
fn one_lake_target(
    conn: &Connection,
    caller: &Caller,
    state: &Shared,
    target: &Value,
) -> Result<Value, ApiError> {
    let field = |key: &str| {
        target[key]
            .as_str()
            .map(norm)
            .ok_or_else(|| ApiError::invalid_body(format!("'target.oneLake.{key}' is required")))
    };
    let (ws, item) = (field("workspaceId")?, field("itemId")?);
    // A target without a path would be the item's root, which is under neither Files nor
    // Tables: required, as the path checked below.
    let path = target["path"]
        .as_str()
        .ok_or_else(|| ApiError::invalid_body("'target.oneLake.path' is required"))?;
    let path = item_path(path, "target.oneLake.path")?;
    let missing = || {
        ApiError::invalid_body(format!(
            "The target path '{path}' of item '{item}' in workspace '{ws}' does not exist"
        ))
    };
    if caller.workspace(state, &ws, Role::Viewer).is_err() {
        return Err(missing());
    }
    if items::get(conn, &ws, &item)?.is_none() {
        return Err(missing());
    }
    if !target_exists(conn, state, &ws, &item, &path)? {
        return Err(ApiError::bad_request(
            "BadRequest",
            "Target path doesn't exist",
        ));
    }
    Ok(json!({"workspaceId": ws, "itemId": item, "path": path}))
}

/// Whether a OneLake target path exists as the service sees it: a file or folder in the
/// item's OneLake storage (`Files` and `Tables` always), or a table of its SQL data
/// (`Tables/orders`; `Tables/dbo/orders` and `Tables/dbo` as a lakehouse with schemas names
/// them).
fn target_exists(
    conn: &Connection,
    state: &Shared,
    ws: &str,
    item: &str,
    path: &str,
) -> Result<bool, ApiError> {
    // `item_path` took the root in any case; OneLake's folders are `Files` and `Tables`.
    let (root, rest) = path
        .split_once('/')
        .map_or((path, None), |(r, rest)| (r, Some(rest)));
    let root = if root.eq_ignore_ascii_case("Files") {
        "Files"
    } else {
        "Tables"
    };
    let canonical = rest.map_or(root.to_string(), |rest| format!("{root}/{rest}"));
    if crate::onelake::exists(state.db.data_dir(), ws, item, &canonical) {
        return Ok(true);
    }
    let (Some(rest), "Tables") = (rest, root) else {
        return Ok(false);
    };
    let demo = crate::tables::is_demo(conn, item)?;
    let Some(tables) = state.tables.schema(item, demo)? else {
        return Ok(false);
    };
    let named = |name: &str| {
        tables
            .iter()
            .any(|table| !table.is_view && table.name.eq_ignore_ascii_case(name))
    };
    let is_dbo = |schema: &str| schema.eq_ignore_ascii_case("dbo");
    Ok(match rest.split('/').collect::<Vec<_>>().as_slice() {
        [table] => named(table) || (is_dbo(table) && !tables.is_empty()),
        [schema, table] => is_dbo(schema) && named(table),
        _ => false,
    })
}

/// `shortcutConflictPolicy` (swagger `ShortcutConflictPolicy`), `Abort` by default.
fn conflict_policy(query: &Query) -> Result<&'static str, ApiError> {
    match query.get("shortcutConflictPolicy") {
        None | Some("") => Ok("Abort"),
        Some(given) => [
            "Abort",
            "GenerateUniqueName",
            "CreateOrOverwrite",
            "OverwriteOnly",
        ]
        .into_iter()
        .find(|p| p.eq_ignore_ascii_case(given))
        .ok_or_else(|| ApiError::invalid_parameter("shortcutConflictPolicy", given)),
    }
}

/// Creates one shortcut under the policy; returns it (named as made) and whether it was new.
fn create_one(
    conn: &Connection,
    item_id: &str,
    mut wanted: Wanted,
    policy: &str,
) -> Result<(Wanted, bool), ApiError> {
    let exists = shortcuts::get(conn, item_id, &wanted.path, &wanted.name)?.is_some();
    match (policy, exists) {
        ("Abort", true) => {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "ShortcutAlreadyExists",
                format!(
                    "A shortcut '{}' already exists at '{}'",
                    wanted.name, wanted.path
                ),
            ));
        }
        ("OverwriteOnly", false) => return Err(not_found(&wanted.path, &wanted.name)),
        ("GenerateUniqueName", true) => {
            let base = wanted.name.clone();
            let mut n = 1;
            while shortcuts::get(conn, item_id, &wanted.path, &wanted.name)?.is_some() {
                wanted.name = format!("{base}_{n}");
                n += 1;
            }
        }
        _ => {}
    }
    shortcuts::put(conn, item_id, &wanted.path, &wanted.name, &wanted.target)?;
    let created = !(exists && matches!(policy, "CreateOrOverwrite" | "OverwriteOnly"));
    Ok((wanted, created))
}

/// GET `…/shortcuts[?parentPath=]`: a page of the item's shortcuts.
pub(super) fn list(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    paging: Paging,
    query: Query,
) -> Result<Response, ApiError> {
    let item = target.open(&state, &caller, Role::Viewer)?;
    let parent = query
        .get("parentPath")
        .map(|p| p.trim().trim_matches('/').to_string())
        .filter(|p| !p.is_empty());
    let list = PageToken {
        extra: Some(format!("{}:{}", item.id, parent.as_deref().unwrap_or(""))),
        ..PageToken::first("shortcuts", Some(&target.ws))
    };
    let token = paging.token(list, Ok)?;
    paging.respond(
        &token,
        |after, limit| {
            state
                .db
                .read(|c| shortcuts::list(c, &item.id, parent.as_deref(), after, limit))
        },
        |s| s.seq,
        wire,
    )
}

/// POST `…/shortcuts`: 201 with the shortcut and its Location, 200 (with it too) when it
/// replaced one.
pub(super) fn create(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    target: ItemTarget,
    query: Query,
    body: JsonBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let policy = conflict_policy(&query)?;
    let request = body.object()?;
    let (shortcut, created) = state.db.write(|tx| {
        let item = target.get(tx)?;
        let wanted = wanted(tx, &caller, &state, &request)?;
        create_one(tx, &item.id, wanted, policy)
    })?;
    let location = format!(
        "{origin}/v1/workspaces/{}/items/{}/shortcuts/{}/{}",
        target.ws, target.id, shortcut.path, shortcut.name
    );
    // A shortcut replaced (`OverwriteOnly`) is answered 200, with its Location too (fabric-cli's
    // recording test_set_onelake_shortcut_target_itemid_success, 2026-04).
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok(respond::located(status, &shortcut.wire(), &location))
}

/// POST `…/shortcuts/bulkCreate` `{createShortcutRequests: [...]}`: each request succeeds or
/// fails on its own (swagger `BulkCreateShortcutResponse`), answered inline (the swagger
/// allows 200).
pub(super) fn bulk_create(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    query: Query,
    body: JsonBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let policy = conflict_policy(&query)?;
    let body = body.object()?;
    let requests = body
        .get("createShortcutRequests")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::invalid_body("The 'createShortcutRequests' field is required"))?
        .clone();
    let answers = state.db.write(|tx| {
        let item = target.get(tx)?;
        let mut answers = Vec::new();
        for request in &requests {
            let echo = json!({"path": request["path"], "name": request["name"]});
            tx.execute_batch("SAVEPOINT one_shortcut")?;
            let outcome = request
                .as_object()
                .ok_or_else(|| ApiError::invalid_body("Each request must be an object"))
                .and_then(|r| wanted(tx, &caller, &state, r))
                .and_then(|w| create_one(tx, &item.id, w, policy));
            answers.push(match outcome {
                Ok((shortcut, _)) => {
                    tx.execute_batch("RELEASE one_shortcut")?;
                    json!({"request": echo, "status": "Succeeded", "result": shortcut.wire()})
                }
                Err(error) => {
                    tx.execute_batch("ROLLBACK TO one_shortcut; RELEASE one_shortcut")?;
                    json!({"request": echo, "status": "Failed",
                           "error": {"errorCode": error.code, "message": error.message}})
                }
            });
        }
        Ok::<_, ApiError>(answers)
    })?;
    Ok(respond::json(StatusCode::OK, &json!({ "value": answers })))
}

/// The `{*rest}` of a shortcut's routes: its path and name (the others are the target's).
#[derive(Deserialize)]
pub(super) struct RestPath {
    rest: String,
}

/// A shortcut's path and name from the route's rest; a rest without both is not found.
fn split(rest: &str) -> Result<(String, String), ApiError> {
    let rest = rest.trim_matches('/');
    let (path, name) = rest.rsplit_once('/').ok_or_else(|| not_found(rest, ""))?;
    Ok((path.to_string(), name.to_string()))
}

/// GET `…/shortcuts/{path}/{name}`.
pub(super) fn show(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    Path(RestPath { rest }): Path<RestPath>,
) -> Result<Response, ApiError> {
    let item = target.open(&state, &caller, Role::Viewer)?;
    let (path, name) = split(&rest)?;
    let found = state
        .db
        .read(|c| shortcuts::get(c, &item.id, &path, &name))?
        .ok_or_else(|| not_found(&path, &name))?;
    Ok(respond::json(StatusCode::OK, &wire(&found)))
}

/// DELETE `…/shortcuts/{path}/{name}` → empty 200.
pub(super) fn remove(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    Path(RestPath { rest }): Path<RestPath>,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &target.ws, Role::Contributor)?;
    let (path, name) = split(&rest)?;
    let removed = state.db.write(|tx| {
        let item = target.get(tx)?;
        Ok::<_, ApiError>(shortcuts::delete(tx, &item.id, &path, &name)?)
    })?;
    if !removed {
        return Err(not_found(&path, &name));
    }
    Ok(respond::empty_ok())
}
