//! T-SQL as a Fabric user writes it, rewritten for SQLite: the one translation agent SQL and
//! the SQL endpoint share. Forms SQLite has in other words are rewritten (`TOP n` → `LIMIT n`,
//! the `dbo.` schema dropped, `COUNT_BIG` → `COUNT`, `ISNULL` → `IFNULL`, `LEN` → `LENGTH`,
//! `GETDATE()` → `datetime('now')`, `YEAR(d)` → `strftime`, CAST and CONVERT by T-SQL's types
//! ([`casts`]), the date functions ([`dates`]), the `INFORMATION_SCHEMA` views built from the
//! item's tables); a form it has no equal for is refused, naming it, so that no query ever
//! gets a silently different answer. A table or view the item does not have is refused in
//! SQL Server's words ([`names`]).

mod casts;
mod dates;
mod names;
mod rewrite;

pub(crate) use names::in_t_sql_words;
pub(crate) use rewrite::rewritten;

use crate::tables::TableInfo;
use sqlparser::ast::{
    Expr, FunctionArg, FunctionArgExpr, FunctionArguments, JoinOperator, ObjectName, Query,
    SetExpr, TableFactor,
};
use sqlparser::dialect::SQLiteDialect;
use sqlparser::parser::Parser;

/// T-SQL functions SQLite has no equal for, refused by name.
const UNTRANSLATED_FUNCTIONS: &[&str] = &[
    "DATENAME",
    "DATEFROMPARTS",
    "DATETRUNC",
    "CHARINDEX",
    "PATINDEX",
    "STUFF",
    "NEWID",
    "TRY_CONVERT",
    "TRY_PARSE",
    "PARSE",
    "STRING_SPLIT",
    "OPENJSON",
    "JSON_VALUE",
    "APPROX_COUNT_DISTINCT",
    "SYSUTCDATETIME",
];

/// The longest translation of one expression: a date function repeats its arguments, so
/// nesting them would grow the text exponentially; past this it is refused.
const MAX_TRANSLATED_CHARS: usize = 64_000;

/// What `translate_call` does with a function call, by its upper-case name.
enum Rewrite {
    /// Rename it (`COUNT_BIG` → `COUNT`).
    Rename(&'static str),
    /// Replace the whole call with this SQLite expression (`{0}` is the first argument).
    Template(&'static str),
}

fn rewrite_of(name: &str) -> Option<Rewrite> {
    Some(match name {
        "COUNT_BIG" => Rewrite::Rename("COUNT"),
        "ISNULL" => Rewrite::Rename("IFNULL"),
        "LEN" => Rewrite::Rename("LENGTH"),
        "GETDATE" | "SYSDATETIME" | "CURRENT_TIMESTAMP" => {
            Rewrite::Template("datetime('now', 'localtime')")
        }
        "GETUTCDATE" => Rewrite::Template("datetime('now')"),
        "YEAR" => Rewrite::Template("CAST(strftime('%Y', {0}) AS INTEGER)"),
        "MONTH" => Rewrite::Template("CAST(strftime('%m', {0}) AS INTEGER)"),
        "DAY" => Rewrite::Template("CAST(strftime('%d', {0}) AS INTEGER)"),
        _ => return None,
    })
}

/// Why a construct is refused: the message names it.
pub(crate) fn untranslatable(construct: &str) -> String {
    format!(
        "the T-SQL construct {construct} cannot be translated for local Fabric's SQLite tables; rewrite the query without it"
    )
}

fn parse_expr(text: &str) -> Result<Expr, String> {
    if text.len() > MAX_TRANSLATED_CHARS {
        return Err(format!(
            "the query cannot be translated: an expression grows past {MAX_TRANSLATED_CHARS} characters in SQLite's words (date functions nested in one another repeat their arguments)"
        ));
    }
    Parser::new(&SQLiteDialect {})
        .try_with_sql(text)
        .and_then(|mut parser| parser.parse_expr())
        .map_err(|err| format!("the query cannot be translated: {err}"))
}

/// Rewrites a function call, CAST or CONVERT in place (any other expression is left as it
/// is). Its arguments have been rewritten already.
fn translate_call(expr: &mut Expr) -> Result<(), String> {
    if let Some(sqlite) = casts::translate(expr)? {
        *expr = parse_expr(&sqlite)?;
        return Ok(());
    }
    let Expr::Function(function) = expr else {
        return Ok(());
    };
    // A name without a last identifier part matches no rewrite.
    let Some(name) = upper_case_name(&function.name) else {
        return Ok(());
    };
    if UNTRANSLATED_FUNCTIONS.contains(&name.as_str()) {
        return Err(untranslatable(&format!("{name}()")));
    }
    if let Some(args) = arguments(&function.args) {
        let texts: Vec<(&Expr, String)> = args.iter().map(|arg| (*arg, arg.to_string())).collect();
        if let Some(sqlite) = dates::translate(&name, &texts) {
            *expr = parse_expr(&sqlite?)?;
            return Ok(());
        }
    }
    match rewrite_of(&name) {
        None => Ok(()),
        Some(Rewrite::Rename(to)) => {
            function.name = ObjectName::from(vec![sqlparser::ast::Ident::new(to)]);
            Ok(())
        }
        Some(Rewrite::Template(template)) if !template.contains("{0}") => {
            *expr = parse_expr(template)?;
            Ok(())
        }
        Some(Rewrite::Template(template)) => {
            // The slot takes the first argument: a call without one is refused as SQL Server
            // refuses it.
            let Some(first) = arguments(&function.args)
                .and_then(|args| args.first().map(std::string::ToString::to_string))
            else {
                return Err(format!(
                    "The {} function requires 1 argument(s).",
                    name.to_ascii_lowercase()
                ));
            };
            *expr = parse_expr(&template.replace("{0}", &first))?;
            Ok(())
        }
    }
}

/// The last part of a function's name (`dbo.f` is `F`), upper case; `None` when that part is
/// not an identifier.
fn upper_case_name(name: &ObjectName) -> Option<String> {
    name.0
        .last()
        .and_then(|part| part.as_ident())
        .map(|ident| ident.value.to_ascii_uppercase())
}

/// A call's arguments, when all are plain expressions (no `*`, no named argument).
fn arguments(args: &FunctionArguments) -> Option<Vec<&Expr>> {
    let FunctionArguments::List(list) = args else {
        return None;
    };
    list.args
        .iter()
        .map(|arg| match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(expr)) => Some(expr),
            _ => None,
        })
        .collect()
}

