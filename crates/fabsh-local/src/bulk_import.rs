//! bulkImportDefinitions over the stored definitions.
//!
//! Parts are grouped into items by the folders holding a `.platform`; the `.platform` names the
//! type, display name and logical id. An item pairs with the workspace's item of the same
//! logical id (updated: parts, name, description, folder), else, when pairing by name is
//! allowed, with the item of the same type and display name (which then takes the imported
//! logical id, so the next import pairs by id); otherwise it is created. The reference leaves
//! open whether folders come from the path prefix: local Fabric creates missing ones and moves
//! paired items into them. A display-name clash fails the whole operation
//! (`DuplicateDisplayNameAndType`); an item of an unknown or definition-less type fails alone,
//! reported per item with `errorInfo`.

use super::actions::{NewItem, StoredPart, create_item, load_parts, store_parts};
use super::api_error::ApiError;
use super::definitions::infer_format;
use super::store::folders::{self, Folder};
use super::store::items::{self, Part};
use super::store::{new_id, workspaces};
use axum::http::StatusCode;
use fabsh_model::definition::{self as shared, paths, platform};
use fabsh_model::item_types;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashSet};

/// Deepest folder nesting, as for folders made one by one.
const MAX_FOLDER_DEPTH: usize = 10;

/// One item of an import, validated.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ImportItem {
    /// Folder names from the root path, outermost first.
    pub folders: Vec<String>,
    /// `.platform` `metadata.type`.
    pub item_type: String,
    /// `.platform` `metadata.displayName`.
    pub display_name: String,
    /// `.platform` `metadata.description`.
    pub description: Option<String>,
    /// `.platform` `config.logicalId`, lower-case.
    pub logical_id: String,
    /// `allowPairingByName` from `options.itemOptionsByLogicalId`, overriding the import's.
    pub allow_pairing_by_name: Option<bool>,
    /// The parts other than `.platform`.
    pub parts: Vec<StoredPart>,
}

/// A whole import.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Import {
    /// Workspace.
    pub workspace_id: String,
    /// `options.allowPairingByName`.
    pub allow_pairing_by_name: bool,
    /// The items, in the order their `.platform` parts came.
    pub items: Vec<ImportItem>,
}

fn invalid_path(path: &str, why: &str) -> ApiError {
    ApiError::bad_request(
        "InvalidFilesPath",
        format!("The part path '{path}' is invalid: {why}"),
    )
}

fn corrupted(message: String) -> ApiError {
    ApiError::bad_request("CorruptedPayload", message)
}

/// Validates a request body into an import (400s for anything the operation cannot apply).
pub(crate) fn parse(workspace_id: &str, body: &Map<String, Value>) -> Result<Import, ApiError> {
    let wire = body
        .get("definitionParts")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::invalid_body("The 'definitionParts' field is required"))?;
    let mut decoded: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut roots: Vec<String> = Vec::new();
    for (i, part) in wire.iter().enumerate() {
        let field = |name: &str| part.get(name).and_then(Value::as_str);
        let path = field("path").ok_or_else(|| {
            ApiError::invalid_body(format!("definitionParts[{i}].path is required"))
        })?;
        let payload = field("payload").ok_or_else(|| {
            ApiError::invalid_body(format!("definitionParts[{i}].payload is required"))
        })?;
        if field("payloadType") != Some(shared::INLINE_BASE64) {
            return Err(ApiError::invalid_body(format!(
                "definitionParts[{i}].payloadType must be InlineBase64"
            )));
        }
        let relative = path
            .strip_prefix('/')
            .ok_or_else(|| invalid_path(path, "it must start with /"))?;
        if let Some(problem) = paths::problem(relative) {
            return Err(invalid_path(path, problem));
        }
        let bytes = shared::decode_payload(payload)
            .map_err(|_| corrupted(format!("The payload of part '{path}' is not valid base64")))?;
        if let Some(root) = relative.strip_suffix(&format!("/{}", platform::PATH)) {
            roots.push(root.to_string());
        } else if relative == platform::PATH {
            return Err(invalid_path(
                path,
                "a .platform must be inside an item folder",
            ));
        }
        if decoded.insert(relative.to_string(), bytes).is_some() {
            return Err(invalid_path(path, "it appears more than once"));
        }
    }
    if let Some(inner) = roots
        .iter()
        .find(|r| roots.iter().any(|o| r.starts_with(&format!("{o}/"))))
    {
        return Err(invalid_path(inner, "item folders cannot be nested"));
    }
    let mut grouped: BTreeMap<&str, Vec<Part>> =
        roots.iter().map(|r| (r.as_str(), Vec::new())).collect();
    for (relative, bytes) in &decoded {
        let root = roots
            .iter()
            .find(|r| relative.starts_with(&format!("{r}/")))
            .ok_or_else(|| {
                invalid_path(
                    &format!("/{relative}"),
                    "it is not inside an item folder with a .platform",
                )
            })?;
        let inside = &relative[root.len() + 1..];
        if inside != platform::PATH
            && let Some(parts) = grouped.get_mut(root.as_str())
        {
            parts.push(Part {
                path: inside.to_string(),
                payload: bytes.clone(),
            });
        }
    }
    let (default_allow, per_item) = options(body)?;
    let mut logical_ids = HashSet::new();
    let mut items = Vec::with_capacity(roots.len());
    for root in &roots {
        let bytes = &decoded[&format!("{root}/{}", platform::PATH)];
        let doc = platform::document(bytes).map_err(|e| corrupted(format!("/{root}: {e}")))?;
        if let Some((_, problem)) = platform::problems(&doc)
            .into_iter()
            .find(|(error, _)| *error)
        {
            return Err(corrupted(format!("/{root}/.platform: {problem}")));
        }
        // platform::problems refused a .platform without a type, a name or a logical id above.
        let platform::Platform {
            item_type: Some(item_type),
            display_name: Some(display_name),
            description,
            logical_id: Some(logical_id),
        } = platform::fields(&doc)
        else {
            return Err(corrupted(format!(
                "/{root}/.platform: metadata.type, metadata.displayName or config.logicalId is missing"
            )));
        };
        let logical_id = logical_id.to_ascii_lowercase();
        // Items without an identity (the all-zero GUID) may be many.
        let anonymous = logical_id.is_empty() || logical_id == platform::UNSET_LOGICAL_ID;
        if !anonymous && !logical_ids.insert(logical_id.clone()) {
            return Err(ApiError::bad_request(
                "InvalidInput",
                format!("The logical id '{logical_id}' appears in more than one item"),
            ));
        }
        let mut folders: Vec<String> = root.split('/').map(str::to_string).collect();
        folders.pop();
        // An item folder holding only its .platform imports with no parts.
        let parts = grouped.remove(root.as_str()).unwrap_or_default();
        items.push(ImportItem {
            folders,
            item_type,
            display_name,
            description,
            allow_pairing_by_name: per_item.get(&logical_id).copied(),
            logical_id: if anonymous {
                platform::UNSET_LOGICAL_ID.to_string()
            } else {
                logical_id
            },
            parts: store_parts(&parts),
        });
    }
    if let Some(unknown) = per_item.keys().find(|id| !logical_ids.contains(*id)) {
        return Err(ApiError::bad_request(
            "InvalidInput",
            format!("itemOptionsByLogicalId names '{unknown}', which no imported item carries"),
        ));
    }
    Ok(Import {
        workspace_id: workspace_id.to_string(),
        allow_pairing_by_name: default_allow,
        items,
    })
}

