//! `POST /v1/mcp/dataPlane/workspaces/{ws}/items/{id}/sqlEndpoint`: the Data Warehouse MCP
//! server of one lakehouse or warehouse, as the service runs it (streamable HTTP, POST only,
//! answers as server-sent events, no session state), with the one tool `executeSQL`.
//!
//! A statement runs on the item's SQLite tables (the demo dataset, tables loaded from CSV)
//! exactly as an agent's SQL does: translated from T-SQL by the same rewrites (a construct
//! with no SQLite equal is an error naming it), on the same query budget (deadline, slots),
//! opened read-only under the same authorizer, and only for a caller who may read the item's
//! workspace (Viewer or above; anyone else gets the service's refusal). Its result carries up
//! to [`ENDPOINT_CAPS`] rows, flagged `truncated` past them.
//!
//! As in the service, a lakehouse's SQL analytics endpoint is read-only, while a warehouse
//! also takes INSERT, UPDATE, DELETE and CREATE TABLE from a Contributor or above (a Viewer
//! may read it only), translated like a query and run on the same budget; a statement that
//! writes is answered with the rows it changed. Refusals are tool errors, as the service's
//! SQL errors are.

use super::agent_mcp::{call_argument, initialized, rpc_error, rpc_message, rpc_result, sse};
use crate::agents::discovery::is_demo;
use crate::agents::sql_run::{self, Caps, Limits, ResultTable};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::blocking;
use crate::respond::RawBody;
use crate::state::Shared;
use crate::store::items;
use crate::store::principals::Role;
use crate::tables;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use fabsh_model::sql::{
    EXECUTE_SQL_TOOL, QUERY_ARGUMENT, ResultSet, StatementKind, kind_of, parse,
};
use serde_json::{Value, json};
use sqlparser::ast::Statement;

/// The name the service's server gives itself.
const SERVER_NAME: &str = "Fabric Data Warehouse MCP Server";

/// What one statement's result may hold here.
pub(super) const ENDPOINT_CAPS: Caps = Caps {
    rows: 10_000,
    columns: 1_024,
    result_bytes: 16_000_000,
};

/// The item types with a SQL endpoint.
const SQL_ITEM_TYPES: &[&str] = &["Lakehouse", "Warehouse"];

fn tool() -> Value {
    json!({
        "name": EXECUTE_SQL_TOOL,
        "description": "Runs a T-SQL statement on the warehouse or the lakehouse's SQL analytics endpoint and returns its result set",
        "inputSchema": {
            "type": "object",
            "properties": {QUERY_ARGUMENT: {"type": "string", "description": "The T-SQL statement to run"}},
            "required": [QUERY_ARGUMENT],
        },
    })
}

