//! The changes behind LRO-capable calls. Each is validated up front by its route, then applied
//! either inline (200/201) or when its operation comes due (202), by the same code, so both
//! paths behave identically and a conflict found late fails the operation with the same error.

use super::api_error::ApiError;
use super::bulk_export::{self, Export};
use super::bulk_import::{self, Import};
use super::definitions::{self, PlatformMeta};
use super::item_identity;
use super::respond;
use super::state::AppState;
use super::store::items::{self, Item, Part};
use super::store::{creation_payloads, environment_publishes, folders, new_id, workspaces};
use super::workspace_identity;
use axum::http::StatusCode;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use fabsh_model::definition::platform::UNSET_LOGICAL_ID;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A part as kept in a pending action (payload base64 so the action stays JSON).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct StoredPart {
    /// Relative path.
    pub path: String,
    /// Base64 payload.
    pub payload: String,
}

/// Converts parts for storage in an action.
pub(crate) fn store_parts(parts: &[Part]) -> Vec<StoredPart> {
    parts
        .iter()
        .map(|p| StoredPart {
            path: p.path.clone(),
            payload: STANDARD.encode(&p.payload),
        })
        .collect()
}

/// Converts parts kept in an action back to bytes.
pub(crate) fn load_parts(parts: &[StoredPart]) -> Result<Vec<Part>, ApiError> {
    parts
        .iter()
        .map(|p| {
            Ok(Part {
                path: p.path.clone(),
                payload: STANDARD
                    .decode(&p.payload)
                    .map_err(|_| ApiError::internal("A stored operation is corrupt"))?,
            })
        })
        .collect()
}

/// An item to create, fully validated except for races.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NewItem {
    /// Id minted when the request was accepted.
    pub id: String,
    /// Workspace.
    pub workspace_id: String,
    /// ItemType.
    pub item_type: String,
    /// Name.
    pub display_name: String,
    /// Description.
    pub description: Option<String>,
    /// Folder.
    pub folder_id: Option<String>,
    /// `.platform` logical id (from the request's `.platform` or minted).
    pub logical_id: String,
    /// Sensitivity label.
    pub sensitivity_label_id: Option<String>,
    /// Definition format.
    pub format: Option<String>,
    /// Definition parts (defaults already filled in).
    pub parts: Vec<StoredPart>,
    /// The request's `creationPayload`, kept for the properties it sets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creation_payload: Option<Value>,
}

/// A definition replacement.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DefinitionUpdate {
    /// Workspace.
    pub workspace_id: String,
    /// Item.
    pub item_id: String,
    /// New format.
    pub format: Option<String>,
    /// New parts (full replacement).
    pub parts: Vec<StoredPart>,
    /// `.platform` fields, applied only with `update_metadata`.
    pub platform: Option<PlatformMeta>,
    /// `updateMetadata=true`.
    pub update_metadata: bool,
}

/// A change (or read) performed by an operation.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "camelCase")]
pub(crate) enum Action {
    /// Item create; result = the Item.
    CreateItem(NewItem),
    /// updateDefinition; result = the Item (the operation links a `/result` with it, as in
    /// import__test_import_update_existing_item_successNotebook.yaml, 2026-06; a December
    /// 2025 recording still showed no result).
    UpdateDefinition(DefinitionUpdate),
    /// Data-agent datasource create; result = the datasource.
    AddDataSource(Box<super::agents::NewDataSource>),
    /// getDefinition; result = `{definition}`.
    #[serde(rename_all = "camelCase")]
    GetDefinition {
        /// Workspace.
        workspace_id: String,
        /// Item.
        item_id: String,
        /// The `format` asked for, if any.
        #[serde(default)]
        format: Option<String>,
        /// Workspaces whose data the caller may not read: an agent's datasources over them
        /// come back without their tables ([`crate::agents::access::unreadable_sources`]).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        unreadable: Vec<String>,
    },
    /// An environment's staging publish; no result (the environment's `publishDetails` tell).
    #[serde(rename_all = "camelCase")]
    PublishEnvironment {
        /// Item.
        item_id: String,
    },
    /// bulkExportDefinitions; result = `{itemDefinitionsIndex, definitionParts}`.
    BulkExport(Export),
    /// bulkImportDefinitions; result = `{importItemDefinitionsDetails}`.
    BulkImport(Import),
    /// identities/default/assign; result = `{assignmentStatus}`.
    #[serde(rename_all = "camelCase")]
    AssignIdentity {
        /// Workspace.
        workspace_id: String,
        /// Item.
        item_id: String,
        /// The caller, who becomes the identity.
        principal_id: String,
    },
    /// provisionIdentity; result = `{applicationId, servicePrincipalId}`.
    #[serde(rename_all = "camelCase")]
    ProvisionWorkspaceIdentity {
        /// Workspace.
        workspace_id: String,
    },
    /// A lakehouse's load-table; no result.
    LoadTable(super::table_loads::TableLoad),
    /// deprovisionIdentity; no result (`OperationHasNoResult` in
    /// recordings/fabric-cli/mkdir__test_mkdir_managed_identity_success.yaml).
    #[serde(rename_all = "camelCase")]
    DeprovisionWorkspaceIdentity {
        /// Workspace.
        workspace_id: String,
    },
}

