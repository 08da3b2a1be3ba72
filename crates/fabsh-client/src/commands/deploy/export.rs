//! `deploy export`: a workspace written in the layout `deploy apply` reads, its references
//! to its own items written so that they deploy as references to the target's (see
//! [`fabsh_deploy::export`]).

use super::state::{definition_parts, folder_paths};
use super::{EXPORT_DIR, EXPORT_WORKSPACE};
use crate::commands::spec::HandlerFuture;
use crate::commands::typed::{Command, typed_args};
use crate::context::Ctx;
use crate::definition::folder::DirWriter;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::items::{self, ListFilter};
use fabsh_api::api::{ApiClient, folders, workspaces};
use fabsh_deploy::export::{PARAMETER_FILE, Source};
use fabsh_deploy::plan::SHELL_ONLY;
use fabsh_deploy::repo::RepoPart;
use fabsh_model::definition::{encode_payload, paths, platform};
use fabsh_model::item_types;
use fabsh_model::wire::{Item, Workspace};
use futures::FutureExt;
use serde_json::json;
use std::path::PathBuf;

const FETCH_CONCURRENCY: usize = 8;

typed_args! {
    /// `deploy export`.
    pub(super) struct DeployExport {
        workspace: String = EXPORT_WORKSPACE,
        dir: String = EXPORT_DIR,
    }
}

impl Command for DeployExport {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let dir = PathBuf::from(&self.dir);
            crate::definition::folder::check_empty_or_missing(&dir)?;
            let workspace = ctx.workspace_id(&self.workspace).await?;
            let api = ctx.api();
            let every_item = ListFilter::default();
            let (info, listed, folder_list) = futures::try_join!(
                workspaces::get::<Workspace>(api, &workspace),
                items::list_all(api, &workspace, &every_item),
                folders::list_all(api, &workspace, None, None),
            )?;
            let folder_path = folder_paths(&folder_list);
            let writer = DirWriter::create(&dir)?;
            let wanted: Vec<Item> = listed
                .into_iter()
                .filter(|item| {
                    item_types::find(&item.item_type).is_some_and(|known| known.creatable)
                })
                .collect();
            let workspace_ref = workspace.as_str();
            let mut futures = Vec::new();
            for (n, item) in wanted.iter().enumerate() {
                futures.push(async move { (n, parts_of(api, workspace_ref, item).await) }.boxed());
            }
            let fetched: Vec<(usize, Result<Vec<RepoPart>>)> =
                super::at_most(futures, FETCH_CONCURRENCY).await;
            let mut by_index = Vec::with_capacity(fetched.len());
            for (n, parts) in fetched {
                by_index.push((n, parts?));
            }
            // The parts of each item of `wanted`, in its order.
            by_index.sort_by_key(|(n, _)| *n);
            let parts_of_items: Vec<Vec<RepoPart>> =
                by_index.into_iter().map(|(_, parts)| parts).collect();
            // Each item's identity in the repository, and its references in other items' parts
            // rewritten to it, so apply maps them to the target workspace's items.
            let source = Source {
                workspace_id: workspace.clone(),
                workspace_name: info.display_name,
                identities: wanted
                    .iter()
                    .zip(&parts_of_items)
                    .map(|(item, parts)| {
                        let logical = own_logical_id(parts).unwrap_or_else(|| item.id.clone());
                        (item.id.clone(), logical)
                    })
                    .collect(),
            };
            let mut rows = Vec::new();
            let mut holding_id = 0usize;
            for (item, parts) in wanted.iter().zip(parts_of_items) {
                let (id, item_type, name) = (&item.id, &item.item_type, &item.display_name);
                // An item without a folder (or in one the list did not show) is written at
                // the top of the repository.
                let folder = item.folder_id.as_ref().and_then(|f| folder_path.get(f));
                let item_dir = match folder {
                    Some(folder) if !folder.is_empty() => {
                        format!("{}/{name}.{item_type}", folder.trim_start_matches('/'))
                    }
                    _ => format!("{name}.{item_type}"),
                };
                if let Some(problem) = paths::problem(&item_dir) {
                    return Err(Error::runtime(format!(
                        "item {name:?} cannot be written as {item_dir:?}: {problem}"
                    )));
                }
                let logical_id = source.identities.get(id).unwrap_or(id);
                let platform_doc =
                    platform::render(item_type, name, item.description.as_deref(), logical_id);
                writer.write_part(
                    &format!("{item_dir}/{}", platform::PATH),
                    &encode_payload(&platform_doc),
                )?;
                for part in parts {
                    if part.path == platform::PATH {
                        continue;
                    }
                    let bytes = source.part(part.bytes);
                    holding_id += usize::from(source.holds_id(&bytes));
                    writer.write_part(
                        &format!("{item_dir}/{}", part.path),
                        &encode_payload(&bytes),
                    )?;
                }
                rows.push(
                    json!({"type": item_type, "displayName": name, "id": id, "path": item_dir}),
                );
            }
            let mut value =
                json!({"workspaceId": workspace, "dir": dir.display().to_string(), "items": rows});
            let mut note = None;
            if holding_id > 0 {
                writer.write_part(
                    PARAMETER_FILE,
                    &encode_payload(source.parameters().as_bytes()),
                )?;
                value["parameterFile"] = json!(PARAMETER_FILE);
                note = Some(format!(
                    "{holding_id} part(s) hold the workspace's id where no workspace-id key does: {PARAMETER_FILE} makes it the target's on apply"
                ));
            }
            writer.finish()?;
            let reply = Reply::json(value).with_table_rows("items");
            Ok(match note {
                Some(note) => reply.with_note(note),
                None => reply,
            })
        })
    }
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

/// The definition's parts of items that deploy one; none for the others.
async fn parts_of(api: &ApiClient, workspace: &str, item: &Item) -> Result<Vec<RepoPart>> {
    let item_type = item.item_type.as_str();
    let has_definition = item_types::find(item_type).is_some_and(|t| t.has_definition);
    if !has_definition || SHELL_ONLY.contains(&item_type) {
        return Ok(Vec::new());
    }
    definition_parts(api, workspace, &item.id, None).await
}
