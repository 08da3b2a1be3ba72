//! What fabric-cicd does once items are deployed: an environment created or updated has its
//! staged changes published, and a semantic model is bound to the connection parameter.yml's
//! `semantic_model_binding` names for the environment (its own entry, else the default).
//! Neither writes when nothing changed: an unchanged environment is not published again, a
//! model already using the connection is not bound again.

use crate::api::{ApiClient, Req, items};
use crate::error::{Error, Result};
use fabsh_deploy::plan::Repository;
use fabsh_model::deploy::{ApplyOutcome, ApplyRow, BindConnection, Connection, ConnectionDetails};
use futures::StreamExt;
use futures::channel::mpsc::UnboundedReceiver;
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
