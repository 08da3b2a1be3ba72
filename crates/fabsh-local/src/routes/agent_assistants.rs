//! `…/dataagents/{id}/aiassistant/openai/…`: the OpenAI-Assistants-compatible surface of a
//! published agent — assistants, threads, messages, runs, run steps and files — answering
//! from the published configuration like the MCP server. A run is worked out in the
//! background (it starts `queued`); its steps record the SQL it generated and ran, and a
//! result set is attached to the answer as a CSV file.

use super::agent_config;
use crate::agents::{self, answer};
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::blocking;
use crate::clock::now_nanos;
use crate::respond::{self, JsonBody};
use crate::state::Shared;
use crate::store::assistants as store;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use fabsh_model::agent::assistants::{
    Annotation, Attachment, ContentBlock, FileRef, List, Message, Run, Step, Text,
};
use fabsh_model::agent::conversation;
use fabsh_model::agent::definition::StageDoc;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The published agent a surface route is under: `{ws}/{collection}/{item}`.
#[derive(Deserialize)]
pub(super) struct AgentPath {
    ws: String,
    collection: String,
    item: String,
}

/// The `{thread}` of a thread's routes (the agent's are read apart).
#[derive(Deserialize)]
pub(super) struct ThreadPath {
    thread: String,
}

/// The `{thread}/{run}` of a run's routes.
#[derive(Deserialize)]
pub(super) struct RunPath {
    thread: String,
    run: String,
}

/// The `{file}` of a file's routes.
#[derive(Deserialize)]
pub(super) struct FilePath {
    file: String,
}

/// The service retired this surface on 2026-08-26 (reference data-agent.md §5.3, from
/// fabio's code and other reports); it now answers like any path it does not serve, 404
/// `EntityNotFound`, which is what this layer answers unless the `legacy-assistants` knob
/// keeps the old surface for clients that still need it.
pub(super) async fn unless_retired(
    State(state): State<Shared>,
    request: Request,
    next: Next,
) -> Response {
    if state.faults.legacy_assistants {
        next.run(request).await
    } else {
        ApiError::entity_not_found().into_response()
    }
}

/// The published agent a surface route is about: its id and published configuration.
fn published(
    state: &Shared,
    caller: &Caller,
    path: &AgentPath,
) -> Result<(String, StageDoc), ApiError> {
    if !path.collection.eq_ignore_ascii_case("dataagents") {
        return Err(ApiError::entity_not_found());
    }
    let agent = agent_config::agent(&path.ws, &path.item);
    let (item, definition) = agent_config::read(state, caller, &agent)?;
    let published = definition
        .published
        .clone()
        .ok_or_else(agents::not_published)?;
    Ok((item.id, published))
}

fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::new_v4().simple())
}

fn created_at() -> i64 {
    now_nanos() / 1_000_000_000
}

fn missing(what: &str, id: &str) -> ApiError {
    agents::not_found(what, id)
}

/// `POST assistants`: the model is ignored, as by the service.
pub(super) fn create_assistant(
    State(state): State<Shared>,
    caller: Caller,
    Path(path): Path<AgentPath>,
) -> Result<Response, ApiError> {
    let (agent, _) = published(&state, &caller, &path)?;
    let id = new_id("asst");
    let body = json!({"id": id, "object": "assistant", "created_at": created_at(), "model": "data-agent", "tools": []});
    created(&state, &agent, "assistant", &id, body)
}

/// `POST threads`.
pub(super) fn create_thread(
    State(state): State<Shared>,
    caller: Caller,
    Path(path): Path<AgentPath>,
) -> Result<Response, ApiError> {
    let (agent, _) = published(&state, &caller, &path)?;
    let id = new_id("thread");
    let body = json!({"id": id, "object": "thread", "created_at": created_at(), "metadata": {}});
    created(&state, &agent, "thread", &id, body)
}

/// Stores a new object of `kind` (`body`, whose id is `id`) that belongs to no thread, and
/// answers with it.
fn created(
    state: &Shared,
    agent: &str,
    kind: &str,
    id: &str,
    body: Value,
) -> Result<Response, ApiError> {
    state
        .db
        .write(|tx| store::insert(tx, agent, kind, id, None, &body, None))?;
    Ok(respond::json(StatusCode::OK, &body))
}

