//! What a deployment reads and starts besides items (issue 28, "What a deployment library
//! meets"): an environment's staging publish, the connections a caller can see, and a
//! workspace's Spark pools.

use super::target::{ItemTarget, WorkspaceTarget};
use crate::actions::Action;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::clock::now_nanos;
use crate::lro::{self, InlineAnswer};
use crate::paging::Paging;
use crate::respond::{self, JsonBody, Origin};
use crate::state::Shared;
use crate::store::{environment_publishes, links, new_id, principals::Role};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use rusqlite::params;
use serde_json::{Value, json};

/// `POST …/{id}/staging/publish`: a data agent's publish, or an environment's.
pub(super) fn staging_publish(
    state: State<Shared>,
    caller: Caller,
    origin: Origin,
    target: ItemTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    if target.implied.is_some_and(|t| t.name == "Environment") {
        publish_environment(state, caller, origin, target)
    } else {
        super::agent_config::publish(state, caller, target, body)
    }
}

/// Items_PublishEnvironment. The swagger's example and older recordings answer 202, a
/// long-running publish (the environment reports `Running` until it completes); the newest
/// recording (fabric-cli's test_import_create_new_item_success[Environment], 2026-06-15)
/// answers 200 with the finished publish's `publishDetails`, which is what local Fabric
/// answers unless `async-ratio` asks for operations. Any body is accepted, as the service
/// takes none (fabric-cicd sends the JSON string `"{}"`).
fn publish_environment(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    target: ItemTarget,
) -> Result<Response, ApiError> {
    let item = target.open(&state, &caller, Role::Contributor)?;
    state
        .db
        .write(|tx| environment_publishes::start(tx, &item.id, &new_id(), now_nanos()))?;
    lro::run(
        &state,
        &caller,
        &origin,
        Action::PublishEnvironment { item_id: item.id },
        InlineAnswer {
            status: StatusCode::OK,
            etag: false,
            service_lro: false,
        },
    )
}

/// Connections_ListConnections: the connections local Fabric knows, which are those recorded
/// on the items of the workspaces the caller has a role in that have an id, each once.
pub(super) fn list_connections(
    State(state): State<Shared>,
    caller: Caller,
    paging: Paging,
) -> Result<Response, ApiError> {
    let connections = state.db.read(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT ic.connection FROM item_connections ic
               JOIN items i ON i.id = ic.item_id AND i.deleted_at IS NULL
               JOIN role_assignments r ON r.workspace_id = i.workspace_id
              WHERE r.principal_id = ?1
              ORDER BY i.seq, ic.ord",
        )?;
        let rows = stmt.query_map(params![caller.principal_id], |r| r.get::<_, String>(0))?;
        rows.collect::<rusqlite::Result<Vec<String>>>()
    })?;
    let mut seen = std::collections::BTreeSet::new();
    let unique: Vec<Value> = connections
        .iter()
        .filter_map(|text| serde_json::from_str::<Value>(text).ok())
        // An item's virtual connection (`Automatic`, swagger ItemConnection without an `id`)
        // is no connection object of the tenant: swagger `Connection` requires an `id`.
        .filter(|connection| match connection["id"].as_str() {
            Some(id) if !id.is_empty() => seen.insert(id.to_string()),
            _ => false,
        })
        .collect();
    paging.slice(unique, "connections", &caller.principal_id)
}

/// The starter pool's dynamic executor allocation: what every session local Fabric's runs
/// stand for is sized by (`LivySession.numExecutors`, `dynamicAllocationMaxExecutors`).
pub(super) const STARTER_MIN_EXECUTORS: u32 = 1;
/// See [`STARTER_MIN_EXECUTORS`].
pub(super) const STARTER_MAX_EXECUTORS: u32 = 9;

/// CustomPools_ListWorkspaceCustomPools: the starter pool every workspace has (its id the zero
/// GUID and its sizes as the swagger's ListCustomPools example shows it); local Fabric makes no
/// custom pools.
pub(super) fn list_spark_pools(
    State(state): State<Shared>,
    caller: Caller,
    WorkspaceTarget { ws }: WorkspaceTarget,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Viewer)?;
    let starter = json!({
        "id": "00000000-0000-0000-0000-000000000000",
        "name": "Starter Pool",
        "type": "Workspace",
        "nodeFamily": "MemoryOptimized",
        "nodeSize": "Medium",
        "autoScale": {"enabled": true, "minNodeCount": 1, "maxNodeCount": 10},
        "dynamicExecutorAllocation": {
            "enabled": true,
            "minExecutors": STARTER_MIN_EXECUTORS,
            "maxExecutors": STARTER_MAX_EXECUTORS,
        },
    });
    Ok(respond::json(
        StatusCode::OK,
        &json!({ "value": [starter] }),
    ))
}

/// Items_BindSemanticModelConnection: `{connectionBinding: {id?, connectivityType,
/// connectionDetails}}` binds the model's data source to a connection (recorded as one of the
/// model's connections, replacing one of the same id or details); a binding without `id`
/// unbinds the data source with those details (UnbindSemanticModelConnection example).
pub(super) fn bind_connection(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let item = target.open(&state, &caller, Role::Contributor)?;
    if item.item_type != "SemanticModel" {
        return Err(ApiError::bad_request(
            "OperationNotSupportedForItem",
            "Operation not supported for requested item",
        ));
    }
    let obj = body.object()?;
    let binding = obj
        .get("connectionBinding")
        .and_then(Value::as_object)
        .ok_or_else(|| ApiError::invalid_body("The 'connectionBinding' field is required"))?;
    let details = binding
        .get("connectionDetails")
        .filter(|d| d.is_object())
        .ok_or_else(|| {
            ApiError::invalid_body("The 'connectionBinding.connectionDetails' field is required")
        })?
        .clone();
    let id = binding
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_string);
    state.db.write(|tx| {
        let mut connections: Vec<Value> = links::connections(tx, &item.id, 0, i64::MAX)?
            .into_iter()
            .map(|(_, connection)| connection)
            .filter(|connection| {
                connection["connectionDetails"] != details
                    && id
                        .as_deref()
                        .is_none_or(|id| connection["id"].as_str() != Some(id))
            })
            .collect();
        if id.is_some() {
            connections.push(Value::Object(binding.clone()));
        }
        links::set_connections(tx, &item.id, &connections)
    })?;
    Ok(respond::empty_ok())
}
