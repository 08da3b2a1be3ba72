//! JSON-RPC 2.0 as MCP's streamable HTTP carries it: one request per POST, the answer either a
//! plain JSON body or a stream of server-sent events, one of which carries the response.

use crate::error::{Error, Result};
use serde_json::{Value, json};

/// A request (with an id) or a notification (without one).
pub fn request(id: Option<u64>, method: &str, params: Value) -> Value {
    let mut message = json!({"jsonrpc": "2.0", "method": method, "params": params});
    if let Some(id) = id {
        message["id"] = json!(id);
    }
    message
}

/// The data of each event of a `text/event-stream` body, multi-line data joined with `\n`
/// (comments, `event:`, `id:` and `retry:` lines carry nothing JSON-RPC needs).
pub fn sse_events(body: &str) -> Vec<String> {
    let mut events = Vec::new();
    let mut data: Vec<&str> = Vec::new();
    for line in body.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            if !data.is_empty() {
                events.push(data.join("\n"));
                data.clear();
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("data:") {
            data.push(rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
    if !data.is_empty() {
        events.push(data.join("\n"));
    }
    events
}

/// The response to request `id` in an answer body: JSON (an object or a batch) or SSE. The
/// first message with that id and a `result` or `error` wins; server requests and
/// notifications interleaved in a stream are passed over.
pub fn response_in(content_type: &str, body: &[u8], id: u64) -> Result<Value> {
    let text = String::from_utf8_lossy(body);
    let candidates: Vec<Value> = if content_type.contains("text/event-stream") {
        sse_events(&text)
            .iter()
            .filter_map(|data| serde_json::from_str(data).ok())
            .collect()
    } else {
        let value: Value = serde_json::from_str(&text).map_err(|err| {
            Error::runtime(format!("the MCP server answered with invalid JSON: {err}"))
        })?;
        match value {
            Value::Array(batch) => batch,
            single => vec![single],
        }
    };
    candidates
        .into_iter()
        .flat_map(|value| match value {
            Value::Array(batch) => batch,
            single => vec![single],
        })
        .find(|message| {
            message.get("id").and_then(Value::as_u64) == Some(id)
                && (message.get("result").is_some() || message.get("error").is_some())
        })
        .ok_or_else(|| {
            Error::runtime(format!(
                "the MCP server's answer holds no response to request {id}"
            ))
        })
}

/// The `result` of a response, or its `error` as an error naming the method.
pub fn result_of(mut response: Value, method: &str) -> Result<Value> {
    if let Some(error) = response.get("error") {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("no message");
        return Err(
            Error::runtime(format!("the MCP server refused {method}: {message}"))
                .with_code(format!("jsonrpc.{code}")),
        );
    }
    Ok(response
        .get_mut("result")
        .map(Value::take)
        .unwrap_or(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_events_join_data_lines_and_skip_the_rest() {
        let body =
            ": comment\r\nevent: message\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nid: 7\ndata: two\n";
        assert_eq!(sse_events(body), vec!["{\"a\":\n1}", "two"]);
    }

    #[test]
    fn the_response_with_our_id_is_found_in_json_and_in_sse() {
        let json_body = br#"{"jsonrpc":"2.0","id":3,"result":{"ok":true}}"#;
        let found = response_in("application/json", json_body, 3).expect("json");
        assert_eq!(found["result"]["ok"], true);
        let sse = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n\
                   data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n\
                   data: {\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"bad\"}}\n\n";
        let found =
            response_in("text/event-stream; charset=utf-8", sse.as_bytes(), 3).expect("sse");
        let err = result_of(found, "tools/call").expect_err("error");
        assert!(err.message.contains("bad"), "{}", err.message);
        assert!(response_in("text/event-stream", b"data: nothing\n\n", 3).is_err());
        let batch = br#"[{"jsonrpc":"2.0","id":9,"result":{"x":1}}]"#;
        assert_eq!(
            response_in("application/json", batch, 9).expect("batch")["result"]["x"],
            1
        );
    }
}