/// `DELETE threads/{thread}`.
pub(super) fn delete_thread(
    State(state): State<Shared>,
    caller: Caller,
    Path(path): Path<AgentPath>,
    Path(ThreadPath { thread }): Path<ThreadPath>,
) -> Result<Response, ApiError> {
    let (agent, _) = published(&state, &caller, &path)?;
    let thread = thread.as_str();
    if !state
        .db
        .write(|tx| store::delete_thread(tx, &agent, thread))?
    {
        return Err(missing("thread", thread));
    }
    Ok(respond::json(
        StatusCode::OK,
        &json!({"id": thread, "object": "thread.deleted", "deleted": true}),
    ))
}

fn text_message(
    thread: &str,
    role: &str,
    text: &str,
    run: Option<&str>,
    file: Option<&str>,
) -> Message {
    let file_ref = |id: &str| FileRef {
        file_id: id.to_string(),
        extra: Map::new(),
    };
    let annotations = file
        .map(|id| Annotation {
            kind: "file_path".into(),
            text: Some("query_result.csv".into()),
            file_path: Some(file_ref(id)),
            file_citation: None,
            extra: Map::new(),
        })
        .into_iter()
        .collect();
    let attachments = file
        .map(|id| Attachment {
            file_id: id.to_string(),
            tools: Vec::new(),
            extra: Map::new(),
        })
        .into_iter()
        .collect();
    Message {
        id: new_id("msg"),
        object: "thread.message".into(),
        created_at: created_at(),
        thread_id: thread.to_string(),
        role: role.to_string(),
        run_id: run.map(String::from),
        content: vec![ContentBlock {
            kind: "text".into(),
            text: Some(Text {
                value: text.to_string(),
                annotations,
                extra: Map::new(),
            }),
            image_file: None,
            extra: Map::new(),
        }],
        attachments,
        extra: Map::new(),
    }
}

/// An object as stored and answered. The surface's types hold strings, numbers and JSON
/// values only (no map with keys that are not strings): they always serialize.
fn stored(object: &impl Serialize) -> Value {
    serde_json::to_value(object).expect("an Assistants object serializes")
}

/// An object this surface stored, read back as its type; one that does not read (written
/// by an older local Fabric) is treated as missing.
fn read_back<T: DeserializeOwned>(value: &Value) -> Option<T> {
    T::deserialize(value).ok()
}

fn existing_thread(state: &Shared, agent: &str, thread: &str) -> Result<(), ApiError> {
    match state
        .db
        .read(|conn| store::get(conn, agent, "thread", thread))?
    {
        Some(_) => Ok(()),
        None => Err(missing("thread", thread)),
    }
}

/// `POST threads/{thread}/messages` `{role, content}`.
pub(super) fn create_message(
    State(state): State<Shared>,
    caller: Caller,
    Path(path): Path<AgentPath>,
    Path(ThreadPath { thread }): Path<ThreadPath>,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let (agent, _) = published(&state, &caller, &path)?;
    let thread = thread.as_str();
    existing_thread(&state, &agent, thread)?;
    let body = body.object()?;
    let content = match body.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => return Err(ApiError::invalid_body("'content' is required")),
    };
    let message = text_message(
        thread,
        body.get("role").and_then(Value::as_str).unwrap_or("user"),
        &content,
        None,
        None,
    );
    let body = stored(&message);
    state.db.write(|tx| {
        store::insert(
            tx,
            &agent,
            "message",
            &message.id,
            Some(thread),
            &body,
            None,
        )
    })?;
    Ok(respond::json(StatusCode::OK, &body))
}

/// `GET threads/{thread}/messages` (oldest first, as asked with `order=asc`).
pub(super) fn list_messages(
    State(state): State<Shared>,
    caller: Caller,
    Path(path): Path<AgentPath>,
    Path(ThreadPath { thread }): Path<ThreadPath>,
) -> Result<Response, ApiError> {
    let (agent, _) = published(&state, &caller, &path)?;
    let thread = thread.as_str();
    existing_thread(&state, &agent, thread)?;
    let data = state
        .db
        .read(|conn| store::in_thread(conn, thread, "message"))?;
    Ok(respond::json(StatusCode::OK, &stored(&List::of(data))))
}

