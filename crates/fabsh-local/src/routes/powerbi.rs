//! GET `/v1.0/myorg/groups/{ws}/{collection}`: the Power BI groups API's artifact lists, the
//! only place endorsements can be read (reference §2.20). Each artifact carries
//! `endorsementDetails` when endorsed; dataflows are keyed by `objectId`, as there.

use super::target::WorkspaceTarget;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::respond::{self, Origin};
use crate::state::Shared;
use crate::store::items::{self, FolderScope};
use crate::store::{links, principals::Role};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use fabsh_model::item_types;
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// Most artifacts listed; the Power BI API does not page these lists.
const MAX_ARTIFACTS: i64 = 100_000;

/// The `{collection}` of a groups route: a Power BI artifact list, not a Fabric item
/// collection.
#[derive(Deserialize)]
pub(super) struct ArtifactsPath {
    collection: String,
}

/// GET: every artifact of the collection's type in the workspace.
pub(super) fn list(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    WorkspaceTarget { ws }: WorkspaceTarget,
    Path(ArtifactsPath { collection }): Path<ArtifactsPath>,
) -> Result<Response, ApiError> {
    let item_type = item_types::ITEM_TYPES
        .iter()
        .find(|t| t.endorsement_collection == Some(collection.as_str()))
        .ok_or_else(ApiError::entity_not_found)?;
    caller.workspace(&state, &ws, Role::Viewer)?;
    let values = state.db.read(|c| {
        let rows = items::list(
            c,
            &ws,
            Some(item_type.name),
            &FolderScope::All,
            0,
            MAX_ARTIFACTS,
        )?;
        rows.iter()
            .map(|item| {
                let mut map = Map::new();
                let key = if collection == "dataflows" {
                    "objectId"
                } else {
                    "id"
                };
                map.insert(key.into(), json!(item.id));
                map.insert("name".into(), json!(item.display_name));
                if let Some(description) = &item.description {
                    map.insert("description".into(), json!(description));
                }
                if let Some((endorsement, certified_by)) = links::endorsement(c, &item.id)? {
                    let mut details = Map::new();
                    details.insert("endorsement".into(), json!(endorsement));
                    if let Some(by) = certified_by {
                        details.insert("certifiedBy".into(), json!(by));
                    }
                    map.insert("endorsementDetails".into(), Value::Object(details));
                }
                Ok(Value::Object(map))
            })
            .collect::<rusqlite::Result<Vec<Value>>>()
    })?;
    let context = format!("{origin}/v1.0/myorg/groups/{ws}/$metadata#{collection}");
    Ok(respond::json(
        StatusCode::OK,
        &json!({"@odata.context": context, "value": values}),
    ))
}
