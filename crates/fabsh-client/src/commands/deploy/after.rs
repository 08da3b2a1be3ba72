//! What fabric-cicd does once items are deployed: an environment created or updated has its
//! staged changes published, a lakehouse gets the shortcuts of its `shortcuts.metadata.json`,
//! and a semantic model is bound to the connection parameter.yml's `semantic_model_binding`
//! names for the environment (its own entry, else the default). Apply runs each as soon as
//! its item is deployed, beside the items still deploying. None writes when nothing changed:
//! an unchanged environment is not published again, a shortcut the lakehouse has is not
//! made again, a model already using the connection is not bound again.

use crate::api::{ApiClient, Req, items, jobs};
use crate::error::{Error, Result};
use fabsh_deploy::plan::Repository;
use fabsh_deploy::render::{RuleHits, Target};
use fabsh_deploy::repo::RepoPart;
use fabsh_deploy::schedules;
use fabsh_model::deploy::{
    BindConnection, Connection, ConnectionDetails, Plan, PlanAction, PlanRow, Shortcut,
};
use fabsh_model::jobs::ScheduleRequest;
use futures::FutureExt;
use serde_json::Value;
use serde_json::json;
use std::collections::HashMap;

/// Publishes an environment's staged changes and waits for the publish to finish.
pub(super) async fn publish_environment(api: &ApiClient, workspace: &str, id: &str) -> Result<()> {
    let req = Req::post(
        format!("/workspaces/{workspace}/environments/{id}/staging/publish"),
        json!({}),
    )
    .idempotent();
    api.lro(req).await.map(|_| ())
}

/// The connections the caller can see, for binding; listed only when some semantic model of
/// the repository has a connection to bind to in this environment.
pub(super) async fn visible_connections(
    api: &ApiClient,
    repo: &Repository,
) -> Option<std::result::Result<Vec<Connection>, String>> {
    let environment = repo.environment.as_deref();
    let wanted = repo.items.iter().any(|i| {
        i.item_type == "SemanticModel"
            && !repo
                .params
                .connections_for(&i.display_name, environment)
                .is_empty()
    });
    if !wanted {
        return None;
    }
    Some(
        listed(api, Req::get("/connections"))
            .await
            .map_err(|err| err.to_string()),
    )
}

/// Binds a deployed semantic model to the connections `semantic_model_binding` gives it
/// (none: nothing to do). A connection the caller cannot see is left unbound with a note,
/// as fabric-cicd warns and goes on. The notes to put on its row, and how many
/// connections it bound.
pub(super) async fn bind_semantic_model(
    api: &ApiClient,
    workspace: &str,
    repo: &Repository,
    name: &str,
    model: &str,
    visible: Option<&std::result::Result<Vec<Connection>, String>>,
) -> Result<(Vec<String>, usize)> {
    let ids = repo
        .params
        .connections_for(name, repo.environment.as_deref());
    if ids.is_empty() {
        return Ok((Vec::new(), 0));
    }
    let visible = match visible {
        Some(Ok(visible)) => visible,
        Some(Err(err)) => {
            return Err(Error::runtime(format!(
                "the connections to bind could not be listed: {err}"
            )));
        }
        None => return Err(Error::runtime("the connections to bind were not listed")),
    };
    let mut notes = Vec::new();
    let bound = bind_one(api, workspace, model, &ids, visible, &mut notes).await?;
    Ok((notes, bound))
}

async fn bind_one(
    api: &ApiClient,
    workspace: &str,
    model: &str,
    ids: &[String],
    visible: &[Connection],
    notes: &mut Vec<String>,
) -> Result<usize> {
    let current = listed(api, items::connections_req(workspace, model)).await?;
    let mut bound = 0;
    for id in ids {
        if current.iter().any(|c| c.id.as_deref() == Some(id)) {
            continue;
        }
        let Some(connection) = visible.iter().find(|c| c.id.as_deref() == Some(id)) else {
            notes.push(format!(
                "connection {id} is not among the connections the caller can see: not bound"
            ));
            continue;
        };
        let body = BindConnection {
            connection_binding: Connection {
                id: Some(id.clone()),
                connectivity_type: connection.connectivity_type.clone(),
                connection_details: Some(connection.connection_details.clone().unwrap_or(
                    ConnectionDetails {
                        kind: None,
                        path: None,
                    },
                )),
            },
        };
        let body = serde_json::to_value(&body)
            .map_err(|err| Error::runtime(format!("the binding could not be written: {err}")))?;
        api.json(
            Req::post(
                format!("/workspaces/{workspace}/semanticModels/{model}/bindConnection"),
                body,
            )
            .idempotent(),
        )
        .await?;
        notes.push(format!("bound to connection {id}"));
        bound += 1;
    }
    Ok(bound)
}

