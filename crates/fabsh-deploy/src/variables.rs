//! The variables a replacement value may hold: `$workspace.id` (or `$workspace.$id`),
//! `$workspace.$name`, `$workspace.$name_encoded`, `$items.<Type>.<Name>.<attribute>` (the
//! attribute with or without `$`; an item of the repository, else one the target workspace
//! already holds), and `$ENV:NAME` (see [`crate::env_vars`]). Anything else is the literal
//! value.

use crate::render::Target;
use fabsh_model::item_types;

/// The attributes `$items` may ask for, and the types that have each.
const ATTRIBUTES: &[(&str, &[&str])] = &[
    ("id", &[]),
    (
        "sqlendpoint",
        &[
            item_types::LAKEHOUSE,
            item_types::MIRRORED_DATABASE,
            item_types::SQL_DATABASE,
            item_types::WAREHOUSE,
        ],
    ),
    (
        "sqlendpointid",
        &[item_types::LAKEHOUSE, item_types::MIRRORED_DATABASE],
    ),
    ("queryserviceuri", &[item_types::EVENTHOUSE]),
];

/// A `$items` reference, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ItemRef {
    pub item_type: String,
    pub name: String,
    pub attribute: String,
}

/// What a value stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolved {
    /// The value to write.
    Value(String),
    /// Known only once something is deployed (an item to be created, or no workspace yet):
    /// the plan shows this placeholder.
    Pending(String),
    /// The variable is wrong (syntax, unknown item, unsupported attribute).
    Invalid(String),
    /// An environment variable that may not be read, or is not set: its problem code and
    /// message, about parameter.yml.
    Refused(&'static str, String),
}

/// Parses `$items.<Type>.<Name>.<attr>`; the name may hold dots and spaces.
pub(crate) fn item_ref(text: &str) -> Option<std::result::Result<ItemRef, String>> {
    let rest = text.strip_prefix("$items.")?;
    let parsed = (|| {
        let (item_type, rest) = rest.split_once('.')?;
        let (name, attribute) = rest.rsplit_once('.')?;
        let attribute = attribute.strip_prefix('$').unwrap_or(attribute);
        (!item_type.is_empty() && !name.is_empty()).then(|| ItemRef {
            item_type: item_type.to_string(),
            name: name.to_string(),
            attribute: attribute.to_string(),
        })
    })();
    Some(parsed.ok_or_else(|| format!("{text:?} is not $items.<type>.<name>.<attribute>")))
}

/// Checks an attribute against the item type.
pub(crate) fn check_attribute(reference: &ItemRef) -> std::result::Result<(), String> {
    match ATTRIBUTES
        .iter()
        .find(|(name, _)| *name == reference.attribute)
    {
        None => Err(format!(
            "unknown attribute {:?} (one of id, sqlendpoint, sqlendpointid, queryserviceuri)",
            reference.attribute
        )),
        Some((_, types)) if !types.is_empty() && !types.contains(&reference.item_type.as_str()) => {
            Err(format!(
                "{} items have no attribute {:?}",
                reference.item_type, reference.attribute
            ))
        }
        Some(_) => Ok(()),
    }
}

/// Resolves a replacement value against the target.
pub(crate) fn resolve(text: &str, target: &Target) -> Resolved {
    if let Some(name) = text.strip_prefix(crate::env_vars::PREFIX) {
        return match target.env.resolve(name) {
            Ok(value) => Resolved::Value(value.to_string()),
            Err((code, message)) => Resolved::Refused(code, message),
        };
    }
    if let Some(rest) = text.strip_prefix("$workspace.") {
        let pending = || Resolved::Pending(format!("<{text}>"));
        return match rest {
            "id" | "$id" => target
                .workspace_id
                .clone()
                .map_or_else(pending, Resolved::Value),
            "$name" => target
                .workspace_name
                .clone()
                .map_or_else(pending, Resolved::Value),
            "$name_encoded" => target
                .workspace_name
                .as_deref()
                .map_or_else(pending, |name| Resolved::Value(percent_encode(name))),
            _ => Resolved::Invalid(format!(
                "{text:?}: only $workspace.id, $workspace.$name and $workspace.$name_encoded are supported (not other workspaces)"
            )),
        };
    }
    match item_ref(text) {
        None => Resolved::Value(text.to_string()),
        Some(Err(message)) => Resolved::Invalid(message),
        Some(Ok(reference)) => {
            if let Err(message) = check_attribute(&reference) {
                return Resolved::Invalid(format!("{text:?}: {message}"));
            }
            // As fabric-cicd does, an item the repository does not deploy is looked up among
            // the target workspace's own items.
            let in_repository = target.in_repository(&reference.item_type, &reference.name);
            match target.attribute(&reference) {
                Some(value) => Resolved::Value(value),
                // Deployed later in this run, or no workspace to look in (offline).
                None if in_repository || target.workspace_id.is_none() => {
                    Resolved::Pending(format!("<{text}>"))
                }
                None if target
                    .id_of(&reference.item_type, &reference.name)
                    .is_some() =>
                {
                    Resolved::Invalid(format!(
                        "{text:?}: the target workspace's {} {:?} has no {}",
                        reference.item_type, reference.name, reference.attribute
                    ))
                }
                None => Resolved::Invalid(unknown_item(text, &reference)),
            }
        }
    }
}

