//! What the target workspace holds, fetched for a plan: its items and folders, the
//! definitions of the items the repository pairs with, and the attributes (`sqlendpoint`,
//! ...) its parameters ask for.

use crate::error::{Error, Result};
use fabsh_api::api::items::{self, ListFilter};
use fabsh_api::api::{ApiClient, Req, definitions, folders, jobs, workspaces};
use fabsh_deploy::plan::{Deployed, Repository};
use fabsh_deploy::render::Target;
use fabsh_deploy::repo::{RepoItem, RepoPart};
use fabsh_deploy::schedules;
use fabsh_model::definition::decode_payload;
use fabsh_model::item_types;
use fabsh_model::jobs::ItemSchedule;
use fabsh_model::wire::{Definition, Folder, Workspace};
use futures::FutureExt;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// How many definitions are fetched at once. A plan with nothing to do is mostly these
/// reads, each a long-running operation (request, poll, result) on the service: fetching
/// the sample's 30 at once takes one round of them instead of four. The client's shared
/// rate limiter still slows every request down if the service answers 429.
const FETCH_CONCURRENCY: usize = 32;

/// The workspace as a plan sees it.
pub(crate) struct WorkspaceState {
    pub items: Vec<Deployed>,
    /// Folder paths (`/a/b`) and their ids.
    pub folders: BTreeMap<String, String>,
    pub target: Target,
}

impl WorkspaceState {
    /// The folder paths, for the planner.
    pub(super) fn folder_paths(&self) -> BTreeSet<String> {
        self.folders.keys().cloned().collect()
    }
}

/// Lists items and folders, and fetches what `repo` needs to plan against them.
pub(crate) async fn fetch(
    api: &ApiClient,
    workspace: &str,
    repo: &Repository,
) -> Result<WorkspaceState> {
    // Three independent reads: sent together.
    let every_item = ListFilter::default();
    let (info, listed, folder_list) = futures::try_join!(
        workspaces::get::<Workspace>(api, workspace),
        items::list_all(api, workspace, &every_item),
        folders::list_all(api, workspace, None, None),
    )
    .map_err(|err| super::named_by_config(err, repo, workspace))?;
    let path_by_id = folder_paths(&folder_list);
    // An item without a folder, or in one the folder list did not show, is planned as at
    // the root.
    let path_of = |id: Option<&str>| match id.and_then(|id| path_by_id.get(id)) {
        Some(path) => path.clone(),
        None => fabsh_deploy::plan::ROOT_FOLDER.to_string(),
    };
    let folders = path_by_id
        .iter()
        .map(|(id, path)| (path.clone(), id.clone()))
        .collect();
    let mut deployed: Vec<Deployed> = listed
        .iter()
        .map(|i| Deployed {
            id: i.id.clone(),
            item_type: i.item_type.clone(),
            display_name: i.display_name.clone(),
            description: i.description.clone(),
            folder: path_of(i.folder_id.as_deref()),
            parts: None,
        })
        .collect();
    let mut target = repo.target();
    target.workspace_id = Some(workspace.to_string());
    target.workspace_name = Some(info.display_name);
    for d in &deployed {
        target.set_deployed(&d.item_type, &d.display_name, &d.id, BTreeMap::new());
    }
    // The attributes and the definitions do not depend on each other: fetched together.
    futures::try_join!(
        fill_attributes(api, workspace, repo, &mut target),
        fetch_definitions(api, workspace, repo, &mut deployed),
    )?;
    Ok(WorkspaceState {
        items: deployed,
        folders,
        target,
    })
}

/// Each folder's path (`/a/b`) by its id.
pub(super) fn folder_paths(folders: &[Folder]) -> HashMap<String, String> {
    let by_id: HashMap<&str, &Folder> = folders.iter().map(|f| (f.id.as_str(), f)).collect();
    let mut out = HashMap::new();
    for folder in folders {
        let mut segments = Vec::new();
        let mut at = Some(folder.id.as_str());
        // A parent chain longer than the folders themselves is a cycle: stop there.
        while let Some(folder) = at.and_then(|a| by_id.get(a)) {
            if segments.len() > folders.len() {
                break;
            }
            segments.push(folder.display_name.as_str());
            at = folder.parent_folder_id.as_deref();
        }
        let path: String = segments.iter().rev().map(|s| format!("/{s}")).collect();
        out.insert(folder.id.clone(), path);
    }
    out
}

/// The repository item paired with a deployed one, when it deploys a definition.
fn paired<'a>(repo: &'a Repository, d: &Deployed) -> Option<&'a RepoItem> {
    repo.items
        .iter()
        .find(|i| i.item_type == d.item_type && i.display_name == d.display_name)
        .filter(|i| !Repository::shell_only(i))
}

