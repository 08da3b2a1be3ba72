//! Runs an agent's T-SQL on an item's SQLite tables, read-only: the text must parse as one
//! query (anything that writes is refused before it reaches the database, which is opened
//! read-only besides), T-SQL forms SQLite lacks are rewritten (`TOP n` → `LIMIT n`, the
//! `dbo.` schema dropped), and the answer is capped at 25 rows × 25 columns like the service.

use rusqlite::Connection;
use rusqlite::types::ValueRef;
use serde_json::{Value, json};
use sqlparser::ast::{
    Expr, Ident, LimitClause, ObjectName, Query, SetExpr, Statement, TopQuantity, VisitMut,
    VisitorMut,
};
use sqlparser::dialect::{GenericDialect, MsSqlDialect};
use sqlparser::parser::Parser;
use std::ops::ControlFlow;

/// Rows an answer carries at most.
pub const MAX_ROWS: usize = 25;
/// Columns an answer carries at most.
pub const MAX_COLUMNS: usize = 25;

/// A query's result, capped.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultTable {
    /// Column names (at most [`MAX_COLUMNS`]).
    pub columns: Vec<String>,
    /// Rows (at most [`MAX_ROWS`]).
    pub rows: Vec<Vec<Value>>,
    /// True when the query returned more rows than shown.
    pub more_rows: bool,
    /// True when it returned more columns than shown.
    pub more_columns: bool,
}

impl ResultTable {
    /// The rows as CSV (header first), for an attached file.
    pub fn to_csv(&self) -> Vec<u8> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let _ = writer.write_record(&self.columns);
        for row in &self.rows {
            let cells: Vec<String> = row.iter().map(cell_text).collect();
            let _ = writer.write_record(&cells);
        }
        writer.into_inner().unwrap_or_default()
    }
}

/// A cell as text: strings as they are, numbers as JSON writes them, NULL empty.
pub fn cell_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Rewrites `sql` for SQLite, or says why it is not run (it does not parse, is not one
/// read-only query).
pub fn to_sqlite(sql: &str) -> Result<String, String> {
    let mut statements = Parser::parse_sql(&MsSqlDialect {}, sql)
        .or_else(|_| Parser::parse_sql(&GenericDialect {}, sql))
        .map_err(|err| format!("the query does not parse: {err}"))?;
    match statements.as_slice() {
        [Statement::Query(_)] => {}
        [] => return Err("the query is empty".to_string()),
        [_] => return Err("only read-only queries are run; this one would change data".to_string()),
        _ => return Err("only a single query is run".to_string()),
    }
    let _ = statements.visit(&mut ForSqlite);
    Ok(statements[0].to_string())
}

/// The rewrites SQLite needs.
struct ForSqlite;

impl VisitorMut for ForSqlite {
    type Break = ();

    fn pre_visit_relation(&mut self, relation: &mut ObjectName) -> ControlFlow<()> {
        // SQLite has one schema; `dbo.orders` and `[lakehouse].[dbo].[orders]` mean `orders`.
        if relation.0.len() > 1 {
            relation.0.drain(..relation.0.len() - 1);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::CompoundIdentifier(parts) = expr
            && parts.len() > 2
        {
            let keep: Vec<Ident> = parts[parts.len() - 2..].to_vec();
            *parts = keep;
        }
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        if let SetExpr::Select(select) = query.body.as_mut()
            && let Some(top) = select.top.take()
        {
            let limit = match top.quantity {
                Some(TopQuantity::Constant(n)) => Some(Expr::value(sqlparser::ast::Value::Number(
                    n.to_string(),
                    false,
                ))),
                Some(TopQuantity::Expr(expr)) => Some(expr),
                None => None,
            };
            if query.limit_clause.is_none() {
                query.limit_clause = Some(LimitClause::LimitOffset {
                    limit,
                    offset: None,
                    limit_by: Vec::new(),
                });
            }
        }
        ControlFlow::Continue(())
    }
}

/// Runs `sql` on `conn` (opened read-only) and returns the capped result, or why not.
pub fn run(conn: &Connection, sql: &str) -> Result<ResultTable, String> {
    let sqlite = to_sqlite(sql)?;
    let mut stmt = conn
        .prepare(&sqlite)
        .map_err(|err| format!("the query cannot run here: {err}"))?;
    if !stmt.readonly() {
        return Err("only read-only queries are run; this one would change data".to_string());
    }
    let all_columns: Vec<String> = stmt.column_names().map(str::to_string).collect();
    let shown = all_columns.len().min(MAX_COLUMNS);
    let mut rows = Vec::new();
    let mut more_rows = false;
    let mut cursor = stmt
        .query([])
        .map_err(|err| format!("the query failed: {err}"))?;
    while let Some(row) = cursor
        .next()
        .map_err(|err| format!("the query failed: {err}"))?
    {
        if rows.len() == MAX_ROWS {
            more_rows = true;
            break;
        }
        let cells = (0..shown)
            .map(|at| row.get_ref(at).map(json_of).unwrap_or(Value::Null))
            .collect();
        rows.push(cells);
    }
    Ok(ResultTable {
        columns: all_columns[..shown].to_vec(),
        rows,
        more_rows,
        more_columns: all_columns.len() > MAX_COLUMNS,
    })
}

fn json_of(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(n) => json!(n),
        ValueRef::Real(x) => json!(x),
        ValueRef::Text(bytes) => json!(String::from_utf8_lossy(bytes)),
        ValueRef::Blob(bytes) => json!(format!("<{} bytes>", bytes.len())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_sql_becomes_sqlite() {
        let sql = to_sqlite("SELECT TOP 5 o.amount FROM dbo.orders o ORDER BY o.amount DESC")
            .expect("rewritten");
        assert_eq!(
            sql,
            "SELECT o.amount FROM orders o ORDER BY o.amount DESC LIMIT 5"
        );
        assert!(
            to_sqlite("DELETE FROM orders")
                .unwrap_err()
                .contains("read-only")
        );
        assert!(
            to_sqlite("SELECT 1; SELECT 2")
                .unwrap_err()
                .contains("single")
        );
    }

    #[test]
    fn results_are_capped() {
        let conn = Connection::open_in_memory().expect("db");
        conn.execute_batch("CREATE TABLE t(n INTEGER); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 30) INSERT INTO t SELECT x FROM c;")
            .expect("data");
        let table = run(&conn, "SELECT n, n * 1.5 AS half FROM t").expect("rows");
        assert_eq!(table.rows.len(), MAX_ROWS);
        assert!(table.more_rows && !table.more_columns);
        assert_eq!(table.rows[1], vec![json!(2), json!(3.0)]);
        assert!(
            String::from_utf8(table.to_csv())
                .expect("utf8")
                .starts_with("n,half\n1,1.5\n")
        );
    }
}
