//! What fabric-cicd does once items are deployed: an environment created or updated has its
//! staged changes published, a lakehouse gets the shortcuts of its `shortcuts.metadata.json`,
//! and a semantic model is bound to the connection parameter.yml's `semantic_model_binding`
//! names for the environment (its own entry, else the default). Apply runs each as soon as
//! its item is deployed, beside the items still deploying. None writes when nothing changed:
//! an unchanged environment is not published again, a shortcut the lakehouse has is not
//! made again, a model already using the connection is not bound again.

use crate::error::{Error, Result};
use fabsh_api::api::{ApiClient, Req, connections, jobs};
use fabsh_deploy::after::{
    Binding, Check, DriftCheck, add_drift, binding_drift, bindings, missing_shortcuts,
    publish_drift, shortcut_body, shortcut_drift,
};
use fabsh_deploy::plan::Repository;
use fabsh_deploy::render::Target;
use fabsh_deploy::schedules;
use fabsh_model::deploy::{Connection, Plan, Shortcut};
use fabsh_model::jobs::ScheduleRequest;
use futures::FutureExt;
use serde_json::json;

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
    if !repo.binds_connections() {
        return None;
    }
    Some(list_visible(api).await.map_err(|err| err.to_string()))
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
    let ids = repo.connections_of(name);
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
    let current = list_of_item(api, workspace, model).await?;
    let (mut notes, mut bound) = (Vec::new(), 0);
    for binding in bindings(&ids, &current, visible) {
        let (id, body) = match binding {
            Binding::NotVisible(id) => {
                notes.push(format!(
                    "connection {id} is not among the connections the caller can see: not bound"
                ));
                continue;
            }
            Binding::Bind { id, body } => (id, body),
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
    Ok((notes, bound))
}

/// The connections the caller can see, as much as a binding needs of each.
async fn list_visible(api: &ApiClient) -> Result<Vec<Connection>> {
    let listed = connections::list_all(api).await?;
    Ok(listed.into_iter().map(Connection::from).collect())
}

/// The connections an item uses, as much as a binding needs of each.
async fn list_of_item(api: &ApiClient, workspace: &str, id: &str) -> Result<Vec<Connection>> {
    let listed = connections::of_item(api, workspace, id).await?;
    Ok(listed.into_iter().map(Connection::from).collect())
}

/// Creates each shortcut of `wanted` (a deployed lakehouse's, from `Repository::wanted_shortcuts`) that
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
    let missing = missing_shortcuts(wanted, &existing);
    // Shortcuts of one lakehouse do not depend on each other: created together.
    let made = futures::future::join_all(missing.iter().map(|shortcut| {
        let req = Req::post(path.clone(), shortcut_body(shortcut))
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
    let Some(part) = repo.rendered_part(target, n, schedules::PART) else {
        return Ok(Vec::new());
    };
    let wanted = schedules::entries(&part.bytes).map_err(Error::runtime)?;
    let existing = if created {
        Vec::new()
    } else {
        let job_types = schedules::job_types(&wanted);
        super::state::listed_schedules_with_ids(api, workspace, item_type, item, &job_types).await?
    };
    let steps = schedules::steps(&wanted, &existing);
    for (entry, step) in &steps {
        let job_type = &entry.job_type;
        let request = ScheduleRequest {
            enabled: entry.enabled,
            configuration: serde_json::from_value(entry.configuration.clone()).map_err(|err| {
                Error::runtime(format!(
                    "a {job_type} schedule of {}: {err}",
                    schedules::PART
                ))
            })?,
            execution_data: None,
        };
        let route = super::state::api_job_type(item_type, job_type);
        match step {
            schedules::Step::Same => {}
            schedules::Step::Update(id) => {
                jobs::update_schedule(api, workspace, item, &route, id, &request).await?;
            }
            schedules::Step::Create => {
                jobs::create_schedule(api, workspace, item, &route, &request).await?;
            }
        }
    }
    Ok(schedules::notes(&steps))
}

/// What a plan cannot see in definitions, added to its rows as changes (see
/// [`fabsh_deploy::after`]): each check's state fetched, the decision fabsh-deploy's.
pub(super) async fn drift(
    api: &ApiClient,
    workspace: &str,
    repo: &Repository,
    target: &Target,
    plan: &mut Plan,
) -> Result<()> {
    let checks = repo.drift_checks(target, plan);
    let wants_bindings = checks.iter().any(|c| matches!(c.check, Check::Binding(_)));
    let visible = if wants_bindings {
        list_visible(api).await?
    } else {
        Vec::new()
    };
    let visible = &visible;
    let fetches = checks
        .into_iter()
        .map(|DriftCheck { row, id, check }| {
            async move {
                let found = match check {
                    Check::Shortcuts(wanted) => existing_shortcuts(api, workspace, &id)
                        .await
                        .map(|existing| shortcut_drift(&wanted, &existing)),
                    Check::Publish => publish_state(api, workspace, &id)
                        .await
                        .map(|state| publish_drift(state.as_deref()).into_iter().collect()),
                    Check::Binding(ids) => list_of_item(api, workspace, &id)
                        .await
                        .map(|current| binding_drift(&ids, &current, visible)),
                };
                (row, found)
            }
            .boxed()
        })
        .collect();
    let mut found = Vec::new();
    for (row, changes) in super::at_most(fetches, 16).await {
        found.push((row, changes?));
    }
    add_drift(plan, found);
    Ok(())
}

/// The state of an environment's last publish; None when it was never published.
async fn publish_state(api: &ApiClient, workspace: &str, id: &str) -> Result<Option<String>> {
    let body = api
        .json(Req::get(format!(
            "/workspaces/{workspace}/environments/{id}"
        )))
        .await?;
    Ok(body["properties"]["publishDetails"]["state"]
        .as_str()
        .map(str::to_string))
}
