//! The request bodies of the bulk commands, checked before sending: what the service would
//! refuse is refused here with exit 2 and the flag that carried it.

use crate::error::{Error, Result};
use fabsh_model::definition::{paths, platform};
use serde_json::{Map, Value, json};
use std::collections::HashSet;

/// The service's request-size limit for bulk export and import: "128 MB", taken as binary
/// megabytes (128 MiB).
pub(super) const MAX_REQUEST_BYTES: u64 = 128 * 1024 * 1024;
/// Most items one bulk move takes.
pub(super) const MAX_MOVE_ITEMS: usize = 50;

/// Refuses a body over the request limit, saying how big it is.
pub(super) fn check_size(len: u64) -> Result<()> {
    if len <= MAX_REQUEST_BYTES {
        return Ok(());
    }
    const MIB: f64 = 1024.0 * 1024.0;
    Err(Error::usage(format!(
        "the request body would be {len} bytes ({:.1} MiB); the service takes at most 128 MiB ({MAX_REQUEST_BYTES} bytes), so nothing was sent",
        len as f64 / MIB
    ))
    .with_hint("import the items in smaller batches (split the folder or the body)"))
}

fn is_guid(text: &str) -> bool {
    uuid::Uuid::try_parse(text).is_ok()
}

/// An export body: `mode` All or Selective (any case), Selective with distinct item ids.
pub(super) fn check_export_body(mut body: Value, flag: &str) -> Result<Value> {
    let Some(object) = body.as_object_mut() else {
        return Err(Error::usage(format!(
            "{flag} must be a JSON object such as {{\"mode\":\"All\"}}"
        )));
    };
    let mode = match object.get("mode").and_then(Value::as_str) {
        Some(mode) if mode.eq_ignore_ascii_case("All") => "All",
        Some(mode) if mode.eq_ignore_ascii_case("Selective") => "Selective",
        Some(mode) => {
            return Err(Error::usage(format!(
                "{flag}: mode must be All or Selective, got {mode:?}"
            )));
        }
        None => {
            return Err(Error::usage(format!(
                "{flag}: `mode` is required (All or Selective)"
            )));
        }
    };
    object.insert("mode".into(), json!(mode));
    let listed = match object.get("items") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items.clone(),
        Some(_) => {
            return Err(Error::usage(format!(
                "{flag}: `items` must be an array of {{\"id\": \"<item id>\"}}"
            )));
        }
    };
    let mut seen = HashSet::new();
    let mut items = Vec::with_capacity(listed.len());
    for item in &listed {
        let id = item
            .as_str()
            .or_else(|| item.get("id").and_then(Value::as_str))
            .filter(|id| is_guid(id))
            .ok_or_else(|| {
                Error::usage(format!(
                    "{flag}: every entry of `items` must be {{\"id\": \"<item id>\"}} with a GUID, got {item}"
                ))
            })?;
        if !seen.insert(id.to_ascii_lowercase()) {
            return Err(Error::usage(format!(
                "{flag}: item {id} is listed twice (the service refuses that)"
            )));
        }
        items.push(json!({ "id": id }));
    }
    match (mode, items.is_empty()) {
        ("Selective", true) => Err(Error::usage(format!(
            "{flag}: mode Selective needs `items`: [{{\"id\": \"<item id>\"}}, ...]"
        ))),
        ("All", false) => Err(Error::usage(format!(
            "{flag}: `items` is only for mode Selective; mode All exports every item"
        ))),
        ("All", true) => {
            object.remove("items");
            Ok(body)
        }
        _ => {
            object.insert("items".into(), Value::Array(items));
            Ok(body)
        }
    }
}

/// The `options` the import flags ask for: `allowPairingByName` (`--allow-pairing-by-name`,
/// when given, true or false) and `itemOptionsByLogicalId` (`--item-options`).
pub(super) fn import_options(
    allow_pairing_by_name: Option<bool>,
    per_item: Option<&Value>,
) -> Result<Map<String, Value>> {
    let mut options = Map::new();
    if let Some(allow) = allow_pairing_by_name {
        options.insert("allowPairingByName".into(), json!(allow));
    }
    if let Some(entries) = per_item {
        options.insert("itemOptionsByLogicalId".into(), item_options(entries)?);
    }
    Ok(options)
}

/// `--item-options` `[{logicalId, ...options}]` as the map `{logicalId: {...options}}` that
/// `options.itemOptionsByLogicalId` names.
fn item_options(entries: &Value) -> Result<Value> {
    let Some(entries) = entries.as_array() else {
        return Err(Error::usage(
            "--item-options must be a JSON array of objects, each with a logicalId",
        ));
    };
    let mut by_id = Map::new();
    for entry in entries {
        let Some(object) = entry.as_object() else {
            return Err(Error::usage(format!(
                "--item-options: every entry must be an object with a logicalId, got {entry}"
            )));
        };
        let id = match object.get("logicalId").and_then(Value::as_str) {
            Some(id) if is_guid(id) => id.to_ascii_lowercase(),
            Some(id) => {
                return Err(Error::usage(format!(
                    "--item-options: {id:?} is not a logical id (a GUID)"
                )));
            }
            None => {
                return Err(Error::usage("--item-options: an entry has no logicalId"));
            }
        };
        let mut rest = object.clone();
        rest.remove("logicalId");
        if by_id.insert(id.clone(), Value::Object(rest)).is_some() {
            return Err(Error::usage(format!(
                "--item-options: logical id {id} appears twice"
            )));
        }
    }
    Ok(Value::Object(by_id))
}

