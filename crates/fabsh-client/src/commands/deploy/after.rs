//! What fabric-cicd does once items are deployed: an environment created or updated has its
//! staged changes published, and a semantic model is bound to the connection parameter.yml's
//! `semantic_model_binding` names for the environment (its own entry, else the default).
//! Neither writes when nothing changed: an unchanged environment is not published again, a
//! model already using the connection is not bound again.

use crate::api::{ApiClient, Req, items};
use crate::error::{Error, Result};
use fabsh_deploy::plan::Repository;
use fabsh_deploy::render::{RuleHits, Target};
use fabsh_model::deploy::{
    ApplyOutcome, ApplyRow, BindConnection, Connection, ConnectionDetails, Shortcut,
};
use futures::channel::mpsc::UnboundedReceiver;
use futures::{FutureExt, StreamExt};
use serde_json::Value;
use serde_json::json;

/// An environment the apply created or updated: its row and id.
pub(super) type Deployed = (usize, String);

/// Publishes each environment `deployed` yields, as soon as it does: the publish runs while
/// later levels deploy, instead of after them. The outcome of each, by row.
pub(super) async fn publish_environments(
    api: &ApiClient,
    workspace: &str,
    deployed: UnboundedReceiver<Deployed>,
) -> Vec<(usize, Result<()>)> {
    deployed
        .map(|(n, id)| async move {
            let req = Req::post(
                format!("/workspaces/{workspace}/environments/{id}/staging/publish"),
                json!({}),
            )
            .idempotent();
            (n, api.lro(req).await.map(|_| ()))
        })
        .buffer_unordered(PUBLISH_CONCURRENCY)
        .collect()
        .await
}

/// How many environments publish at once.
const PUBLISH_CONCURRENCY: usize = 8;

/// Puts the publishes' outcomes on their rows.
pub(super) fn record_publishes(rows: &mut [ApplyRow], published: Vec<(usize, Result<()>)>) {
    for (n, result) in published {
        match result {
            Ok(()) => rows[n].notes.push("published".to_string()),
            Err(err) => {
                rows[n].outcome = ApplyOutcome::Failed;
                rows[n].error = Some(format!("deployed, but publishing failed: {err}"));
            }
        }
    }
}

/// Binds each deployed semantic model to the connections `semantic_model_binding` gives it.
/// A connection the caller cannot see is left unbound with a note, as fabric-cicd warns and
/// goes on.
pub(super) async fn bind_semantic_models(
    api: &ApiClient,
    workspace: &str,
    repo: &Repository,
    rows: &mut [ApplyRow],
) {
    let environment = repo.environment.as_deref();
    let wanted: Vec<(usize, Vec<String>)> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.item_type == "SemanticModel" && deployed(r))
        .map(|(n, r)| (n, repo.params.connections_for(&r.display_name, environment)))
        .filter(|(_, ids)| !ids.is_empty())
        .collect();
    if wanted.is_empty() {
        return;
    }
    let visible = match listed(api, Req::get("/connections")).await {
        Ok(visible) => visible,
        Err(err) => {
            for (n, _) in wanted {
                rows[n].outcome = ApplyOutcome::Failed;
                rows[n].error = Some(format!(
                    "deployed, but the connections to bind could not be listed: {err}"
                ));
            }
            return;
        }
    };
    for (n, ids) in wanted {
        let Some(model) = rows[n].id.clone() else {
            continue;
        };
        if let Err(err) = bind_one(api, workspace, &model, &ids, &visible, &mut rows[n]).await {
            rows[n].outcome = ApplyOutcome::Failed;
            rows[n].error = Some(format!("deployed, but binding failed: {err}"));
        }
    }
}

fn deployed(row: &ApplyRow) -> bool {
    matches!(
        row.outcome,
        ApplyOutcome::Created
            | ApplyOutcome::Updated
            | ApplyOutcome::Moved
            | ApplyOutcome::Unchanged
    )
}

