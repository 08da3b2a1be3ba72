//! Checks a SQL few-shot answer against a schema: it must parse as one read-only query, and
//! every table and column it names must exist. The reason for a failure reads like the
//! service's `validationStatus.reason`.

use sqlparser::ast::{
    Expr, Ident, ObjectName, Select, SelectItem, Statement, TableFactor, Visit, Visitor,
};
use sqlparser::dialect::{GenericDialect, MsSqlDialect};
use sqlparser::parser::Parser;
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;

/// Tables (by lower-case name) and their lower-case column names.
#[derive(Debug, Clone, Default)]
pub struct KnownSchema {
    tables: HashMap<String, HashSet<String>>,
}

impl KnownSchema {
    /// Adds a table (or view) with its columns.
    pub fn add_table<'a>(&mut self, name: &str, columns: impl IntoIterator<Item = &'a str>) {
        self.tables.insert(
            name.to_lowercase(),
            columns.into_iter().map(str::to_lowercase).collect(),
        );
    }

    fn columns(&self, table: &str) -> Option<&HashSet<String>> {
        self.tables.get(&table.to_lowercase())
    }
}

/// Words that appear as bare identifiers inside date functions (`DATEPART(year, d)`), not
/// column names.
const DATE_PARTS: &[&str] = &[
    "year",
    "yy",
    "yyyy",
    "quarter",
    "qq",
    "q",
    "month",
    "mm",
    "m",
    "dayofyear",
    "dy",
    "y",
    "day",
    "dd",
    "d",
    "week",
    "wk",
    "ww",
    "weekday",
    "dw",
    "hour",
    "hh",
    "minute",
    "mi",
    "n",
    "second",
    "ss",
    "s",
    "millisecond",
    "ms",
];

/// Why a query is invalid: it is not one read-only query that parses, or it names a table
/// or column the schema lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqlProblem {
    /// Empty, unparsable, not read-only, or more than one statement.
    Invalid(String),
    /// A table or column the schema does not have.
    UnknownName(String),
}

impl SqlProblem {
    /// The reason, worded like the service's `validationStatus.reason`.
    pub fn reason(&self) -> &str {
        match self {
            SqlProblem::Invalid(reason) | SqlProblem::UnknownName(reason) => reason,
        }
    }
}

/// Checks `sql` against `schema`; the error is the reason it is invalid.
pub fn check(sql: &str, schema: &KnownSchema) -> Result<(), String> {
    problem(sql, schema).map_err(|problem| problem.reason().to_string())
}

/// Checks `sql` against `schema`, saying what kind of problem it has.
pub fn problem(sql: &str, schema: &KnownSchema) -> Result<(), SqlProblem> {
    use SqlProblem::{Invalid, UnknownName};
    let statements = Parser::parse_sql(&MsSqlDialect {}, sql)
        .or_else(|_| Parser::parse_sql(&GenericDialect {}, sql))
        .map_err(|err| Invalid(format!("The query does not parse: {err}")))?;
    match statements.as_slice() {
        [Statement::Query(_)] => {}
        [] => return Err(Invalid("The query is empty".to_string())),
        [_] => {
            return Err(Invalid(
                "Only read-only SELECT queries are allowed".to_string(),
            ));
        }
        _ => return Err(Invalid("The answer must be a single query".to_string())),
    }
    let mut names = Names::default();
    let _ = statements.visit(&mut names);
    for table in &names.relations {
        if schema.columns(table).is_none() && !names.ctes.contains(&table.to_lowercase()) {
            return Err(UnknownName(format!("Invalid object name '{table}'")));
        }
    }
    let real_tables: Vec<&HashSet<String>> = names
        .relations
        .iter()
        .filter_map(|table| schema.columns(table))
        .collect();
    // Columns of derived tables and CTEs are not tracked, so unqualified names are only
    // judged when every source is a real table.
    let judge_unqualified = names.derived == 0 && names.ctes.is_empty();
    for (qualifier, column) in &names.columns {
        let column_lower = column.to_lowercase();
        let known = match qualifier {
            Some(qualifier) => match names.aliases.get(&qualifier.to_lowercase()) {
                Some(Some(table)) => schema
                    .columns(table)
                    .is_none_or(|columns| columns.contains(&column_lower)),
                // A derived table's or CTE's alias: its columns are not tracked.
                Some(None) => true,
                None => schema
                    .columns(qualifier)
                    .is_none_or(|columns| columns.contains(&column_lower)),
            },
            None => {
                !judge_unqualified
                    || names.select_aliases.contains(&column_lower)
                    || DATE_PARTS.contains(&column_lower.as_str())
                    || real_tables
                        .iter()
                        .any(|columns| columns.contains(&column_lower))
            }
        };
        if !known {
            return Err(UnknownName(format!("Invalid column name '{column}'")));
        }
    }
    Ok(())
}

