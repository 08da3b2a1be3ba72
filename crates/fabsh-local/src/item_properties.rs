//! The `properties` an item carries when read through its per-type collection
//! (`/lakehouses/{id}`, `/warehouses`, `/eventhouses`, ...), shaped as the swagger's per-type
//! definitions: `LakehouseProperties`, `WarehouseProperties`, `EnvironmentProperties`,
//! `EventhouseProperties`, `KQLDatabaseProperties`, `MirroredDatabaseProperties`,
//! `SQLDatabaseProperties`, and every other type whose swagger requires properties
//! (`SparkJobDefinitionProperties` and the other `oneLakeRootPath` ones,
//! `VariableLibraryProperties`, `CosmosDBDatabaseProperties`, `WarehouseSnapshotProperties`,
//! `OperationsAgentProperties`, `MirroredAzureDatabricksCatalogProperties`,
//! `DigitalTwinBuilderFlowProperties`), `MLExperimentProperties`, and the mirrors' (see
//! [`mirrors`]) (microsoft/fabric-rest-api-specs, `<type>/definitions.json`).
//! Local Fabric has no SQL, OneLake or Kusto hosts of its own; the names below follow the
//! shapes the service sends so that clients parsing them work, and are not meant to be
//! connected to. Each is derived from ids alone, never from the address the server listens
//! on: a deployment substitutes them into definitions (fabric-cicd's
//! `$items.Eventhouse.X.queryserviceuri`), and a server restarted on another port must give
//! the same values, or every plan after a restart would show those definitions changed.

mod mirrors;

use super::clock::service_timestamp;
use super::store::items::{self, Item};
use super::store::{creation_payloads, environment_publishes};
use rusqlite::Connection;
use serde_json::{Map, Value, json};

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

/// The `properties` a per-type PATCH answers: a variable library's carry the service's type
/// tag, `"$type": "VariableLibraryProperties"`, which its GET leaves out (fabric-cli's
/// recordings of the PATCH, 2025-12-31 and 2026-04-23, both answer it).
pub(crate) fn patched(item_type: &str, properties: &mut Option<Map<String, Value>>) {
    if let ("VariableLibrary", Some(properties)) = (item_type, properties) {
        properties.insert("$type".into(), json!("VariableLibraryProperties"));
    }
}

/// The item's type-specific `properties`, or `None` for types without any.
pub(crate) fn of(conn: &Connection, item: &Item) -> rusqlite::Result<Option<Map<String, Value>>> {
    let properties = match item.item_type.as_str() {
        "Lakehouse" => lakehouse(conn, item)?,
        "Warehouse" => warehouse(conn, item)?,
        "Environment" => environment(conn, item)?,
        "DataAgent" => crate::agents::properties(conn, &item.id)?,
        "Eventhouse" => eventhouse(conn, item)?,
        "KQLDatabase" => kql_database(conn, item)?,
        "MirroredDatabase" => mirrors::mirrored_database(conn, item)?,
        "MirroredCatalog" => mirrors::mirrored_catalog(conn, item)?,
        "SnowflakeDatabase" => mirrors::snowflake_database(conn, item)?,
        "SQLDatabase" => sql_database(item),
        "SparkJobDefinition" | "OrgApp" | "OrgAppAudience" | "EventSchemaSet"
        | "DataBuildToolJob" => json!({ "oneLakeRootPath": one_lake_root(item) }),
        // The value set a new library starts with, as the swagger's GetVariableLibrary example
        // names it; local Fabric has no call that activates another.
        "VariableLibrary" => json!({ "activeValueSetName": "Default value set" }),
        "CosmosDBDatabase" => json!({
            "serverFqdn": format!(
                "{}.{}.cosmos.fabric.microsoft.com",
                item.id,
                item.workspace_id.replace('-', "")
            ),
            "databaseName": item.display_name,
        }),
        "WarehouseSnapshot" => warehouse_snapshot(conn, item)?,
        // Local Fabric runs no agent: one is never Active.
        "OperationsAgent" => json!({ "state": "Inactive" }),
        "MirroredAzureDatabricksCatalog" => mirrors::databricks_catalog(conn, item)?,
        "DigitalTwinBuilderFlow" => from_payload(conn, item, &["digitalTwinBuilderItemReference"])?,
        "MLExperiment" => json!({ "mlFlowExperimentId": ml_flow_experiment_id(item) }),
        // A dataflow answers whether it runs with public parameters (fabric-cli's recording
        // test_get_item_query_all_success[Dataflow], 2026-04); local Fabric runs no dataflow,
        // so none of its dataflows does.
        "Dataflow" => json!({ "isParametric": false }),
        _ => return Ok(None),
    };
    // Every type's properties are an object (each is built as one above).
    Ok(match properties {
        Value::Object(map) => Some(map),
        _ => None,
    })
}

