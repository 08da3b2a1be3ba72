//! T-SQL against a lakehouse's SQL analytics endpoint or a warehouse, through Fabric's Data
//! Warehouse MCP server (`executeSQL`): the endpoint's path, the result set it answers with,
//! and the offline checks both sides make with the SQL parser (is a statement read-only, is
//! its order meaningful). The client asks with these types and local Fabric answers with them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sqlparser::ast::{Query, SetExpr, Statement, Visit, Visitor};
use sqlparser::dialect::{GenericDialect, MsSqlDialect};
use sqlparser::parser::Parser;
use std::ops::ControlFlow;

/// The tool the Data Warehouse MCP server offers.
pub const EXECUTE_SQL_TOOL: &str = "executeSQL";
/// The argument local Fabric's `executeSQL` takes the statement in (a client reads the name
/// from `tools/list` rather than assuming it).
pub const QUERY_ARGUMENT: &str = "query";
/// Rows `sql query` returns unless `--max-rows` says otherwise.
pub const DEFAULT_MAX_ROWS: usize = 1000;

/// The item-scoped endpoint under the API base (`/v1`).
pub fn endpoint_path(workspace_id: &str, item_id: &str) -> String {
    format!("/mcp/dataPlane/workspaces/{workspace_id}/items/{item_id}/sqlEndpoint")
}

/// A query's result: its columns, its rows (cells as JSON: numbers, strings, booleans,
/// null), and whether rows were left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultSet {
    /// Column names, in order.
    pub columns: Vec<String>,
    /// Rows, each with one cell per column.
    #[serde(default)]
    pub rows: Vec<Vec<Value>>,
    /// True when the result had more rows than `rows` holds.
    #[serde(default)]
    pub truncated: bool,
    /// Rows a statement that writes changed, when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows_affected: Option<u64>,
}

impl ResultSet {
    /// Keeps the first `max` rows, marking the set truncated when rows were dropped.
    pub fn truncate(&mut self, max: usize) {
        if self.rows.len() > max {
            self.rows.truncate(max);
            self.truncated = true;
        }
    }

    /// True when it holds nothing to compare with: no rows, or one row of NULLs.
    pub fn is_empty_answer(&self) -> bool {
        match self.rows.as_slice() {
            [] => true,
            [only] => only.iter().all(Value::is_null),
            _ => false,
        }
    }

    /// The rows as objects keyed by column, as every list prints.
    pub fn records(&self) -> Vec<Value> {
        self.rows
            .iter()
            .map(|row| {
                let map = self
                    .columns
                    .iter()
                    .zip(row)
                    .map(|(column, cell)| (column.clone(), cell.clone()))
                    .collect();
                Value::Object(map)
            })
            .collect()
    }

    /// A result set from a tool's text or structured content, in the shapes an `executeSQL`
    /// server may use: `{columns, rows}` (rows as arrays or objects), or rows alone as an
    /// array of objects, bare or under `rows`, `data`, `results` or `resultSet`.
    pub fn from_value(value: &Value) -> Option<ResultSet> {
        // Read in place: a copy of the whole tree would be built only to be taken apart.
        if let Ok(set) = ResultSet::deserialize(value)
            && (!set.columns.is_empty() || set.rows.is_empty())
        {
            return Some(set);
        }
        if let Some(records) = value.as_array() {
            return from_records(records);
        }
        let object = value.as_object()?;
        let columns: Option<Vec<String>> = object.get("columns").and_then(|cols| {
            cols.as_array()?
                .iter()
                .map(|col| {
                    col.as_str()
                        .or_else(|| col.get("name").and_then(Value::as_str))
                        .map(String::from)
                })
                .collect()
        });
        for key in ["rows", "data", "results", "resultSet", "result"] {
            let Some(inner) = object.get(key) else {
                continue;
            };
            if let (Some(columns), Some(rows)) = (&columns, inner.as_array()) {
                let rows = rows
                    .iter()
                    .map(|row| match row {
                        Value::Array(cells) => cells.clone(),
                        Value::Object(map) => columns
                            .iter()
                            .map(|c| map.get(c).cloned().unwrap_or(Value::Null))
                            .collect(),
                        other => vec![other.clone()],
                    })
                    .collect();
                let truncated = object
                    .get("truncated")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                return Some(ResultSet {
                    columns: columns.clone(),
                    rows,
                    truncated,
                    rows_affected: None,
                });
            }
            if let Some(found) = ResultSet::from_value(inner) {
                return Some(found);
            }
        }
        None
    }
}