/// Refuses the clauses of a query SQLite has no equal for.
fn check_query(query: &Query) -> Result<(), String> {
    if query.for_clause.is_some() {
        return Err(untranslatable("FOR XML / FOR JSON"));
    }
    if query.fetch.is_some() {
        return Err(untranslatable("OFFSET ... FETCH (use TOP)"));
    }
    if let SetExpr::Select(select) = query.body.as_ref() {
        if let Some(top) = &select.top {
            if top.percent {
                return Err(untranslatable("TOP ... PERCENT"));
            }
            if top.with_ties {
                return Err(untranslatable("TOP ... WITH TIES"));
            }
        }
        for from in &select.from {
            for join in &from.joins {
                match join.join_operator {
                    JoinOperator::CrossApply => return Err(untranslatable("CROSS APPLY")),
                    JoinOperator::OuterApply => return Err(untranslatable("OUTER APPLY")),
                    _ => {}
                }
            }
        }
    }
    Ok(())
}

/// The table a factor reads when it is one of the `INFORMATION_SCHEMA` views fabsh builds
/// (`TABLES`, `COLUMNS`), as the SQL of a derived table over `schema`; `Ok(None)` for any
/// other factor. PIVOT, UNPIVOT and the table-valued functions SQLite has no equal for
/// (`STRING_SPLIT`, `OPENJSON`) are refused here.
fn table_factor(factor: &TableFactor, schema: &[TableInfo]) -> Result<Option<Query>, String> {
    let name = match factor {
        TableFactor::Pivot { .. } => return Err(untranslatable("PIVOT")),
        TableFactor::Unpivot { .. } => return Err(untranslatable("UNPIVOT")),
        TableFactor::Table {
            name,
            args: Some(_),
            ..
        } => {
            // A table-valued function (`FROM STRING_SPLIT(...)`).
            if let Some(function) = upper_case_name(name)
                && UNTRANSLATED_FUNCTIONS.contains(&function.as_str())
            {
                return Err(untranslatable(&format!("{function}()")));
            }
            return Ok(None);
        }
        TableFactor::Table { name, .. } => name,
        _ => return Ok(None),
    };
    let parts: Vec<String> = name
        .0
        .iter()
        .filter_map(|part| {
            part.as_ident()
                .map(|ident| ident.value.to_ascii_lowercase())
        })
        .collect();
    let [.., schema_name, view] = parts.as_slice() else {
        return Ok(None);
    };
    if schema_name != "information_schema" {
        return Ok(None);
    }
    let sql = match view.as_str() {
        "tables" => tables_view(schema),
        "columns" => columns_view(schema),
        other => {
            return Err(untranslatable(&format!(
                "INFORMATION_SCHEMA.{}",
                other.to_ascii_uppercase()
            )));
        }
    };
    let query = Parser::new(&SQLiteDialect {})
        .try_with_sql(&sql)
        .and_then(|mut parser| parser.parse_query())
        .map_err(|err| format!("the query cannot be translated: {err}"))?;
    Ok(Some(*query))
}

fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// `INFORMATION_SCHEMA.TABLES` over the item's tables and views (all in `dbo`).
fn tables_view(schema: &[TableInfo]) -> String {
    let rows: Vec<String> = schema
        .iter()
        .map(|table| {
            format!(
                "SELECT 'dbo' AS TABLE_SCHEMA, {} AS TABLE_NAME, {} AS TABLE_TYPE",
                literal(&table.name),
                literal(if table.is_view { "VIEW" } else { "BASE TABLE" })
            )
        })
        .collect();
    if rows.is_empty() {
        return "SELECT 'dbo' AS TABLE_SCHEMA, '' AS TABLE_NAME, '' AS TABLE_TYPE WHERE 0"
            .to_string();
    }
    rows.join(" UNION ALL ")
}

/// `INFORMATION_SCHEMA.COLUMNS` over the item's tables and views.
fn columns_view(schema: &[TableInfo]) -> String {
    let rows: Vec<String> = schema
        .iter()
        .flat_map(|table| {
            table
                .columns
                .iter()
                .enumerate()
                .map(move |(at, (column, kind))| {
                    format!(
                        "SELECT 'dbo' AS TABLE_SCHEMA, {} AS TABLE_NAME, {} AS COLUMN_NAME, {} AS ORDINAL_POSITION, {} AS DATA_TYPE",
                        literal(&table.name),
                        literal(column),
                        at + 1,
                        literal(kind)
                    )
                })
        })
        .collect();
    if rows.is_empty() {
        return "SELECT 'dbo' AS TABLE_SCHEMA, '' AS TABLE_NAME, '' AS COLUMN_NAME, 0 AS ORDINAL_POSITION, '' AS DATA_TYPE WHERE 0".to_string();
    }
    rows.join(" UNION ALL ")
}
