//! What `item create` makes and what `item update` changes, checked before anything is sent:
//! bulk-create checks each of its items as a [`NewItem`], and data-agent create and update
//! share the description and update checks.

use super::definition_flags::DefinitionFlags;
use crate::commands::common::{DESCRIPTION, DISPLAY_NAME, SENSITIVITY_LABEL};
use crate::commands::spec::{ArgKind, ArgSpec};
use crate::commands::typed::typed_args;
use crate::definition::given::Source;
use crate::error::{Error, Result};
use serde_json::{Map, Value, json};

/// The longest description the service accepts.
const MAX_DESCRIPTION: usize = 256;

/// `--type` of `item create`.
pub(super) const ITEM_TYPE: ArgSpec = ArgSpec::req(
    "type",
    ArgKind::ItemType,
    "Item type (Notebook, Lakehouse, Report, ...)",
);

/// Where `item create` takes a definition from.
const CREATE_SOURCES: &[Source] = &[Source::Definition, Source::Dir];

typed_args! {
    /// The item `item create` makes, as its flags give it (bulk-create checks each of its
    /// items as one).
    pub(super) struct NewItem {
        name: String = DISPLAY_NAME,
        item_type: String = ITEM_TYPE,
        description: Option<String> = DESCRIPTION,
        sensitivity_label: Option<String> = SENSITIVITY_LABEL,
        definition: DefinitionFlags,
    }
}

impl NewItem {
    /// The create request body, checked before anything is sent.
    pub(super) fn body(self) -> Result<Value> {
        let mut body = Map::new();
        body.insert("displayName".into(), json!(self.name));
        // `--type` is an ItemType flag: already in the service's casing.
        body.insert("type".into(), json!(self.item_type));
        if let Some(description) = checked_description(self.description.as_deref())? {
            body.insert("description".into(), json!(description));
        }
        if let Some(label) = self.sensitivity_label {
            body.insert("sensitivityLabelSettings".into(), json!({"labelId": label}));
        }
        let given = self.definition.given(None);
        if let Some(definition) = given.definition(CREATE_SOURCES, Some(&self.item_type))? {
            body.insert("definition".into(), definition);
        }
        Ok(Value::Object(body))
    }
}

/// `--description`, refused when longer than the service allows.
pub fn checked_description(description: Option<&str>) -> Result<Option<&str>> {
    let Some(description) = description else {
        return Ok(None);
    };
    let length = description.chars().count();
    if length > MAX_DESCRIPTION {
        return Err(Error::usage(format!(
            "--description is {length} characters; the limit is {MAX_DESCRIPTION}"
        )));
    }
    Ok(Some(description))
}

/// The PATCH body of `--name` and `--description`, checked; neither given is a usage error.
pub fn update_body(name: Option<&str>, description: Option<&str>) -> Result<Value> {
    let mut body = Map::new();
    if let Some(name) = name {
        if name.trim().is_empty() {
            return Err(Error::usage("--name cannot be empty"));
        }
        body.insert("displayName".into(), json!(name));
    }
    if let Some(description) = checked_description(description)? {
        body.insert("description".into(), json!(description));
    }
    if body.is_empty() {
        return Err(Error::usage(
            "nothing to update: give --name and/or --description",
        ));
    }
    Ok(Value::Object(body))
}