/// The message for an `$items` variable naming an item neither the repository (in scope)
/// nor the target workspace holds.
pub(crate) fn unknown_item(text: &str, reference: &ItemRef) -> String {
    format!(
        "{text:?}: no {} named {:?} in the repository (in scope) or the target workspace",
        reference.item_type, reference.name
    )
}

/// Percent-encodes everything but unreserved characters (RFC 3986), as a URL path needs.
pub(crate) fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Where each attribute sits in a type's own GET answer.
const ATTRIBUTE_POINTERS: &[(&str, &str, &str)] = &[
    (
        item_types::LAKEHOUSE,
        "sqlendpoint",
        "/properties/sqlEndpointProperties/connectionString",
    ),
    (
        item_types::LAKEHOUSE,
        "sqlendpointid",
        "/properties/sqlEndpointProperties/id",
    ),
    (
        item_types::MIRRORED_DATABASE,
        "sqlendpoint",
        "/properties/sqlEndpointProperties/connectionString",
    ),
    (
        item_types::MIRRORED_DATABASE,
        "sqlendpointid",
        "/properties/sqlEndpointProperties/id",
    ),
    (
        item_types::WAREHOUSE,
        "sqlendpoint",
        "/properties/connectionString",
    ),
    (
        item_types::SQL_DATABASE,
        "sqlendpoint",
        "/properties/serverFqdn",
    ),
    (
        item_types::EVENTHOUSE,
        "queryserviceuri",
        "/properties/queryServiceUri",
    ),
];

/// The items (type, name) whose attributes other than `id` some `$items` variable asks for:
/// those need their type's GET.
pub fn needing_properties(
    params: &crate::params::Parameters,
) -> std::collections::BTreeSet<(String, String)> {
    params
        .find_replace
        .iter()
        .flat_map(|r| r.replace_value.values())
        .chain(
            params
                .key_value_replace
                .iter()
                .flat_map(|r| r.replace_value.values()),
        )
        .filter_map(serde_json::Value::as_str)
        .filter_map(|text| item_ref(text)?.ok())
        .filter(|r| r.attribute != "id")
        .map(|r| (r.item_type, r.name))
        .collect()
}

/// The attributes found in a type's GET answer.
pub fn attributes_from(
    item_type: &str,
    body: &serde_json::Value,
) -> std::collections::BTreeMap<String, String> {
    ATTRIBUTE_POINTERS
        .iter()
        .filter(|(t, _, _)| *t == item_type)
        .filter_map(|(_, attribute, pointer)| {
            let value = body.pointer(pointer)?.as_str()?;
            Some((attribute.to_string(), value.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_references_parse_with_spaces_and_either_attribute_form() {
        let parsed = item_ref("$items.Notebook.Hello World.$id").expect("a ref");
        assert_eq!(
            parsed,
            Ok(ItemRef {
                item_type: "Notebook".into(),
                name: "Hello World".into(),
                attribute: "id".into()
            })
        );
        assert!(item_ref("$items.Notebook").expect("a ref").is_err());
        assert_eq!(item_ref("plain"), None);
        let bad = item_ref("$items.Notebook.X.sqlendpoint")
            .expect("ref")
            .expect("parses");
        assert!(check_attribute(&bad).is_err());
        assert_eq!(percent_encode("My Workspace"), "My%20Workspace");
    }
}
