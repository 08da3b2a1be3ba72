//! POST `/v1/workspaces/{ws}/lakehouses/{id}/tables/{table}/load` (swagger lakehouse
//! `Tables_LoadTable`) and, for a lakehouse with schemas,
//! `…/schemas/{schema}/tables/{table}/load?beta=true` (`Tables_Load_Schema_Table_(beta)`):
//! a 202 whose operation loads the named CSV file or folder under the lakehouse's `Files`
//! into the table ([`crate::table_loads`]). Write permission is needed (Contributor).
//!
//! The service refuses the first route on a lakehouse with schemas
//! (`UnsupportedOperationForSchemasEnabledLakehouse`, as fabric-cli users report it, issues
//! 182 and 279). Local Fabric keeps a lakehouse's tables in one schema, `dbo`, and reads
//! Parquet files compressed with snappy or not at all (what Spark and pyarrow write unless
//! told otherwise): another schema or a CSV delimiter of more than one byte is refused in
//! words that say so, and a Parquet file of another compression fails the operation.

use super::target::ItemTarget;
use crate::actions::Action;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::item_properties::lakehouse_default_schema;
use crate::lro::{self, InlineAnswer};
use crate::respond::{JsonBody, Origin, Query};
use crate::state::Shared;
use crate::store::principals::Role;
use crate::table_loads::TableLoad;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use fabsh_model::item_types;
use fabsh_model::wire::{
    FileFormatOptions, LoadMode, LoadTableRequest, PathType, valid_delimiter, valid_file_extension,
    valid_relative_path, valid_schema_name, valid_table_name,
};
use serde::Deserialize;

/// The `{table}` of the load route.
#[derive(Deserialize)]
pub(super) struct TablePath {
    table: String,
}

/// The `{schema}` and `{table}` of the schema route.
#[derive(Deserialize)]
pub(super) struct SchemaTablePath {
    schema: String,
    table: String,
}

/// The schema all of a local lakehouse's tables are in.
const LOCAL_SCHEMA: &str = "dbo";

/// `…/tables/{table}/load`.
pub(super) fn load(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    target: ItemTarget,
    Path(TablePath { table }): Path<TablePath>,
    body: JsonBody,
) -> Result<Response, ApiError> {
    start(&state, &caller, &origin, &target, None, &table, &body)
}

/// `…/schemas/{schema}/tables/{table}/load?beta=true`.
pub(super) fn load_in_schema(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    target: ItemTarget,
    Path(SchemaTablePath { schema, table }): Path<SchemaTablePath>,
    query: Query,
    body: JsonBody,
) -> Result<Response, ApiError> {
    // "callers must specify `true` as the value for the query parameter `beta`".
    query.require_beta()?;
    if !valid_schema_name(&schema) {
        return Err(ApiError::invalid_parameter("schemaName", &schema));
    }
    start(
        &state,
        &caller,
        &origin,
        &target,
        Some(&schema),
        &table,
        &body,
    )
}

fn start(
    state: &Shared,
    caller: &Caller,
    origin: &str,
    target: &ItemTarget,
    schema: Option<&str>,
    table: &str,
    body: &JsonBody,
) -> Result<Response, ApiError> {
    target.require_collection_of(item_types::LAKEHOUSE)?;
    if !valid_table_name(table) {
        return Err(ApiError::invalid_parameter("tableName", table));
    }
    let request: LoadTableRequest = serde_json::from_value(body.0.clone())
        .map_err(|err| ApiError::invalid_body(format!("The load request is not valid: {err}")))?;
    let item = target.open(state, caller, Role::Contributor)?;
    let default_schema = state
        .db
        .read(|conn| lakehouse_default_schema(conn, &item.id))?;
    match (schema, default_schema) {
        (None, Some(_)) => return Err(with_schemas_refused()),
        // Not pinned by the swagger or a recording: the schema route on a lakehouse without
        // schemas.
        (Some(_), None) => {
            return Err(ApiError::bad_request(
                "InvalidInput",
                "The lakehouse does not have schemas enabled: load through /tables/{table}/load",
            ));
        }
        (Some(schema), Some(_)) if !schema.eq_ignore_ascii_case(LOCAL_SCHEMA) => {
            return Err(local_only(format!(
                "local Fabric keeps a lakehouse's tables in schema {LOCAL_SCHEMA}, not {schema}"
            )));
        }
        _ => {}
    }
    let load = checked(&request, &item.workspace_id, &item.id, table)?;
    let inline = InlineAnswer {
        status: StatusCode::OK,
        etag: false,
        service_lro: true,
    };
    lro::run(state, caller, origin, Action::LoadTable(load), inline)
}

/// The load the request asks for, checked against the swagger's patterns and what local
/// Fabric reads.
fn checked(
    request: &LoadTableRequest,
    workspace_id: &str,
    item_id: &str,
    table: &str,
) -> Result<TableLoad, ApiError> {
    let invalid = |what: &str| ApiError::invalid_body(format!("{what} is not valid"));
    if !valid_relative_path(&request.relative_path) {
        return Err(invalid(&format!(
            "relativePath '{}' (a path under Files)",
            request.relative_path
        )));
    }
    if let Some(extension) = &request.file_extension
        && !valid_file_extension(extension)
    {
        return Err(invalid(&format!("fileExtension '{extension}'")));
    }
    // A CSV file is read as Spark reads one unless told: no header, comma-separated.
    let (parquet, header, delimiter) = match &request.format_options {
        None => (false, false, None),
        Some(FileFormatOptions::Csv { header, delimiter }) => {
            (false, header.unwrap_or(false), delimiter.as_deref())
        }
        Some(FileFormatOptions::Parquet) => (true, false, None),
    };
    let delimiter = match delimiter {
        None | Some("") => b',',
        Some(given) if !valid_delimiter(given) => {
            return Err(invalid(&format!("delimiter '{given}'")));
        }
        Some(given) => match given.as_bytes() {
            [byte] => *byte,
            _ => {
                return Err(local_only(format!(
                    "local Fabric reads a delimiter of one byte, not '{given}'"
                )));
            }
        },
    };
    Ok(TableLoad {
        workspace_id: workspace_id.to_string(),
        item_id: item_id.to_string(),
        table: table.to_string(),
        relative_path: request.relative_path.clone(),
        folder: request.path_type == PathType::Folder,
        recursive: request.recursive.unwrap_or(false),
        extension: request.file_extension.clone().unwrap_or_else(|| {
            let format = if parquet { "parquet" } else { "csv" };
            format.to_string()
        }),
        // Overwrite unless told: the service's default is not documented.
        append: request.mode == Some(LoadMode::Append),
        parquet,
        header,
        delimiter,
    })
}

/// The refusal of a call made for lakehouses without schemas on one with them.
pub(super) fn with_schemas_refused() -> ApiError {
    ApiError::bad_request(
        "UnsupportedOperationForSchemasEnabledLakehouse",
        "The operation is not supported for Lakehouse with schemas enabled",
    )
}

/// A load local Fabric cannot run though the service could.
fn local_only(why: String) -> ApiError {
    ApiError::bad_request("UnsupportedByLocalFabric", why)
}
