//! Items deleted with the item they were made for, as the service deletes them: a digital
//! twin builder's flows, an eventhouse's KQL databases. A dependent names its owner in the
//! creation payload it was made with.
//!
//! - fabric-cli's test_mkdir_digitaltwinbuilderflow_without_creation_payload_success
//!   (2026-05-13) deletes the builder `fabcli000001_auto` alone, and the workspace's next
//!   listing (test_mkdir_dependency_creation_batched_output_digitaltwinbuilderflow_success,
//!   half a minute later) holds neither of the flows made for it, while the builder's
//!   lakehouse stays.
//! - test_mkdir_kqldatabase_without_creation_payload_success (2025-09-03) deletes the
//!   eventhouse `fabcli000001_auto` alone, and the next listing holds neither its KQL database
//!   `fabcli000001` (made with `parentEventhouseItemId`) nor its default one; every later
//!   recording that deletes an eventhouse alone shows the same (test_ls_folder_content_success,
//!   test_import_create_new_item_success[Eventhouse], 2026: the other eventhouses' databases
//!   stay).

use crate::store::{creation_payloads, items};
use rusqlite::Connection;
use serde::Deserialize;

/// The swagger's `DigitalTwinBuilderFlowCreationPayload`, as far as it names the builder.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FlowPayload {
    digital_twin_builder_item_reference: BuilderReference,
}

/// Its `ItemReferenceById`: the builder's id.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BuilderReference {
    item_id: String,
}

/// The swagger's `KQLDatabaseCreationPayload`, as far as it names the eventhouse.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DatabasePayload {
    parent_eventhouse_item_id: String,
}

/// The owner a dependent's creation payload names, by the dependent's type.
fn owner_named(dependent_type: &str, payload: serde_json::Value) -> Option<String> {
    // A payload that does not name an owner (an item made from a definition alone) makes the
    // item no one's dependent.
    match dependent_type {
        "DigitalTwinBuilderFlow" => serde_json::from_value::<FlowPayload>(payload)
            .ok()
            .map(|p| p.digital_twin_builder_item_reference.item_id),
        "KQLDatabase" => serde_json::from_value::<DatabasePayload>(payload)
            .ok()
            .map(|p| p.parent_eventhouse_item_id),
        _ => None,
    }
}

/// The type of the items deleted with an item of `owner_type`, if any.
fn dependent_type(owner_type: &str) -> Option<&'static str> {
    match owner_type {
        "DigitalTwinBuilder" => Some("DigitalTwinBuilderFlow"),
        "Eventhouse" => Some("KQLDatabase"),
        _ => None,
    }
}

/// The ids of the workspace's live items made for `item`, deleted with it.
pub(crate) fn of(conn: &Connection, item: &items::Item) -> rusqlite::Result<Vec<String>> {
    let Some(dependent) = dependent_type(&item.item_type) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    for (_, item_type, id) in items::names_and_ids(conn, &item.workspace_id)? {
        if item_type != dependent {
            continue;
        }
        let owner =
            creation_payloads::get(conn, &id)?.and_then(|payload| owner_named(dependent, payload));
        if owner.is_some_and(|owner| owner.eq_ignore_ascii_case(&item.id)) {
            found.push(id);
        }
    }
    Ok(found)
}