/// The OneLake folder of an item.
fn one_lake_root(item: &Item) -> String {
    format!("{ONE_LAKE_DFS}/{}/{}", item.workspace_id, item.id)
}

/// The SQL analytics endpoint created with a lakehouse or a mirror, as `{id,
/// connectionString}` (a mirrored Azure Databricks catalog's whole `SqlEndpointProperties`).
/// The endpoint is made in the same transaction as its item; one that is missing (its name
/// was taken) is `None` rather than invented.
fn sql_endpoint_address(conn: &Connection, item: &Item) -> rusqlite::Result<Option<Value>> {
    let endpoint = items::children(conn, &item.id)?
        .into_iter()
        .find(|child| child.item_type == "SQLEndpoint");
    Ok(endpoint.map(|endpoint| {
        json!({
            "id": endpoint.id,
            "connectionString": sql_host(&item.workspace_id),
        })
    }))
}

/// `SqlEndpointProperties` with its provisioning status, as lakehouses and most mirrors
/// define it: a missing endpoint is reported as not provisioned.
fn sql_endpoint(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    Ok(match sql_endpoint_address(conn, item)? {
        Some(mut endpoint) => {
            endpoint["provisioningStatus"] = json!("Success");
            endpoint
        }
        None => json!({"provisioningStatus": "Failed"}),
    })
}

/// The MLflow experiment behind an ML experiment (`MLExperimentProperties.mlFlowExperimentId`,
/// a GUID of its own in the GetMLExperiment example): derived from the item's id, so that it
/// is the same on every read and after a restart.
fn ml_flow_experiment_id(item: &Item) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("mlflow-experiment:{}", item.id).as_bytes());
    let mut bytes = [0_u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .to_string()
}

/// `LakehouseProperties`: OneLake paths and the SQL endpoint created with the lakehouse.
fn lakehouse(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    let root = one_lake_root(item);
    let mut properties = json!({
        "oneLakeTablesPath": format!("{root}/Tables"),
        "oneLakeFilesPath": format!("{root}/Files"),
        "sqlEndpointProperties": sql_endpoint(conn, item)?,
    });
    if let Some(schema) = lakehouse_default_schema(conn, &item.id)? {
        properties["defaultSchema"] = json!(schema);
    }
    Ok(properties)
}

/// The default schema of a lakehouse with schemas enabled, `None` without: its
/// `lakehouse.metadata.json` names it (`{"defaultSchema": "dbo"}`, as a lakehouse created with
/// `enableSchemas` has it, and as fabric-cicd's sample keeps it); GetLakehouseWithSchema.json
/// shows it as `properties.defaultSchema`.
pub(crate) fn lakehouse_default_schema(
    conn: &Connection,
    item_id: &str,
) -> rusqlite::Result<Option<String>> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Metadata {
        default_schema: Option<String>,
    }
    Ok(items::part(conn, item_id, "lakehouse.metadata.json")?
        // A metadata part that is not this shape names no schema: the lakehouse reads as one
        // without, which is what a lakehouse with an unreadable part is to the service too.
        .and_then(|bytes| serde_json::from_slice::<Metadata>(&bytes).ok())
        .and_then(|metadata| metadata.default_schema))
}

/// When the item was created, as the service prints times.
fn created(conn: &Connection, item: &Item) -> rusqlite::Result<String> {
    Ok(service_timestamp(created_nanos(conn, item)?))
}