async fn bind_one(
    api: &ApiClient,
    workspace: &str,
    model: &str,
    ids: &[String],
    visible: &[Connection],
    row: &mut ApplyRow,
) -> Result<()> {
    let current = listed(api, items::connections_req(workspace, model)).await?;
    for id in ids {
        if current.iter().any(|c| c.id.as_deref() == Some(id)) {
            continue;
        }
        let Some(connection) = visible.iter().find(|c| c.id.as_deref() == Some(id)) else {
            row.notes.push(format!(
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
        row.notes.push(format!("bound to connection {id}"));
    }
    Ok(())
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

/// Creates each shortcut a deployed lakehouse's `shortcuts.metadata.json` holds (after
/// parameterisation: logical ids and the zero workspace id become the target's) that the
/// lakehouse does not already have, with `shortcutConflictPolicy=CreateOrOverwrite`. A
/// shortcut the lakehouse already has the same is not written again. Shortcuts the
/// lakehouse has beyond the file's are left in place.
pub(super) async fn sync_shortcuts(
    api: &ApiClient,
    workspace: &str,
    repo: &Repository,
    target: &Target,
    rows: &mut [ApplyRow],
) {
    let renderer = repo.renderer(target);
    let mut jobs = Vec::new();
    for (n, row) in rows.iter().enumerate() {
        if row.item_type != "Lakehouse" || !deployed(row) || n >= repo.items.len() {
            continue;
        }
        let Some(lakehouse) = row.id.clone() else {
            continue;
        };
        let mut hits = RuleHits::new(&repo.params);
        let rendered = renderer.render(n, &mut hits);
        let Some(part) = rendered.parts.iter().find(|p| p.path == SHORTCUTS_PART) else {
            continue;
        };
        let wanted: Vec<Shortcut> = match serde_json::from_slice(&part.bytes) {
            Ok(wanted) => wanted,
            Err(err) => {
                jobs.push(
                    futures::future::ready((
                        n,
                        Err(Error::runtime(format!(
                            "{SHORTCUTS_PART} is not a list of shortcuts: {err}"
                        ))),
                    ))
                    .boxed(),
                );
                continue;
            }
        };
        if wanted.is_empty() {
            continue;
        }
        jobs.push(
            async move { (n, create_missing(api, workspace, &lakehouse, &wanted).await) }.boxed(),
        );
    }
    for (n, result) in super::at_most(jobs, PUBLISH_CONCURRENCY).await {
        match result {
            Ok(0) => {}
            Ok(made) => rows[n].notes.push(format!("{made} shortcut(s) created")),
            Err(err) => {
                rows[n].outcome = ApplyOutcome::Failed;
                rows[n].error = Some(format!("deployed, but its shortcuts failed: {err}"));
            }
        }
    }
}

/// Creates the shortcuts of `wanted` the lakehouse lacks; how many it created.
async fn create_missing(
    api: &ApiClient,
    workspace: &str,
    lakehouse: &str,
    wanted: &[Shortcut],
) -> Result<usize> {
    let path = format!("/workspaces/{workspace}/items/{lakehouse}/shortcuts");
    let existing: Vec<Shortcut> = api
        .all(Req::get(path.clone()))
        .await?
        .into_iter()
        .map(|value| {
            serde_json::from_value(value).map_err(|err| {
                Error::runtime(format!("unexpected shortcut from the service: {err}"))
            })
        })
        .collect::<Result<_>>()?;
    let mut made = 0;
    for shortcut in wanted {
        if existing.iter().any(|e| same_shortcut(shortcut, e)) {
            continue;
        }
        let mut target = shortcut.target.clone();
        // `type` is what the service reports, not part of a creatable target.
        if let Some(object) = target.as_object_mut() {
            object.remove("type");
        }
        let body = json!({"path": shortcut.path, "name": shortcut.name, "target": target});
        api.json(
            Req::post(path.clone(), body)
                .query("shortcutConflictPolicy", "CreateOrOverwrite")
                .idempotent(),
        )
        .await
        .map_err(|err| Error::runtime(format!("shortcut {}: {err}", shortcut.name)))?;
        made += 1;
    }
    Ok(made)
}

/// The same shortcut: name and place, and every field of the repository's target that the
/// service reports back (ids compared without case, paths without edge slashes).
fn same_shortcut(wanted: &Shortcut, existing: &Shortcut) -> bool {
    let place = |s: &Shortcut| (s.name.clone(), s.path.trim_matches('/').to_lowercase());
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
