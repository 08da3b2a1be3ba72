//! The `properties` of the types that mirror another database into OneLake and come with a
//! SQL analytics endpoint: mirrored databases, mirrored Azure Databricks catalogs, mirrored
//! catalogs and Snowflake databases (swagger `<type>/definitions.json`, commit 4a7d6e4). What
//! the item was made with (its `creationPayload` or definition) is what it answers; what only
//! a running mirror would know is answered as a mirror that has caught up.

use super::{created, from_payload, one_lake_root, sql_endpoint, sql_endpoint_address};
use crate::store::items::{self, Item};
use rusqlite::Connection;
use serde::Deserialize;
use serde_json::{Value, json};

/// `MirroredDatabaseProperties`: its OneLake tables, the SQL endpoint made with it, and the
/// default schema when its definition enables one ("returned only for mirrored database that
/// enables default schema in definition": `mirroring.json`'s
/// `properties.target.typeProperties.defaultSchema`).
pub(super) fn mirrored_database(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    let mut properties = json!({
        "oneLakeTablesPath": format!("{}/Tables", one_lake_root(item)),
        "sqlEndpointProperties": sql_endpoint(conn, item)?,
    });
    let default_schema = items::part(conn, &item.id, "mirroring.json")?
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .and_then(|mirroring| {
            let schema = &mirroring["properties"]["target"]["typeProperties"]["defaultSchema"];
            schema.as_str().map(str::to_string)
        });
    if let Some(schema) = default_schema {
        properties["defaultSchema"] = json!(schema);
    }
    Ok(properties)
}

/// `MirroredAzureDatabricksCatalogProperties`: the catalog, connections and mode of its
/// `creationPayload`, its OneLake tables, and `autoSync` `Enabled` (the swagger: it "can only be
/// modified during an update request", so a new catalog has the default). Its SQL endpoint is
/// this type's `SqlEndpointProperties`, which has no provisioning status; and local Fabric has
/// no Databricks to copy from, so the catalog is mirrored as soon as it is made: `Mirrored`,
/// its last sync a `Success` at its creation, as the GetMirroredAzureDatabricksCatalog example
/// shows a mirrored one.
pub(super) fn databricks_catalog(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    let mut properties = from_payload(
        conn,
        item,
        &[
            "catalogName",
            "databricksWorkspaceConnectionId",
            "mirroringMode",
            "storageConnectionId",
        ],
    )?;
    properties["oneLakeTablesPath"] = json!(format!("{}/Tables", one_lake_root(item)));
    if let Some(endpoint) = sql_endpoint_address(conn, item)? {
        properties["sqlEndpointProperties"] = endpoint;
    }
    properties["autoSync"] = json!("Enabled");
    properties["mirrorStatus"] = json!("Mirrored");
    // "The last sync date time in UTC, using the YYYY-MM-DDTHH:mm:ssZ format"; the example
    // carries fractions of a second, as the service's other times do.
    properties["syncDetails"] = json!({
        "status": "Success",
        "lastSyncDateTime": format!("{}Z", created(conn, item)?),
    });
    Ok(properties)
}

/// `MirroredCatalogDefinition.json`, the part a mirrored catalog is created with (swagger
/// `CreateMirroredCatalogRequest` requires a definition): the source the catalog mirrors.
#[derive(Deserialize)]
struct CatalogDefinition {
    properties: CatalogDefinitionProperties,
}

#[derive(Deserialize)]
struct CatalogDefinitionProperties {
    source: CatalogSource,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CatalogSource {
    #[serde(rename = "type")]
    source_type: String,
    type_properties: CatalogSourceProperties,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CatalogSourceProperties {
    connection_id: String,
    scope: Vec<String>,
}

/// `MirroredCatalogProperties`: the source type, connection and scope its definition names
/// (the CreateMirroredCatalogWithDefinition and GetMirroredCatalog examples agree on them),
/// its OneLake tables and its SQL endpoint. A definition that does not name its source
/// leaves those three out rather than inventing them.
pub(super) fn mirrored_catalog(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    let mut properties = json!({
        "oneLakeTablesPath": format!("{}/Tables", one_lake_root(item)),
        "sqlEndpointProperties": sql_endpoint(conn, item)?,
    });
    let source = items::part(conn, &item.id, "MirroredCatalogDefinition.json")?
        .and_then(|bytes| serde_json::from_slice::<CatalogDefinition>(&bytes).ok())
        .map(|definition| definition.properties.source);
    if let Some(source) = source {
        properties["sourceType"] = json!(source.source_type);
        properties["connectionId"] = json!(source.type_properties.connection_id);
        properties["scope"] = json!(source.type_properties.scope);
    }
    Ok(properties)
}

/// Snowflake's own default schema, which a database mirrored from it has (the
/// GetSnowflakeDatabase example's `defaultSchema`).
const SNOWFLAKE_DEFAULT_SCHEMA: &str = "PUBLIC";

/// `SnowflakeDatabaseProperties`: the database and connection of its `creationPayload`, its
/// OneLake tables and Snowflake volume (the example's `.../Tables` and `.../SnowflakeVolume`),
/// its SQL endpoint and Snowflake's default schema. `snowflakeAccountURL`, which the example
/// leaves out, would come from the Snowflake connection, which local Fabric does not hold.
pub(super) fn snowflake_database(conn: &Connection, item: &Item) -> rusqlite::Result<Value> {
    let root = one_lake_root(item);
    let mut properties = from_payload(conn, item, &["snowflakeDatabaseName", "connectionId"])?;
    // The swagger spells this one `onelake`, unlike every other type's `oneLakeTablesPath`.
    properties["onelakeTablesPath"] = json!(format!("{root}/Tables"));
    properties["snowflakeVolumePath"] = json!(format!("{root}/SnowflakeVolume"));
    properties["sqlEndpointProperties"] = sql_endpoint(conn, item)?;
    properties["defaultSchema"] = json!(SNOWFLAKE_DEFAULT_SCHEMA);
    Ok(properties)
}
