//! What `item create` makes and what `item update` changes, checked before anything is sent:
//! bulk-create checks each of its items as a [`NewItem`], and data-agent create and update
//! share the description and update checks.

use super::definition_flags::DefinitionFlags;
use crate::commands::common::{DESCRIPTION, DISPLAY_NAME, NEW_DISPLAY_NAME, SENSITIVITY_LABEL};
use crate::commands::names;
use crate::commands::spec::{ArgKind, ArgSpec};
use crate::commands::typed::typed_args;
use crate::definition::given::Source;
use crate::error::{Error, Result};
use fabsh_model::naming;
use fabsh_model::wire::{CreateItemRequest, SensitivityLabelSettings, UpdateItemRequest};

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
    pub(super) fn body(self) -> Result<CreateItemRequest> {
        names::checked(&DISPLAY_NAME, naming::item(&self.item_type), &self.name)?;
        let description = checked_description(self.description.as_deref())?.map(str::to_string);
        let given = self.definition.given(None);
        let definition = given.definition(CREATE_SOURCES, Some(&self.item_type))?;
        Ok(CreateItemRequest {
            description,
            sensitivity_label_settings: self
                .sensitivity_label
                .map(|label_id| SensitivityLabelSettings { label_id }),
            definition,
            // `--type` is an ItemType flag: already in the service's casing.
            ..CreateItemRequest::new(self.name, self.item_type)
        })
    }
}

/// `--description`, refused when longer than the service allows.
pub(crate) fn checked_description(description: Option<&str>) -> Result<Option<&str>> {
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
/// A name too long for any item is refused here; one that some types refuse (a `-` in a
/// lakehouse's) is checked by [`renamed_as`] once the item's type is known.
pub(crate) fn update_body(
    name: Option<&str>,
    description: Option<&str>,
) -> Result<UpdateItemRequest> {
    if name.is_some_and(|name| name.trim().is_empty()) {
        return Err(Error::usage("--name cannot be empty"));
    }
    if let Some(name) = name {
        names::checked(&NEW_DISPLAY_NAME, &naming::OTHER_ITEMS, name)?;
    }
    let body = UpdateItemRequest {
        display_name: name.map(str::to_string),
        description: checked_description(description)?.map(str::to_string),
    };
    if body == UpdateItemRequest::default() {
        return Err(Error::usage(
            "nothing to update: give --name and/or --description",
        ));
    }
    Ok(body)
}

/// `--name` of a rename, against the rules of the item's type. `item_type` is asked for
/// only when the name breaks some type's rules, so that most renames cost no request more.
pub(crate) async fn renamed_as<F>(name: &str, item_type: F) -> Result<()>
where
    F: Future<Output = Result<String>>,
{
    if naming::fits_every_item_type(name) {
        return Ok(());
    }
    names::checked(&NEW_DISPLAY_NAME, naming::item(&item_type.await?), name)
}
