//! The client of Fabric's Data Warehouse MCP server for one lakehouse or warehouse: T-SQL
//! through the tool `executeSQL`, whose name and statement argument are read from
//! `tools/list` (the MCP client of data agents, [`super::mcp`], does the handshake, the
//! session and the transport; a server that forgets the session gets a new handshake and
//! the statement once more, since it never ran). `sql query`, `sql tables`, reference
//! queries of evaluations and the few-shot check all run their statements here.

use super::mcp;
use crate::api::ApiClient;
use crate::error::{Error, Result};
use fabsh_model::sql::{ExecuteSqlCall, ResultSet, endpoint_path};
use serde_json::Value;
use std::time::Duration;

/// The `executeSQL` tool and its statement argument from a `tools/list` answer.
fn sql_tool(tools: &[Value]) -> Result<(String, String)> {
    let call = ExecuteSqlCall::from_tools(tools)
        .ok_or_else(|| Error::runtime("the SQL endpoint's MCP server lists no executeSQL tool"))?;
    Ok((call.tool, call.query_argument))
}

/// The endpoint of an item, as a path under the API base.
pub(crate) fn url(workspace_id: &str, item_id: &str) -> String {
    endpoint_path(workspace_id, item_id)
}

/// Runs `sql` on the item's SQL endpoint and returns its result set. `writes` when the
/// statement may change data: it is then never sent twice. A statement the endpoint refuses
/// or fails is an error with the endpoint's words (code `SqlError`).
pub async fn execute(
    api: &ApiClient,
    workspace_id: &str,
    item_id: &str,
    sql: &str,
    writes: bool,
    timeout: Duration,
) -> Result<ResultSet> {
    let url = url(workspace_id, item_id);
    let session = mcp::session_with(api, &url, timeout, sql_tool).await?;
    let call = ExecuteSqlCall {
        tool: session.tool.clone(),
        query_argument: session.argument.clone(),
    };
    let result = mcp::call_with(api, &session, call.arguments(sql), !writes, timeout).await?;
    result_set(&result)
}

/// The result set of a tool result: its structured content, else its text read as JSON. A
/// result flagged `isError` is the statement failing, with its text as the reason.
pub(crate) fn result_set(result: &Value) -> Result<ResultSet> {
    if let Some(err) = mcp::tool_failure(result, "the SQL statement failed", "SqlError") {
        return Err(err);
    }
    if let Some(set) = result
        .get("structuredContent")
        .and_then(ResultSet::from_value)
    {
        return Ok(set);
    }
    let text = mcp::text_blocks(result);
    serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|value| ResultSet::from_value(&value))
        .ok_or_else(|| {
            Error::runtime("the SQL endpoint answered with a result fabsh cannot read as rows")
                .with_cause(text.chars().take(300).collect::<String>())
        })
}
