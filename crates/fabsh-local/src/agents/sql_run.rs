//! Runs an agent's T-SQL on an item's SQLite tables, read-only: the text must parse as one
//! query (anything that writes is refused before it reaches the database, which is opened
//! read-only besides), T-SQL forms SQLite lacks are rewritten ([`tsql`]: `TOP n` → `LIMIT n`,
//! the `dbo.` schema dropped, dates and casts), a table the item lacks is refused in SQL
//! Server's words, a decimal column keeps its scale ([`sql_cells`]), and the answer is capped
//! at 25 rows × 25 columns like the service.
//!
//! A query also runs within [`Limits`], so that no question can hold the server: SQLite stops
//! it at its deadline (the progress handler is asked every few thousand steps), refuses to
//! build any value past [`MAX_VALUE_BYTES`] (`SQLITE_LIMIT_LENGTH`: `randomblob(900000000)`
//! would otherwise cost 900 MB), and reading stops past [`MAX_ROWS`] rows or
//! [`MAX_RESULT_BYTES`] of cells. Over a limit, the error says the query was stopped and why.

use super::{sql_cells, tsql};
use crate::tables::TableInfo;
use fabsh_model::sql::parse;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, ErrorCode, limits::Limit};
use serde_json::Value;
use sqlparser::ast::Statement;
use std::sync::Arc;
use std::time::Instant;

/// Rows an answer carries at most.
pub(crate) const MAX_ROWS: usize = 25;
/// Columns an answer carries at most.
pub(crate) const MAX_COLUMNS: usize = 25;
/// The largest string or blob a query may build (SQLite's own default is 1 GB).
pub(crate) const MAX_VALUE_BYTES: usize = 1_000_000;
/// The most cell bytes read from one result (its rows are capped, but 25 × 25 cells of
/// [`MAX_VALUE_BYTES`] each would still be 625 MB).
pub(crate) const MAX_RESULT_BYTES: usize = 1_000_000;
/// Virtual-machine steps between two looks at the clock: a few microseconds of work, so a
/// query overruns its deadline by next to nothing and the clock costs next to nothing.
const STEPS_PER_CHECK: i32 = 4_000;

/// What one query may spend.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// When it is stopped.
    pub deadline: Instant,
    /// Its whole budget in seconds, for the answer that says it was stopped.
    pub seconds: u64,
}

/// Why a query was stopped, in the words of an answer.
fn stopped_after(limits: &Limits) -> String {
    format!(
        "the query was stopped after {} s, the time a query may run here",
        limits.seconds
    )
}

fn megabytes(bytes: usize) -> String {
    format!("{} MB", bytes / 1_000_000)
}

/// A failure of SQLite in the words of an answer: a stop for the limits, else the error.
fn failed(err: rusqlite::Error, limits: &Limits) -> String {
    match err.sqlite_error_code() {
        Some(ErrorCode::OperationInterrupted) => stopped_after(limits),
        Some(ErrorCode::TooBig) => format!(
            "the query was stopped: it built a value larger than {}, the most a query may build here",
            megabytes(MAX_VALUE_BYTES)
        ),
        _ => format!("the query failed: {err}"),
    }
}

/// A query's result, capped.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ResultTable {
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
    pub(crate) fn to_csv(&self) -> Vec<u8> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let _ = writer.write_record(&self.columns);
        for row in &self.rows {
            let cells: Vec<String> = row.iter().map(cell_text).collect();
            let _ = writer.write_record(&cells);
        }
        // A `Vec` takes every byte: flushing CSV into memory cannot fail.
        writer.into_inner().expect("CSV flushes into memory")
    }
}

