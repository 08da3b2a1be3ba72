//! A digital twin builder's flows are deleted with it, as the service deletes them: fabric-cli's
//! test_mkdir_digitaltwinbuilderflow_without_creation_payload_success (2026-05-13) deletes the
//! builder `fabcli000001_auto` alone, and the workspace's next listing
//! (test_mkdir_dependency_creation_batched_output_digitaltwinbuilderflow_success, half a minute
//! later) holds neither of the flows made for it (`fabcli000001`,
//! `fabcli000001_autoOnDemand`), while the builder's lakehouse stays.

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

/// The ids of the workspace's live flows made for `item` when it is a digital twin builder;
/// none for any other item.
pub(crate) fn of_builder(conn: &Connection, item: &items::Item) -> rusqlite::Result<Vec<String>> {
    if item.item_type != "DigitalTwinBuilder" {
        return Ok(Vec::new());
    }
    let mut flows = Vec::new();
    for (_, item_type, id) in items::names_and_ids(conn, &item.workspace_id)? {
        if item_type != "DigitalTwinBuilderFlow" {
            continue;
        }
        // A flow made without a payload naming a builder (from a definition alone) belongs to
        // no builder.
        let builder = creation_payloads::get(conn, &id)?
            .and_then(|payload| serde_json::from_value::<FlowPayload>(payload).ok())
            .map(|payload| payload.digital_twin_builder_item_reference.item_id);
        if builder.is_some_and(|builder| builder.eq_ignore_ascii_case(&item.id)) {
            flows.push(id);
        }
    }
    Ok(flows)
}
