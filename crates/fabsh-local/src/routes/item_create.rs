//! POST `/v1/workspaces/{ws}/items` (and per-type collections): validate everything up front,
//! then create inline (201) or through an operation (202).

use super::items::invalid_type;
use super::target::CollectionTarget;
use crate::actions::{Action, NewItem, logical_id_in_use, name_in_use, store_parts};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::definitions::{self, Definition};
use crate::lro::{self, InlineAnswer};
use crate::respond::{LargeJsonBody, Origin, check_description, norm, opt_id, opt_str, req_str};
use crate::state::Shared;
use crate::store::{items, new_id, principals::Role};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use fabsh_model::definition::platform::UNSET_LOGICAL_ID;
use fabsh_model::item_types;
use serde_json::{Map, Value};

/// Types the service refuses to create without a definition.
const DEFINITION_REQUIRED: &[&str] = &["Report", "SemanticModel"];

fn present<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

fn is_guid(text: &str) -> bool {
    uuid::Uuid::parse_str(text).is_ok_and(|u| !u.is_nil())
}

fn sensitivity_label(obj: &Map<String, Value>) -> Result<Option<String>, ApiError> {
    let Some(settings) = present(obj, "sensitivityLabelSettings") else {
        return Ok(None);
    };
    let settings = settings
        .as_object()
        .ok_or_else(|| ApiError::invalid_body("'sensitivityLabelSettings' must be an object"))?;
    let label = req_str(settings, "labelId")?;
    if !is_guid(&label) {
        return Err(ApiError::invalid_body(
            "'sensitivityLabelSettings.labelId' must be a GUID",
        ));
    }
    match opt_str(settings, "sensitivityLabelApplyStrategy")?.as_deref() {
        None | Some("ApplyOrFail" | "Ignore") => Ok(Some(norm(&label))),
        Some(other) => Err(ApiError::invalid_body(format!(
            "Unknown sensitivityLabelApplyStrategy '{other}'"
        ))),
    }
}

/// POST: create an item.
pub(super) fn create(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    CollectionTarget { ws, implied, .. }: CollectionTarget,
    body: LargeJsonBody,
) -> Result<Response, ApiError> {
    caller.workspace(&state, &ws, Role::Contributor)?;
    let obj = body.object()?;

    let display_name = req_str(&obj, "displayName")?;
    let item_type = match (implied, opt_str(&obj, "type")?) {
        (Some(t), Some(given)) if !t.name.eq_ignore_ascii_case(&given) => {
            return Err(invalid_type(&given));
        }
        (Some(t), _) => t,
        (None, Some(given)) => item_types::find(&given).ok_or_else(|| invalid_type(&given))?,
        (None, None) => return Err(ApiError::invalid_body("The 'type' field is required")),
    };
    crate::name_rules::check_item(item_type.name, &display_name)?;
    if !item_type.creatable {
        return Err(ApiError::bad_request(
            "UnsupportedItemType",
            format!(
                "Items of type {} cannot be created through the API",
                item_type.name
            ),
        ));
    }
    let description = opt_str(&obj, "description")?;
    check_description(description.as_deref())?;
    let folder_id = opt_id(&obj, "folderId")?;
    let sensitivity_label_id = sensitivity_label(&obj)?;

    let definition = present(&obj, "definition");
    let creation_payload = present(&obj, "creationPayload");
    if definition.is_some() && creation_payload.is_some() {
        return Err(ApiError::bad_request(
            "InvalidRequest",
            "'definition' and 'creationPayload' cannot be used together",
        ));
    }
    if let Some(payload) = creation_payload {
        if item_type.name == "DataAgent" {
            return Err(ApiError::invalid_body(
                "Data agents do not accept a 'creationPayload'",
            ));
        }
        if !payload.is_object() {
            return Err(ApiError::invalid_body(
                "'creationPayload' must be an object",
            ));
        }
    }
    let definition: Option<Definition> = definition.map(definitions::parse).transpose()?;
    if definition.is_some() && !item_type.has_definition {
        return Err(ApiError::bad_request(
            "OperationNotSupportedForItem",
            format!("Items of type {} have no definition", item_type.name),
        ));
    }
    if let Some(d) = &definition {
        definitions::check_required_parts(item_type.name, d)?;
    }
    if definition.is_none() && DEFINITION_REQUIRED.contains(&item_type.name) {
        return Err(ApiError::bad_request(
            "InvalidRequest",
            format!("Creating a {} requires a definition", item_type.name),
        ));
    }

    let logical_id =
        definitions::given_logical_id(definition.as_ref().and_then(|d| d.platform.as_ref()))
            .unwrap_or_else(|| UNSET_LOGICAL_ID.to_string());
    // Checked now so the caller gets the error at once; checked again when applied, because
    // another request may take the name or delete the folder in between.
    state.db.read(|c| {
        super::folders::check_folder(c, &ws, folder_id.as_deref())?;
        if items::name_taken(c, &ws, item_type.name, &display_name, "")? {
            return Err(name_in_use(&display_name));
        }
        if items::logical_id_owner(c, &ws, &logical_id, "")?.is_some() {
            return Err(logical_id_in_use(&logical_id));
        }
        Ok(())
    })?;
    // An agent's definition may name only data its author may read, as updateDefinition's.
    if let (Some(d), "DataAgent") = (&definition, item_type.name) {
        crate::agents::access::check_parts(&state, &caller, &d.parts)?;
    }
    let service_lro =
        fabsh_model::item_types::created_through_operation(item_type.name, definition.is_some());
    let (format, parts) = match definition {
        Some(d) => (d.format, d.parts),
        None => (
            None,
            definitions::default_parts(item_type.name, creation_payload),
        ),
    };
    let new = NewItem {
        id: new_id(),
        workspace_id: ws,
        item_type: item_type.name.to_string(),
        display_name,
        description,
        folder_id,
        logical_id,
        sensitivity_label_id,
        format,
        parts: store_parts(&parts),
        creation_payload: creation_payload.cloned(),
    };
    lro::run(
        &state,
        &caller,
        &origin,
        Action::CreateItem(new),
        InlineAnswer {
            status: StatusCode::CREATED,
            etag: true,
            service_lro,
        },
    )
}
