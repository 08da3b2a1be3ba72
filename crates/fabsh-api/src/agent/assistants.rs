//! The agent's OpenAI-Assistants-compatible surface (`.../dataagents/{id}/aiassistant/openai`),
//! used only for what MCP does not carry: the run's steps (the queries it generated) and the
//! files its answer references. The flow: an assistant, a thread, the question as a message, a
//! run polled until it ends, its steps, the thread's messages; the thread is then deleted.
//! The service retired the surface on 2026-08-26: any 4xx (404 now; 403, 400 or 410 from
//! endpoints that refuse it otherwise), a 501 or a retirement message means "not offered",
//! and the caller answers over MCP instead.

use crate::api::ApiClient;
use crate::api::Req;
use crate::api::data_agents::Agent;
use crate::error::{Error, ErrorKind, Result};
use serde_json::{Value, json};
use std::time::Duration;

/// The API version the surface was served with.
const API_VERSION: &str = "2024-05-01-preview";
/// Run states after which nothing more happens.
const FINAL_STATES: &[&str] = &[
    "completed",
    "failed",
    "cancelled",
    "expired",
    "requires_action",
    "incomplete",
];

/// Where an agent's Assistants-compatible surface is: a path under the API base or a URL.
#[derive(Debug, Clone)]
pub struct Surface {
    base: String,
}

impl Surface {
    fn at(&self, rest: &str) -> String {
        format!("{}/{rest}", self.base)
    }

    fn req_get(&self, rest: &str) -> Req {
        Req::get(self.at(rest)).query("api-version", API_VERSION)
    }

    fn req_post(&self, rest: &str, body: Value) -> Req {
        Req::post(self.at(rest), body).query("api-version", API_VERSION)
    }

    /// GET a file's metadata or content (`files/{id}`, `files/{id}/content`).
    pub fn file_req(&self, id: &str, content: bool) -> Req {
        let rest = if content {
            format!("files/{id}/content")
        } else {
            format!("files/{id}")
        };
        self.req_get(&rest)
    }
}

/// The surface of `agent`, or the one beside an MCP URL of the Fabric form
/// (`.../mcp/workspaces/{ws}/dataagents/{id}/agent`); none for other URLs.
pub fn surface_for(agent: Option<&Agent>, mcp_url: &str) -> Option<Surface> {
    if let Some(agent) = agent {
        return Some(Surface {
            base: format!(
                "/workspaces/{}/dataagents/{}/aiassistant/openai",
                agent.workspace, agent.id
            ),
        });
    }
    let (prefix, rest) = mcp_url.split_once("/mcp/workspaces/")?;
    let (workspace, rest) = rest.split_once("/dataagents/")?;
    let id = rest.strip_suffix("/agent")?;
    Some(Surface {
        base: format!("{prefix}/workspaces/{workspace}/dataagents/{id}/aiassistant/openai"),
    })
}

/// True when an error means the endpoint does not offer the surface (gone, retired or
/// refused): the question can still be answered over MCP, which reports its own errors.
pub fn is_not_offered(err: &Error) -> bool {
    matches!(err.status, Some(400..=499 | 501))
        || err.message.to_lowercase().contains("retired")
        || err.message.to_lowercase().contains("deprecated")
}

/// One answered run.
#[derive(Debug, Clone)]
pub struct Run {
    /// The last assistant message's text.
    pub answer: String,
    /// The steps, each with the query it generated when there is one.
    pub steps: Vec<Value>,
    /// Ids of the files the assistant's messages reference, first mention first.
    pub file_ids: Vec<String>,
    /// The run, its raw steps and the assistant messages, as the endpoint sent them.
    pub raw: Value,
}

fn id_of(value: &Value, what: &str) -> Result<String> {
    value["id"].as_str().map(String::from).ok_or_else(|| {
        Error::runtime(format!(
            "the Assistants endpoint made a {what} without an id"
        ))
    })
}

