//! The MCP client of a published data agent (and, through [`session_with`], of a SQL
//! endpoint): rmcp's client over streamable HTTP, its requests sent through the API client
//! ([`super::mcp_http`]).
//!
//! The handshake (`initialize`, `notifications/initialized`, `tools/list`) is done once per
//! process and endpoint and shared by every question asked there, so an evaluation of many
//! questions costs one round trip per question. rmcp sends back the `Mcp-Session-Id` the
//! server issues; when the server forgets it (404), rmcp redoes the handshake and sends the
//! request once more.

use super::mcp_http::{McpHttp, Route};
use crate::api::ApiClient;
use crate::error::{Error, ErrorKind, Result};
use fabsh_model::agent::mcp::QUESTION_ARGUMENT;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    GetExtensions, Implementation, ProtocolVersion, ServerResult,
};
use rmcp::service::{ClientInitializeError, RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::OnceCell;

/// The MCP endpoint of a published agent, as a path under the API base.
pub fn endpoint_path(workspace: &str, agent: &str) -> String {
    format!("/mcp/workspaces/{workspace}/dataagents/{agent}/agent")
}

/// An open session: where questions go and how.
pub struct Session {
    /// The tool the session calls (`DataAgent_<name>`, `executeSQL`).
    pub tool: String,
    /// The tool's main argument (`userQuestion`, the statement).
    pub(crate) argument: String,
    client: RunningService<RoleClient, Fabsh>,
}

/// The sessions of this process, one per endpoint; shared by every clone of the API client.
#[derive(Default)]
pub(crate) struct Sessions(Mutex<HashMap<String, Arc<OnceCell<Arc<Session>>>>>);

/// Picks the tool a session calls and its main argument from a `tools/list` answer.
pub(crate) type PickTool = fn(&[Value]) -> Result<(String, String)>;

/// fabsh as an MCP client: it asks, and offers the server nothing (no sampling, no roots).
struct Fabsh;

impl ClientHandler for Fabsh {
    fn get_info(&self) -> ClientConfig {
        // fabsh_model's PROTOCOL_VERSION, the version the service speaks (a test holds them
        // equal).
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("fabsh", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_06_18)
    }
}

/// The session for `url`: this process's, else a new handshake.
pub async fn session(api: &ApiClient, url: &str, timeout: Duration) -> Result<Arc<Session>> {
    session_with(api, url, timeout, agent_tool).await
}

/// The session for `url` calling the tool `pick` chooses: this process's, else a new
/// handshake. Concurrent callers share one handshake; a failed one is not kept.
pub(crate) async fn session_with(
    api: &ApiClient,
    url: &str,
    timeout: Duration,
    pick: PickTool,
) -> Result<Arc<Session>> {
    let cell = {
        let sessions = &api.mcp_sessions().0;
        let mut sessions = sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        Arc::clone(sessions.entry(url.to_string()).or_default())
    };
    cell.get_or_try_init(|| handshake(api, url, timeout, pick))
        .await
        .cloned()
}

/// Asks the agent one question: the tool's result (`content`, `isError`, maybe
/// `structuredContent`) as the server sent it.
pub async fn ask(api: &ApiClient, url: &str, question: &str, timeout: Duration) -> Result<Value> {
    let session = session(api, url, timeout).await?;
    let arguments = json!({session.argument.clone(): question});
    call_with(api, &session, arguments, true, timeout).await
}

/// Calls the session's tool with `arguments`; `resendable` when the call only reads, so a
/// failed send may be retried. The tool's result as the server sent it.
pub(crate) async fn call_with(
    api: &ApiClient,
    session: &Session,
    arguments: Value,
    resendable: bool,
    timeout: Duration,
) -> Result<Value> {
    let Value::Object(arguments) = arguments else {
        return Err(Error::runtime("the MCP tool's arguments are not an object"));
    };
    let mut request = CallToolRequest::new(
        CallToolRequestParams::new(session.tool.clone()).with_arguments(arguments),
    );
    request.extensions_mut().insert(Route {
        api: api.clone(),
        timeout,
        resendable,
    });
    let answer = session
        .client
        .send_request(ClientRequest::CallToolRequest(request))
        .await
        .map_err(|err| failed(err, "tools/call"))?;
    match answer {
        ServerResult::CallToolResult(result) => Ok(serde_json::to_value(result)?),
        _ => Err(Error::runtime("the MCP tool answered without any content")),
    }
}

/// The error of a tool result flagged `isError`, with its text blocks as the reason: `what`
/// says what failed, `code` is the error's code.
pub(crate) fn tool_failure(result: &Value, what: &str, code: &str) -> Option<Error> {
    if result.get("isError").and_then(Value::as_bool) != Some(true) {
        return None;
    }
    let text = text_blocks(result);
    let reason = if text.is_empty() {
        "no reason given"
    } else {
        &text
    };
    Some(Error::new(ErrorKind::Api, format!("{what}: {reason}")).with_code(code))
}

/// The answer text of a tool result: its text blocks, one per line. A result flagged
/// `isError` is the agent failing to answer, with its text as the reason.
pub fn answer_text(result: &Value) -> Result<String> {
    if let Some(err) = tool_failure(result, "the agent failed to answer", "DataAgentToolError") {
        return Err(err);
    }
    Ok(text_blocks(result))
}

/// The text blocks of a tool result, one per line.
pub(crate) fn text_blocks(result: &Value) -> String {
    // A result without content has no text.
    let blocks = result.get("content").and_then(Value::as_array);
    blocks
        .into_iter()
        .flatten()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

async fn handshake(
    api: &ApiClient,
    url: &str,
    timeout: Duration,
    pick: PickTool,
) -> Result<Arc<Session>> {
    let http = McpHttp {
        handshake: Route {
            api: api.clone(),
            timeout,
            resendable: true,
        },
    };
    let config = StreamableHttpClientTransportConfig::with_uri(url)
        // The API client's limiter paces the requests; rmcp's own cap (16) would queue an
        // evaluation's questions behind it instead.
        .max_concurrent_requests(usize::MAX)
        .session_recovery_timeout(timeout);
    let transport = StreamableHttpClientTransport::with_client(http, config);
    let client = Fabsh
        .serve(transport)
        .await
        .map_err(|err| explain(not_initialized(err), url))?;
    let listed = client
        .list_tools(None)
        .await
        .map_err(|err| failed(err, "tools/list"))?;
    let tools = listed
        .tools
        .iter()
        .map(serde_json::to_value)
        .collect::<serde_json::Result<Vec<_>>>()?;
    let (tool, argument) = pick(&tools)?;
    Ok(Arc::new(Session {
        tool,
        argument,
        client,
    }))
}

/// A data agent's server has exactly one tool; its question argument from its schema.
fn agent_tool(tools: &[Value]) -> Result<(String, String)> {
    let tool = tools
        .first()
        .ok_or_else(|| Error::runtime("the agent's MCP server lists no tool"))?;
    // MCP requires a tool's name: it is what a call names.
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::runtime("the agent's MCP server lists a tool without a name"))?
        .to_string();
    Ok((name, question_argument(tool)))
}

/// The tool's question argument: `userQuestion` when it has one, else its first required
/// property, else its first property.
fn question_argument(tool: &Value) -> String {
    let schema = &tool["inputSchema"];
    let properties = schema["properties"].as_object();
    if properties.is_some_and(|p| p.contains_key(QUESTION_ARGUMENT)) {
        return QUESTION_ARGUMENT.to_string();
    }
    schema["required"]
        .as_array()
        .and_then(|required| required.first())
        .and_then(Value::as_str)
        .map(String::from)
        .or_else(|| properties.and_then(|p| p.keys().next().cloned()))
        .unwrap_or_else(|| QUESTION_ARGUMENT.to_string())
}

/// A failed request as fabsh says it: the HTTP core's own error when the send failed (its
/// status, code and hints), the server's JSON-RPC error naming the method, else rmcp's
/// words.
fn failed(err: ServiceError, method: &str) -> Error {
    match err {
        ServiceError::McpError(data) => {
            Error::runtime(format!("the MCP server refused {method}: {}", data.message))
                .with_code(format!("jsonrpc.{}", data.code.0))
        }
        ServiceError::TransportSend(sent) => sent_error(sent.error.as_ref(), method),
        other => Error::runtime(format!("the MCP request {method} failed: {other}")),
    }
}

fn not_initialized(err: ClientInitializeError) -> Error {
    match err {
        ClientInitializeError::TransportError { error, .. } => {
            sent_error(error.error.as_ref(), "initialize")
        }
        ClientInitializeError::JsonRpcError(data) => Error::runtime(format!(
            "the MCP server refused initialize: {}",
            data.message
        ))
        .with_code(format!("jsonrpc.{}", data.code.0)),
        other => Error::runtime(format!("the MCP handshake failed: {other}")),
    }
}

/// The HTTP core's error inside a transport failure, else the failure in rmcp's words.
fn sent_error(err: &(dyn std::error::Error + Send + Sync + 'static), method: &str) -> Error {
    match err.downcast_ref::<StreamableHttpError<Error>>() {
        Some(StreamableHttpError::Client(err)) => err.clone(),
        _ => Error::runtime(format!("the MCP request {method} failed: {err}")),
    }
}

fn explain(err: Error, url: &str) -> Error {
    if err.status == Some(404) && url.contains("/dataagents/") {
        err.with_hint("the agent may not be published: publish it with `fabsh data-agent publish`")
    } else {
        err
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_argument_comes_from_the_schema() {
        let tool = json!({"inputSchema": {"properties": {"userQuestion": {}, "x": {}}, "required": ["x"]}});
        assert_eq!(question_argument(&tool), "userQuestion");
        let tool = json!({"inputSchema": {"properties": {"q": {}, "x": {}}, "required": ["x"]}});
        assert_eq!(question_argument(&tool), "x");
        let tool = json!({"inputSchema": {"properties": {"q": {}}}});
        assert_eq!(question_argument(&tool), "q");
    }

    #[test]
    fn text_blocks_make_the_answer_and_is_error_fails() {
        let result = json!({"content": [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]});
        assert_eq!(answer_text(&result).expect("answer"), "a\nb");
        let failed = json!({"content": [{"type": "text", "text": "no data"}], "isError": true});
        assert!(
            answer_text(&failed)
                .expect_err("error")
                .message
                .contains("no data")
        );
    }

    #[test]
    fn the_client_speaks_the_services_protocol_version() {
        let info = Fabsh.get_info();
        assert_eq!(
            info.protocol_version.as_str(),
            fabsh_model::agent::mcp::PROTOCOL_VERSION
        );
    }
}
