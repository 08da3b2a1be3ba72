//! `POST /v1/mcp/workspaces/{ws}/dataagents/{id}/agent`: a published agent's MCP server, as
//! the service runs it: streamable HTTP with POST only, a bearer required, `Accept` naming
//! `text/event-stream`, answers as server-sent events. `initialize` (issuing a session id the
//! server does not need back: it keeps no state), `tools/list` with the one tool
//! `DataAgent_<name>`, `tools/call` answered from the published configuration. An agent never
//! published is a 404.

use super::agent_config;
use crate::agents::{self, answer};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::blocking;
use crate::respond::RawBody;
use crate::state::Shared;
use crate::store::items::Item;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use fabsh_model::agent::mcp::{PROTOCOL_VERSION, QUESTION_ARGUMENT};
use fabsh_model::agent::mcp_message::McpMessage;
use serde::Deserialize;
use serde_json::{Value, json};

/// The name the service's MCP server gives itself.
pub(super) const SERVER_NAME: &str = "DataAgent MCP Server";

/// The agent's tool name: `DataAgent_` and its name, non-alphanumerics as `_`.
pub(super) fn tool_name(agent_name: &str) -> String {
    let name: String = agent_name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("DataAgent_{name}")
}

/// The one tool of an agent's server.
pub(super) fn tool(item: &Item, description: Option<&str>) -> Value {
    let description = description.map_or_else(
        || {
            format!(
                "Answers questions with the data agent {}",
                item.display_name
            )
        },
        String::from,
    );
    json!({
        "name": tool_name(&item.display_name),
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {QUESTION_ARGUMENT: {"type": "string", "description": "The question to ask the data agent"}},
            "required": [QUESTION_ARGUMENT],
        },
        "annotations": {"readOnlyHint": true},
    })
}

pub(super) fn sse(value: &Value, session: Option<&str>) -> Response {
    let body = format!("event: message\ndata: {value}\n\n");
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Some(id) = session.and_then(|id| HeaderValue::from_str(id).ok()) {
        headers.insert("mcp-session-id", id);
    }
    response
}

/// The main argument of a `tools/call` of `tool` (trimmed), or why the call is refused (params
/// that are not a tool call, an unknown tool, the argument missing or empty).
pub(super) fn call_argument(
    message: &McpMessage,
    tool: &str,
    argument: &str,
) -> Result<String, String> {
    let call = message.tool_call()?;
    if call.name != tool {
        return Err(format!("Unknown tool: {}", call.name));
    }
    call.arguments
        .get(argument)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|value| !value.is_empty())
        .map(String::from)
        .ok_or_else(|| format!("The argument {argument} is required"))
}

pub(super) fn rpc_error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The `initialize` result of a server named `server_name` offering tools.
pub(super) fn initialized(server_name: &str) -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": server_name, "version": "1.0.0"},
    })
}

pub(super) fn rpc_result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// The JSON-RPC message of an MCP request over streamable HTTP, or the answer that refuses
/// it: a client that does not accept an event stream, or a body that is not one message.
pub(super) fn rpc_message(
    headers: &HeaderMap,
    body: &[u8],
) -> Result<McpMessage, (StatusCode, String)> {
    // A request without Accept (or with one that is not text) accepts no event stream.
    let streams = headers
        .get(header::ACCEPT)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|accept| accept.contains("text/event-stream"));
    if !streams {
        let error = rpc_error(
            &Value::Null,
            -32600,
            "Not Acceptable: the client must accept text/event-stream",
        );
        return Err((StatusCode::NOT_ACCEPTABLE, error.to_string()));
    }
    let Ok(message @ Value::Object(_)) = serde_json::from_slice(body) else {
        let error = rpc_error(
            &Value::Null,
            -32700,
            "Parse error: the body is not a JSON-RPC message",
        );
        return Err((StatusCode::BAD_REQUEST, error.to_string()));
    };
    McpMessage::deserialize(&message).map_err(|err| {
        let id = message.get("id").unwrap_or(&Value::Null);
        let error = rpc_error(id, -32600, &format!("Invalid Request: {err}"));
        (StatusCode::BAD_REQUEST, error.to_string())
    })
}

/// One JSON-RPC message to the agent's server.
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
    let (task_state, task_caller) = (state.clone(), caller.clone());
    let (item, definition) = blocking::run(move || {
        agent_config::read(&task_state, &task_caller, &agent_config::agent(&ws, &id))
    })
    .await??;
    let Some(published) = definition.published.clone() else {
        return Err(agents::not_published());
    };
    let Some(id) = message.id.clone() else {
        // A notification: accepted, nothing to say.
        return Ok(StatusCode::ACCEPTED.into_response());
    };
    let answer = match message.method.as_str() {
        "initialize" => {
            let session = uuid::Uuid::new_v4().to_string();
            return Ok(sse(
                &rpc_result(&id, initialized(SERVER_NAME)),
                Some(&session),
            ));
        }
        "ping" => rpc_result(&id, json!({})),
        "tools/list" => {
            let tool = tool(&item, definition.published_description());
            rpc_result(&id, json!({"tools": [tool]}))
        }
        "tools/call" => {
            match call_argument(&message, &tool_name(&item.display_name), QUESTION_ARGUMENT) {
                Err(refused) => rpc_error(&id, -32602, &refused),
                Ok(question) => {
                    let answered = answer::answer(&state, &caller, &published, &question).await;
                    let content = json!([{"type": "text", "text": answered.text}]);
                    rpc_result(&id, json!({"content": content, "isError": false}))
                }
            }
        }
        other => rpc_error(&id, -32601, &format!("Method not found: {other}")),
    };
    Ok(sse(&answer, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_keep_letters_and_digits() {
        assert_eq!(tool_name("Sales agent 2"), "DataAgent_Sales_agent_2");
    }
}
