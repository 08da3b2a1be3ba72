//! `sql query | tables`: T-SQL against a lakehouse's SQL analytics endpoint or a warehouse,
//! through Fabric's Data Warehouse MCP server ([`fabsh_api::agent::sql_endpoint`]). Read-only
//! unless `--allow-writes`: a statement the SQL parser does not read as a query (SELECT,
//! WITH, with nothing that writes anywhere in its tree) is refused before anything is sent.

use super::args::FileArg;
use super::common::WORKSPACE;
use super::spec::{ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits};
use super::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use fabsh_api::agent::sql_endpoint;
use fabsh_model::item_types;
use fabsh_model::sql::{DEFAULT_MAX_ROWS, ResultSet, StatementKind, statement_kind};
use serde_json::{Value, json};
use std::time::Duration;

/// `--item`: the lakehouse or warehouse.
const ITEM: ArgSpec = ArgSpec::req(
    "item",
    ArgKind::Ref,
    "Lakehouse or warehouse id or display name",
);
/// `--timeout`.
const TIMEOUT: ArgSpec = ArgSpec::opt(
    "timeout",
    ArgKind::Int,
    "Seconds to wait for the statement's result",
)
.range(1, 3600)
.default("120");

/// `--sql`.
const SQL: ArgSpec = ArgSpec::opt(
    "sql",
    ArgKind::Str,
    "The T-SQL statement (--query is the global output filter)",
);
/// `--file`.
const FILE: ArgSpec = ArgSpec::opt("file", ArgKind::File, "Read the statement from this file");
/// `--max-rows`.
const MAX_ROWS: ArgSpec = ArgSpec::opt("max-rows", ArgKind::Int, "Rows kept at most")
    .range(1, 1_000_000)
    .default("1000");
/// `--allow-writes`.
pub const ALLOW_WRITES: ArgSpec = ArgSpec::opt(
    "allow-writes",
    ArgKind::Bool,
    "Send a statement that changes data or schema too (INSERT, UPDATE, DELETE, CREATE...)",
);

/// The `sql` commands.
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        group: "sql",
        name: "query",
        summary: "Run T-SQL on a lakehouse's SQL analytics endpoint or a warehouse",
        about: "Runs one statement through Fabric's Data Warehouse MCP server (tool executeSQL) under your Fabric permissions, and returns its rows like any list (table, json, tsv, csv, yaml). At most --max-rows rows are kept; when rows were left out, a note on stderr says so and the JSON's truncated is true. Read-only unless --allow-writes: a statement that is not a pure query (SELECT or WITH with no INSERT, UPDATE, DELETE, MERGE, SELECT INTO or DDL anywhere in it, a CTE's body included), or that the SQL parser cannot read, is refused (exit 2) before anything is sent; only a pure query is ever sent twice. A lakehouse's SQL analytics endpoint is read-only (the service refuses writes there); a warehouse also takes INSERT, UPDATE, DELETE and CREATE TABLE from a Contributor or above, and answers with rowsAffected. On local Fabric the T-SQL is translated for its SQLite tables; a construct it cannot translate is an error naming it.",
        args: &[WORKSPACE, ITEM, SQL, FILE, MAX_ROWS, ALLOW_WRITES, TIMEOUT],
        traits: Traits::READ,
        columns: &[],
        examples: &[
            Example {
                command: "sql query -w Demo --item SalesLakehouse --sql \"SELECT TOP 5 country, COUNT_BIG(*) AS orders FROM dbo.orders o JOIN dbo.customers c ON c.customer_id = o.customer_id GROUP BY country ORDER BY orders DESC\"",
                about: "the five countries with most orders",
            },
            Example {
                command: "sql query -w Demo --item SalesLakehouse --file report.sql --max-rows 50 -o tsv",
                about: "a statement from a file, as TSV",
            },
        ],
        handler: Handler::Data(handler::<Query>),
    },
    CommandSpec {
        group: "sql",
        name: "tables",
        summary: "List the schemas, tables and columns of a lakehouse or warehouse",
        about: "One row per column, from INFORMATION_SCHEMA.COLUMNS through the item's SQL endpoint.",
        args: &[WORKSPACE, ITEM, TIMEOUT],
        traits: Traits::READ.unpaged_list(),
        columns: &["schema", "table", "column", "type"],
        examples: &[Example {
            command: "sql tables -w Demo --item SalesLakehouse",
            about: "every column of every table",
        }],
        handler: Handler::Data(handler::<Tables>),
    },
];

/// The statement to run: `--query` or `--file`, exactly one, not empty.
fn statement(sql: Option<&str>, file: Option<&FileArg>) -> Result<String> {
    let text = match (sql, file) {
        (Some(_), Some(_)) => {
            return Err(Error::usage("--sql and --file cannot be used together"));
        }
        (None, None) => {
            return Err(Error::usage("give the statement with --sql or --file"));
        }
        (Some(text), None) => text.to_string(),
        (None, Some(file)) => String::from_utf8(file.bytes.to_vec()).map_err(|_| {
            Error::usage(format!("--file: {} is not UTF-8 text", file.path.display()))
        })?,
    };
    if text.trim().is_empty() {
        return Err(Error::usage("the statement is empty"));
    }
    Ok(text)
}

