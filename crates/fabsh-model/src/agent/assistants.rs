//! The objects of a data agent's OpenAI-Assistants-compatible surface (runs, messages, run
//! steps, files, and their lists), as the client reads them and local Fabric answers them.
//! Keys are the surface's own (snake_case); what a type does not name is kept in `extra`, so
//! an object read and written again loses nothing the service added. Only what the client
//! cannot do without (a run's id and status, a text's value, a file's id) is required; a
//! key the surface leaves out reads as empty, as the client always read it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `{object: "list", data: [...]}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct List<T> {
    #[serde(default)]
    pub object: String,
    #[serde(default = "Vec::new")]
    pub data: Vec<T>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl<T> List<T> {
    pub fn of(data: Vec<T>) -> List<T> {
        List {
            object: "list".into(),
            data,
            extra: Map::new(),
        }
    }
}

/// A run of an assistant on a thread.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Run {
    pub id: String,
    #[serde(default)]
    pub object: String,
    #[serde(default)]
    pub created_at: i64,
    #[serde(default)]
    pub thread_id: String,
    #[serde(default)]
    pub assistant_id: String,
    /// `queued`, `in_progress`, then one of [`Run::FINAL_STATES`].
    pub status: String,
    #[serde(default)]
    pub last_error: Option<RunError>,
    #[serde(default)]
    pub completed_at: Option<i64>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Run {
    /// The states after which nothing more happens to a run.
    pub const FINAL_STATES: &[&str] = &[
        "completed",
        "failed",
        "cancelled",
        "expired",
        "requires_action",
        "incomplete",
    ];

    pub fn has_ended(&self) -> bool {
        Run::FINAL_STATES.contains(&self.status.as_str())
    }
}

/// Why a run failed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunError {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A message of a thread.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Message {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub object: String,
    #[serde(default)]
    pub created_at: i64,
    #[serde(default)]
    pub thread_id: String,
    /// `user` or `assistant`.
    #[serde(default)]
    pub role: String,
    #[serde(default)]
    pub run_id: Option<String>,
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    #[serde(default)]
    pub attachments: Vec<Attachment>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Message {
    /// The text blocks, one per line.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|block| block.text.as_ref().map(|text| text.value.as_str()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The files the message references, first mention first: images, text annotations,
    /// then attachments.
    pub fn file_ids(&self) -> Vec<String> {
        let mut ids = Vec::new();
        for block in &self.content {
            ids.extend(block.image_file.as_ref().map(|file| file.file_id.clone()));
            for note in block.text.iter().flat_map(|text| &text.annotations) {
                ids.extend(note.file_path.as_ref().map(|file| file.file_id.clone()));
                ids.extend(note.file_citation.as_ref().map(|file| file.file_id.clone()));
            }
        }
        ids.extend(self.attachments.iter().map(|a| a.file_id.clone()));
        ids
    }
}

/// One block of a message's content: text (with annotations) or an image file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ContentBlock {
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_file: Option<FileRef>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A text block's words and what they cite.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Text {
    pub value: String,
    #[serde(default)]
    pub annotations: Vec<Annotation>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file a text block cites or links.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Annotation {
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<FileRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_citation: Option<FileRef>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `{file_id}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRef {
    pub file_id: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file attached to a message.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Attachment {
    pub file_id: String,
    #[serde(default)]
    pub tools: Vec<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One step of a run: tool calls (the queries generated and run) or the answer's creation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Step {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub object: String,
    #[serde(default)]
    pub created_at: i64,
    #[serde(default)]
    pub run_id: String,
    #[serde(default)]
    pub thread_id: String,
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub step_details: StepDetails,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a step did.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StepDetails {
    /// `tool_calls` or `message_creation`; empty when the surface did not say.
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_creation: Option<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One tool call of a step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolCall {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<ToolFunction>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The function a tool call called: its arguments (JSON text, as the surface sends them)
/// and its output.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolFunction {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// JSON text as the surface sends it; an object is read as it is.
    #[serde(default)]
    pub arguments: Value,
    #[serde(default)]
    pub output: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolFunction {
    /// The arguments as JSON: parsed from their text, or as sent when not text.
    pub fn arguments(&self) -> Value {
        self.arguments
            .as_str()
            .and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or_else(|| self.arguments.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_message_keeps_what_it_does_not_name_and_finds_its_files() {
        let sent = json!({
            "id": "msg_1", "object": "thread.message", "created_at": 1, "thread_id": "t",
            "role": "assistant", "run_id": null, "assistant_id": "asst_1",
            "content": [
                {"type": "text", "text": {"value": "see", "annotations": [
                    {"type": "file_path", "text": "a.csv", "file_path": {"file_id": "f1"}},
                    {"type": "file_citation", "file_citation": {"file_id": "f2", "quote": "q"}}]}},
                {"type": "image_file", "image_file": {"file_id": "f3"}}],
            "attachments": [{"file_id": "f4", "tools": []}]
        });
        let message: Message = serde_json::from_value(sent.clone()).expect("message");
        assert_eq!(message.text(), "see");
        assert_eq!(message.file_ids(), ["f1", "f2", "f3", "f4"]);
        let again = serde_json::to_value(&message).expect("json");
        assert_eq!(again, sent);
    }

    #[test]
    fn a_run_without_an_error_writes_null_and_ends_in_its_final_states() {
        let sent = json!({"id": "run_1", "object": "thread.run", "created_at": 1,
            "thread_id": "t", "assistant_id": "a", "status": "in_progress",
            "last_error": null, "completed_at": null});
        let run: Run = serde_json::from_value(sent.clone()).expect("run");
        assert!(!run.has_ended());
        assert_eq!(serde_json::to_value(&run).expect("json"), sent);
        let failed: Run = serde_json::from_value(json!({"id": "r", "object": "thread.run",
            "created_at": 1, "thread_id": "t", "assistant_id": "a", "status": "failed",
            "last_error": {"code": "server_error", "message": "boom"}, "completed_at": 2}))
        .expect("run");
        assert!(failed.has_ended());
        assert_eq!(
            failed.last_error.and_then(|e| e.message).as_deref(),
            Some("boom")
        );
    }
}
