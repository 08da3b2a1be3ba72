//! The kinds of data source a data agent can use: how each is named in the definition, how it
//! is added through the configuration API, its query language, and whether it takes few-shot
//! examples. One table for the client (`add-datasource`, few-shot checks) and local Fabric
//! (definition folders, element types, schema discovery).

use serde_json::{Value, json};

/// One kind of data source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceKind {
    /// The Fabric item type (`Lakehouse`).
    pub item_type: &'static str,
    /// `type` in `datasource.json` (`lakehouse_tables`).
    pub definition_type: &'static str,
    /// The definition folder prefix (`lakehouse-tables` in `draft/lakehouse-tables-Sales/`).
    pub folder_prefix: &'static str,
    /// The prefix of element types in the definition tree (`lakehouse_tables.table`).
    pub element_prefix: &'static str,
    /// The configuration API's `type`: `LakehouseTables` or `FabricItem`.
    pub api_type: &'static str,
    /// The language of its few-shot answers.
    pub language: &'static str,
    /// Whether the service takes few-shot examples for it.
    pub fewshots: bool,
    /// Whether its data is tables queried with SQL (local Fabric keeps them in SQLite).
    pub sql: bool,
}

const fn kind(
    item_type: &'static str,
    definition_type: &'static str,
    folder_prefix: &'static str,
    element_prefix: &'static str,
    language: &'static str,
    fewshots: bool,
    sql: bool,
) -> SourceKind {
    SourceKind {
        item_type,
        definition_type,
        folder_prefix,
        element_prefix,
        api_type: "FabricItem",
        language,
        fewshots,
        sql,
    }
}

/// Every kind: SPEC §2's artifact types in its order, then the rest of the swagger's
/// `DataAgentSupportedItemType` (`MirroredAzureDatabricksCatalog`, `Report`). A lakehouse is
/// added as `LakehouseTables`: as a `FabricItem` the service fails to fetch its schema.
pub static SOURCE_KINDS: &[SourceKind] = &[
    SourceKind {
        api_type: "LakehouseTables",
        ..kind(
            "Lakehouse",
            "lakehouse_tables",
            "lakehouse-tables",
            "lakehouse_tables",
            "SQL",
            true,
            true,
        )
    },
    kind(
        "Warehouse",
        "data_warehouse",
        "data-warehouse",
        "warehouse_tables",
        "SQL",
        true,
        true,
    ),
    kind("KQLDatabase", "kusto", "kusto", "kusto", "KQL", true, false),
    kind(
        "SemanticModel",
        "semantic_model",
        "semantic-model",
        "semantic_model",
        "DAX",
        false,
        false,
    ),
    kind(
        "Ontology", "ontology", "ontology", "ontology", "GQL", false, false,
    ),
    kind("GraphModel", "graph", "graph", "graph", "GQL", true, false),
    kind(
        "MirroredDatabase",
        "mirrored_database",
        "mirrored-database",
        "mirrored_database",
        "SQL",
        true,
        true,
    ),
    kind(
        "SQLDatabase",
        "sql_database",
        "sql-database",
        "sql_database",
        "SQL",
        true,
        true,
    ),
    // The definition doc names `mirrored_azure_databricks`; its language and few-shot support
    // are undocumented, so few-shots are left for the service to accept or refuse.
    kind(
        "MirroredAzureDatabricksCatalog",
        "mirrored_azure_databricks",
        "mirrored-azure-databricks",
        "mirrored_azure_databricks",
        "SQL",
        true,
        false,
    ),
    // Only the swagger's enum names it: a report answers through its semantic model (DAX),
    // which takes no few-shots.
    kind("Report", "report", "report", "report", "DAX", false, false),
];

/// The artifact types `add-datasource --artifact-type` accepts.
pub const ARTIFACT_TYPES: &[&str] = &[
    "Lakehouse",
    "Warehouse",
    "KQLDatabase",
    "SemanticModel",
    "Ontology",
    "GraphModel",
    "MirroredDatabase",
    "SQLDatabase",
    "MirroredAzureDatabricksCatalog",
    "Report",
];

/// The kind for an item type, ignoring case.
pub fn by_item_type(item_type: &str) -> Option<&'static SourceKind> {
    SOURCE_KINDS
        .iter()
        .find(|kind| kind.item_type.eq_ignore_ascii_case(item_type.trim()))
}

/// The kind for a definition `type`, including the spellings older backends and hand-written
/// definitions use (`lakehouse`, `warehouse`, `kqldatabase`, dashes for underscores).
pub fn by_definition_type(definition_type: &str) -> Option<&'static SourceKind> {
    let normal = definition_type
        .trim()
        .to_ascii_lowercase()
        .replace('-', "_");
    let canonical = match normal.as_str() {
        "lakehouse" => "lakehouse_tables",
        "warehouse" | "datawarehouse" => "data_warehouse",
        "kqldatabase" | "kql_database" => "kusto",
        "semanticmodel" => "semantic_model",
        "graphmodel" | "graph_model" => "graph",
        other => other,
    };
    SOURCE_KINDS
        .iter()
        .find(|kind| kind.definition_type == canonical)
}