/// A cell as text: strings as they are, numbers as JSON writes them, NULL empty.
pub(crate) fn cell_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Rewrites `sql` for SQLite, or says why it is not run (it does not parse, is not one
/// read-only query, uses a construct that has no SQLite equal).
#[cfg(test)]
pub(crate) fn to_sqlite(sql: &str) -> Result<String, String> {
    query_to_sqlite(parse(sql, "query")?, &tests::tables(&["t", "u", "orders"]))
}

/// A parsed query rewritten for SQLite, with `INFORMATION_SCHEMA` built from `schema` (the
/// item's tables), or why it is not run.
fn query_to_sqlite(statements: Vec<Statement>, schema: &[TableInfo]) -> Result<String, String> {
    match statements.as_slice() {
        [Statement::Query(_)] => {}
        [] => return Err("the query is empty".to_string()),
        [_] => return Err("only read-only queries are run; this one would change data".to_string()),
        _ => return Err("only a single query is run".to_string()),
    }
    tsql::rewritten(statements, schema)
}

/// The statements besides queries a warehouse's endpoint runs.
pub(crate) const WRITE_STATEMENTS: &str = "INSERT, UPDATE, DELETE and CREATE TABLE";

/// Rewrites one statement that writes (INSERT, UPDATE, DELETE or CREATE TABLE) for SQLite by
/// the same rewrites as a query, or says why it is not run.
#[cfg(test)]
pub(crate) fn write_to_sqlite(sql: &str) -> Result<String, String> {
    write_statement_to_sqlite(parse(sql, "statement")?, &tests::tables(&["t", "u"]))
}

/// A parsed statement that writes, over the item's `tables`, rewritten for SQLite as
/// [`write_to_sqlite`] says.
fn write_statement_to_sqlite(
    statements: Vec<Statement>,
    tables: &[TableInfo],
) -> Result<String, String> {
    match statements.as_slice() {
        [Statement::Insert(_) | Statement::Update(_) | Statement::Delete(_)] => {}
        [Statement::CreateTable(create)] if !create.temporary => {}
        [] => return Err("the statement is empty".to_string()),
        [other] => {
            // A query reaches here only when it stores its rows (`SELECT ... INTO`).
            let word = match other {
                Statement::Query(_) => "SELECT INTO".to_string(),
                _ => other
                    .to_string()
                    .split_whitespace()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            return Err(format!(
                "local Fabric's SQL endpoint runs queries and {WRITE_STATEMENTS}; this {word} statement was not run"
            ));
        }
        _ => return Err("only a single statement is run".to_string()),
    }
    tsql::rewritten(statements, tables)
}

/// How much of a result is read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Caps {
    /// Rows read at most (one more is looked for, to say there were more).
    pub rows: usize,
    /// Columns kept at most.
    pub columns: usize,
    /// Cell bytes read at most; past them the query is stopped.
    pub result_bytes: usize,
}

impl Caps {
    /// An agent's answer: [`MAX_ROWS`] × [`MAX_COLUMNS`], [`MAX_RESULT_BYTES`].
    pub(crate) const ANSWER: Caps = Caps {
        rows: MAX_ROWS,
        columns: MAX_COLUMNS,
        result_bytes: MAX_RESULT_BYTES,
    };
}

/// Runs `sql` on `conn` (opened read-only, and given to this query alone while it runs: the
/// limits, progress handler and authorizer it sets are its own), whose file holds `tables`,
/// within `limits`, and returns the capped result, or why not.
pub(crate) fn run(
    conn: &mut Connection,
    tables: Arc<Vec<TableInfo>>,
    sql: &str,
    limits: Limits,
) -> Result<ResultTable, String> {
    run_parsed(conn, tables, parse(sql, "query")?, limits, Caps::ANSWER)
}

/// [`run`] of a statement already parsed into `statements` (the SQL endpoint parses a
/// statement once to tell a query from a write), with other caps (the endpoint returns more
/// rows than an agent's answer).
pub(crate) fn run_parsed(
    conn: &mut Connection,
    tables: Arc<Vec<TableInfo>>,
    statements: Vec<Statement>,
    limits: Limits,
    caps: Caps,
) -> Result<ResultTable, String> {
    // The tables also make the `INFORMATION_SCHEMA` views of a query that reads them.
    let sqlite = query_to_sqlite(statements, &tables)?;
    bound(conn, &limits, "query")?;
    confine(conn, Access::Read, move |name| {
        tables
            .iter()
            .any(|table| table.name.eq_ignore_ascii_case(name))
    })?;
    let mut stmt = conn.prepare(&sqlite).map_err(|err| {
        if err.sqlite_error_code() == Some(ErrorCode::AuthorizationForStatementDenied) {
            format!("the query cannot run here: {OUTSIDE_THE_TABLES}")
        } else if let Some(words) = tsql::in_t_sql_words(&err) {
            words
        } else {
            format!("the query cannot run here: {err}")
        }
    })?;
    if !stmt.readonly() {
        return Err("only read-only queries are run; this one would change data".to_string());
    }
    let all_columns: Vec<String> = stmt.column_names().map(str::to_string).collect();
    let shown = all_columns.len().min(caps.columns);
    // A decimal column's values keep the scale it declares.
    let scales: Vec<Option<u32>> = stmt
        .columns()
        .take(shown)
        .map(|column| sql_cells::scale_of(column.decl_type()))
        .collect();
    let mut rows = Vec::new();
    let mut more_rows = false;
    let mut bytes = 0;
    let mut cursor = stmt.query([]).map_err(|err| failed(err, &limits))?;
    while let Some(row) = cursor.next().map_err(|err| failed(err, &limits))? {
        if rows.len() == caps.rows {
            more_rows = true;
            break;
        }
        let mut cells = Vec::with_capacity(shown);
        for (at, scale) in scales.iter().enumerate() {
            let cell = row.get_ref(at).unwrap_or(ValueRef::Null);
            bytes += cell_bytes(cell);
            if bytes > caps.result_bytes {
                return Err(format!(
                    "the query was stopped: its result passed {}, the most an answer may read",
                    megabytes(caps.result_bytes)
                ));
            }
            cells.push(sql_cells::json_of(cell, *scale));
        }
        rows.push(cells);
    }
    Ok(ResultTable {
        columns: all_columns[..shown].to_vec(),
        rows,
        more_rows,
        more_columns: all_columns.len() > caps.columns,
    })
}

/// Runs one statement that writes, already parsed into `statements` (see
/// [`write_to_sqlite`]), on `conn`, opened for writing and given to this statement alone,
/// within `limits`; the rows it changed. It may change the item's own tables and create new
/// ones, and reach nothing else (see [`confine`]).
pub(crate) fn run_write(
    conn: &mut Connection,
    statements: Vec<Statement>,
    limits: Limits,
) -> Result<u64, String> {
    bound(conn, &limits, "statement")?;
    // Read on this connection: the statement reaches the tables as they are in its own
    // transaction. The previous statement's authorizer would refuse the read.
    conn.authorizer(None::<fn(rusqlite::hooks::AuthContext<'_>) -> rusqlite::hooks::Authorization>)
        .map_err(|err| format!("the statement cannot run here: {err}"))?;
    let tables =
        crate::tables::list(conn).map_err(|err| format!("the statement cannot run here: {err}"))?;
    let sqlite = write_statement_to_sqlite(statements, &tables)?;
    let access = if sqlite.starts_with("CREATE") {
        Access::Create
    } else {
        Access::Write
    };
    confine(conn, access, move |name| {
        tables
            .iter()
            .any(|table| table.name.eq_ignore_ascii_case(name))
    })?;
    let changed = conn.execute(&sqlite, []).map_err(|err| {
        if err.sqlite_error_code() == Some(ErrorCode::AuthorizationForStatementDenied) {
            format!("the statement cannot run here: {OUTSIDE_THE_TABLES}")
        } else if let Some(words) = tsql::in_t_sql_words(&err) {
            words
        } else {
            failed(err, &limits).replacen("the query", "the statement", 1)
        }
    })?;
    // SQLite leaves the previous statement's count in place after a CREATE TABLE, which
    // changes no rows.
    Ok(if access == Access::Create {
        0
    } else {
        changed as u64
    })
}

/// Holds the next statement on `conn` to `limits` (its deadline) and to values of at most
/// [`MAX_VALUE_BYTES`]; an error when the time is already up. `what` names it in the error.
fn bound(conn: &mut Connection, limits: &Limits, what: &str) -> Result<(), String> {
    let max_value = i32::try_from(MAX_VALUE_BYTES).unwrap_or(i32::MAX);
    conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, max_value)
        .map_err(|err| format!("the {what} cannot run here: {err}"))?;
    let deadline = limits.deadline;
    conn.progress_handler(STEPS_PER_CHECK, Some(move || Instant::now() >= deadline))
        .map_err(|err| format!("the {what} cannot run here: {err}"))?;
    if Instant::now() >= deadline {
        return Err(stopped_after(limits));
    }
    Ok(())
}

/// Why a query that reaches past the item's tables is refused.
const OUTSIDE_THE_TABLES: &str = "it reads something other than the tables of the datasource (SQLite's pragmas, schema, attached files or host functions are not reachable)";

/// Functions a query may not call although SQLite offers them: they load code or reach past
/// the item's data (SQLite's shell adds `readfile` and `writefile`; refused here should a
/// build ever carry them).
const REFUSED_FUNCTIONS: &[&str] = &[
    "load_extension",
    "fts3_tokenizer",
    "readfile",
    "writefile",
    "edit",
    "sqlite_compileoption_get",
    "sqlite_compileoption_used",
];

/// What a statement may do to the item's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    /// Read them (a query).
    Read,
    /// Read them and change their rows (a warehouse's INSERT, UPDATE, DELETE).
    Write,
    /// Read them and create a table beside them (a warehouse's CREATE TABLE, maybe AS
    /// SELECT).
    Create,
}

/// Lets the statement on `conn` reach the item's own tables and views (the names `readable`
/// allows, compared as SQLite compares names, ASCII case aside: the ones its file holds) and
/// nothing else: an authorizer, asked for every table, function and statement as the
/// statement is prepared, allows a SELECT (with its CTEs) over those tables and views, with
/// [`Access::Write`] also an INSERT, UPDATE or DELETE of those tables, with
/// [`Access::Create`] a CREATE TABLE beside them, and refuses pragmas (`pragma_database_list`
/// would show the server's paths), the schema table, `ATTACH`, every other statement, and the
/// functions of [`REFUSED_FUNCTIONS`].
///
/// The names need not be read in the statement's own transaction (a query takes them from
/// the server's memo of the item's schema): a table created since is refused until the next
/// statement, which reads the schema again, one dropped since is not there to read, and
/// neither list holds SQLite's own tables.
fn confine(
    conn: &mut Connection,
    access: Access,
    readable: impl Fn(&str) -> bool + Send + 'static,
) -> Result<(), String> {
    use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
    // CREATE TABLE writes the new table's row into the schema table (and reads it back to
    // set its root page): the one way past the tables allowed, for that statement alone.
    let records_a_table = move |name: &str| access == Access::Create && name == "sqlite_master";
    let decide = move |context: AuthContext<'_>| {
        let allowed = match context.action {
            AuthAction::Select | AuthAction::Recursive => true,
            // A column of a table, a view or SQLite's own tables (`sqlite_schema`, the
            // `pragma_*` functions) is read from `main`; a common table expression, and a
            // table read for no column (`count(*)`), with no database named.
            AuthAction::Read { table_name, .. } => {
                let name = table_name.to_lowercase();
                match context.database_name {
                    Some("main") => readable(table_name) || records_a_table(&name),
                    None => {
                        readable(table_name)
                            || !(name.starts_with("pragma_") || name.starts_with("sqlite_"))
                    }
                    Some(_) => false,
                }
            }
            AuthAction::Function { function_name } => !REFUSED_FUNCTIONS
                .iter()
                .any(|refused| refused.eq_ignore_ascii_case(function_name)),
            AuthAction::Insert { table_name }
            | AuthAction::Delete { table_name }
            | AuthAction::Update { table_name, .. }
                if access != Access::Read =>
            {
                let name = table_name.to_lowercase();
                context.database_name == Some("main")
                    && (readable(table_name) || records_a_table(&name))
            }
            AuthAction::CreateTable { table_name } if access == Access::Create => {
                context.database_name == Some("main")
                    && !table_name.to_lowercase().starts_with("sqlite_")
            }
            _ => false,
        };
        if allowed {
            Authorization::Allow
        } else {
            Authorization::Deny
        }
    };
    conn.authorizer(Some(decide))
        .map_err(|err| format!("the query cannot run here: {err}"))
}