/// Every entry of a list, typed.
async fn listed(api: &ApiClient, req: Req) -> Result<Vec<Connection>> {
    api.all(req)
        .await?
        .into_iter()
        .map(|value| {
            serde_json::from_value(value).map_err(|err| {
                Error::runtime(format!("unexpected connection from the service: {err}"))
            })
        })
        .collect()
}

/// The lakehouse part that lists its shortcuts.
const SHORTCUTS_PART: &str = "shortcuts.metadata.json";

/// The part at `path` of the repository's item `n` as rendered for `target`, if it has one.
fn rendered_part(repo: &Repository, target: &Target, n: usize, path: &str) -> Option<RepoPart> {
    let mut hits = RuleHits::new(&repo.params);
    let rendered = repo.renderer(target).render(n, &mut hits);
    rendered.parts.into_iter().find(|p| p.path == path)
}

/// The shortcuts a lakehouse's `shortcuts.metadata.json` holds, rendered for the target
/// (logical ids and the zero workspace id become the target's); none when it has no such
/// part or an empty one.
pub(super) fn wanted_shortcuts(
    repo: &Repository,
    target: &Target,
    n: usize,
) -> Result<Vec<Shortcut>> {
    let Some(part) = rendered_part(repo, target, n, SHORTCUTS_PART) else {
        return Ok(Vec::new());
    };
    serde_json::from_slice(&part.bytes).map_err(|err| {
        Error::runtime(format!(
            "{SHORTCUTS_PART} is not a list of shortcuts: {err}"
        ))
    })
}

/// Creates each shortcut of `wanted` (a deployed lakehouse's, from [`wanted_shortcuts`]) that
/// the lakehouse does not already have, with `shortcutConflictPolicy=CreateOrOverwrite`, all
/// at once. A shortcut the lakehouse already has the same is not written again. Shortcuts the
/// lakehouse has beyond the file's are left in place. A lakehouse this run `created` has
/// none, so they are not listed first (a create that was already made is overwritten the
/// same). How many it created.
pub(super) async fn sync_shortcuts(
    api: &ApiClient,
    workspace: &str,
    lakehouse: &str,
    wanted: &[Shortcut],
    created: bool,
) -> Result<usize> {
    let path = shortcuts_path(workspace, lakehouse);
    let existing = if created {
        Vec::new()
    } else {
        existing_shortcuts(api, workspace, lakehouse).await?
    };
    let missing: Vec<&Shortcut> = wanted
        .iter()
        .filter(|shortcut| !existing.iter().any(|e| same_shortcut(shortcut, e)))
        .collect();
    // Shortcuts of one lakehouse do not depend on each other: created together.
    let made = futures::future::join_all(missing.iter().map(|shortcut| {
        let mut target = shortcut.target.clone();
        // `type` is what the service reports, not part of a creatable target.
        if let Some(object) = target.as_object_mut() {
            object.remove("type");
        }
        let body = json!({"path": shortcut.path, "name": shortcut.name, "target": target});
        let req = Req::post(path.clone(), body)
            .query("shortcutConflictPolicy", "CreateOrOverwrite")
            .idempotent();
        async move {
            api.json(req)
                .await
                .map_err(|err| Error::runtime(format!("shortcut {}: {err}", shortcut.name)))
        }
    }))
    .await;
    for result in made {
        result?;
    }
    Ok(missing.len())
}

fn shortcuts_path(workspace: &str, lakehouse: &str) -> String {
    format!("/workspaces/{workspace}/items/{lakehouse}/shortcuts")
}

/// The shortcuts a lakehouse has, every page.
async fn existing_shortcuts(
    api: &ApiClient,
    workspace: &str,
    lakehouse: &str,
) -> Result<Vec<Shortcut>> {
    api.all(Req::get(shortcuts_path(workspace, lakehouse)))
        .await?
        .into_iter()
        .map(|value| {
            serde_json::from_value(value).map_err(|err| {
                Error::runtime(format!("unexpected shortcut from the service: {err}"))
            })
        })
        .collect()
}

