//! Item relations derived from what items really reference: a report depends on the semantic
//! model its `definition.pbir` points at (by connection or by path), a child item (a
//! lakehouse's SQL endpoint) on its parent. Served by the beta relations API.

use super::api_error::ApiError;
use super::store::items::{self, Item};
use super::store::{principals, workspaces};
use fabsh_model::wire::{self, ItemRelation, ItemRelations, WorkspaceRef};
use rusqlite::Connection;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, VecDeque};

/// The relation type of a report reading a semantic model.
const DATASOURCE: &str = "Datasource";
/// The relation type of a child item, deleted with its parent.
const CASCADE_DELETE: &str = "CascadeDelete";
/// Most items one answer walks, so a large graph cannot make a request unbounded.
const MAX_ITEMS: usize = 500;

/// Which way to walk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Direction {
    /// What the item depends on.
    Upstream,
    /// What depends on the item.
    Downstream,
}

/// `key=value;...` of a connection string, keys lower-cased.
fn connection_fields(text: &str) -> BTreeMap<String, String> {
    text.split(';')
        .filter_map(|pair| pair.split_once('='))
        .map(|(key, value)| (key.trim().to_ascii_lowercase(), value.trim().to_string()))
        .collect()
}

fn live_model(conn: &Connection, id: &str) -> rusqlite::Result<Option<Item>> {
    Ok(items::get_any(conn, &id.to_ascii_lowercase())?.filter(|m| m.item_type == "SemanticModel"))
}

/// The semantic model a report's `definition.pbir` references, if it exists.
pub(crate) fn report_model(conn: &Connection, report: &Item) -> rusqlite::Result<Option<Item>> {
    let Some(bytes) = items::part(conn, &report.id, "definition.pbir")? else {
        return Ok(None);
    };
    let Ok(pbir) =
        serde_json::from_slice::<Value>(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes))
    else {
        return Ok(None);
    };
    let reference = &pbir["datasetReference"];
    if let Some(path) = reference.pointer("/byPath/path").and_then(Value::as_str) {
        // `../<Name>.SemanticModel`, relative to the report's own folder in a Git layout.
        let path = path.trim_end_matches('/');
        let folder = last_segment(path);
        if let Some(name) = folder.strip_suffix(".SemanticModel") {
            return items::find_named(conn, &report.workspace_id, "SemanticModel", name);
        }
    }
    let by_connection = &reference["byConnection"];
    if let Some(id) = by_connection["pbiModelDatabaseName"].as_str()
        && let Some(model) = live_model(conn, id)?
    {
        return Ok(Some(model));
    }
    // The report's own content: without a connection string it names no model by one.
    let Some(connection) = by_connection["connectionString"].as_str() else {
        return Ok(None);
    };
    let fields = connection_fields(connection);
    if let Some(id) = fields.get("semanticmodelid")
        && let Some(model) = live_model(conn, id)?
    {
        return Ok(Some(model));
    }
    // A model named by its workspace (the data source's last segment) and its name.
    let (Some(source), Some(name)) = (fields.get("data source"), fields.get("initial catalog"))
    else {
        return Ok(None);
    };
    match workspaces::find(conn, last_segment(source))? {
        Some(ws) => items::find_named(conn, &ws.id, "SemanticModel", name),
        None => Ok(None),
    }
}

/// What follows the last `/` of `text`, or all of it.
fn last_segment(text: &str) -> &str {
    text.rsplit_once('/').map_or(text, |(_, last)| last)
}

/// The direct neighbours of an item: `(neighbour, relation type)`.
fn neighbours(
    conn: &Connection,
    item: &Item,
    direction: Direction,
) -> rusqlite::Result<Vec<(Item, &'static str)>> {
    let mut found = Vec::new();
    match direction {
        Direction::Upstream => {
            if let Some(parent) = &item.parent_item_id
                && let Some(parent) = items::get_any(conn, parent)?
            {
                found.push((parent, CASCADE_DELETE));
            }
            if item.item_type == "Report"
                && let Some(model) = report_model(conn, item)?
            {
                found.push((model, DATASOURCE));
            }
        }
        Direction::Downstream => {
            found.extend(
                items::children(conn, &item.id)?
                    .into_iter()
                    .map(|c| (c, CASCADE_DELETE)),
            );
            if item.item_type == "SemanticModel" {
                for report in items::all_of_type(conn, "Report")? {
                    if report_model(conn, &report)?.is_some_and(|m| m.id == item.id) {
                        found.push((report, DATASOURCE));
                    }
                }
            }
        }
    }
    Ok(found)
}

/// `{items, relations, workspaces}` around `start`, walking `direction` transitively, limited
/// to workspaces `principal_id` has a role in. `items` lists the related items only, never
/// `start` itself, and `workspaces` the workspaces of those: the swagger's example of
/// Items_Get_Upstream_Relations (platform/examples/platform/GetUpstreamRelations.json) names
/// the queried item only in the edges, and not its workspace.
pub(crate) fn graph(
    conn: &Connection,
    start: &Item,
    direction: Direction,
    principal_id: &str,
) -> Result<ItemRelations, ApiError> {
    let visible = |item: &Item| -> rusqlite::Result<bool> {
        Ok(principals::access(conn, principal_id, &item.workspace_id)?
            .role
            .is_some())
    };
    let mut seen: Vec<Item> = vec![start.clone()];
    let mut relations = Vec::new();
    let mut queue = VecDeque::from([start.clone()]);
    while let Some(item) = queue.pop_front() {
        for (other, kind) in neighbours(conn, &item, direction)? {
            if !visible(&other)? {
                continue;
            }
            let (dependent, dependency) = match direction {
                Direction::Upstream => (&item.id, &other.id),
                Direction::Downstream => (&other.id, &item.id),
            };
            relations.push(ItemRelation {
                item_id: dependent.clone(),
                dependent_on_item_id: dependency.clone(),
                relation_type: kind.to_string(),
                extra: Map::new(),
            });
            if !seen.iter().any(|s| s.id == other.id) && seen.len() < MAX_ITEMS {
                seen.push(other.clone());
                queue.push_back(other);
            }
        }
    }
    // `seen` starts with `start`, kept there so that a cycle back to it is not walked again.
    let related = &seen[1..];
    let mut workspace_ids: Vec<&str> = related.iter().map(|i| i.workspace_id.as_str()).collect();
    workspace_ids.sort_unstable();
    workspace_ids.dedup();
    let mut workspaces = Vec::new();
    for id in workspace_ids {
        if let Some(ws) = workspaces::get(conn, id)? {
            workspaces.push(WorkspaceRef {
                id: ws.id,
                display_name: ws.display_name,
                extra: Map::new(),
            });
        }
    }
    // Relations name items by id, type, name and workspace only.
    let items = related
        .iter()
        .map(|item| wire::Item {
            id: item.id.clone(),
            item_type: item.item_type.clone(),
            display_name: item.display_name.clone(),
            description: None,
            workspace_id: item.workspace_id.clone(),
            folder_id: None,
            sensitivity_label: None,
            tags: None,
            properties: None,
            default_identity: None,
            extra: Map::new(),
        })
        .collect();
    Ok(ItemRelations {
        items,
        relations,
        workspaces,
    })
}
