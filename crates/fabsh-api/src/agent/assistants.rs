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
use fabsh_model::agent::assistants::{List, Message, Run as RunObject, Step};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::time::Duration;

/// The API version the surface was served with.
const API_VERSION: &str = "2024-05-01-preview";

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

/// An object of the surface read as its type; one fabsh cannot read is the endpoint's
/// mistake, said with what it was.
fn read<T: DeserializeOwned>(value: &Value, what: &str) -> Result<T> {
    T::deserialize(value).map_err(|err| {
        Error::runtime(format!(
            "the Assistants endpoint answered a {what} fabsh cannot read"
        ))
        .with_cause(err)
    })
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
    let (run, ended) = wait_for(api, surface, thread, &run_id, run).await?;
    if ended.status != "completed" {
        let why = ended
            .last_error
            .as_ref()
            .and_then(|error| error.message.as_deref())
            .unwrap_or("no reason given");
        return Err(Error::new(
            ErrorKind::Api,
            format!(
                "the agent's run ended {}: {why}",
                Value::from(ended.status.as_str())
            ),
        ));
    }
    let steps: List<Value> = read(
        &api.json(surface.req_get(&format!("threads/{thread}/runs/{run_id}/steps")))
            .await?,
        "list of steps",
    )?;
    let messages: List<Value> = read(
        &api.json(
            surface
                .req_get(&format!("threads/{thread}/messages"))
                .query("order", "asc"),
        )
        .await?,
        "list of messages",
    )?;
    // The assistant's messages, each as sent (for `raw`) and as read.
    let mut assistant_messages = Vec::new();
    for sent in messages.data {
        let message: Message = read(&sent, "message")?;
        if message.role == "assistant" {
            assistant_messages.push((sent, message));
        }
    }
    let answer = assistant_messages
        .last()
        .map(|(_, message)| message.text())
        // No message from the assistant: an empty answer, which grading then judges.
        .unwrap_or_default();
    let mut file_ids = Vec::new();
    for (_, message) in &assistant_messages {
        for id in message.file_ids() {
            if !file_ids.contains(&id) {
                file_ids.push(id);
            }
        }
    }
    let mut readable = Vec::new();
    for (at, sent) in steps.data.iter().enumerate() {
        let step: Step = read(sent, "run step")?;
        readable.extend(readable_steps(at + 1, &step));
    }
    let messages: Vec<Value> = assistant_messages
        .into_iter()
        .map(|(sent, _)| sent)
        .collect();
    Ok(Run {
        answer,
        steps: readable,
        file_ids,
        raw: json!({"run": run, "steps": steps.data, "messages": messages}),
    })
}

/// Polls the run until it ends: quickly at first, then every two seconds. The run as sent,
/// and as read.
async fn wait_for(
    api: &ApiClient,
    surface: &Surface,
    thread: &str,
    run_id: &str,
    mut run: Value,
) -> Result<(Value, RunObject)> {
    let mut wait = Duration::from_millis(100);
    loop {
        let read_run: RunObject = read(&run, "run")?;
        if read_run.has_ended() {
            return Ok((run, read_run));
        }
        tokio::time::sleep(wait).await;
        wait = (wait * 2).min(Duration::from_secs(2));
        run = api
            .json(surface.req_get(&format!("threads/{thread}/runs/{run_id}")))
            .await?;
    }
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
fn readable_steps(number: usize, step: &Step) -> Vec<Value> {
    let details = &step.step_details;
    let Some(calls) = details
        .tool_calls
        .as_ref()
        .filter(|calls| !calls.is_empty())
    else {
        let kind = Some(details.kind.as_str()).filter(|kind| !kind.is_empty());
        return vec![json!({"step": number, "type": kind.unwrap_or("unknown")})];
    };
    calls
        .iter()
        .map(|call| {
            let function = call.function.as_ref();
            let arguments = function.map_or(
                Value::Null,
                fabsh_model::agent::assistants::ToolFunction::arguments,
            );
            let output = function.and_then(|f| f.output.as_deref()).unwrap_or("");
            let (language, query) = generated_query(&arguments, output);
            let kind = Some(call.kind.as_str()).filter(|kind| !kind.is_empty());
            let tool = function
                .and_then(|f| f.name.as_deref())
                .unwrap_or(kind.unwrap_or("tool"));
            json!({
                "step": number,
                "tool": tool,
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
        let steps = readable_steps(1, &serde_json::from_value(step).expect("step"));
        assert_eq!(steps[0]["query"], "SELECT COUNT(*) FROM orders");
        assert_eq!(steps[0]["language"], "SQL");
        assert_eq!(steps[1]["query"], "SELECT 1");
        let message = json!({"content": [{"type": "text", "text": {"value": "see file", "annotations": [
            {"file_path": {"file_id": "f1"}}]}}], "attachments": [{"file_id": "f2"}]});
        let message: Message = serde_json::from_value(message).expect("message");
        assert_eq!(message.file_ids(), vec!["f1", "f2"]);
    }
}
