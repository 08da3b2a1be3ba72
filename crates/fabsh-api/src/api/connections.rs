//! Connections: those the caller can see (`GET /connections`) and those an item uses.

use super::{ApiClient, Req, items};
use crate::error::Result;
use fabsh_model::wire::{Connection, ItemConnection};

/// Every connection the caller can see, all pages.
pub async fn list_all(api: &ApiClient) -> Result<Vec<Connection>> {
    api.all_as(Req::get("/connections"), "a connection").await
}

/// Every connection an item uses, all pages.
pub async fn of_item(api: &ApiClient, workspace: &str, id: &str) -> Result<Vec<ItemConnection>> {
    api.all_as(
        items::connections_req(workspace, id),
        "an item's connection",
    )
    .await
}