/// `options.allowPairingByName`, and the per-item `allowPairingByName` of
/// `options.itemOptionsByLogicalId` (the reference does not confirm that field; local Fabric
/// takes it and honours that one key).
fn options(body: &Map<String, Value>) -> Result<(bool, BTreeMap<String, bool>), ApiError> {
    let options = match body.get("options") {
        None | Some(Value::Null) => return Ok((false, BTreeMap::new())),
        Some(Value::Object(options)) => options,
        Some(_) => return Err(ApiError::invalid_body("'options' must be an object")),
    };
    let flag = |value: Option<&Value>, what: &str| match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(ApiError::invalid_body(format!(
            "'{what}' must be true or false"
        ))),
    };
    let default = flag(
        options.get("allowPairingByName"),
        "options.allowPairingByName",
    )?;
    let mut per_item = BTreeMap::new();
    match options.get("itemOptionsByLogicalId") {
        None | Some(Value::Null) => {}
        Some(Value::Object(by_id)) => {
            for (id, entry) in by_id {
                let allow = flag(entry.get("allowPairingByName"), "allowPairingByName")?;
                if let Some(allow) = allow {
                    per_item.insert(id.to_ascii_lowercase(), allow);
                }
            }
        }
        Some(_) => {
            return Err(ApiError::invalid_body(
                "'options.itemOptionsByLogicalId' must be an object keyed by logical id",
            ));
        }
    }
    Ok((default.unwrap_or(false), per_item))
}

/// Why one item did not import: alone, or taking the whole operation down.
enum Failure {
    Item(ApiError),
    All(ApiError),
}

impl From<rusqlite::Error> for Failure {
    fn from(err: rusqlite::Error) -> Self {
        Failure::All(err.into())
    }
}

fn duplicate(item: &ImportItem) -> Failure {
    Failure::All(ApiError::bad_request(
        "DuplicateDisplayNameAndType",
        format!(
            "An item of type {} named '{}' already exists and is not paired with the imported one",
            item.item_type, item.display_name
        ),
    ))
}