/// The kind of a datasource as the configuration API shows it (`type` plus, for
/// `FabricItem`, `fabricItemType`); either key casing is read: the live service reportedly
/// answers creates in PascalCase.
pub fn of_wire(datasource: &Value) -> Option<&'static SourceKind> {
    let text = |camel: &str, pascal: &str| {
        datasource
            .get(camel)
            .or_else(|| datasource.get(pascal))
            .and_then(Value::as_str)
    };
    match text("type", "Type") {
        Some(api) if api.eq_ignore_ascii_case("LakehouseTables") => by_item_type("Lakehouse"),
        _ => text("fabricItemType", "FabricItemType").and_then(by_item_type),
    }
}

/// Why the service refuses few-shot examples for this kind, if it does.
pub fn fewshots_refusal(kind: &SourceKind) -> Option<String> {
    (!kind.fewshots).then(|| {
        format!(
            "Few-shot examples are not supported for {} data sources",
            kind.item_type
        )
    })
}

/// The configuration API's create body for an item of this kind. The swagger's
/// `CreateDataAgentDatasourceRequest` has `type` and a reference only: the service reads the
/// item's type from the item (`fabricItemType` is in answers, not requests).
pub fn create_body(kind: &SourceKind, item_id: &str, workspace_id: &str) -> Value {
    let reference =
        json!({"referenceType": "ById", "itemId": item_id, "workspaceId": workspace_id});
    if kind.api_type == "LakehouseTables" {
        json!({"type": kind.api_type, "lakehouseReference": reference})
    } else {
        json!({"type": kind.api_type, "itemReference": reference})
    }
}

/// The referenced item's id in a configuration-API datasource (`itemReference` or
/// `lakehouseReference`, either key casing).
pub fn referenced_item(datasource: &Value) -> Option<&str> {
    [
        "itemReference",
        "lakehouseReference",
        "ItemReference",
        "LakehouseReference",
    ]
    .iter()
    .find_map(|key| datasource.get(*key))
    .and_then(|reference| reference.get("itemId").or_else(|| reference.get("ItemId")))
    .and_then(Value::as_str)
}

/// The value with every object key's first letter upper-case (`upper`) or lower-case:
/// the live service reportedly answers datasource creates in PascalCase (`Id`,
/// `ItemReference`), lists in camelCase.
pub fn with_key_case(value: Value, upper: bool) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| {
                    let mut chars = key.chars();
                    let key = match chars.next() {
                        Some(first) if upper => first.to_uppercase().chain(chars).collect(),
                        Some(first) => first.to_lowercase().chain(chars).collect(),
                        None => key,
                    };
                    (key, with_key_case(value, upper))
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| with_key_case(item, upper))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_artifact_type_has_one_kind() {
        assert_eq!(ARTIFACT_TYPES.len(), SOURCE_KINDS.len());
        for name in ARTIFACT_TYPES {
            assert_eq!(by_item_type(name).map(|k| k.item_type), Some(*name));
        }
    }

    #[test]
    fn lakehouses_go_in_as_lakehouse_tables() {
        let lakehouse = by_item_type("lakehouse").expect("kind");
        let body = create_body(lakehouse, "i", "w");
        assert_eq!(body["type"], "LakehouseTables");
        assert_eq!(body["lakehouseReference"]["itemId"], "i");
        assert_eq!(of_wire(&body), Some(lakehouse));
        let model = by_item_type("SemanticModel").expect("kind");
        let body = create_body(model, "i", "w");
        assert_eq!(body["type"], "FabricItem");
        assert!(body.get("fabricItemType").is_none());
        assert_eq!(referenced_item(&body), Some("i"));
        assert!(fewshots_refusal(model).is_some());
        assert!(fewshots_refusal(lakehouse).is_none());
    }

    #[test]
    fn pascal_case_answers_read_like_lists() {
        let created = json!({"Id": "d", "ItemReference": {"ItemId": "i"}, "FabricItemType": null});
        let camel = json!({"id": "d", "itemReference": {"itemId": "i"}, "fabricItemType": null});
        assert_eq!(with_key_case(created.clone(), false), camel);
        assert_eq!(with_key_case(camel, true), created);
    }

    #[test]
    fn older_definition_spellings_are_read() {
        assert_eq!(
            by_definition_type("lakehouse").map(|k| k.item_type),
            Some("Lakehouse")
        );
        assert_eq!(
            by_definition_type("semantic-model").map(|k| k.item_type),
            Some("SemanticModel")
        );
        assert_eq!(
            by_definition_type("data-warehouse").map(|k| k.item_type),
            Some("Warehouse")
        );
        assert!(by_definition_type("no_such_type").is_none());
    }
}