/// The 400 for a name already used by a live item of the same type. fabric-cicd recorded 400
/// for this code; fabio reports 409 for the same condition. Local Fabric answers 400.
pub(crate) fn name_in_use(name: &str) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        "ItemDisplayNameAlreadyInUse",
        format!("Requested '{name}' is already in use"),
    )
}

/// 409 for a logical id another live item of the workspace holds. The reference records no
/// answer for this case (open question 5); local Fabric uses a conflict with its own code.
pub(crate) fn logical_id_in_use(logical_id: &str) -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        "LogicalIdAlreadyInUse",
        format!("The logical id '{logical_id}' is already used by another item in this workspace"),
    )
}

impl Action {
    /// Whether a successful run has a `/result` body: every action's but a deprovisioning. (Operations
    /// stored by earlier versions may have none; the column keeps saying so.)
    pub(crate) fn has_result(&self) -> bool {
        // Deprovisioning a workspace identity answers no result, as recorded.
        !matches!(
            self,
            Action::DeprovisionWorkspaceIdentity { .. }
                | Action::PublishEnvironment { .. }
                | Action::LoadTable(_)
        )
    }

    /// Whether the action only reads (it then runs on a reader connection when inline).
    pub(crate) fn reads_only(&self) -> bool {
        matches!(self, Action::GetDefinition { .. } | Action::BulkExport(_))
    }

    /// Applies the action on `conn` (a write transaction, or a reader for `GetDefinition`),
    /// with the server's parsed agent definitions and data dir in `state`.
    pub(crate) fn apply(
        &self,
        state: &AppState,
        conn: &Connection,
        now: i64,
    ) -> Result<Option<Value>, ApiError> {
        let definitions = &state.definitions;
        match self {
            Action::CreateItem(new) => {
                let item = create_item(conn, new, now)?;
                respond::to_value(&item.to_wire()).map(Some)
            }
            Action::AddDataSource(new) => {
                super::agents::add_datasource(definitions, conn, new).map(Some)
            }
            Action::UpdateDefinition(update) => Ok(Some(update_definition(conn, update)?)),
            Action::GetDefinition {
                workspace_id,
                item_id,
                format,
                unreadable,
            } => {
                let item = items::get(conn, workspace_id, item_id)?
                    .ok_or_else(|| ApiError::item_not_found(item_id))?;
                let parts = super::agents::access::without_trees_of(
                    items::parts(conn, item_id)?,
                    unreadable,
                );
                let (format, parts) = definitions::in_format(&item, parts, format.as_deref())?;
                respond::to_value(&definitions::to_wire(format.as_deref(), &item, &parts)).map(Some)
            }
            Action::PublishEnvironment { item_id } => {
                environment_publishes::succeed(conn, item_id, now)?;
                // Inline, the answer is the finished publish; as an operation, none.
                Ok(crate::item_properties::environment_publish_answer(
                    conn, item_id,
                )?)
            }
            Action::BulkExport(export) => bulk_export::apply(conn, export).map(Some),
            Action::BulkImport(import) => bulk_import::apply(conn, import, now).map(Some),
            Action::AssignIdentity {
                workspace_id,
                item_id,
                principal_id,
            } => item_identity::assign(conn, workspace_id, item_id, principal_id).map(Some),
            Action::ProvisionWorkspaceIdentity { workspace_id } => {
                workspace_identity::provision(conn, workspace_id, now).map(Some)
            }
            Action::DeprovisionWorkspaceIdentity { workspace_id } => {
                workspace_identity::deprovision(conn, workspace_id)?;
                Ok(None)
            }
            Action::LoadTable(load) => {
                load.apply(state.db.data_dir(), conn)?;
                Ok(None)
            }
        }
    }
}

