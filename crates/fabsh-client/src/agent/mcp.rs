//! The MCP client of a published data agent: streamable HTTP (one POST endpoint, JSON-RPC,
//! answers as JSON or server-sent events), sent through the API client so it gets the same
//! token, retries, rate limiter and `--verbose` traces as every other request.
//!
//! The handshake (`initialize`, `notifications/initialized`, `tools/list`) is done once per
//! process and endpoint and shared by every question asked there, so an evaluation of many
//! questions costs one round trip per question. A `Mcp-Session-Id` the server issues is sent
//! back on every later request; when the server forgets it (404), the handshake is redone once.

use super::jsonrpc;
use crate::api::Req;
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use fabsh_model::agent::mcp::{PROTOCOL_VERSION, QUESTION_ARGUMENT};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::time::Duration;

/// Without `text/event-stream` here the service fails the request.
const ACCEPT: &str = "application/json, text/event-stream";

/// The MCP endpoint of a published agent, as a path under the API base.
pub fn endpoint_path(workspace: &str, agent: &str) -> String {
    format!("/mcp/workspaces/{workspace}/dataagents/{agent}/agent")
}

/// What the handshake learned: where to send questions and how.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Session {
    /// The endpoint: an absolute URL or a path under the API base.
    pub url: String,
    /// The session the server issued, if it issued one.
    pub session_id: Option<String>,
    /// The protocol version the server chose.
    pub protocol_version: String,
    /// The agent's tool (`DataAgent_<name>`).
    pub tool: String,
    /// The tool's question argument (`userQuestion`).
    pub argument: String,
    /// The tool's description (the agent's published description).
    pub description: Option<String>,
}

fn cache_key(url: &str) -> String {
    format!("mcp-session:{url}")
}

/// Picks the tool a session calls and its main argument from a `tools/list` answer.
pub(crate) type PickTool = fn(&[Value]) -> Result<(String, String)>;

/// The session for `url`: from the process cache, else a new handshake.
pub async fn session(ctx: &Ctx, url: &str, timeout: Duration) -> Result<Session> {
    session_with(ctx, url, timeout, agent_tool).await
}

/// The session for `url` calling the tool `pick` chooses: from the process cache, else a new
/// handshake.
pub(crate) async fn session_with(
    ctx: &Ctx,
    url: &str,
    timeout: Duration,
    pick: PickTool,
) -> Result<Session> {
    let fetch = || async {
        Ok(vec![serde_json::to_value(
            handshake(ctx, url, timeout, pick).await?,
        )?])
    };
    let cached = ctx
        .resolver()
        .cached_list(cache_key(url), fetch, |list| !list.is_empty())
        .await?;
    let first = cached.first().cloned().unwrap_or(Value::Null);
    serde_json::from_value(first)
        .map_err(|err| Error::runtime(format!("the cached MCP session is unreadable: {err}")))
}

/// Asks the agent one question: the tool's result (`content`, `isError`, maybe
/// `structuredContent`) as the server sent it.
pub async fn ask(ctx: &Ctx, url: &str, question: &str, timeout: Duration) -> Result<Value> {
    let session = session(ctx, url, timeout).await?;
    match call_tool(ctx, &session, question, timeout).await {
        // A server that issued a session and then forgot it answers 404: start over, once.
        Err(err) if session.session_id.is_some() && err.status == Some(404) => {
            ctx.resolver().forget_prefix(&cache_key(url));
            let session = self::session(ctx, url, timeout).await?;
            call_tool(ctx, &session, question, timeout).await
        }
        other => other,
    }
}

async fn call_tool(
    ctx: &Ctx,
    session: &Session,
    question: &str,
    timeout: Duration,
) -> Result<Value> {
    let arguments = json!({session.argument.clone(): question});
    call_with(ctx, session, arguments, true, timeout).await
}

/// Calls the session's tool with `arguments`; `resendable` when the call only reads, so a
/// failed send may be retried. The tool's result as the server sent it.
pub(crate) async fn call_with(
    ctx: &Ctx,
    session: &Session,
    arguments: Value,
    resendable: bool,
    timeout: Duration,
) -> Result<Value> {
    let params = json!({"name": session.tool, "arguments": arguments});
    let result = send_as(
        ctx,
        session,
        Some(3),
        "tools/call",
        params,
        timeout,
        resendable,
    )
    .await?
    .0
    .unwrap_or(Value::Null);
    if result.get("content").is_none() && result.get("structuredContent").is_none() {
        return Err(Error::runtime("the MCP tool answered without any content"));
    }
    Ok(result)
}

/// Forgets the cached session for `url` (the server forgot it).
pub(crate) fn forget(ctx: &Ctx, url: &str) {
    ctx.resolver().forget_prefix(&cache_key(url));
}

