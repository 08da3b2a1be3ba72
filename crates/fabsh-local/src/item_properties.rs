//! The `properties` an item carries when read through its per-type collection
//! (`/lakehouses/{id}`, `/warehouses`, `/environments`, `/dataAgents`), shaped as the
//! swagger's per-type definitions: `LakehouseProperties`, `WarehouseProperties`,
//! `EnvironmentProperties` (microsoft/fabric-rest-api-specs, `<type>/definitions.json`).
//! Local Fabric has no SQL or OneLake hosts of its own; the names below follow the shapes the
//! service sends so that clients parsing them work, and are not meant to be connected to.

use super::clock::service_timestamp;
use super::store::items::{self, Item};
use rusqlite::Connection;
use serde_json::{Value, json};

/// OneLake's global DFS host, as the swagger's GetLakehouse example paths use it.
const ONE_LAKE_DFS: &str = "https://onelake.dfs.fabric.microsoft.com";

/// The SQL host the service gives a workspace's warehouses and SQL endpoints
/// (`<id>.datawarehouse.fabric.microsoft.com`); local Fabric derives it from the workspace id.
fn sql_host(workspace_id: &str) -> String {
    format!(
        "{}.datawarehouse.fabric.microsoft.com",
        workspace_id.replace('-', "")
    )
}

/// The item's type-specific `properties`, or `None` for types without any.
pub fn of(conn: &Connection, item: &Item) -> rusqlite::Result<Option<Value>> {
    Ok(Some(match item.item_type.as_str() {
        "Lakehouse" => lakehouse(conn, item)?,
        "Warehouse" => warehouse(conn, item)?,
        "Environment" => environment(conn, item)?,
        "DataAgent" => crate::agents::properties(conn, &item.id),
        _ => return Ok(None),
    }))
}

/// `LakehouseProperties`: OneLake paths and the SQL endpoint created with the lakehouse.
fn lakehouse(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    let root = format!("{ONE_LAKE_DFS}/{}/{}", item.workspace_id, item.id);
    let endpoint = items::children(conn, &item.id)?
        .into_iter()
        .find(|child| child.item_type == "SQLEndpoint");
    // The endpoint is made in the same transaction as its lakehouse; one that is missing
    // (its name was taken) is reported as not provisioned rather than invented.
    let sql = match endpoint {
        Some(endpoint) => json!({
            "id": endpoint.id,
            "connectionString": sql_host(&item.workspace_id),
            "provisioningStatus": "Success",
        }),
        None => json!({"provisioningStatus": "Failed"}),
    };
    Ok(json!({
        "oneLakeTablesPath": format!("{root}/Tables"),
        "oneLakeFilesPath": format!("{root}/Files"),
        "sqlEndpointProperties": sql,
    }))
}

/// When the item was created, as the service prints times.
fn created(conn: &Connection, item: &Item) -> rusqlite::Result<String> {
    Ok(service_timestamp(
        items::created_at(conn, &item.id)?.unwrap_or_default(),
    ))
}

/// `WarehouseProperties`: the required connection string and dates. A warehouse has no
/// definition to update here, so it was last updated when it was created. `collationType`
/// (optional) is left out: the creation payload that would set it is not kept.
fn warehouse(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    let created = created(conn, item)?;
    Ok(json!({
        "connectionString": sql_host(&item.workspace_id),
        "createdDate": created,
        "lastUpdatedTime": created,
    }))
}

/// `EnvironmentProperties`: local Fabric publishes environments as they are created, so the
/// one publish there was succeeded then; its version is the item's logical id, fixed for
/// the item's life.
fn environment(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    let created = created(conn, item)?;
    Ok(json!({
        "publishDetails": {
            "state": "Success",
            "targetVersion": item.logical_id,
            "startTime": created,
            "endTime": created,
            "componentPublishInfo": {
                "sparkLibraries": {"state": "Success"},
                "sparkSettings": {"state": "Success"},
            },
        },
    }))
}