/// The types made with a SQL analytics endpoint: the lakehouse, and the mirrors whose swagger
/// `properties` carry `sqlEndpointProperties` (`<type>/definitions.json`).
const SQL_ENDPOINT_OWNERS: &[&str] = &[
    "Lakehouse",
    "MirroredDatabase",
    "MirroredAzureDatabricksCatalog",
    "MirroredCatalog",
    "SnowflakeDatabase",
];

/// Inserts an item (and a lakehouse's SQL endpoint) after re-checking what may have changed
/// since validation.
pub(crate) fn create_item(conn: &Connection, new: &NewItem, now: i64) -> Result<Item, ApiError> {
    if workspaces::get(conn, &new.workspace_id)?.is_none() {
        return Err(ApiError::workspace_not_found(&new.workspace_id));
    }
    if let Some(folder) = &new.folder_id
        && folders::get(conn, &new.workspace_id, folder)?.is_none()
    {
        return Err(ApiError::folder_not_found(folder));
    }
    if items::name_taken(
        conn,
        &new.workspace_id,
        &new.item_type,
        &new.display_name,
        "",
    )? {
        return Err(name_in_use(&new.display_name));
    }
    if items::logical_id_owner(conn, &new.workspace_id, &new.logical_id, "")?.is_some() {
        return Err(logical_id_in_use(&new.logical_id));
    }
    let mut item = Item {
        seq: 0,
        id: new.id.clone(),
        workspace_id: new.workspace_id.clone(),
        item_type: new.item_type.clone(),
        display_name: new.display_name.clone(),
        description: new.description.clone(),
        folder_id: new.folder_id.clone(),
        parent_item_id: None,
        logical_id: new.logical_id.clone(),
        sensitivity_label_id: new.sensitivity_label_id.clone(),
        definition_format: new.format.clone(),
        tags_json: "[]".into(),
    };
    item.seq = items::insert(conn, &item, now)?;
    if let Some(payload) = &new.creation_payload {
        creation_payloads::insert(conn, &item.id, payload)?;
    }
    items::replace_parts(
        conn,
        &item.id,
        new.format.as_deref(),
        &load_parts(&new.parts)?,
    )?;
    if SQL_ENDPOINT_OWNERS.contains(&item.item_type.as_str()) {
        // Every lakehouse and mirror comes with its SQL analytics endpoint, a child item of
        // the same name that moves and is deleted with it.
        let endpoint = Item {
            seq: 0,
            id: new_id(),
            item_type: "SQLEndpoint".into(),
            description: Some(String::new()),
            parent_item_id: Some(item.id.clone()),
            logical_id: UNSET_LOGICAL_ID.to_string(),
            sensitivity_label_id: None,
            definition_format: None,
            ..item.clone()
        };
        if !items::name_taken(
            conn,
            &item.workspace_id,
            "SQLEndpoint",
            &item.display_name,
            "",
        )? {
            items::insert(conn, &endpoint, now)?;
        }
    }
    Ok(item)
}

/// Applies an updateDefinition and returns the item as it now is.
fn update_definition(conn: &Connection, update: &DefinitionUpdate) -> Result<Value, ApiError> {
    let item = items::get(conn, &update.workspace_id, &update.item_id)?
        .ok_or_else(|| ApiError::item_not_found(&update.item_id))?;
    if update.update_metadata
        && let Some(platform) = &update.platform
    {
        let name = platform
            .display_name
            .clone()
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| item.display_name.clone());
        let description = platform.description.clone().or(item.description.clone());
        super::respond::check_description(description.as_deref())?;
        if items::name_taken(conn, &item.workspace_id, &item.item_type, &name, &item.id)? {
            return Err(name_in_use(&name));
        }
        items::update_metadata(conn, &item.id, &name, description.as_deref())?;
    }
    items::replace_parts(
        conn,
        &item.id,
        update.format.as_deref(),
        &load_parts(&update.parts)?,
    )?;
    let updated = items::get(conn, &update.workspace_id, &update.item_id)?
        .ok_or_else(|| ApiError::item_not_found(&update.item_id))?;
    respond::to_value(&updated.to_wire())
}
