//! Schema discovery: the element tree of a new datasource, read from the source item itself —
//! the tables, views and columns of a lakehouse's or warehouse's SQLite data, the tables,
//! columns and measures of a semantic model's TMDL parts. Also the live names an element's
//! `state` is judged against, and the schema few-shot SQL is checked against.

use crate::api_error::ApiError;
use crate::store::items::{self, Item};
use crate::store::new_id;
use crate::tables::{ItemData, TableInfo, Tables};
use fabsh_model::agent::definition::{DataSourceDoc, ElementDoc};
use fabsh_model::agent::sources::SourceKind;
use fabsh_model::agent::sql_check::KnownSchema;
use rusqlite::Connection;
use std::collections::HashSet;
use std::sync::Arc;

/// The schema every SQL source's tables sit in (SQLite has one).
pub(crate) const SQL_SCHEMA: &str = "dbo";

fn element(name: &str, kind: String, selected: bool, children: Vec<ElementDoc>) -> ElementDoc {
    ElementDoc {
        id: Some(new_id()),
        is_selected: selected,
        display_name: name.to_string(),
        kind,
        data_type: None,
        description: None,
        children,
        index_state: None,
    }
}

pub(crate) fn is_demo(conn: &Connection, item_id: &str) -> bool {
    crate::tables::is_demo(conn, item_id).is_ok_and(|demo| demo)
}

/// The data of a SQL source's item, opened read-only, with the tables and views it holds;
/// `None` when the item is gone or holds no tables yet.
pub(crate) fn open_data<'a>(
    conn: &Connection,
    item_tables: &'a Tables,
    doc: &DataSourceDoc,
) -> Result<Option<ItemData<'a>>, ApiError> {
    let Some(item) = items::get(conn, &doc.workspace_id, &doc.artifact_id)? else {
        return Ok(None);
    };
    Ok(item_tables.open_query(&item.id, is_demo(conn, &item.id))?)
}

/// The tables of a SQL source item, or none when it has no data yet.
fn sql_tables(
    conn: &Connection,
    item_tables: &Tables,
    item: &Item,
) -> Result<Arc<Vec<TableInfo>>, ApiError> {
    Ok(item_tables
        .schema(&item.id, is_demo(conn, &item.id))?
        // An item without tables (not a lakehouse or warehouse of the demo) lists none.
        .unwrap_or_default())
}

/// The whole tree of a new datasource; tables start unselected, semantic-model columns
/// selected (as the service does).
pub(crate) fn discover(
    conn: &Connection,
    item_tables: &Tables,
    kind: &SourceKind,
    item: &Item,
) -> Result<Vec<ElementDoc>, ApiError> {
    let prefix = kind.element_prefix;
    if kind.sql {
        let mut tables = Vec::new();
        let mut views = Vec::new();
        for table in sql_tables(conn, item_tables, item)?.iter() {
            let columns = table
                .columns
                .iter()
                .map(|(name, data_type)| ElementDoc {
                    data_type: Some(data_type.clone()),
                    ..element(name, format!("{prefix}.column"), false, Vec::new())
                })
                .collect();
            let (list, suffix) = if table.is_view {
                (&mut views, "view")
            } else {
                (&mut tables, "table")
            };
            list.push(element(
                &table.name,
                format!("{prefix}.{suffix}"),
                false,
                columns,
            ));
        }
        let schema = element(
            SQL_SCHEMA,
            format!("{prefix}.schema"),
            false,
            vec![
                element("Tables", "table_grouping".into(), false, tables),
                element("Views", "view_grouping".into(), false, views),
            ],
        );
        return Ok(vec![element(
            "Schemas",
            "schema_grouping".into(),
            false,
            vec![schema],
        )]);
    }
    if kind.item_type == "SemanticModel" {
        return Ok(semantic_model_tree(&items::parts(conn, &item.id)?));
    }
    // KQL databases, graphs and ontologies hold no data in local Fabric.
    Ok(Vec::new())
}

fn unquote(text: &str) -> String {
    text.trim().trim_matches('\'').trim_matches('"').to_string()
}

