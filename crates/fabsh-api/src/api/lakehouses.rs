//! A lakehouse's own API (swagger `lakehouse`): its properties, and loading a table from its
//! files (`Tables_LoadTable`; on a lakehouse with schemas, `Tables_Load_Schema_Table_(beta)`).

use super::ApiClient;
use super::LroOutcome;
use super::request::Req;
use super::typed::read;
use crate::error::{Error, Result};
use fabsh_model::wire::{Item, LakehouseProperties, LoadTableRequest};
use serde_json::Value;

/// The lakehouse's `properties` (GET `/workspaces/{ws}/lakehouses/{id}`).
pub async fn properties(
    api: &ApiClient,
    workspace: &str,
    lakehouse: &str,
) -> Result<LakehouseProperties> {
    let req = Req::get(format!("/workspaces/{workspace}/lakehouses/{lakehouse}"));
    let item: Item = read(api.send(req).await?.json()?, "a lakehouse")?;
    let properties = item
        .properties
        .ok_or_else(|| Error::runtime("the service answered a lakehouse without its properties"))?;
    read(Value::Object(properties), "a lakehouse's properties")
}

/// Starts loading `request`'s files into `table` (in `schema`, for a lakehouse with schemas)
/// and waits for the load unless `--no-wait`.
pub async fn load_table(
    api: &ApiClient,
    workspace: &str,
    lakehouse: &str,
    schema: Option<&str>,
    table: &str,
    request: &LoadTableRequest,
) -> Result<LroOutcome> {
    let base = format!("/workspaces/{workspace}/lakehouses/{lakehouse}");
    let body = serde_json::to_value(request).map_err(Error::from)?;
    let req = match schema {
        // The schema route is a beta: "callers must specify `true` as the value for the
        // query parameter `beta`".
        Some(schema) => Req::post(format!("{base}/schemas/{schema}/tables/{table}/load"), body)
            .query("beta", "true"),
        None => Req::post(format!("{base}/tables/{table}/load"), body),
    };
    api.lro(req).await
}