/// The answer text of a tool result: its text blocks, one per line. A result flagged
/// `isError` is the agent failing to answer, with its text as the reason.
pub fn answer_text(result: &Value) -> Result<String> {
    let text = text_blocks(result);
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        let reason = if text.is_empty() {
            "no reason given"
        } else {
            &text
        };
        return Err(Error::new(
            ErrorKind::Api,
            format!("the agent failed to answer: {reason}"),
        )
        .with_code("DataAgentToolError"));
    }
    Ok(text)
}

/// The text blocks of a tool result, one per line.
pub(crate) fn text_blocks(result: &Value) -> String {
    result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

async fn handshake(ctx: &Ctx, url: &str, timeout: Duration, pick: PickTool) -> Result<Session> {
    let mut session = Session {
        url: url.to_string(),
        session_id: None,
        protocol_version: PROTOCOL_VERSION.to_string(),
        tool: String::new(),
        argument: QUESTION_ARGUMENT.to_string(),
        description: None,
    };
    let params = json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "fabsh", "version": env!("CARGO_PKG_VERSION")},
    });
    let (initialized, session_id) =
        send(ctx, &session, Some(1), "initialize", params, timeout).await?;
    session.session_id = session_id;
    if let Some(version) = initialized
        .as_ref()
        .and_then(|result| result.get("protocolVersion"))
        .and_then(Value::as_str)
    {
        session.protocol_version = version.to_string();
    }
    // Servers without sessions may refuse the notification; nothing depends on it.
    let notified = send(
        ctx,
        &session,
        None,
        "notifications/initialized",
        json!({}),
        timeout,
    );
    let listed = post(ctx, &session, 2, "tools/list", json!({}), timeout);
    // A stateless server (no session id, like Fabric's) cannot track whether the
    // notification came first, so the tool list goes out with it and saves a round trip. A
    // server that keeps sessions gets them in the order MCP prescribes.
    let listed = if session.session_id.is_none() {
        tokio::join!(notified, listed).1
    } else {
        let _ = notified.await;
        listed.await
    };
    let listed = listed?.unwrap_or(Value::Null);
    let tools = listed
        .get("tools")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let (tool, argument) = pick(tools)?;
    session.description = tools
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(tool.as_str()))
        .and_then(|t| t.get("description"))
        .and_then(Value::as_str)
        .map(String::from);
    session.tool = tool;
    session.argument = argument;
    Ok(session)
}

/// A data agent's server has exactly one tool; its question argument from its schema.
fn agent_tool(tools: &[Value]) -> Result<(String, String)> {
    let tool = tools
        .first()
        .ok_or_else(|| Error::runtime("the agent's MCP server lists no tool"))?;
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
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

async fn post(
    ctx: &Ctx,
    session: &Session,
    id: u64,
    method: &str,
    params: Value,
    timeout: Duration,
) -> Result<Option<Value>> {
    Ok(send(ctx, session, Some(id), method, params, timeout)
        .await?
        .0)
}

/// One JSON-RPC message: the result of a request (none for a notification) and the session
/// id the answer carries.
async fn send(
    ctx: &Ctx,
    session: &Session,
    id: Option<u64>,
    method: &str,
    params: Value,
    timeout: Duration,
) -> Result<(Option<Value>, Option<String>)> {
    send_as(ctx, session, id, method, params, timeout, true).await
}

/// [`send`], resent after a failure only when `resendable` (everything but a SQL statement
/// that writes).
async fn send_as(
    ctx: &Ctx,
    session: &Session,
    id: Option<u64>,
    method: &str,
    params: Value,
    timeout: Duration,
    resendable: bool,
) -> Result<(Option<Value>, Option<String>)> {
    let mut req = Req::post(session.url.clone(), jsonrpc::request(id, method, params))
        .header("Accept", ACCEPT)
        .timeout(timeout);
    if resendable {
        req = req.read_only();
    }
    if method != "initialize" {
        req = req.header("MCP-Protocol-Version", session.protocol_version.clone());
    }
    if let Some(sid) = &session.session_id {
        req = req.header("Mcp-Session-Id", sid.clone());
    }
    let resp = ctx
        .api()
        .send(req)
        .await
        .map_err(|err| explain(err, method, &session.url))?;
    let session_id = resp.header("mcp-session-id").map(String::from);
    let Some(id) = id else {
        return Ok((None, session_id));
    };
    let content_type = resp.header("content-type").unwrap_or("application/json");
    let response = jsonrpc::response_in(content_type, &resp.body, id)?;
    Ok((Some(jsonrpc::result_of(response, method)?), session_id))
}

fn explain(err: Error, method: &str, url: &str) -> Error {
    if err.status == Some(404) && method == "initialize" && url.contains("/dataagents/") {
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
}