/// A result set from rows given as objects: columns in the first row's key order.
fn from_records(records: &[Value]) -> Option<ResultSet> {
    let columns: Vec<String> = match records.first() {
        Some(first) => first.as_object()?.keys().cloned().collect(),
        None => Vec::new(),
    };
    let rows = records
        .iter()
        .map(|record| {
            let map = record.as_object()?;
            Some(
                columns
                    .iter()
                    .map(|c| map.get(c).cloned().unwrap_or(Value::Null))
                    .collect(),
            )
        })
        .collect::<Option<Vec<Vec<Value>>>>()?;
    Some(ResultSet {
        columns,
        rows,
        truncated: false,
        rows_affected: None,
    })
}

/// The arguments of an `executeSQL` call, with the names the tool's schema gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecuteSqlCall {
    /// The tool's name as listed.
    pub tool: String,
    /// The argument the statement goes in.
    pub query_argument: String,
}

impl ExecuteSqlCall {
    /// The call's `arguments` object for `sql`.
    pub fn arguments(&self, sql: &str) -> Value {
        let mut map = serde_json::Map::new();
        map.insert(self.query_argument.clone(), Value::String(sql.to_string()));
        Value::Object(map)
    }

    /// The call as the tool in a `tools/list` answer describes it: the tool named
    /// `executeSQL` (any case), else the only tool; its statement argument the property
    /// named like a query (`query`, `sql`, `statement`...), else the first required string
    /// property, else the first property. `None` when no tool fits.
    pub fn from_tools(tools: &[Value]) -> Option<ExecuteSqlCall> {
        let tool = tools
            .iter()
            .find(|tool| {
                tool["name"]
                    .as_str()
                    .is_some_and(|name| name.eq_ignore_ascii_case(EXECUTE_SQL_TOOL))
            })
            .or(match tools {
                [only] => Some(only),
                _ => None,
            })?;
        let schema = &tool["inputSchema"];
        let properties = schema["properties"].as_object();
        // A tool whose schema lists no properties offers no name below: unless it requires
        // one, no argument can hold the SQL and no call is made of it.
        let names: Vec<&String> = properties.into_iter().flat_map(Map::keys).collect();
        let is_string = |name: &str| {
            properties
                .and_then(|p| p.get(name))
                .is_none_or(|prop| prop["type"].as_str().is_none_or(|t| t == "string"))
        };
        let named_like_a_query = names.iter().find(|name| {
            let lower = name.to_ascii_lowercase();
            ["query", "sql", "statement", "tsql", "command"]
                .iter()
                .any(|word| lower == *word || lower.ends_with(word))
        });
        let required = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find(|name| is_string(name));
        let argument = named_like_a_query
            .map(|name| (*name).clone())
            .or(required.map(String::from))
            .or(names.first().map(|name| (*name).clone()))?;
        Some(ExecuteSqlCall {
            tool: tool["name"].as_str()?.to_string(),
            query_argument: argument,
        })
    }
}

/// What a SQL text does, as far as the parser can tell offline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatementKind {
    /// One or more queries (`SELECT`, `WITH`): reads only.
    Reads,
    /// A statement that writes or changes the schema, named by its first word (`DELETE`).
    Writes(String),
}

/// Parses `sql` as T-SQL (falling back to the generic dialect) and says whether it only
/// reads; the error is the parser's.
pub fn statement_kind(sql: &str) -> Result<StatementKind, String> {
    kind_of(&parse(sql, "statement")?)
}

/// Whether parsed `statements` only read, as [`statement_kind`] says of their text. Decided
/// on the whole statement tree: a data-changing or DDL statement anywhere in it (behind a
/// CTE, `WITH x AS (...) DELETE FROM t`, which parses as a query) makes the text a write.
pub fn kind_of(statements: &[Statement]) -> Result<StatementKind, String> {
    if statements.is_empty() {
        return Err("the statement is empty".to_string());
    }
    for statement in statements {
        if let ControlFlow::Break(word) = statement.visit(&mut FirstWrite) {
            return Ok(StatementKind::Writes(word));
        }
    }
    Ok(StatementKind::Reads)
}

/// Stops at the first node of a statement tree that writes, with the word naming it.
struct FirstWrite;

impl Visitor for FirstWrite {
    type Break = String;

    fn pre_visit_statement(&mut self, statement: &Statement) -> ControlFlow<String> {
        if matches!(statement, Statement::Query(_)) {
            return ControlFlow::Continue(());
        }
        let text = statement.to_string();
        let word = text
            .split_whitespace()
            .next()
            .unwrap_or("statement")
            .to_ascii_uppercase();
        ControlFlow::Break(word)
    }

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<String> {
        if selects_into(&query.body) {
            // `SELECT ... INTO t` parses as a query, and creates the table t.
            return ControlFlow::Break("SELECT INTO".to_string());
        }
        ControlFlow::Continue(())
    }
}