/// When the item was created (Unix nanoseconds). The item was read in this same request, so
/// a row gone by now is an error, never the epoch.
fn created_nanos(conn: &Connection, item: &Item) -> rusqlite::Result<i64> {
    items::created_at(conn, &item.id)?.ok_or(rusqlite::Error::QueryReturnedNoRows)
}

/// The default collation of a warehouse (swagger `CollationType`: "The default").
const DEFAULT_COLLATION: &str = "Latin1_General_100_BIN2_UTF8";

/// A string field of the item's `creationPayload`.
fn payload_string(conn: &Connection, item: &Item, key: &str) -> rusqlite::Result<Option<String>> {
    Ok(creation_payloads::get(conn, &item.id)?
        .and_then(|payload| payload.get(key)?.as_str().map(str::to_string)))
}

/// `WarehouseProperties`: the required connection string and dates, the collation it was
/// created with, and the `connectionInfo` and `creationMode` the service adds (recorded
/// 2026-01, get__test_get_item_query_all_successWarehouse.yaml). A warehouse has no
/// definition to update here, so it was last updated when it was created.
fn warehouse(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    let created = created(conn, item)?;
    let collation = payload_string(conn, item, "collationType")?
        .unwrap_or_else(|| DEFAULT_COLLATION.to_string());
    Ok(json!({
        "connectionInfo": sql_host(&item.workspace_id),
        "connectionString": sql_host(&item.workspace_id),
        "createdDate": created,
        "lastUpdatedTime": created,
        "collationType": collation,
        "creationMode": "New",
    }))
}

/// The fields of the item's `creationPayload` named in `keys` (those it has).
fn from_payload(conn: &Connection, item: &Item, keys: &[&str]) -> rusqlite::Result<Value> {
    let payload = creation_payloads::get(conn, &item.id)?.unwrap_or_else(|| json!({}));
    Ok(Value::Object(
        keys.iter()
            .filter_map(|key| Some((key.to_string(), payload.get(*key)?.clone())))
            .collect(),
    ))
}

/// `WarehouseSnapshotProperties`: its warehouse and moment from the `creationPayload` it was
/// made with (the moment of its creation when none was asked for), on the workspace's SQL host.
fn warehouse_snapshot(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    let mut properties = from_payload(conn, item, &["parentWarehouseId", "snapshotDateTime"])?;
    properties["connectionString"] = json!(sql_host(&item.workspace_id));
    if properties.get("snapshotDateTime").is_none() {
        // The swagger's format: whole seconds with a `Z`.
        let whole = service_timestamp(created_nanos(conn, item)?);
        let whole = whole
            .split_once('.')
            .map_or(whole.as_str(), |(seconds, _)| seconds);
        properties["snapshotDateTime"] = json!(format!("{whole}Z"));
    }
    Ok(properties)
}

/// An eventhouse's Kusto query and ingestion URIs, shaped as the service's
/// (`https://trd-<18 characters>.z5.kusto.fabric.microsoft.com`, the ingestion URI the same
/// host with `ingest-` before it) and derived from its id, so they never change.
fn kusto_uris(eventhouse_id: &str) -> (String, String) {
    let cluster: String = eventhouse_id.replace('-', "").chars().take(18).collect();
    (
        format!("https://trd-{cluster}.z5.kusto.fabric.microsoft.com"),
        format!("https://ingest-trd-{cluster}.z5.kusto.fabric.microsoft.com"),
    )
}

/// A KQL database's `DatabaseProperties.json` (the part fabric-cicd deploys, naming the parent
/// eventhouse and the type) or else its `creationPayload`, which carries the same fields.
fn kql_settings(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    let from_part = items::part(conn, &item.id, "DatabaseProperties.json")?
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .filter(Value::is_object);
    Ok(match from_part {
        Some(settings) => settings,
        None => creation_payloads::get(conn, &item.id)?.unwrap_or_else(|| json!({})),
    })
}

