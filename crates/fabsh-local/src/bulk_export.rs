//! bulkExportDefinitions over the stored definitions: every item with a definition (or the
//! selected ones) as `{itemDefinitionsIndex, definitionParts}`, part paths prefixed with the
//! item's root path `/<folders>/<name>.<Type>`, `.platform` included.

use super::api_error::ApiError;
use super::definitions::platform_part;
use super::store::folders;
use super::store::items::{self, FolderScope, Item};
use fabsh_model::definition;
use fabsh_model::item_types;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;

/// What to export.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Export {
    /// Workspace.
    pub workspace_id: String,
    /// `None` = mode All; else the selected item ids, in order.
    pub item_ids: Option<Vec<String>>,
    /// Workspaces whose data the caller may not read: agents' datasources over them are
    /// exported without their tables, as getDefinition answers them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<String>,
}

/// Whether an item takes part in an export: it has a definition and is not a child item
/// (a SQL endpoint comes and goes with its lakehouse).
pub(crate) fn exportable(item: &Item) -> bool {
    item.parent_item_id.is_none()
        && item_types::find(&item.item_type).is_some_and(|t| t.has_definition)
}

/// 400 `OperationNotSupportedForItem` for a selected item that has no definition.
pub(crate) fn not_exportable(item: &Item) -> ApiError {
    ApiError::bad_request(
        "OperationNotSupportedForItem",
        format!("Items of type {} cannot be exported", item.item_type),
    )
    .related(&item.id, "Item")
}

/// The export's result body.
pub(crate) fn apply(conn: &rusqlite::Connection, export: &Export) -> Result<Value, ApiError> {
    let ws = &export.workspace_id;
    let chosen: Vec<Item> = match &export.item_ids {
        None => items::list(conn, ws, None, &FolderScope::All, 0, i64::MAX)?
            .into_iter()
            .filter(exportable)
            .collect(),
        Some(ids) => {
            let mut chosen = Vec::with_capacity(ids.len());
            for id in ids {
                let item = items::get(conn, ws, id)?.ok_or_else(|| ApiError::item_not_found(id))?;
                if !exportable(&item) {
                    return Err(not_exportable(&item));
                }
                chosen.push(item);
            }
            chosen
        }
    };
    let folder_paths = folder_paths(conn, ws)?;
    let mut index = Vec::with_capacity(chosen.len());
    let mut parts = Vec::new();
    for item in &chosen {
        let folder = item
            .folder_id
            .as_ref()
            .and_then(|id| folder_paths.get(id))
            .map_or("", String::as_str);
        let root = format!("{folder}/{}.{}", item.display_name, item.item_type);
        let stored = crate::agents::access::without_trees_of(
            items::parts(conn, &item.id)?,
            &export.unreadable,
        );
        let platform = platform_part(&Item {
            logical_id: items::exported_logical_id(&item.id, &item.logical_id),
            ..item.clone()
        });
        for part in stored.iter().chain(std::iter::once(&platform)) {
            parts.push(definition::part(
                &format!("{root}/{}", part.path),
                &part.payload,
            ));
        }
        index.push(json!({"id": item.id, "rootPath": root}));
    }
    Ok(json!({"itemDefinitionsIndex": index, "definitionParts": parts}))
}

/// Every folder of the workspace as `/<name>/<name>...`, by id.
fn folder_paths(
    conn: &rusqlite::Connection,
    workspace_id: &str,
) -> rusqlite::Result<HashMap<String, String>> {
    let all = folders::list(conn, workspace_id, &FolderScope::All, 0, i64::MAX)?;
    let by_id: HashMap<&str, &folders::Folder> = all.iter().map(|f| (f.id.as_str(), f)).collect();
    let mut paths = HashMap::with_capacity(all.len());
    for folder in &all {
        let mut names = vec![folder.display_name.as_str()];
        let mut parent = folder.parent_id.as_deref();
        // Trees are at most ten deep and moves refuse loops; the bound only guards a damaged file.
        for _ in 0..64 {
            let Some(up) = parent.and_then(|id| by_id.get(id)) else {
                break;
            };
            names.push(&up.display_name);
            parent = up.parent_id.as_deref();
        }
        names.reverse();
        paths.insert(folder.id.clone(), format!("/{}", names.join("/")));
    }
    Ok(paths)
}