/// Where a shortcut is: its name and its path (without edge slashes, in any case).
fn place(shortcut: &Shortcut) -> (String, String) {
    (
        shortcut.name.clone(),
        shortcut.path.trim_matches('/').to_lowercase(),
    )
}

/// The same shortcut: name and place, and every field of the repository's target that the
/// service reports back (ids compared without case, paths without edge slashes).
fn same_shortcut(wanted: &Shortcut, existing: &Shortcut) -> bool {
    if place(wanted) != place(existing) {
        return false;
    }
    let Some(kinds) = wanted.target.as_object() else {
        return wanted.target == existing.target;
    };
    kinds
        .iter()
        .filter(|(kind, _)| kind.as_str() != "type")
        .all(|(kind, fields)| {
            let Some(fields) = fields.as_object() else {
                return existing.target[kind] == *fields;
            };
            fields.iter().all(
                |(field, value)| match (value, existing.target[kind].get(field)) {
                    (_, None) => true,
                    (Value::String(a), Some(Value::String(b))) => a
                        .trim_matches('/')
                        .eq_ignore_ascii_case(b.trim_matches('/')),
                    (a, Some(b)) => a == b,
                },
            )
        })
}

/// The schedules a deployed item's `.schedules` holds (after parameterisation), made so on
/// the item through the job scheduler: per job type, the file's n-th schedule is the item's
/// n-th as the service lists them, updated when it differs; those beyond the item's are
/// created; the item's beyond the file's are left in place. An item this run `created` has
/// none, so they are not listed first. What it did, as notes (none when nothing).
pub(super) async fn sync_schedules(
    api: &ApiClient,
    workspace: &str,
    repo: &Repository,
    target: &Target,
    n: usize,
    item: &str,
    created: bool,
) -> Result<Vec<String>> {
    let item_type = repo.items[n].item_type.as_str();
    let Some(part) = rendered_part(repo, target, n, schedules::PART) else {
        return Ok(Vec::new());
    };
    let wanted = schedules::entries(&part.bytes).map_err(Error::runtime)?;
    let job_types = super::state::job_types(&wanted);
    let existing = if created {
        Vec::new()
    } else {
        super::state::listed_schedules_with_ids(api, workspace, item_type, item, &job_types).await?
    };
    let (mut made, mut changed) = (0, 0);
    for job_type in &job_types {
        let route = super::state::api_job_type(item_type, job_type);
        let mut theirs = existing.iter().filter(|(_, e)| &e.job_type == job_type);
        for entry in wanted.iter().filter(|e| &e.job_type == job_type) {
            let request = ScheduleRequest {
                enabled: entry.enabled,
                configuration: serde_json::from_value(entry.configuration.clone()).map_err(
                    |err| {
                        Error::runtime(format!(
                            "a {job_type} schedule of {}: {err}",
                            schedules::PART
                        ))
                    },
                )?,
                execution_data: None,
            };
            match theirs.next() {
                Some((_, e)) if schedules::same(entry, e.enabled, &e.configuration) => {}
                Some((id, _)) => {
                    jobs::update_schedule(api, workspace, item, &route, id, &request).await?;
                    changed += 1;
                }
                None => {
                    jobs::create_schedule(api, workspace, item, &route, &request).await?;
                    made += 1;
                }
            }
        }
    }
    let mut notes = Vec::new();
    if made > 0 {
        notes.push(format!("{made} schedule(s) created"));
    }
    if changed > 0 {
        notes.push(format!("{changed} schedule(s) updated"));
    }
    Ok(notes)
}