/// The thread as one question text in the conversation format: the earlier turns, then the
/// last user message (the form the answering engine reads).
fn conversation_text(messages: Vec<Value>) -> String {
    let messages: Vec<Message> = messages.iter().filter_map(read_back).collect();
    // The first block's text: what this surface's messages hold (one text block each).
    fn text(message: &Message) -> &str {
        message
            .content
            .first()
            .and_then(|block| block.text.as_ref())
            .map_or("", |text| text.value.as_str())
    }
    let Some(last_user) = messages.iter().rposition(|m| m.role == "user") else {
        return String::new();
    };
    let mut turns: Vec<(&str, &str)> = Vec::new();
    for message in &messages[..last_user] {
        match (message.role == "user", turns.last_mut()) {
            (false, Some(turn)) if turn.1.is_empty() => turn.1 = text(message),
            (true, _) => turns.push((text(message), "")),
            _ => {}
        }
    }
    conversation::write(turns, text(&messages[last_user]))
}

/// `POST threads/{thread}/runs` `{assistant_id}`: answers in the background.
pub(super) async fn create_run(
    State(state): State<Shared>,
    caller: Caller,
    Path(path): Path<AgentPath>,
    Path(ThreadPath { thread }): Path<ThreadPath>,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let (task_state, task_caller) = (state.clone(), caller.clone());
    let (agent, published, run, text) =
        blocking::run(move || queue_run(&task_state, &task_caller, &path, thread, body)).await??;
    let answer_now = stored(&run);
    let (task_state, task_run) = (state.clone(), run.clone());
    tokio::spawn(async move {
        // Answered for the caller who started the run: only data it may read goes in.
        let answered = answer::answer(&task_state, &caller, &published, &text).await;
        let store = task_state.clone();
        let _ = blocking::run(move || {
            store
                .db
                .write(|tx| record_answer(tx, &agent, &task_run, &text, &answered))
        })
        .await;
    });
    Ok(respond::json(StatusCode::OK, &answer_now))
}

/// Stores a new `queued` run; returns the agent, its published configuration, the run and
/// the question its thread asks.
fn queue_run(
    state: &Shared,
    caller: &Caller,
    path: &AgentPath,
    thread: String,
    body: JsonBody,
) -> Result<(String, StageDoc, Run, String), ApiError> {
    let (agent, published) = published(state, caller, path)?;
    existing_thread(state, &agent, &thread)?;
    let assistant = respond::req_str(&body.object()?, "assistant_id")?;
    let run = Run {
        id: new_id("run"),
        object: "thread.run".into(),
        created_at: created_at(),
        thread_id: thread.clone(),
        assistant_id: assistant,
        status: "queued".into(),
        last_error: None,
        completed_at: None,
        extra: Map::new(),
    };
    let messages = state.db.write(|tx| {
        store::insert(
            tx,
            &agent,
            "run",
            &run.id,
            Some(&thread),
            &stored(&run),
            None,
        )?;
        store::in_thread(tx, &thread, "message")
    })?;
    let text = conversation_text(messages);
    Ok((agent, published, run, text))
}