async fn fetch_definitions(
    api: &ApiClient,
    workspace: &str,
    repo: &Repository,
    deployed: &mut [Deployed],
) -> Result<()> {
    let wanted: Vec<(usize, &RepoItem, String)> = deployed
        .iter()
        .enumerate()
        .filter_map(|(n, d)| paired(repo, d).map(|item| (n, item, d.id.clone())))
        .collect();
    let mut jobs = Vec::new();
    for (n, item, id) in wanted {
        jobs.push(
            async move {
                let format = fabsh_deploy::plan::format_of(item);
                let parts = async {
                    let mut parts = definition_parts(api, workspace, &id, format).await?;
                    // Schedules are deployed through the job scheduler: what the item has
                    // is what it lists there, not what its definition carries.
                    parts.retain(|p| p.path != schedules::PART);
                    if let Some(part) = item.parts.iter().find(|p| p.path == schedules::PART) {
                        // A part that does not parse names no job type: apply reports it.
                        let entries = schedules::entries(&part.bytes).unwrap_or_default();
                        let job_types = schedules::job_types(&entries);
                        let listed =
                            listed_schedules(api, workspace, &item.item_type, &id, &job_types)
                                .await?;
                        parts.push(RepoPart {
                            path: schedules::PART.to_string(),
                            bytes: schedules::document(&listed),
                        });
                    }
                    Ok(parts)
                };
                (n, parts.await)
            }
            .boxed(),
        );
    }
    let fetched: Vec<(usize, Result<Vec<RepoPart>>)> =
        super::at_most(jobs, FETCH_CONCURRENCY).await;
    for (n, parts) in fetched {
        deployed[n].parts = Some(parts?);
    }
    Ok(())
}

/// The parts of a deployed item's definition, decoded.
pub(crate) async fn definition_parts(
    api: &ApiClient,
    workspace: &str,
    id: &str,
    format: Option<&str>,
) -> Result<Vec<RepoPart>> {
    let value = definitions::get(api, workspace, id, format)
        .await?
        .into_value();
    // The envelope `{definition}`, or (as some types answer) the definition itself.
    let definition =
        Definition::deserialize(fabsh_model::definition::inner(&value)).map_err(|err| {
            Error::runtime(format!("item {id}: unexpected getDefinition answer: {err}"))
        })?;
    definition
        .parts
        .into_iter()
        .map(|p| {
            let bytes = decode_payload(&p.payload).map_err(|err| {
                Error::runtime(format!("item {id}: part {} is not base64: {err}", p.path))
            })?;
            Ok(RepoPart {
                path: p.path,
                bytes,
            })
        })
        .collect()
}

/// Reads the attributes other than `id` that `$items` variables ask for, of the deployed
/// items they name.
pub(crate) async fn fill_attributes(
    api: &ApiClient,
    workspace: &str,
    repo: &Repository,
    target: &mut Target,
) -> Result<()> {
    let mut jobs = Vec::new();
    for (item_type, name) in fabsh_deploy::variables_needing_properties(&repo.params) {
        let Some(id) = target.id_of(&item_type, &name).map(str::to_string) else {
            continue;
        };
        jobs.push(
            async move {
                let attributes = item_attributes(api, workspace, &item_type, &id).await;
                (item_type, name, id, attributes)
            }
            .boxed(),
        );
    }
    for (item_type, name, id, attributes) in super::at_most(jobs, FETCH_CONCURRENCY).await {
        target.set_deployed(&item_type, &name, &id, attributes?);
    }
    Ok(())
}

/// An item's attributes, read from its type's own endpoint.
pub(crate) async fn item_attributes(
    api: &ApiClient,
    workspace: &str,
    item_type: &str,
    id: &str,
) -> Result<BTreeMap<String, String>> {
    let Some(known) = item_types::find(item_type) else {
        return Ok(BTreeMap::new());
    };
    let body = api
        .json(Req::get(format!(
            "/workspaces/{workspace}/{}/{id}",
            known.collection
        )))
        .await?;
    Ok(fabsh_deploy::attributes_from(item_type, &body))
}

/// An item's schedules of each of `job_types`, as `.schedules` entries with their ids, in
/// the order the service lists them.
pub(crate) async fn listed_schedules_with_ids(
    api: &ApiClient,
    workspace: &str,
    item_type: &str,
    item: &str,
    job_types: &[String],
) -> Result<Vec<(String, schedules::Entry)>> {
    let mut out = Vec::new();
    for job_type in job_types {
        let route = api_job_type(item_type, job_type);
        for value in api
            .all(jobs::schedules_req(workspace, item, &route))
            .await?
        {
            let listed: ItemSchedule = serde_json::from_value(value).map_err(|err| {
                Error::runtime(format!("unexpected schedule from the service: {err}"))
            })?;
            let configuration = serde_json::to_value(&listed.configuration)
                .map_err(|err| Error::runtime(err.to_string()))?;
            out.push((
                listed.id,
                schedules::Entry {
                    job_type: job_type.clone(),
                    enabled: listed.enabled,
                    configuration,
                },
            ));
        }
    }
    Ok(out)
}

async fn listed_schedules(
    api: &ApiClient,
    workspace: &str,
    item_type: &str,
    item: &str,
    job_types: &[String],
) -> Result<Vec<schedules::Entry>> {
    Ok(
        listed_schedules_with_ids(api, workspace, item_type, item, job_types)
            .await?
            .into_iter()
            .map(|(_, entry)| entry)
            .collect(),
    )
}

/// The job scheduler's job type for a `.schedules` entry's: the git layout names a
/// pipeline's runs `Execute` where the scheduler's routes take `Pipeline` (the type's own
/// job type); a job type the item's type takes is kept.
pub(crate) fn api_job_type(item_type: &str, job_type: &str) -> String {
    match fabsh_model::jobs::accepts_job_type(item_type, job_type) {
        Some(false) => fabsh_model::jobs::default_job_type(item_type)
            .unwrap_or(job_type)
            .to_string(),
        _ => job_type.to_string(),
    }
}