/// An import body `{definitionParts, options?}`: parts with safe absolute paths, string
/// payloads, at least one `.platform`; the flags' `options` merged over the body's.
pub(super) fn check_import_body(
    body: &mut Value,
    flag: &str,
    options: Map<String, Value>,
) -> Result<()> {
    let Some(object) = body.as_object_mut() else {
        return Err(Error::usage(format!(
            "{flag} must be a JSON object {{\"definitionParts\": [...], \"options\"?: {{...}}}}"
        )));
    };
    let Some(parts) = object.get("definitionParts").and_then(Value::as_array) else {
        return Err(Error::usage(format!(
            "{flag} has no `definitionParts` array"
        )));
    };
    let mut items = 0;
    for (index, part) in parts.iter().enumerate() {
        let Some(path) = part["path"].as_str() else {
            return Err(Error::usage(format!("{flag}: part {index} has no `path`")));
        };
        let Some(relative) = path.strip_prefix('/') else {
            return Err(Error::usage(format!(
                "{flag}: part {index} path {path:?} must start with / (/<folders>/<name>.<Type>/<part>)"
            )));
        };
        if let Some(problem) = paths::problem(relative) {
            return Err(Error::usage(format!(
                "{flag}: part path {path:?} refused: {problem}"
            )));
        }
        if !part["payload"].is_string() {
            return Err(Error::usage(format!(
                "{flag}: part {path} has no `payload`"
            )));
        }
        if !matches!(part.get("payloadType"), None | Some(Value::Null))
            && part["payloadType"] != fabsh_model::definition::INLINE_BASE64
        {
            return Err(Error::usage(format!(
                "{flag}: part {path} has payloadType {}; only InlineBase64 exists",
                part["payloadType"]
            )));
        }
        if relative.ends_with(&format!("/{}", platform::PATH)) {
            items += 1;
        }
    }
    if items == 0 {
        return Err(Error::usage(format!(
            "{flag}: no part is a .platform; every item folder needs one (it names the item's type and logical id)"
        )));
    }
    if !options.is_empty() {
        let merged = object
            .entry("options")
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(merged) = merged.as_object_mut() else {
            return Err(Error::usage(format!("{flag}: `options` must be an object")));
        };
        merged.extend(options);
    }
    Ok(())
}

/// A move body `{items: [1 to 50 distinct item ids], targetFolderId?}`; an empty
/// `targetFolderId` means the workspace root and is left out.
pub(super) fn check_move_body(mut body: Value, flag: &str) -> Result<Value> {
    let Some(object) = body.as_object_mut() else {
        return Err(Error::usage(format!(
            "{flag} must be a JSON object {{\"items\": [item ids], \"targetFolderId\"?: folder id}}"
        )));
    };
    let Some(items) = object.get("items").and_then(Value::as_array) else {
        return Err(Error::usage(format!(
            "{flag} has no `items` array of item ids"
        )));
    };
    if items.is_empty() {
        return Err(Error::usage(format!("{flag}: `items` is empty")));
    }
    if items.len() > MAX_MOVE_ITEMS {
        return Err(Error::usage(format!(
            "{flag}: {} items given; a bulk move takes at most {MAX_MOVE_ITEMS}, so nothing was sent",
            items.len()
        ))
        .with_hint(format!("move them in calls of up to {MAX_MOVE_ITEMS} items")));
    }
    let mut seen = HashSet::new();
    for item in items {
        let id = item.as_str().filter(|id| is_guid(id)).ok_or_else(|| {
            Error::usage(format!(
                "{flag}: `items` entries must be item ids (GUIDs), got {item}"
            ))
        })?;
        if !seen.insert(id.to_ascii_lowercase()) {
            return Err(Error::usage(format!("{flag}: item {id} is listed twice")));
        }
    }
    match object.get("targetFolderId") {
        None | Some(Value::Null) => {}
        Some(Value::String(id)) if id.is_empty() => {
            object.remove("targetFolderId");
        }
        Some(Value::String(id)) if is_guid(id) => {}
        Some(other) => {
            return Err(Error::usage(format!(
                "{flag}: targetFolderId must be a folder id (a GUID), got {other}"
            )));
        }
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "5b1c9d6e-0a0b-4c4d-8e8f-000000000001";

    #[test]
    fn export_bodies_are_normalised_and_checked() {
        let all = check_export_body(json!({"mode": "all", "items": []}), "--content").expect("ok");
        assert_eq!(all, json!({"mode": "All"}));
        let one = check_export_body(json!({"mode": "Selective", "items": [ID]}), "--content")
            .expect("ok");
        assert_eq!(one["items"], json!([{"id": ID}]));
        for bad in [
            json!({"mode": "Some"}),
            json!({"mode": "Selective"}),
            json!({"mode": "Selective", "items": [{"id": ID}, {"id": ID}]}),
            json!({"mode": "All", "items": [{"id": ID}]}),
            json!([]),
        ] {
            assert!(
                check_export_body(bad.clone(), "--content").is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn size_limit_is_128_mib() {
        assert!(check_size(MAX_REQUEST_BYTES).is_ok());
        let err = check_size(MAX_REQUEST_BYTES + 1).expect_err("too big");
        assert!(err.message.contains("134217729 bytes"), "{}", err.message);
    }

    #[test]
    fn move_bodies_take_at_most_fifty_ids() {
        let ids: Vec<String> = (0..51)
            .map(|i| format!("5b1c9d6e-0a0b-4c4d-8e8f-{i:012}"))
            .collect();
        let err = check_move_body(json!({"items": ids}), "--content").expect_err("51");
        assert!(err.message.contains("51 items"), "{}", err.message);
        let root =
            check_move_body(json!({"items": [ID], "targetFolderId": ""}), "--content").expect("ok");
        assert!(root.get("targetFolderId").is_none());
    }
}
