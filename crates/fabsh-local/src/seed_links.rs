//! Seeds added with schema version 3: tenant tags, and the connections and endorsements of
//! the demo items. Each runs once per data directory, also on directories seeded before.

use super::api_error::ApiError;
use super::seed::{ADMIN_NAME, DEMO_WORKSPACE};
use super::store::items;
use super::store::{links, new_id, principals, tags, workspaces};
use rusqlite::Connection;
use serde_json::json;

const KEY_TAGS: &str = "tags_seeded";
const KEY_LINKS: &str = "demo_links_seeded";

/// The tags every local tenant starts with.
const TENANT_TAGS: &[&str] = &[
    "Finance",
    "Sales",
    "Marketing",
    "Confidential",
    "Deprecated",
];

/// Adds whatever of this file's seeds is still missing.
pub(crate) fn seed(tx: &Connection) -> Result<(), ApiError> {
    if principals::meta_get(tx, KEY_TAGS)?.is_none() {
        for name in TENANT_TAGS {
            tags::insert(tx, &new_id(), name)?;
        }
        principals::meta_set(tx, KEY_TAGS, b"1")?;
    }
    if principals::meta_get(tx, KEY_LINKS)?.is_none() {
        seed_demo_links(tx, DEMO_WORKSPACE)?;
        principals::meta_set(tx, KEY_LINKS, b"1")?;
    }
    Ok(())
}

/// The connections and endorsements of the demo items in the workspace called `workspace`.
pub(crate) fn seed_demo_links(tx: &Connection, workspace: &str) -> Result<(), ApiError> {
    let Some(ws) = workspaces::find(tx, workspace)? else {
        return Ok(());
    };
    let find = |item_type: &str, name: &str| items::find_named(tx, &ws.id, item_type, name);
    let lakehouse = find("Lakehouse", "SalesLakehouse")?;
    if let (Some(model), Some(lakehouse)) = (find("SemanticModel", "Sales Model")?, &lakehouse) {
        let endpoint = format!("{}.datawarehouse.fabric.microsoft.com", &lakehouse.id[..8]);
        links::set_connections(
            tx,
            &model.id,
            &[json!({
                "id": new_id(),
                "displayName": "SalesLakehouse SQL analytics endpoint",
                "connectivityType": "ShareableCloud",
                "connectionDetails": {"type": "SQL", "path": format!("{endpoint};SalesLakehouse")},
            })],
        )?;
        links::set_endorsement(tx, &model.id, "Certified", Some(ADMIN_NAME))?;
    }
    if let (Some(notebook), Some(lakehouse)) = (find("Notebook", "Welcome")?, &lakehouse) {
        links::set_connections(
            tx,
            &notebook.id,
            &[json!({
                "displayName": "SalesLakehouse",
                "connectivityType": "Automatic",
                "connectionDetails": {"type": "Lakehouse", "path": lakehouse.id},
            })],
        )?;
    }
    if let Some(report) = find("Report", "Sales Report")? {
        links::set_endorsement(tx, &report.id, "Promoted", None)?;
    }
    Ok(())
}