/// What a cell costs to read: its bytes, or a word for a number or NULL.
fn cell_bytes(value: ValueRef<'_>) -> usize {
    match value {
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => bytes.len(),
        _ => 8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Tables of these names, without columns, as the item's.
    pub(super) fn tables(names: &[&str]) -> Vec<TableInfo> {
        names
            .iter()
            .map(|name| TableInfo {
                name: name.to_string(),
                is_view: false,
                columns: Vec::new(),
            })
            .collect()
    }

    #[test]
    fn t_sql_becomes_sqlite() {
        let sql = to_sqlite("SELECT TOP 5 o.amount FROM dbo.orders o ORDER BY o.amount DESC")
            .expect("rewritten");
        assert_eq!(
            sql,
            "SELECT o.amount FROM \"orders\" o ORDER BY o.amount DESC LIMIT 5"
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
    fn a_write_is_translated_like_a_query_and_only_the_four_kinds_run() {
        assert_eq!(
            write_to_sqlite(
                "INSERT INTO [dbo].[t] (a, b) SELECT TOP 2 ISNULL(x, 0), LEN(y) FROM dbo.u"
            )
            .expect("insert"),
            "INSERT INTO \"t\" (a, b) SELECT IFNULL(x, 0), LENGTH(y) FROM \"u\" LIMIT 2"
        );
        assert_eq!(
            write_to_sqlite("CREATE TABLE dbo.t (id INT, name VARCHAR(20))").expect("create"),
            "CREATE TABLE \"t\" (id INT, name VARCHAR(20))"
        );
        for (statement, named) in [
            ("DROP TABLE dbo.t", "DROP TABLE"),
            ("TRUNCATE TABLE dbo.t", "TRUNCATE TABLE"),
            ("DELETE FROM t; DELETE FROM u", "single"),
            ("UPDATE t SET a = DATEADD(ms, 1, a)", "DATEADD(ms, ...)"),
            (
                "INSERT INTO dbo.nope (a) SELECT a FROM t",
                "Invalid object name 'dbo.nope'.",
            ),
            (
                "CREATE TABLE dbo.v AS SELECT a FROM [dbo].[Nope]",
                "Invalid object name 'dbo.Nope'.",
            ),
        ] {
            let why = write_to_sqlite(statement).expect_err(statement);
            assert!(why.contains(named), "{statement}: {why}");
        }
    }

    #[test]
    fn a_write_changes_the_tables_and_reaches_nothing_past_them() {
        let mut conn = Connection::open_in_memory().expect("db");
        conn.execute_batch("CREATE TABLE t(n INTEGER); INSERT INTO t VALUES (1), (2);")
            .expect("data");
        let write =
            |conn: &mut Connection, sql: &str| run_write(conn, parse(sql, "statement")?, limits(5));
        assert_eq!(write(&mut conn, "UPDATE dbo.t SET n = n + 10"), Ok(2));
        assert_eq!(write(&mut conn, "CREATE TABLE dbo.u (m INT)"), Ok(0));
        assert_eq!(write(&mut conn, "INSERT INTO u (m) SELECT n FROM t"), Ok(2));
        assert_eq!(write(&mut conn, "DELETE FROM t WHERE n = 11"), Ok(1));
        let sum = query(&mut conn, "SELECT SUM(m) FROM u", limits(5)).expect("sum");
        assert_eq!(sum.rows, vec![vec![json!(23)]]);
        for outside in [
            "INSERT INTO sqlite_master (name) VALUES ('x')",
            "DELETE FROM sqlite_schema",
            "INSERT INTO u (m) SELECT count(*) FROM pragma_database_list",
            "INSERT INTO u (m) SELECT count(*) FROM temp.sqlite_master",
        ] {
            // Refused by the authorizer, or by SQLite itself for its schema table.
            let refused = write(&mut conn, outside).expect_err(outside);
            assert!(
                refused.contains("cannot run here") || refused.contains("may not be modified"),
                "{outside}: {refused}"
            );
        }
    }

    /// [`run`] with the tables `conn` holds now, read as the server's memo reads them.
    fn query(conn: &mut Connection, sql: &str, limits: Limits) -> Result<ResultTable, String> {
        conn.authorizer(
            None::<fn(rusqlite::hooks::AuthContext<'_>) -> rusqlite::hooks::Authorization>,
        )
        .expect("the last query's authorizer cleared");
        let tables = crate::tables::list(conn).expect("tables");
        run(conn, Arc::new(tables), sql, limits)
    }

    #[test]
    fn a_query_reads_only_the_tables_it_is_given() {
        let mut conn = Connection::open_in_memory().expect("db");
        conn.execute_batch(
            r#"CREATE TABLE t(n INTEGER); INSERT INTO t VALUES (1);
               CREATE TABLE "Ünits"(n INTEGER); INSERT INTO "Ünits" VALUES (3);
               CREATE TABLE sqlitex(n INTEGER); INSERT INTO sqlitex VALUES (4);"#,
        )
        .expect("data");
        let before = Arc::new(crate::tables::list(&conn).expect("tables"));
        conn.execute_batch("CREATE TABLE later(n INTEGER); INSERT INTO later VALUES (2);")
            .expect("a table created since");
        let ran = |conn: &mut Connection, sql: &str| run(conn, Arc::clone(&before), sql, limits(5));
        assert_eq!(
            ran(&mut conn, "SELECT n FROM t").expect("t").rows,
            vec![vec![json!(1)]]
        );
        let refused = ran(&mut conn, "SELECT n FROM later").expect_err("not in the list");
        assert_eq!(refused, "Invalid object name 'later'.");
        // Names compare as SQLite compares them: ASCII letters in any case, others as they are.
        assert_eq!(
            query(&mut conn, "SELECT n FROM ÜNITS", limits(5))
                .expect("read")
                .rows,
            vec![vec![json!(3)]]
        );
        // Only SQLite's own `sqlite_` names are left out, not every name that starts alike.
        assert_eq!(
            query(&mut conn, "SELECT n FROM sqlitex", limits(5))
                .expect("read")
                .rows,
            vec![vec![json!(4)]]
        );
        assert_eq!(
            query(&mut conn, "SELECT n FROM later", limits(5))
                .expect("read again")
                .rows,
            vec![vec![json!(2)]]
        );
    }

    /// A budget of `seconds` from now.
    fn limits(seconds: u64) -> Limits {
        Limits {
            deadline: Instant::now() + std::time::Duration::from_secs(seconds),
            seconds,
        }
    }

    #[test]
    fn t_sql_functions_are_translated_or_named() {
        let sql = to_sqlite("SELECT COUNT_BIG(*), ISNULL(MAX([amount]), 0), LEN(name), YEAR(d), GETDATE() FROM [dbo].[orders]")
            .expect("rewritten");
        assert_eq!(
            sql,
            "SELECT COUNT(*), IFNULL(MAX(\"amount\"), 0), LENGTH(name), CAST(strftime('%Y', d) AS INTEGER), datetime('now', 'localtime') FROM \"orders\""
        );
        for (query, construct) in [
            ("SELECT DATEDIFF(ms, a, b) FROM t", "DATEDIFF(ms, ...)"),
            (
                "SELECT FORMAT(a, 'C') FROM t",
                "FORMAT() with the pattern 'C'",
            ),
            (
                "SELECT CONVERT(VARCHAR, a, 112) FROM t",
                "CONVERT with a style",
            ),
            ("SELECT * FROM STRING_SPLIT('a,b', ',')", "STRING_SPLIT()"),
            ("SELECT name FROM sys.tables", "sys.tables"),
            ("SELECT TOP 10 PERCENT * FROM t", "TOP ... PERCENT"),
            ("SELECT * FROM t CROSS APPLY u", "CROSS APPLY"),
            ("SELECT * FROM t FOR JSON PATH", "FOR XML / FOR JSON"),
        ] {
            let why = to_sqlite(query).expect_err(query);
            assert!(why.contains(construct), "{query}: {why}");
        }
    }

    #[test]
    fn a_name_the_item_lacks_is_refused_in_sql_servers_words() {
        assert_eq!(
            to_sqlite("SELECT * FROM dbo.order"),
            Err("Invalid object name 'dbo.order'.".to_string())
        );
        assert_eq!(
            to_sqlite("SELECT COUNT(*) FROM [Sales].[dbo].[Nope] n JOIN orders o ON 1 = 1"),
            Err("Invalid object name 'Sales.dbo.Nope'.".to_string())
        );
        // Known names in any case, the query's own CTEs (recursive ones too), the
        // INFORMATION_SCHEMA views; SQLite's own objects are left to the authorizer.
        for (query, sqlite) in [
            ("SELECT * FROM [dbo].[ORDERS]", "SELECT * FROM \"ORDERS\""),
            (
                "WITH recent AS (SELECT * FROM orders) SELECT COUNT(*) FROM recent",
                "WITH recent AS (SELECT * FROM \"orders\") SELECT COUNT(*) FROM \"recent\"",
            ),
            (
                "WITH c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT x FROM c",
                "WITH c (x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM \"c\" WHERE x < 3) SELECT x FROM \"c\"",
            ),
            (
                "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES",
                "SELECT COUNT(*) FROM (SELECT 'dbo' AS TABLE_SCHEMA, 't' AS TABLE_NAME, 'BASE TABLE' AS TABLE_TYPE UNION ALL SELECT 'dbo' AS TABLE_SCHEMA, 'u' AS TABLE_NAME, 'BASE TABLE' AS TABLE_TYPE UNION ALL SELECT 'dbo' AS TABLE_SCHEMA, 'orders' AS TABLE_NAME, 'BASE TABLE' AS TABLE_TYPE)",
            ),
            (
                "SELECT sql FROM sqlite_master",
                "SELECT sql FROM \"sqlite_master\"",
            ),
            (
                "SELECT * FROM t WHERE a = N'é'",
                "SELECT * FROM \"t\" WHERE a = 'é'",
            ),
        ] {
            assert_eq!(to_sqlite(query).as_deref(), Ok(sqlite), "{query}");
        }
        // A table named like one of SQLite's keywords is read as the name it is; a column
        // the table lacks is named as SQL Server names it.
        let mut conn = Connection::open_in_memory().expect("db");
        let write =
            |conn: &mut Connection, sql: &str| run_write(conn, parse(sql, "statement")?, limits(5));
        assert_eq!(write(&mut conn, "CREATE TABLE dbo.limit (n INT)"), Ok(0));
        assert_eq!(
            write(&mut conn, "INSERT INTO dbo.limit (n) VALUES (7)"),
            Ok(1)
        );
        assert_eq!(
            query(&mut conn, "SELECT n FROM dbo.limit", limits(5))
                .expect("read")
                .rows,
            vec![vec![json!(7)]]
        );
        assert_eq!(
            query(&mut conn, "SELECT l.amount FROM dbo.limit l", limits(5)),
            Err("Invalid column name 'amount'.".to_string())
        );
        assert_eq!(
            write(&mut conn, "UPDATE dbo.limits SET n = 1"),
            Err("Invalid object name 'dbo.limits'.".to_string())
        );
    }

    #[test]
    fn a_query_reads_the_tables_and_nothing_past_them() {
        let mut conn = Connection::open_in_memory().expect("db");
        conn.execute_batch("CREATE TABLE t(n INTEGER); INSERT INTO t VALUES (1), (2); CREATE VIEW v AS SELECT n * 2 AS d FROM t;")
            .expect("data");
        let read = |conn: &mut Connection, sql: &str| query(conn, sql, limits(5));
        assert_eq!(
            read(&mut conn, "SELECT count(*) FROM t").expect("t").rows,
            vec![vec![json!(2)]]
        );
        assert_eq!(
            read(&mut conn, "SELECT max(d) FROM v").expect("v").rows,
            vec![vec![json!(4)]]
        );
        let recursive = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3) SELECT count(*) FROM c JOIN t ON t.n <= c.x";
        assert_eq!(
            read(&mut conn, recursive).expect("cte").rows,
            vec![vec![json!(5)]]
        );
        for outside in [
            "SELECT * FROM pragma_database_list",
            "SELECT name FROM pragma_table_info('t')",
            "SELECT sql FROM sqlite_master",
            "SELECT sql FROM sqlite_schema",
            "SELECT load_extension('x')",
            "SELECT * FROM temp.sqlite_master",
            "SELECT count(*) FROM pragma_database_list",
            "SELECT count(*) FROM sqlite_schema",
        ] {
            let refused = read(&mut conn, outside).expect_err(outside);
            assert!(refused.contains("cannot run here"), "{outside}: {refused}");
        }
    }

    #[test]
    fn results_are_capped() {
        let mut conn = Connection::open_in_memory().expect("db");
        conn.execute_batch("CREATE TABLE t(n INTEGER); WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 30) INSERT INTO t SELECT x FROM c;")
            .expect("data");
        let table = query(&mut conn, "SELECT n, n * 1.5 AS half FROM t", limits(5)).expect("rows");
        assert_eq!(table.rows.len(), MAX_ROWS);
        assert!(table.more_rows && !table.more_columns);
        assert_eq!(table.rows[1], vec![json!(2), json!(3.0)]);
        assert!(
            String::from_utf8(table.to_csv())
                .expect("utf8")
                .starts_with("n,half\n1,1.5\n")
        );
    }

    #[test]
    fn a_query_that_never_ends_is_stopped_at_its_deadline() {
        let mut conn = Connection::open_in_memory().expect("db");
        let endless =
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c";
        let why = query(&mut conn, endless, limits(0)).expect_err("stopped");
        assert_eq!(
            why,
            "the query was stopped after 0 s, the time a query may run here"
        );
        let soon = Limits {
            deadline: Instant::now() + std::time::Duration::from_millis(50),
            seconds: 1,
        };
        let why = query(&mut conn, endless, soon).expect_err("stopped");
        assert!(why.contains("stopped after 1 s"), "{why}");
    }

    #[test]
    fn values_and_results_are_capped_in_size() {
        let mut conn = Connection::open_in_memory().expect("db");
        let why = query(&mut conn, "SELECT length(randomblob(900000000))", limits(5))
            .expect_err("too big");
        assert!(why.contains("stopped") && why.contains("1 MB"), "{why}");
        let fits = query(&mut conn, "SELECT length(randomblob(900000))", limits(5)).expect("fits");
        assert_eq!(fits.rows, vec![vec![json!(900_000)]]);
        // Each value fits; together they are more than an answer reads.
        let wide = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 10) \
                    SELECT zeroblob(500000) FROM c";
        let why = query(&mut conn, wide, limits(5)).expect_err("too much");
        assert!(why.contains("its result passed 1 MB"), "{why}");
    }
}