/// Tables with their columns (selected) and measures from `definition/tables/*.tmdl`.
fn semantic_model_tree(parts: &[items::Part]) -> Vec<ElementDoc> {
    let mut tables = Vec::new();
    for part in parts.iter().filter(|p| p.path.ends_with(".tmdl")) {
        let text = String::from_utf8_lossy(&part.payload);
        let mut table: Option<ElementDoc> = None;
        for line in text.lines() {
            let trimmed = line.trim();
            let depth = line.len() - line.trim_start_matches('\t').len();
            if let Some(name) = trimmed.strip_prefix("table ").filter(|_| depth == 0) {
                tables.extend(table.take());
                table = Some(element(
                    &unquote(name),
                    "semantic_model.table".into(),
                    false,
                    Vec::new(),
                ));
            } else if let Some(current) = table.as_mut().filter(|_| depth == 1) {
                if let Some(rest) = trimmed.strip_prefix("column ") {
                    let name = unquote(rest.split('=').next().unwrap_or(rest));
                    current.children.push(element(
                        &name,
                        "semantic_model.column".into(),
                        true,
                        Vec::new(),
                    ));
                } else if let Some(rest) = trimmed.strip_prefix("measure ") {
                    let name = unquote(rest.split('=').next().unwrap_or(rest));
                    current.children.push(element(
                        &name,
                        "semantic_model.measure".into(),
                        true,
                        Vec::new(),
                    ));
                }
            } else if let (Some(current), Some(data_type)) =
                (table.as_mut(), trimmed.strip_prefix("dataType:"))
                && let Some(last) = current.children.last_mut()
            {
                last.data_type = Some(data_type.trim().to_string());
            }
        }
        tables.extend(table);
    }
    tables
}

/// Lower-case names of the live elements under `parent` (a display path), or `None` when
/// the live schema cannot say (the element is then taken as available).
pub(crate) fn live_names(
    conn: &Connection,
    item_tables: &Tables,
    kind: &SourceKind,
    item: &Item,
    parent: &[&str],
) -> Result<Option<HashSet<String>>, ApiError> {
    let lower = |names: Vec<String>| Some(names.into_iter().map(|n| n.to_lowercase()).collect());
    if !kind.sql {
        let tree = discover(conn, item_tables, kind, item)?;
        let mut level = &tree;
        for name in parent {
            match level
                .iter()
                .find(|e| e.display_name.eq_ignore_ascii_case(name))
            {
                Some(found) => level = &found.children,
                None => return Ok(Some(HashSet::new())),
            }
        }
        return Ok(lower(
            level.iter().map(|e| e.display_name.clone()).collect(),
        ));
    }
    let data = sql_tables(conn, item_tables, item)?;
    let names = |views: bool| {
        lower(
            data.iter()
                .filter(|table| table.is_view == views)
                .map(|table| table.name.clone())
                .collect(),
        )
    };
    match parent {
        [] => Ok(lower(vec!["Schemas".into()])),
        ["Schemas"] => Ok(lower(vec![SQL_SCHEMA.into()])),
        ["Schemas", _] => Ok(lower(vec!["Tables".into(), "Views".into()])),
        ["Schemas", _, group] => Ok(names(group.eq_ignore_ascii_case("Views"))),
        ["Schemas", _, _, table] => Ok(lower(
            data.iter()
                .find(|info| info.name.eq_ignore_ascii_case(table))
                .map(|info| info.columns.iter().map(|(name, _)| name.clone()).collect())
                // A table the store does not hold has no columns to list.
                .unwrap_or_default(),
        )),
        _ => Ok(None),
    }
}

/// The tables and columns SQL few-shots are checked against; `None` for non-SQL sources.
pub(crate) fn known_schema(
    conn: &Connection,
    item_tables: &Tables,
    kind: &SourceKind,
    item: Option<&Item>,
) -> Result<Option<KnownSchema>, ApiError> {
    if !kind.sql {
        return Ok(None);
    }
    let mut schema = KnownSchema::default();
    if let Some(item) = item {
        for table in sql_tables(conn, item_tables, item)?.iter() {
            schema.add_table(&table.name, table.columns.iter().map(|(n, _)| n.as_str()));
        }
    }
    Ok(Some(schema))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tmdl_tables_columns_and_measures_are_found() {
        let part = items::Part {
            path: "definition/tables/Orders.tmdl".into(),
            payload: crate::seed_content::ORDERS_TMDL.as_bytes().to_vec(),
        };
        let tree = semantic_model_tree(&[part]);
        assert_eq!(tree.len(), 1);
        assert_eq!(tree[0].display_name, "Orders");
        let names: Vec<&str> = tree[0]
            .children
            .iter()
            .map(|c| c.display_name.as_str())
            .collect();
        assert_eq!(names, vec!["Total Sales", "OrderId", "Customer", "Amount"]);
        assert_eq!(tree[0].children[1].data_type.as_deref(), Some("int64"));
        assert!(!tree[0].is_selected && tree[0].children[1].is_selected);
    }
}
