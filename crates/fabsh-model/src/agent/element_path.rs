//! Schema elements: the configuration API's element types and ids, and the dot paths users
//! write (`<schema>.<table>[.<column>]`). Grouping containers (`Schemas`, `Tables`, ...) are
//! part of the service's tree but not of a dot path.

use crate::edit_distance::edit_distance;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// Element types that only group other elements; they never appear in a dot path.
pub const GROUPING_TYPES: &[&str] = &[
    "Root",
    "Files",
    "Directory",
    "Schemas",
    "Tables",
    "Views",
    "Functions",
    "ScalarFunctions",
    "TableValuedFunctions",
    "Shortcuts",
    "MaterializedViews",
];

/// Element types that `select-tables --tables` selects.
pub const TABLE_TYPES: &[&str] = &["Table", "View", "ExternalTable", "MaterializedView"];

/// Element types that describe a part of another element (a table's column).
pub const DETAIL_TYPES: &[&str] = &[
    "Column",
    "Measure",
    "FunctionParameter",
    "FunctionReturnValue",
];

/// True for grouping containers.
pub fn is_grouping(api_type: &str) -> bool {
    GROUPING_TYPES.contains(&api_type)
}

/// True for tables and views.
pub fn is_table_like(api_type: &str) -> bool {
    TABLE_TYPES.contains(&api_type)
}

/// True for columns, measures and function parts.
pub fn is_detail(api_type: &str) -> bool {
    DETAIL_TYPES.contains(&api_type)
}

/// The configuration API's element type for a definition element type
/// (`lakehouse_tables.table` → `Table`, `table_grouping` → `Tables`).
pub fn api_element_type(definition_type: &str) -> String {
    if let Some(group) = definition_type.strip_suffix("_grouping") {
        return match group {
            "schema" => "Schemas",
            "table" => "Tables",
            "view" => "Views",
            "function" => "Functions",
            "shortcut" => "Shortcuts",
            "materialized_view" => "MaterializedViews",
            other => return pascal(other) + "s",
        }
        .to_string();
    }
    let Some((_, kind)) = definition_type.rsplit_once('.') else {
        return match definition_type {
            "lakehouse_files" => "Files".to_string(),
            _ => "Root".to_string(),
        };
    };
    match kind {
        "functions" | "function" => "Function".to_string(),
        "materializedview" | "materialized_view" => "MaterializedView".to_string(),
        "external_table" => "ExternalTable".to_string(),
        other => pascal(other),
    }
}

fn pascal(text: &str) -> String {
    text.split('_')
        .map(|word| {
            let mut chars = word.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// The configuration-API id of an element: base64 of the slash-joined display names from the
/// top of the tree (`Schemas/dbo/Tables/orders`), as the service's examples show.
pub fn element_id(display_path: &[&str]) -> String {
    STANDARD.encode(display_path.join("/"))
}

/// The display names an element id stands for, if it is one of ours.
pub fn display_path_of(id: &str) -> Option<Vec<String>> {
    let bytes = STANDARD.decode(id.trim()).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    Some(text.split('/').map(String::from).collect())
}

/// The dot path of an element from the (type, name) pairs of its ancestors and itself,
/// leaving out grouping containers.
pub fn dot_path<'a>(chain: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    chain
        .into_iter()
        .filter(|(api_type, _)| !is_grouping(api_type))
        .map(|(_, name)| name)
        .collect::<Vec<_>>()
        .join(".")
}

/// True when `wanted` names the element at `path`: the whole dot path, or its last segments
/// (`orders` and `dbo.orders` both name `dbo.orders`), ignoring case.
pub fn names(path: &str, wanted: &str) -> bool {
    let path = path.to_lowercase();
    let wanted = wanted.trim().to_lowercase();
    !wanted.is_empty() && (path == wanted || path.ends_with(&format!(".{wanted}")))
}

/// Up to five candidates close to `wanted` (by edit distance of the last segment, or
/// containing it), for "did you mean" hints.
pub fn close_matches<'a>(
    wanted: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<String> {
    let wanted = wanted.trim().to_lowercase();
    let last = wanted.rsplit('.').next().unwrap_or(&wanted).to_string();
    let mut scored: Vec<(usize, &str)> = candidates
        .into_iter()
        .filter_map(|candidate| {
            let lower = candidate.to_lowercase();
            let tail = lower.rsplit('.').next().unwrap_or(&lower);
            let distance = edit_distance(&last, tail);
            let close = distance <= (last.chars().count() / 3).max(2)
                || tail.contains(&last)
                || last.contains(tail);
            close.then_some((distance, candidate))
        })
        .collect();
    scored.sort_unstable();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(5)
        .map(|(_, c)| c.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definition_types_map_to_api_types() {
        assert_eq!(api_element_type("lakehouse_tables.table"), "Table");
        assert_eq!(api_element_type("warehouse_tables.column"), "Column");
        assert_eq!(api_element_type("schema_grouping"), "Schemas");
        assert_eq!(api_element_type("table_grouping"), "Tables");
        assert_eq!(api_element_type("lakehouse_tables"), "Root");
        assert_eq!(api_element_type("graph.nodeType"), "NodeType");
        assert_eq!(api_element_type("ontology.entity"), "Entity");
        assert_eq!(api_element_type("kusto.functions"), "Function");
    }

    #[test]
    fn ids_are_base64_display_paths() {
        let id = element_id(&["Schemas", "dbo", "Tables", "Trip"]);
        assert_eq!(id, "U2NoZW1hcy9kYm8vVGFibGVzL1RyaXA=");
        assert_eq!(
            display_path_of(&id).expect("ours"),
            vec!["Schemas", "dbo", "Tables", "Trip"]
        );
    }

    #[test]
    fn dot_paths_skip_groupings_and_match_by_suffix() {
        let chain = [
            ("Schemas", "Schemas"),
            ("Schema", "dbo"),
            ("Tables", "Tables"),
            ("Table", "orders"),
            ("Column", "amount"),
        ];
        assert_eq!(dot_path(chain), "dbo.orders.amount");
        assert!(names("dbo.orders", "orders"));
        assert!(names("dbo.orders", "DBO.Orders"));
        assert!(!names("dbo.orders", "ders"));
    }

    #[test]
    fn close_matches_find_typos() {
        let tables = ["dbo.orders", "dbo.customers", "dbo.products"];
        assert_eq!(close_matches("ordrs", tables), vec!["dbo.orders"]);
        assert_eq!(close_matches("customer", tables), vec!["dbo.customers"]);
        assert!(close_matches("zzzzzzzz", tables).is_empty());
    }
}