/// Everything the query names, collected in one walk.
#[derive(Default)]
struct Names {
    /// Table names (last part of each relation).
    relations: Vec<String>,
    /// Lower-case CTE names.
    ctes: HashSet<String>,
    /// Lower-case alias → the table it stands for (`None` for derived tables).
    aliases: HashMap<String, Option<String>>,
    /// Number of derived tables (subqueries in FROM).
    derived: usize,
    /// Lower-case select-list aliases (usable in ORDER BY).
    select_aliases: HashSet<String>,
    /// Column references: optional qualifier and column name.
    columns: Vec<(Option<String>, String)>,
}

fn last_part(name: &ObjectName) -> Option<String> {
    name.0
        .last()
        .and_then(|part| part.as_ident())
        .map(|ident| ident.value.clone())
}

impl Visitor for Names {
    type Break = ();

    fn pre_visit_query(&mut self, query: &sqlparser::ast::Query) -> ControlFlow<()> {
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                let name = cte.alias.name.value.to_lowercase();
                self.aliases.insert(name.clone(), None);
                self.ctes.insert(name);
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &Select) -> ControlFlow<()> {
        for item in &select.projection {
            if let SelectItem::ExprWithAlias { alias, .. } = item {
                self.select_aliases.insert(alias.value.to_lowercase());
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<()> {
        if let Some(name) = last_part(relation) {
            self.relations.push(name);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        match factor {
            TableFactor::Table {
                name,
                alias: Some(alias),
                ..
            } => {
                self.aliases
                    .insert(alias.name.value.to_lowercase(), last_part(name));
            }
            TableFactor::Derived { alias, .. } => {
                self.derived += 1;
                if let Some(alias) = alias {
                    self.aliases.insert(alias.name.value.to_lowercase(), None);
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        match expr {
            Expr::Identifier(Ident { value, .. }) => self.columns.push((None, value.clone())),
            Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                let column = parts[parts.len() - 1].value.clone();
                let qualifier = parts[parts.len() - 2].value.clone();
                self.columns.push((Some(qualifier), column));
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sales() -> KnownSchema {
        let mut schema = KnownSchema::default();
        schema.add_table(
            "orders",
            ["order_id", "customer_id", "amount", "order_date"],
        );
        schema.add_table("customers", ["customer_id", "name", "country"]);
        schema
    }

    #[test]
    fn valid_queries_pass() {
        let schema = sales();
        for sql in [
            "SELECT COUNT(*) FROM orders",
            "SELECT TOP 5 c.name, SUM(o.amount) AS total FROM dbo.orders o JOIN [dbo].[customers] AS c ON o.customer_id = c.customer_id GROUP BY c.name ORDER BY total DESC",
            "SELECT DATEPART(year, order_date) AS y, SUM(amount) FROM orders GROUP BY DATEPART(year, order_date)",
            "WITH t AS (SELECT customer_id, SUM(amount) AS s FROM orders GROUP BY customer_id) SELECT * FROM t WHERE s > 10",
            "SELECT name FROM customers WHERE customer_id IN (SELECT customer_id FROM orders)",
        ] {
            assert_eq!(check(sql, &schema), Ok(()), "{sql}");
        }
    }

    #[test]
    fn unknown_names_and_bad_syntax_fail_with_a_reason() {
        let schema = sales();
        assert_eq!(
            check("SELECT * FROM invoices", &schema),
            Err("Invalid object name 'invoices'".into())
        );
        assert_eq!(
            check("SELECT colour FROM customers", &schema),
            Err("Invalid column name 'colour'".into())
        );
        assert_eq!(
            check("SELECT c.colour FROM customers c", &schema),
            Err("Invalid column name 'colour'".into())
        );
        assert!(
            check("SELEC 1", &schema)
                .unwrap_err()
                .contains("does not parse")
        );
        assert!(
            check("DELETE FROM orders", &schema)
                .unwrap_err()
                .contains("read-only")
        );
    }
}