/// A tool result that is an error: MCP reports a failed call in the result, not as a
/// protocol error.
fn tool_error(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

fn result_set(table: ResultTable) -> ResultSet {
    ResultSet {
        columns: table.columns,
        rows: table.rows,
        truncated: table.more_rows,
        rows_affected: None,
    }
}

/// One JSON-RPC message to an item's SQL endpoint.
pub(super) async fn handle(
    State(state): State<Shared>,
    caller: Caller,
    Path((ws, id)): Path<(String, String)>,
    headers: HeaderMap,
    RawBody(body): RawBody,
) -> Result<Response, ApiError> {
    let message = match rpc_message(&headers, &body) {
        Ok(message) => message,
        Err(refused) => return Ok(refused.into_response()),
    };
    let access = Access {
        state: state.clone(),
        caller,
        workspace: ws,
        item: id,
    };
    // The workspace's access first, as the service checks it: a caller without access
    // learns nothing about the item. A statement, the message most sent here, has it checked
    // on the blocking pool in the same hop as it runs.
    if let (Some(rpc_id), "tools/call") = (&message.id, message.method.as_str()) {
        let answer = match call_argument(&message, EXECUTE_SQL_TOOL, QUERY_ARGUMENT) {
            Err(refused) => {
                access.checked().await?;
                rpc_error(rpc_id, -32602, &refused)
            }
            Ok(sql) => rpc_result(rpc_id, run_call(access, &sql).await?),
        };
        return Ok(sse(&answer, None));
    }
    access.checked().await?;
    let Some(rpc_id) = &message.id else {
        return Ok(StatusCode::ACCEPTED.into_response());
    };
    let answer = match message.method.as_str() {
        "initialize" => rpc_result(rpc_id, initialized(SERVER_NAME)),
        "ping" => rpc_result(rpc_id, json!({})),
        "tools/list" => rpc_result(rpc_id, json!({"tools": [tool()]})),
        other => rpc_error(rpc_id, -32601, &format!("Method not found: {other}")),
    };
    Ok(sse(&answer, None))
}

/// Who asks about which item of which workspace.
#[derive(Clone)]
struct Access {
    state: Shared,
    caller: Caller,
    workspace: String,
    item: String,
}

impl Access {
    /// The item as a SQL endpoint serves it, once the caller may read its workspace (on the
    /// blocking pool: it reads the store).
    fn check(&self) -> Result<Target, ApiError> {
        let role = self
            .caller
            .workspace(&self.state, &self.workspace, Role::Viewer)?;
        self.state.db.read(|conn| {
            let item = items::get(conn, &self.workspace, &self.item)?
                .ok_or_else(|| ApiError::item_not_found(&self.item))?;
            if !SQL_ITEM_TYPES.contains(&item.item_type.as_str()) {
                return Err(ApiError::bad_request(
                    "InvalidItemType",
                    format!(
                        "The item {} is a {}; a SQL endpoint belongs to a lakehouse or a warehouse",
                        item.display_name, item.item_type
                    ),
                ));
            }
            Ok(Target {
                demo: is_demo(conn, &item.id),
                warehouse: item.item_type == "Warehouse",
                may_write: role >= Role::Contributor,
            })
        })
    }

    /// [`Access::check`] from the async side, for a message that runs no statement.
    async fn checked(&self) -> Result<(), ApiError> {
        let access = self.clone();
        blocking::run(move || access.check().map(|_| ())).await?
    }
}

/// What a statement may do on the item the endpoint serves.
#[derive(Debug, Clone, Copy)]
struct Target {
    /// Its tables are the demo dataset (generated on first use).
    demo: bool,
    /// A warehouse, which takes writes; else a lakehouse, whose endpoint is read-only.
    warehouse: bool,
    /// The caller may change its data (Contributor or above in its workspace).
    may_write: bool,
}

/// Runs an `executeSQL` statement within the server's query budget, after the caller's
/// access is checked in the same hop: the tool's result. A statement that found no slot in
/// time still answers a caller without access with the refusal.
async fn run_call(access: Access, sql: &str) -> Result<Value, ApiError> {
    let parsed = parse(sql, "query");
    let checked = access.clone();
    let outcome = access
        .state
        .queries
        .run(move |limits| {
            Ok(checked
                .check()
                .map(|target| run_statement(&checked, target, parsed, limits)))
        })
        .await;
    Ok(match outcome {
        Ok(ran) => match ran? {
            Ok(set) => tool_result(&set),
            Err(why) => tool_error(&why),
        },
        Err(why) => {
            access.checked().await?;
            tool_error(&why)
        }
    })
}

/// A statement on the item's tables: a query's rows, or the rows a write changed (a
/// warehouse's, by a Contributor or above). The error is the tool's, in its words.
fn run_statement(
    access: &Access,
    target: Target,
    parsed: Result<Vec<Statement>, String>,
    limits: Limits,
) -> Result<ResultSet, String> {
    let statements = parsed?;
    let Ok(StatementKind::Writes(word)) = kind_of(&statements) else {
        let opened = access
            .state
            .tables
            .open_query(&access.item, target.demo)
            .map_err(|err| format!("the item's tables cannot be read: {err}"))?;
        let table = if let Some((mut conn, tables)) = opened {
            sql_run::run_parsed(&mut conn, tables, statements, limits, ENDPOINT_CAPS)?
        } else {
            // No tables yet: an empty database, as a new item's endpoint is (its catalog
            // views list nothing; a table named is an invalid object).
            let mut empty = rusqlite::Connection::open_in_memory()
                .map_err(|err| format!("the item's tables cannot be read: {err}"))?;
            let none = std::sync::Arc::new(Vec::new());
            sql_run::run_parsed(&mut empty, none, statements, limits, ENDPOINT_CAPS)?
        };
        return Ok(result_set(table));
    };
    if !target.warehouse {
        return Err(format!(
            "The {word} statement is not supported: the SQL analytics endpoint of a lakehouse is read-only. Change the lakehouse's tables with Apache Spark, or write to a warehouse."
        ));
    }
    if !target.may_write {
        return Err(format!(
            "The {word} permission was denied: changing a warehouse takes at least the Contributor role in its workspace; a Viewer may only read it."
        ));
    }
    let mut conn = tables::open_write(access.state.tables.dir(), &access.item, false)
        .map_err(|err| format!("the item's tables cannot be written: {err}"))?;
    let changed = sql_run::run_write(&mut conn, statements, limits)?;
    Ok(ResultSet {
        rows_affected: Some(changed),
        ..ResultSet::default()
    })
}

/// A successful `executeSQL` result: the result set as text and as structured content.
fn tool_result(set: &ResultSet) -> Value {
    // A result set is strings, numbers, booleans and JSON cells: it always serializes.
    let text = serde_json::to_string(set).expect("a result set serializes");
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": set,
        "isError": false,
    })
}