/// Applies an import: `{importItemDefinitionsDetails: [...]}`.
pub(crate) fn apply(conn: &Connection, import: &Import, now: i64) -> Result<Value, ApiError> {
    if workspaces::get(conn, &import.workspace_id)?.is_none() {
        return Err(ApiError::workspace_not_found(&import.workspace_id));
    }
    let mut details = Vec::with_capacity(import.items.len());
    for item in &import.items {
        // Each item in its own savepoint, so one that fails alone leaves nothing half-done.
        conn.execute_batch("SAVEPOINT import_item")?;
        let outcome = import_one(conn, import, item, now);
        if outcome.is_err() {
            conn.execute_batch("ROLLBACK TO import_item")?;
        }
        conn.execute_batch("RELEASE import_item")?;
        let (id, operation, status, error) = match outcome {
            Ok((id, operation)) => (json!(id), operation, "Succeeded", None),
            Err(Failure::Item(err)) => (Value::Null, "Create", "Failed", Some(err)),
            Err(Failure::All(err)) => return Err(err),
        };
        let mut detail = json!({
            "itemId": id,
            "itemDisplayName": item.display_name,
            "itemType": item.item_type,
            "itemLogicalId": item.logical_id,
            "operationType": operation,
            "operationStatus": status,
        });
        if let Some(err) = error {
            detail["errorInfo"] = json!({"errorCode": err.code, "message": err.message});
        }
        details.push(detail);
    }
    Ok(json!({ "importItemDefinitionsDetails": details }))
}

/// Imports one item: `(its id, Create | Update)`.
fn import_one(
    conn: &Connection,
    import: &Import,
    item: &ImportItem,
    now: i64,
) -> Result<(String, &'static str), Failure> {
    let ws = &import.workspace_id;
    let Some(kind) = item_types::find(&item.item_type) else {
        return Err(Failure::Item(ApiError::bad_request(
            "InvalidItemType",
            format!("The item type '{}' is not valid", item.item_type),
        )));
    };
    if !kind.has_definition || !kind.creatable {
        return Err(Failure::Item(ApiError::bad_request(
            "OperationNotSupportedForItem",
            format!("Items of type {} cannot be imported", kind.name),
        )));
    }
    // Named by its .platform, as a create or a rename names it.
    crate::name_rules::check_item(kind.name, &item.display_name).map_err(Failure::Item)?;
    let allow_by_name = item
        .allow_pairing_by_name
        .unwrap_or(import.allow_pairing_by_name);
    let paired = match items::logical_id_owner(conn, ws, &item.logical_id, "")? {
        Some(id) => match items::get(conn, ws, &id)? {
            Some(found) if found.item_type != kind.name => {
                return Err(Failure::Item(ApiError::bad_request(
                    "InvalidInput",
                    format!(
                        "The logical id '{}' belongs to a {} item",
                        item.logical_id, found.item_type
                    ),
                )));
            }
            found => found,
        },
        None if allow_by_name => items::find_named(conn, ws, kind.name, &item.display_name)?,
        None => None,
    };
    let folder_id = ensure_folders(conn, ws, &item.folders, now)?;
    let parts = load_parts(&item.parts).map_err(Failure::All)?;
    let format = infer_format(kind.name, &parts);
    let Some(existing) = paired else {
        if items::name_taken(conn, ws, kind.name, &item.display_name, "")? {
            return Err(duplicate(item));
        }
        let new = NewItem {
            id: new_id(),
            workspace_id: ws.clone(),
            item_type: kind.name.to_string(),
            display_name: item.display_name.clone(),
            description: item.description.clone(),
            folder_id,
            logical_id: item.logical_id.clone(),
            sensitivity_label_id: None,
            format,
            parts: item.parts.clone(),
            creation_payload: None,
        };
        let created = create_item(conn, &new, now).map_err(Failure::All)?;
        return Ok((created.id, "Create"));
    };
    if items::name_taken(conn, ws, kind.name, &item.display_name, &existing.id)? {
        return Err(duplicate(item));
    }
    let description = item.description.clone().or(existing.description.clone());
    items::update_metadata(
        conn,
        &existing.id,
        &item.display_name,
        description.as_deref(),
    )?;
    if item.logical_id != platform::UNSET_LOGICAL_ID {
        items::set_logical_id(conn, &existing.id, &item.logical_id)?;
    }
    items::move_to_folder(conn, &existing.id, folder_id.as_deref())?;
    let format = format.or(existing.definition_format.clone());
    items::replace_parts(conn, &existing.id, format.as_deref(), &parts)?;
    Ok((existing.id, "Update"))
}

/// The folder at this path of names, made where missing; `None` = the workspace root.
fn ensure_folders(
    conn: &Connection,
    workspace_id: &str,
    names: &[String],
    now: i64,
) -> Result<Option<String>, Failure> {
    if names.len() > MAX_FOLDER_DEPTH {
        return Err(Failure::Item(ApiError::new(
            StatusCode::BAD_REQUEST,
            "FolderDepthOutOfRange",
            format!("Folders can be nested at most {MAX_FOLDER_DEPTH} levels deep"),
        )));
    }
    let mut parent: Option<String> = None;
    for name in names {
        let found = folders::find_child(conn, workspace_id, parent.as_deref(), name)?;
        let id = if let Some(folder) = found {
            folder.id
        } else {
            crate::name_rules::check_folder(name).map_err(Failure::Item)?;
            let folder = Folder {
                seq: 0,
                id: new_id(),
                workspace_id: workspace_id.to_string(),
                parent_id: parent.clone(),
                display_name: name.clone(),
            };
            folders::insert(conn, &folder, now)?;
            folder.id
        };
        parent = Some(id);
    }
    Ok(parent)
}