/// Refuses (exit 2) a statement that may write, unless `--allow-writes`; true when it writes.
pub fn check_writes(sql: &str, allow_writes: bool) -> Result<bool> {
    match statement_kind(sql) {
        Ok(StatementKind::Reads) => Ok(false),
        _ if allow_writes => Ok(true),
        Ok(StatementKind::Writes(word)) => Err(Error::usage(format!(
            "this {word} statement would change data or schema; sql query only reads unless --allow-writes"
        ))
        .with_hint("nothing was sent; only SELECT and WITH queries run without --allow-writes")),
        Err(why) => Err(Error::usage(format!(
            "{why}; sql query cannot tell that it only reads"
        ))
        .with_hint("nothing was sent; --allow-writes sends it as it is")),
    }
}

typed_args! {
    /// `-w`, `--item` and `--timeout`: the lakehouse or warehouse a statement runs on, and
    /// how long it may take.
    struct Endpoint {
        workspace: String = WORKSPACE,
        item: String = ITEM,
        timeout: Option<i64> = TIMEOUT,
    }
}

impl Endpoint {
    /// The workspace and item ids `-w` and `--item` name.
    async fn resolve(&self, ctx: &Ctx) -> Result<(String, String)> {
        let workspace = ctx.workspace_id(&self.workspace).await?;
        let item = item_id(ctx, &workspace, &self.item).await?;
        Ok((workspace, item))
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout.unwrap_or(120).max(1) as u64)
    }
}

/// A lakehouse or warehouse by id or name: a name is looked for among lakehouses, then
/// warehouses (a lakehouse's SQL endpoint shares its name).
pub async fn item_id(ctx: &Ctx, workspace: &str, text: &str) -> Result<String> {
    if fabsh_api::api::resolve::is_guid(text) {
        return Ok(text.to_string());
    }
    match ctx
        .item_id(workspace, text, Some(item_types::LAKEHOUSE))
        .await
    {
        Err(err) if err.kind == ErrorKind::NotFound => {
            ctx.item_id(workspace, text, Some(item_types::WAREHOUSE))
                .await
        }
        other => other,
    }
}

/// A result set as `sql query` returns it: `{columns, rows (objects), rowCount, truncated}`.
pub fn shaped(set: &ResultSet) -> Value {
    let mut out = json!({
        "columns": set.columns,
        "rows": set.records(),
        "rowCount": set.rows.len(),
        "truncated": set.truncated,
    });
    if let Some(changed) = set.rows_affected {
        out["rowsAffected"] = json!(changed);
    }
    out
}

typed_args! {
    /// `sql query`.
    struct Query {
        endpoint: Endpoint,
        sql: Option<String> = SQL,
        file: Option<FileArg> = FILE,
        max_rows: Option<i64> = MAX_ROWS,
        allow_writes: bool = ALLOW_WRITES,
    }
}

impl Command for Query {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let sql = statement(self.sql.as_deref(), self.file.as_ref())?;
            let writes = check_writes(&sql, self.allow_writes)?;
            let max_rows = self
                .max_rows
                .map_or(DEFAULT_MAX_ROWS, |n| n.max(1) as usize);
            let (workspace, item) = self.endpoint.resolve(&ctx).await?;
            let timeout = self.endpoint.timeout();
            let mut set =
                sql_endpoint::execute(ctx.api(), &workspace, &item, &sql, writes, timeout).await?;
            set.truncate(max_rows);
            let columns = set.columns.clone();
            let reply = Reply::json(shaped(&set))
                .with_table_rows("rows")
                .with_extra_columns(columns);
            Ok(if set.truncated {
                reply.with_note(format!(
                    "the result was truncated: {} rows shown; --max-rows shows more",
                    set.rows.len()
                ))
            } else {
                reply
            })
        })
    }
}

/// The columns of every table, schema and table in order.
const TABLES_SQL: &str = "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, DATA_TYPE FROM INFORMATION_SCHEMA.COLUMNS ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION";

typed_args! {
    /// `sql tables`.
    struct Tables {
        endpoint: Endpoint,
    }
}

impl Command for Tables {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (workspace, item) = self.endpoint.resolve(&ctx).await?;
            let timeout = self.endpoint.timeout();
            let set =
                sql_endpoint::execute(ctx.api(), &workspace, &item, TABLES_SQL, false, timeout)
                    .await?;
            let text = |cell: Option<&Value>| match cell {
                Some(Value::String(text)) => json!(text),
                Some(other) => other.clone(),
                None => Value::Null,
            };
            let rows: Vec<Value> = set
                .rows
                .iter()
                .map(|row| {
                    json!({
                        "schema": text(row.first()),
                        "table": text(row.get(1)),
                        "column": text(row.get(2)),
                        "type": text(row.get(3)),
                    })
                })
                .collect();
            Ok(Reply::json(Value::Array(rows)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_are_refused_offline_unless_allowed() {
        assert!(!check_writes("SELECT 1", false).expect("reads"));
        let refused = check_writes("DELETE FROM dbo.orders", false).expect_err("refused");
        assert!(refused.message.contains("DELETE"), "{}", refused.message);
        assert!(check_writes("DELETE FROM dbo.orders", true).expect("allowed"));
    }
}