/// `sql` parsed as T-SQL, or failing that as generic SQL; `what` names it in the error ("the
/// query does not parse: ...").
pub fn parse(sql: &str, what: &str) -> Result<Vec<Statement>, String> {
    Parser::parse_sql(&MsSqlDialect {}, sql)
        .or_else(|_| Parser::parse_sql(&GenericDialect {}, sql))
        .map_err(|err| format!("the {what} does not parse: {err}"))
}

/// True when a query's body stores its rows in a new table (`SELECT ... INTO`), at any level
/// of its set operations.
fn selects_into(body: &SetExpr) -> bool {
    match body {
        SetExpr::Select(select) => select.into.is_some(),
        SetExpr::Query(query) => selects_into(&query.body),
        SetExpr::SetOperation { left, right, .. } => selects_into(left) || selects_into(right),
        _ => false,
    }
}

/// True when the (last) query of parsed `statements` orders its rows at its outermost level,
/// so the order of a list is part of the answer.
pub fn orders_rows(statements: &[Statement]) -> bool {
    match statements.last() {
        Some(Statement::Query(query)) => {
            query.order_by.is_some()
                || matches!(query.body.as_ref(), SetExpr::Query(inner) if inner.order_by.is_some())
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_and_writes_are_told_apart() {
        assert_eq!(
            statement_kind("WITH t AS (SELECT 1 AS n) SELECT TOP 3 [n] FROM t"),
            Ok(StatementKind::Reads)
        );
        assert_eq!(
            statement_kind("DELETE FROM dbo.orders"),
            Ok(StatementKind::Writes("DELETE".into()))
        );
        assert_eq!(
            statement_kind("SELECT 1; DROP TABLE x"),
            Ok(StatementKind::Writes("DROP".into()))
        );
        assert_eq!(
            statement_kind("SELECT name INTO dbo.copy FROM dbo.customers"),
            Ok(StatementKind::Writes("SELECT INTO".into()))
        );
        assert_eq!(
            statement_kind("SELECT n INTO t FROM x UNION SELECT 2 AS n"),
            Ok(StatementKind::Writes("SELECT INTO".into()))
        );
        assert!(statement_kind("SELEC 1").is_err());
    }

    #[test]
    fn a_write_behind_a_cte_or_inside_a_query_is_a_write() {
        for (sql, word) in [
            ("WITH x AS (SELECT 1 AS a) DELETE FROM orders", "DELETE"),
            (
                "WITH x AS (SELECT 1 AS a) INSERT INTO orders (id) SELECT a FROM x",
                "INSERT",
            ),
            (
                "WITH x AS (SELECT 1 AS a) UPDATE orders SET id = 2",
                "UPDATE",
            ),
            (
                "WITH x AS (SELECT 1 AS a) SELECT a INTO dbo.copy FROM x",
                "SELECT INTO",
            ),
        ] {
            assert_eq!(
                statement_kind(sql),
                Ok(StatementKind::Writes(word.into())),
                "{sql}"
            );
        }
        assert_eq!(
            statement_kind("WITH x AS (SELECT 1 AS a) SELECT a FROM (SELECT a FROM x) y"),
            Ok(StatementKind::Reads)
        );
    }

    #[test]
    fn order_by_is_found_at_the_outer_level_only() {
        let orders = |sql: &str| orders_rows(&parse(sql, "query").expect("parses"));
        assert!(orders("SELECT name FROM t ORDER BY name"));
        assert!(!orders(
            "SELECT n FROM (SELECT TOP 5 n FROM t ORDER BY n) x"
        ));
    }

    #[test]
    fn result_sets_are_read_in_several_shapes() {
        let set = ResultSet {
            columns: vec!["n".into()],
            rows: vec![vec![json!(1)]],
            truncated: false,
            rows_affected: None,
        };
        assert_eq!(
            ResultSet::from_value(&json!({"columns": ["n"], "rows": [[1]]})),
            Some(set.clone())
        );
        assert_eq!(ResultSet::from_value(&json!([{"n": 1}])), Some(set.clone()));
        assert_eq!(
            ResultSet::from_value(&json!({"data": [{"n": 1}]})),
            Some(set.clone())
        );
        assert_eq!(
            ResultSet::from_value(&json!({"columns": [{"name": "n"}], "rows": [{"n": 1}]})),
            Some(set)
        );
    }

    #[test]
    fn the_statement_argument_is_found_in_the_schema() {
        let tools = [
            json!({"name": "executeSQL", "inputSchema": {"properties": {"itemId": {"type": "string"}, "sqlQuery": {"type": "string"}}, "required": ["itemId", "sqlQuery"]}}),
        ];
        let call = ExecuteSqlCall::from_tools(&tools).expect("call");
        assert_eq!(call.query_argument, "sqlQuery");
        assert_eq!(call.arguments("SELECT 1"), json!({"sqlQuery": "SELECT 1"}));
    }
}
