//! A JSON-RPC 2.0 message as an MCP server over streamable HTTP reads it (one message per
//! POST): local Fabric's agent and SQL endpoint servers answer these.

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// A request, or a notification when it has no id.
#[derive(Debug, Clone, Deserialize)]
pub struct McpMessage {
    /// A string, a number or `null`; absent in a notification, which is answered with nothing.
    #[serde(default, deserialize_with = "present")]
    pub id: Option<Value>,
    /// The method called: `initialize`, `ping`, `tools/list`, `tools/call`, ...
    pub method: String,
    /// The method's parameters (a `tools/call`'s are a [`ToolCall`]); absent when it takes none.
    #[serde(default)]
    pub params: Option<Value>,
}

/// The params of a `tools/call`: the tool and its arguments.
#[derive(Debug, Clone, Deserialize)]
pub struct ToolCall {
    /// The tool called.
    pub name: String,
    /// The arguments by name; the MCP schema makes them optional, absent as none.
    #[serde(default)]
    pub arguments: Map<String, Value>,
}

impl McpMessage {
    /// The `tools/call` params, or why they are not ones.
    pub fn tool_call(&self) -> Result<ToolCall, String> {
        let params = self
            .params
            .as_ref()
            .ok_or("Invalid params: a tools/call needs params")?;
        ToolCall::deserialize(params).map_err(|err| format!("Invalid params: {err}"))
    }
}

/// An `id` that is present, `null` included (a field that is absent is `None` by `default`).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_null_id_is_a_request_and_no_id_a_notification() {
        let request: McpMessage =
            serde_json::from_value(json!({"jsonrpc": "2.0", "id": null, "method": "ping"}))
                .expect("request");
        assert_eq!(request.id, Some(Value::Null));
        let notification: McpMessage =
            serde_json::from_value(json!({"jsonrpc": "2.0", "method": "notifications/x"}))
                .expect("notification");
        assert_eq!(notification.id, None);
        assert!(serde_json::from_value::<McpMessage>(json!({"id": 1})).is_err());
    }

    #[test]
    fn a_tool_call_names_its_tool() {
        let call: McpMessage = serde_json::from_value(
            json!({"id": 1, "method": "tools/call", "params": {"name": "t"}}),
        )
        .expect("call");
        let tool = call.tool_call().expect("tool call");
        assert_eq!((tool.name.as_str(), tool.arguments.len()), ("t", 0));
        let nameless: McpMessage =
            serde_json::from_value(json!({"id": 1, "method": "tools/call", "params": {}}))
                .expect("call");
        assert!(nameless.tool_call().is_err());
    }
}