/// Asks `question` on a new thread and collects the answer, steps and file ids.
pub async fn ask(api: &ApiClient, surface: &Surface, question: &str) -> Result<Run> {
    let assistant = api
        .json(surface.req_post("assistants", json!({"model": "not used"})))
        .await?;
    let assistant = id_of(&assistant, "assistant")?;
    let thread = id_of(
        &api.json(surface.req_post("threads", json!({}))).await?,
        "thread",
    )?;
    let outcome = run_on_thread(api, surface, &assistant, &thread, question).await;
    // Best effort: a thread left behind costs nothing but space.
    let _ = api
        .send(
            Req::delete(surface.at(&format!("threads/{thread}"))).query("api-version", API_VERSION),
        )
        .await;
    outcome
}

async fn run_on_thread(
    api: &ApiClient,
    surface: &Surface,
    assistant: &str,
    thread: &str,
    question: &str,
) -> Result<Run> {
    let message = json!({"role": "user", "content": question});
    api.send(surface.req_post(&format!("threads/{thread}/messages"), message))
        .await?;
    let run = api
        .json(surface.req_post(
            &format!("threads/{thread}/runs"),
            json!({"assistant_id": assistant}),
        ))
        .await?;
    let run_id = id_of(&run, "run")?;
    let run = wait_for(api, surface, thread, &run_id, run).await?;
    if run["status"] != "completed" {
        let why = run["last_error"]["message"]
            .as_str()
            .unwrap_or("no reason given");
        return Err(Error::new(
            ErrorKind::Api,
            format!("the agent's run ended {}: {why}", run["status"]),
        ));
    }
    let steps = api
        .json(surface.req_get(&format!("threads/{thread}/runs/{run_id}/steps")))
        .await?;
    let messages = api
        .json(
            surface
                .req_get(&format!("threads/{thread}/messages"))
                .query("order", "asc"),
        )
        .await?;
    let assistant_messages: Vec<Value> = messages["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "assistant")
        .cloned()
        .collect();
    let answer = assistant_messages
        .last()
        .map(message_text)
        .unwrap_or_default();
    let mut file_ids = Vec::new();
    for message in &assistant_messages {
        for id in file_ids_in(message) {
            if !file_ids.contains(&id) {
                file_ids.push(id);
            }
        }
    }
    let step_list: Vec<Value> = steps["data"]
        .as_array()
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    Ok(Run {
        answer,
        steps: step_list
            .iter()
            .enumerate()
            .flat_map(|(at, step)| readable_steps(at + 1, step))
            .collect(),
        file_ids,
        raw: json!({"run": run, "steps": step_list, "messages": assistant_messages}),
    })
}

/// Polls the run until it ends: quickly at first, then every two seconds.
async fn wait_for(
    api: &ApiClient,
    surface: &Surface,
    thread: &str,
    run_id: &str,
    mut run: Value,
) -> Result<Value> {
    let mut wait = Duration::from_millis(100);
    while !FINAL_STATES.contains(&run["status"].as_str().unwrap_or("")) {
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(Duration::from_secs(2));
        run = api
            .json(surface.req_get(&format!("threads/{thread}/runs/{run_id}")))
            .await?;
    }
    Ok(run)
}

/// The text blocks of a message, one per line.
fn message_text(message: &Value) -> String {
    message["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"]["value"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// File ids a message references: images, text annotations and attachments.
fn file_ids_in(message: &Value) -> Vec<String> {
    let mut ids = Vec::new();
    for block in message["content"].as_array().into_iter().flatten() {
        ids.extend(block["image_file"]["file_id"].as_str().map(String::from));
        for note in block["text"]["annotations"]
            .as_array()
            .into_iter()
            .flatten()
        {
            ids.extend(note["file_path"]["file_id"].as_str().map(String::from));
            ids.extend(note["file_citation"]["file_id"].as_str().map(String::from));
        }
    }
    for attachment in message["attachments"].as_array().into_iter().flatten() {
        ids.extend(attachment["file_id"].as_str().map(String::from));
    }
    ids
}

/// Languages a generated query may be written in, as fence tags and argument keys.
const LANGUAGES: &[(&str, &str)] = &[
    ("sql", "SQL"),
    ("dax", "DAX"),
    ("kql", "KQL"),
    ("gql", "GQL"),
];

/// A step as fabsh shows it: one entry per tool call (`{step, tool, language, query,
/// output}`, the query as generated), or the step's type for steps that call no tool.
fn readable_steps(number: usize, step: &Value) -> Vec<Value> {
    let details = &step["step_details"];
    let calls = details["tool_calls"].as_array();
    let Some(calls) = calls.filter(|calls| !calls.is_empty()) else {
        return vec![
            json!({"step": number, "type": details["type"].as_str().unwrap_or("unknown")}),
        ];
    };
    calls
        .iter()
        .map(|call| {
            let function = &call["function"];
            let arguments: Value = function["arguments"]
                .as_str()
                .and_then(|text| serde_json::from_str(text).ok())
                .unwrap_or_else(|| function["arguments"].clone());
            let output = function["output"].as_str().unwrap_or_default();
            let (language, query) = generated_query(&arguments, output);
            json!({
                "step": number,
                "tool": function["name"].as_str().unwrap_or(call["type"].as_str().unwrap_or("tool")),
                "language": language,
                "query": query,
                "output": output,
            })
        })
        .collect()
}

/// The query a tool call generated: from its arguments (`query`, `sql`, `dax`, ...) or the
/// first fenced block of its output.
fn generated_query(arguments: &Value, output: &str) -> (Value, Value) {
    let language_hint = arguments["language"].as_str().map(str::to_uppercase);
    for (key, language) in LANGUAGES {
        if let Some(text) = arguments[*key].as_str() {
            return (json!(language), json!(text));
        }
    }
    for key in ["query", "code"] {
        if let Some(text) = arguments[key].as_str() {
            return (json!(language_hint), json!(text));
        }
    }
    for (tag, language) in LANGUAGES {
        let fence = format!("```{tag}");
        if let Some(start) = output.find(&fence) {
            let body = &output[start + fence.len()..];
            if let Some(end) = body.find("```") {
                return (json!(language), json!(body[..end].trim()));
            }
        }
    }
    (Value::Null, Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_surface_sits_beside_a_fabric_mcp_url() {
        let surface = surface_for(
            None,
            "https://api.fabric.microsoft.com/v1/mcp/workspaces/w/dataagents/a/agent",
        )
        .expect("surface");
        assert_eq!(
            surface.base,
            "https://api.fabric.microsoft.com/v1/workspaces/w/dataagents/a/aiassistant/openai"
        );
        assert!(surface_for(None, "https://example.com/mcp").is_none());
    }

    #[test]
    fn steps_carry_the_generated_query() {
        let step = json!({"step_details": {"type": "tool_calls", "tool_calls": [
            {"type": "function", "function": {"name": "analyze.database.nl2code",
             "arguments": "{\"natural_language_query\": \"How many?\"}",
             "output": "```sql\nSELECT COUNT(*) FROM orders\n```"}},
            {"type": "function", "function": {"name": "analyze.database.execute",
             "arguments": "{\"query\": \"SELECT 1\", \"language\": \"sql\"}", "output": "1"}}]}});
        let steps = readable_steps(1, &step);
        assert_eq!(steps[0]["query"], "SELECT COUNT(*) FROM orders");
        assert_eq!(steps[0]["language"], "SQL");
        assert_eq!(steps[1]["query"], "SELECT 1");
        let message = json!({"content": [{"type": "text", "text": {"value": "see file", "annotations": [
            {"file_path": {"file_id": "f1"}}]}}], "attachments": [{"file_id": "f2"}]});
        assert_eq!(file_ids_in(&message), vec!["f1", "f2"]);
    }
}