/// `EventhouseProperties`: its URIs, the KQL databases that name it as their parent, and the
/// minimum consumption units it was created with (0 when none).
fn eventhouse(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    let (query, ingestion) = kusto_uris(&item.id);
    let databases: Vec<String> = items::list(
        conn,
        &item.workspace_id,
        Some("KQLDatabase"),
        &items::FolderScope::All,
        0,
        i64::MAX,
    )?
    .into_iter()
    .filter_map(|database| {
        let parent = kql_settings(conn, &database).ok()?;
        (parent["parentEventhouseItemId"].as_str()? == item.id).then_some(database.id)
    })
    .collect();
    let minimum = creation_payloads::get(conn, &item.id)?
        .and_then(|payload| payload.get("minimumConsumptionUnits")?.as_f64())
        .unwrap_or(0.0);
    Ok(json!({
        "queryServiceUri": query,
        "ingestionServiceUri": ingestion,
        "databasesItemIds": databases,
        "minimumConsumptionUnits": minimum,
    }))
}

/// `KQLDatabaseProperties`: its parent eventhouse, whose URIs it shares, and its type.
fn kql_database(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    let settings = kql_settings(conn, item)?;
    let parent = settings["parentEventhouseItemId"].as_str();
    let (query, ingestion) = kusto_uris(parent.unwrap_or(&item.id));
    let mut properties = json!({
        "queryServiceUri": query,
        "ingestionServiceUri": ingestion,
        "databaseType": settings["databaseType"].as_str().unwrap_or("ReadWrite"),
    });
    if let Some(parent) = parent {
        properties["parentEventhouseItemId"] = json!(parent);
    }
    Ok(properties)
}

/// `SQLDatabaseProperties`: a server named after the workspace (as warehouses' SQL hosts are),
/// a database named after the item as the service names them (`<name>-<id>`).
fn sql_database(item: &Item) -> Value {
    let server = format!(
        "{}.database.fabric.microsoft.com,1433",
        item.workspace_id.replace('-', "")
    );
    let database = format!("{}-{}", item.display_name, item.id);
    json!({
        // Not in the swagger, answered before the rest (fabric-cli's recording
        // test_get_item_query_all_success[SQLDatabase]): the same connection, written with
        // the spaced keywords of ADO.NET's connection strings.
        "connectionInfo": format!(
            "Data Source={server};Initial Catalog={database};Multiple Active Result Sets=False;\
             Connect Timeout=30;Encrypt=True;Trust Server Certificate=False"
        ),
        "connectionString": format!(
            "Data Source={server};Initial Catalog={database};MultipleActiveResultSets=False;\
             Connect Timeout=30;Encrypt=True;TrustServerCertificate=False"
        ),
        "databaseName": database,
        "serverFqdn": server,
        "backupRetentionDays": 7,
        "collation": "SQL_Latin1_General_CP1_CI_AS",
    })
}

/// What a publish of the environment `item_id` answers inline: its `publishDetails` as they
/// stand (fabric-cli's recording test_import_create_new_item_success[Environment], 2026-06-15:
/// 200 with the finished publish's details); none when the item is gone.
pub(crate) fn environment_publish_answer(
    conn: &Connection,
    item_id: &str,
) -> rusqlite::Result<Option<Value>> {
    items::get_any(conn, item_id)?
        .map(|item| environment(conn, &item))
        .transpose()
}

/// `EnvironmentProperties`: the environment's last publish as it stands (`Running` until its
/// operation completes, then `Success`).
fn environment(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    // An environment is published as it is made: the service answers one just created with
    // a publish that started and ended then, `Success` throughout (fabric-cli's recording
    // test_mkdir_item_success[Environment]). Its version is named here by the item's id.
    let publish = if let Some(publish) = environment_publishes::last(conn, &item.id)? {
        publish
    } else {
        let created = created_nanos(conn, item)?;
        environment_publishes::Publish {
            state: "Success".to_string(),
            target_version: item.id.clone(),
            started_at: created,
            ended_at: Some(created),
        }
    };
    let component = json!({ "state": publish.state });
    let mut details = json!({
        "state": publish.state,
        "targetVersion": publish.target_version,
        "startTime": service_timestamp(publish.started_at),
        "componentPublishInfo": {
            "sparkLibraries": component,
            "sparkSettings": component,
        },
    });
    if let Some(ended) = publish.ended_at {
        details["endTime"] = json!(service_timestamp(ended));
    }
    Ok(json!({ "publishDetails": details }))
}
