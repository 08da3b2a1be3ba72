//! `deploy export`: a workspace written in the layout `deploy apply` reads.

use super::state::definition_parts;
use crate::api::items::{self, ListFilter};
use crate::api::{ApiClient, folders};
use crate::commands::args::Args;
use crate::commands::spec::HandlerFuture;
use crate::context::Ctx;
use crate::definition::folder::DirWriter;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_deploy::plan::SHELL_ONLY;
use fabsh_deploy::repo::RepoPart;
use fabsh_model::definition::{encode_payload, paths, platform};
use fabsh_model::item_types;
use futures::FutureExt;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::PathBuf;

const FETCH_CONCURRENCY: usize = 8;

pub(super) fn export(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let dir = PathBuf::from(args.str("dir")?);
        crate::definition::folder::check_empty_or_missing(&dir)?;
        let workspace = ctx.workspace_id(args.str("workspace")?).await?;
        let api = ctx.api();
        let listed = api
            .all(items::list_req(&workspace, &ListFilter::default()))
            .await?;
        let folder_list = api.all(folders::list_req(&workspace, None, None)).await?;
        let triples: Vec<(String, String, Option<String>)> = folder_list
            .iter()
            .map(|f| {
                let text = |key: &str| f[key].as_str().map(str::to_string);
                (
                    text("id").unwrap_or_default(),
                    text("displayName").unwrap_or_default(),
                    text("parentFolderId"),
                )
            })
            .collect();
        let folder_path = super::state::folder_paths(&triples);
        let writer = DirWriter::create(&dir)?;
        let wanted: Vec<Value> = listed
            .into_iter()
            .filter(|item| {
                let t = item["type"].as_str().unwrap_or_default();
                item_types::find(t).is_some_and(|known| known.creatable)
            })
            .collect();
        let jobs: Vec<(usize, Value)> = wanted.iter().cloned().enumerate().collect();
        let workspace_ref = workspace.as_str();
        let mut futures = Vec::new();
        for (n, item) in jobs {
            futures.push(async move { (n, parts_of(api, workspace_ref, &item).await) }.boxed());
        }
        let fetched: Vec<(usize, Result<Vec<RepoPart>>)> =
            super::at_most(futures, FETCH_CONCURRENCY).await;
        let mut by_index: HashMap<usize, Vec<RepoPart>> = HashMap::new();
        for (n, parts) in fetched {
            by_index.insert(n, parts?);
        }
        // Each item's identity in the repository, and its references in other items' parts
        // rewritten to it, so apply maps them to the target workspace's items.
        let identities: HashMap<String, String> = wanted
            .iter()
            .enumerate()
            .map(|(n, item)| {
                let id = item["id"].as_str().unwrap_or_default().to_string();
                let logical = by_index
                    .get(&n)
                    .and_then(|parts| own_logical_id(parts))
                    .unwrap_or_else(|| id.clone());
                (id, logical)
            })
            .collect();
        let mut rows = Vec::new();
        for (n, item) in wanted.iter().enumerate() {
            let text = |key: &str| item[key].as_str().unwrap_or_default().to_string();
            let (id, item_type, name) = (text("id"), text("type"), text("displayName"));
            let folder = item["folderId"]
                .as_str()
                .and_then(|f| folder_path.get(f))
                .cloned()
                .unwrap_or_default();
            let item_dir = if folder.is_empty() {
                format!("{name}.{item_type}")
            } else {
                format!("{}/{name}.{item_type}", folder.trim_start_matches('/'))
            };
            if let Some(problem) = paths::problem(&item_dir) {
                return Err(Error::runtime(format!(
                    "item {name:?} cannot be written as {item_dir:?}: {problem}"
                )));
            }
            let description = item["description"].as_str();
            let logical_id = identities.get(&id).unwrap_or(&id);
            let platform_doc = platform::render(&item_type, &name, description, logical_id);
            writer.write_part(
                &format!("{item_dir}/{}", platform::PATH),
                &encode_payload(&platform_doc),
            )?;
            for part in by_index.remove(&n).unwrap_or_default() {
                if part.path == platform::PATH {
                    continue;
                }
                let bytes = with_logical_references(part.bytes, &identities);
                writer.write_part(
                    &format!("{item_dir}/{}", part.path),
                    &encode_payload(&bytes),
                )?;
            }
            rows.push(json!({"type": item_type, "displayName": name, "id": id, "path": item_dir}));
        }
        writer.finish()?;
        Ok(Reply::json(
            json!({"workspaceId": workspace, "dir": dir.display().to_string(), "items": rows}),
        )
        .with_table_rows("items"))
    })
}

/// The logical id the service's `.platform` gives the item, when it has one: the all-zero
/// GUID says it has none (the service writes that for items never given one), and the
/// repository then identifies the item by its id.
fn own_logical_id(parts: &[RepoPart]) -> Option<String> {
    let part = parts.iter().find(|part| part.path == platform::PATH)?;
    let doc = platform::document(&part.bytes).ok()?;
    platform::fields(&doc)
        .logical_id
        .filter(|id| !id.is_empty() && id != platform::UNSET_LOGICAL_ID)
}

/// A text part with each item id that stands for an item of its own logical id replaced by
/// that logical id; other parts as they are.
fn with_logical_references(bytes: Vec<u8>, identities: &HashMap<String, String>) -> Vec<u8> {
    let renamed: Vec<(&String, &String)> = identities
        .iter()
        .filter(|(id, logical)| id != logical)
        .collect();
    if renamed.is_empty() {
        return bytes;
    }
    let Ok(mut text) = String::from_utf8(bytes.clone()) else {
        return bytes;
    };
    for (id, logical) in renamed {
        text = text.replace(id.as_str(), logical);
    }
    text.into_bytes()
}

/// The definition's parts of items that deploy one; none for the others.
async fn parts_of(api: &ApiClient, workspace: &str, item: &Value) -> Result<Vec<RepoPart>> {
    let item_type = item["type"].as_str().unwrap_or_default();
    let has_definition = item_types::find(item_type).is_some_and(|t| t.has_definition);
    if !has_definition || SHELL_ONLY.contains(&item_type) {
        return Ok(Vec::new());
    }
    let id = item["id"].as_str().unwrap_or_default();
    definition_parts(api, workspace, id, None).await
}