/// Stores a run's steps, its answer (with the result set as a CSV file) and its end.
fn record_answer(
    tx: &rusqlite::Connection,
    agent: &str,
    run: &Run,
    question: &str,
    answered: &answer::Answer,
) -> rusqlite::Result<()> {
    let (thread, run_id) = (run.thread_id.as_str(), run.id.as_str());
    // Stores a tool-call step of the run.
    let step = |name: &str, arguments: Value, output: String| {
        let id = new_id("step");
        let body = json!({
            "id": id, "object": "thread.run.step", "created_at": created_at(),
            "run_id": run_id, "thread_id": thread, "type": "tool_calls", "status": "completed",
            "step_details": {"type": "tool_calls", "tool_calls": [{
                "id": new_id("call"), "type": "function",
                "function": {"name": name, "arguments": arguments.to_string(), "output": output},
            }]},
        });
        store::insert(tx, agent, "step", &id, Some(thread), &body, None)
    };
    if let Some(sql) = &answered.sql {
        let arguments = json!({"natural_language_query": question, "datasource": answered.source, "basis": answered.basis});
        step(
            "analyze.database.nl2code",
            arguments,
            format!("```sql\n{sql}\n```"),
        )?;
        let executed = json!({"query": sql, "language": "sql"});
        step("analyze.database.execute", executed, answered.text.clone())?;
    }
    let file = match &answered.table {
        Some(table) if !table.rows.is_empty() => {
            let bytes = table.to_csv();
            let id = new_id("file");
            let file = json!({
                "id": id, "object": "file", "created_at": created_at(),
                "filename": "query_result.csv", "bytes": bytes.len(), "purpose": "assistants_output",
            });
            store::insert(tx, agent, "file", &id, None, &file, Some(&bytes))?;
            Some(id)
        }
        _ => None,
    };
    let message = text_message(
        thread,
        "assistant",
        &answered.text,
        Some(run_id),
        file.as_deref(),
    );
    store::insert(
        tx,
        agent,
        "message",
        &message.id,
        Some(thread),
        &stored(&message),
        None,
    )?;
    let creation_id = new_id("step");
    let creation = json!({
        "id": creation_id, "object": "thread.run.step", "created_at": created_at(), "run_id": run_id,
        "thread_id": thread, "type": "message_creation", "status": "completed",
        "step_details": {"type": "message_creation", "message_creation": {"message_id": message.id}},
    });
    store::insert(
        tx,
        agent,
        "step",
        &creation_id,
        Some(thread),
        &creation,
        None,
    )?;
    let done = Run {
        status: "completed".into(),
        completed_at: Some(created_at()),
        ..run.clone()
    };
    store::update(tx, run_id, &stored(&done))
}

/// The run the path names, in the thread it names: as stored, and as read.
fn thread_run(state: &Shared, agent: &str, path: &RunPath) -> Result<(Value, Run), ApiError> {
    let stored = state
        .db
        .read(|conn| store::get(conn, agent, "run", &path.run))?;
    stored
        .and_then(|value| read_back::<Run>(&value).map(|run| (value, run)))
        .filter(|(_, run)| run.thread_id == path.thread)
        .ok_or_else(|| missing("run", &path.run))
}

/// `GET threads/{thread}/runs/{run}`.
pub(super) fn show_run(
    State(state): State<Shared>,
    caller: Caller,
    Path(path): Path<AgentPath>,
    Path(run): Path<RunPath>,
) -> Result<Response, ApiError> {
    let (agent, _) = published(&state, &caller, &path)?;
    Ok(respond::json(
        StatusCode::OK,
        &thread_run(&state, &agent, &run)?.0,
    ))
}

/// `GET threads/{thread}/runs/{run}/steps`.
pub(super) fn list_steps(
    State(state): State<Shared>,
    caller: Caller,
    Path(path): Path<AgentPath>,
    Path(run_path): Path<RunPath>,
) -> Result<Response, ApiError> {
    let (agent, _) = published(&state, &caller, &path)?;
    let (_, run) = thread_run(&state, &agent, &run_path)?;
    let steps = state
        .db
        .read(|conn| store::in_thread(conn, &run_path.thread, "step"))?;
    let data: Vec<Value> = steps
        .into_iter()
        .filter(|step| read_back::<Step>(step).is_some_and(|step| step.run_id == run.id))
        .collect();
    Ok(respond::json(StatusCode::OK, &stored(&List::of(data))))
}

/// `GET files/{file}`.
pub(super) fn show_file(
    State(state): State<Shared>,
    caller: Caller,
    Path(path): Path<AgentPath>,
    Path(FilePath { file }): Path<FilePath>,
) -> Result<Response, ApiError> {
    let (agent, _) = published(&state, &caller, &path)?;
    let id = file.as_str();
    let file = state.db.read(|conn| store::get(conn, &agent, "file", id))?;
    Ok(respond::json(
        StatusCode::OK,
        &file.ok_or_else(|| missing("file", id))?,
    ))
}

/// `GET files/{file}/content`.
pub(super) fn file_content(
    State(state): State<Shared>,
    caller: Caller,
    Path(path): Path<AgentPath>,
    Path(FilePath { file }): Path<FilePath>,
) -> Result<Response, ApiError> {
    let (agent, _) = published(&state, &caller, &path)?;
    let id = file.as_str();
    let bytes = state.db.read(|conn| store::content(conn, &agent, id))?;
    let mut response = (StatusCode::OK, bytes.ok_or_else(|| missing("file", id))?).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/csv"));
    Ok(response)
}