/// What a plan cannot see in definitions, added to its rows as changes: a lakehouse's
/// shortcut its `shortcuts.metadata.json` holds and the lakehouse lacks (or has otherwise),
/// an environment whose staged state was never published or whose last publish did not
/// succeed, a semantic model not bound to a connection `semantic_model_binding` gives it
/// (one the caller can see: apply binds no other). A row otherwise unchanged becomes an
/// update, and the plan is pending.
pub(super) async fn drift(
    api: &ApiClient,
    workspace: &str,
    repo: &Repository,
    target: &Target,
    plan: &mut Plan,
) -> Result<()> {
    let environment = repo.environment.as_deref();
    // Each row of a repository item, with the item's index in the repository (the rows are
    // in the plan's order, not the repository's).
    let index: HashMap<(&str, &str), usize> = repo
        .items
        .iter()
        .enumerate()
        .map(|(n, i)| ((i.item_type.as_str(), i.display_name.as_str()), n))
        .collect();
    let ours = |r: &PlanRow| {
        (!matches!(r.action, PlanAction::Orphan | PlanAction::Delete))
            .then(|| {
                index
                    .get(&(r.item_type.as_str(), r.display_name.as_str()))
                    .copied()
            })
            .flatten()
    };
    let wants_bindings = plan.items.iter().filter(|r| ours(r).is_some()).any(|r| {
        r.item_type == "SemanticModel"
            && r.id.is_some()
            && !repo
                .params
                .connections_for(&r.display_name, environment)
                .is_empty()
    });
    let visible = match wants_bindings {
        true => listed(api, Req::get("/connections")).await?,
        false => Vec::new(),
    };
    let visible = &visible;
    let mut checks = Vec::new();
    for (row_at, row) in plan.items.iter().enumerate() {
        let (Some(n), Some(id)) = (ours(row), row.id.clone()) else {
            continue;
        };
        let check = match row.item_type.as_str() {
            "Lakehouse" => {
                // A file that does not parse is apply's to report, on the lakehouse's row.
                let wanted = wanted_shortcuts(repo, target, n).unwrap_or_default();
                if wanted.is_empty() {
                    continue;
                }
                async move { (row_at, shortcut_drift(api, workspace, &id, &wanted).await) }.boxed()
            }
            "Environment" => {
                async move { (row_at, publish_drift(api, workspace, &id).await) }.boxed()
            }
            "SemanticModel" => {
                let ids = repo.params.connections_for(&row.display_name, environment);
                if ids.is_empty() {
                    continue;
                }
                async move {
                    (
                        row_at,
                        binding_drift(api, workspace, &id, &ids, visible).await,
                    )
                }
                .boxed()
            }
            _ => continue,
        };
        checks.push(check);
    }
    for (n, changes) in super::at_most(checks, 16).await {
        let changes = changes?;
        if changes.is_empty() {
            continue;
        }
        let row = &mut plan.items[n];
        row.changes.extend(changes);
        if matches!(row.action, PlanAction::Unchanged | PlanAction::Move) {
            row.action = PlanAction::Update;
        }
    }
    // A row that became an update moves among the updates of its level.
    fabsh_deploy::plan::sort_rows(&mut plan.items);
    plan.summary = fabsh_deploy::plan::summarise(&plan.items);
    let s = &plan.summary;
    plan.pending = s.create + s.update + s.moves + s.delete > 0 || !plan.create_folders.is_empty();
    Ok(())
}

async fn shortcut_drift(
    api: &ApiClient,
    workspace: &str,
    lakehouse: &str,
    wanted: &[Shortcut],
) -> Result<Vec<String>> {
    let existing = existing_shortcuts(api, workspace, lakehouse).await?;
    Ok(wanted
        .iter()
        .filter(|w| !existing.iter().any(|e| same_shortcut(w, e)))
        .map(|w| match existing.iter().any(|e| place(e) == place(w)) {
            true => format!("shortcut {} differs", w.name),
            false => format!("shortcut {} missing", w.name),
        })
        .collect())
}

async fn publish_drift(api: &ApiClient, workspace: &str, id: &str) -> Result<Vec<String>> {
    let body = api
        .json(Req::get(format!(
            "/workspaces/{workspace}/environments/{id}"
        )))
        .await?;
    let state = body["properties"]["publishDetails"]["state"]
        .as_str()
        .unwrap_or("");
    Ok(match state {
        "" => vec!["publish pending: never published".to_string()],
        s if s.eq_ignore_ascii_case("success") || s.eq_ignore_ascii_case("running") => Vec::new(),
        s => vec![format!("publish pending: the last publish is {s}")],
    })
}

async fn binding_drift(
    api: &ApiClient,
    workspace: &str,
    model: &str,
    ids: &[String],
    visible: &[Connection],
) -> Result<Vec<String>> {
    let current = listed(api, items::connections_req(workspace, model)).await?;
    Ok(ids
        .iter()
        .filter(|id| !current.iter().any(|c| c.id.as_deref() == Some(id.as_str())))
        .filter(|id| visible.iter().any(|c| c.id.as_deref() == Some(id.as_str())))
        .map(|id| format!("binding to connection {id}"))
        .collect())
}
