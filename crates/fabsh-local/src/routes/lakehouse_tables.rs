//! GET `/v1/workspaces/{ws}/lakehouses/{id}/tables` (swagger lakehouse `Tables_ListTables`):
//! the lakehouse's tables as `{data: [{type, name, location, format}], continuationToken?,
//! continuationUri?}`, at most `maxResults` (1 to 100, default 100) a page. A lakehouse's
//! tables are those of its SQL data (views are no tables); each is answered as the service
//! answers a lakehouse table, a managed Delta table under the item's `Tables` in OneLake.
//! A lakehouse with schemas is refused, as the service refuses it (the API predates schemas).

use super::target::ItemTarget;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::item_properties::lakehouse_default_schema;
use crate::respond::{self, Origin, Query};
use crate::state::Shared;
use crate::store::principals::Role;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use fabsh_model::item_types;
use serde_json::{Value, json};

/// Most tables a page holds, and the default (the swagger's).
const MAX_RESULTS: usize = 100;

/// `maxResults`: 1 to 100, else 400 `InvalidParameter`.
fn max_results(query: &Query) -> Result<usize, ApiError> {
    match query.get("maxResults") {
        None => Ok(MAX_RESULTS),
        Some(text) => match text.parse::<usize>() {
            Ok(n) if (1..=MAX_RESULTS).contains(&n) => Ok(n),
            _ => Err(ApiError::invalid_parameter("maxResults", text)),
        },
    }
}

/// Where a page starts: the index a `continuationToken` this route gave names.
fn start(query: &Query) -> Result<usize, ApiError> {
    match query.get("continuationToken") {
        None | Some("") => Ok(0),
        Some(token) => token.parse().map_err(|_| {
            ApiError::bad_request(
                "InvalidContinuationToken",
                "The continuation token is not valid for this request",
            )
        }),
    }
}

/// The list.
pub(super) fn list(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    target: ItemTarget,
    query: Query,
) -> Result<Response, ApiError> {
    target.require_collection_of(item_types::LAKEHOUSE)?;
    let (limit, from) = (max_results(&query)?, start(&query)?);
    let item = target.open(&state, &caller, Role::Viewer)?;
    if state
        .db
        .read(|conn| lakehouse_default_schema(conn, &item.id))?
        .is_some()
    {
        return Err(super::lakehouse_load::with_schemas_refused());
    }
    let demo = state
        .db
        .read(|conn| crate::tables::is_demo(conn, &item.id))?;
    let schema = state.tables.schema(&item.id, demo)?;
    let names: Vec<&str> = schema
        .iter()
        .flat_map(|tables| tables.iter())
        .filter(|table| !table.is_view)
        .map(|table| table.name.as_str())
        .collect();
    let data: Vec<Value> = names
        .iter()
        .skip(from)
        .take(limit)
        .map(|name| {
            json!({
                "type": "Managed",
                "name": name,
                "location": format!(
                    "abfss://{}@onelake.dfs.fabric.microsoft.com/{}/Tables/{name}",
                    target.ws, item.id
                ),
                "format": "Delta",
            })
        })
        .collect();
    let mut body = json!({ "data": data });
    let next = from + limit;
    if next < names.len() {
        body["continuationToken"] = json!(next.to_string());
        body["continuationUri"] = json!(format!(
            "{origin}/v1/workspaces/{}/lakehouses/{}/tables?maxResults={limit}&continuationToken={next}",
            target.ws, item.id
        ));
    }
    Ok(respond::json(StatusCode::OK, &body))
}
