//! Display names refused as the service refuses them, by fabsh-model's one table of naming
//! rules ([`fabsh_model::naming`]), on every path that names a workspace, a folder or an
//! item: create, PATCH, `updateDefinition?updateMetadata=true`, bulk import.
//!
//! No recording shows a name refused, so the answers are the closest documented ones. Items
//! and workspaces: 400 `InvalidInput`, "The request has an invalid input", what the service
//! answered for a lakehouse named `lh-demo` (microsoft/terraform-provider-fabric issue 100
//! quotes the message) and its usual shape of an invalid field, the field in `moreDetails`
//! (`InvalidParameter`), here with the rule the name breaks. Folders: the code the swagger
//! lists for them, `InvalidFolderDisplayName` ("The provided folder name is invalid, such as
//! including invalid chars"), with 400 as every other refused body.

use crate::api_error::ApiError;
use fabsh_model::naming::{self, NameRules};

fn invalid_input(rules: &NameRules, name: &str) -> Result<(), ApiError> {
    match rules.problem(name) {
        None => Ok(()),
        Some(rule) => Err(ApiError::bad_request(
            "InvalidInput",
            "The request has an invalid input",
        )
        .detail(
            "InvalidParameter",
            format!("The displayName {name:?} is not valid: {rule}"),
        )
        .retriable(false)),
    }
}

/// An item's name, by its type's rules.
pub(crate) fn check_item(item_type: &str, name: &str) -> Result<(), ApiError> {
    invalid_input(naming::item(item_type), name)
}

/// A workspace's name.
pub(crate) fn check_workspace(name: &str) -> Result<(), ApiError> {
    invalid_input(&naming::WORKSPACE, name)
}

/// A folder's name.
pub(crate) fn check_folder(name: &str) -> Result<(), ApiError> {
    match naming::FOLDER.problem(name) {
        None => Ok(()),
        Some(rule) => Err(ApiError::bad_request(
            "InvalidFolderDisplayName",
            format!("The provided folder name {name:?} is invalid: {rule}"),
        )),
    }
}
