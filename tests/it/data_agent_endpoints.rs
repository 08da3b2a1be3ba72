//! `data-agent query` against endpoints other than local Fabric: an MCP server that answers
//! in plain JSON and insists on its session id, with an Assistants-compatible surface whose
//! file names try to leave the download directory; and one whose surface is retired.

use crate::stub::Stub;
use crate::support::{Home, Run};
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

const WS: &str = "11111111-1111-1111-1111-111111111111";
const AGENT: &str = "22222222-2222-2222-2222-222222222222";
const SESSION: &str = "session-7";

fn json_response(value: Value) -> Response {
    axum::Json(value).into_response()
}

async fn mcp(request: Request) -> Response {
    let session = request
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(String::from);
    let body = axum::body::to_bytes(request.into_body(), usize::MAX)
        .await
        .expect("body");
    let message: Value = serde_json::from_slice(&body).expect("json-rpc");
    let id = message["id"].clone();
    let method = message["method"].as_str().unwrap_or_default();
    if method == "initialize" {
        let mut response = json_response(
            json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "stub", "version": "1"}}}),
        );
        response
            .headers_mut()
            .insert("mcp-session-id", HeaderValue::from_static(SESSION));
        return response;
    }
    if session.as_deref() != Some(SESSION) {
        return (StatusCode::BAD_REQUEST, "missing session").into_response();
    }
    match method {
        "tools/list" => json_response(json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
            {"name": "DataAgent_stub", "inputSchema": {"type": "object", "properties": {"userQuestion": {"type": "string"}}, "required": ["userQuestion"]}}]}})),
        "tools/call" => {
            let asked = message["params"]["arguments"]["userQuestion"]
                .as_str()
                .unwrap_or_default();
            json_response(
                json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": format!("mcp says: {asked}")}], "structuredContent": {"n": 1}}}),
            )
        }
        _ => StatusCode::ACCEPTED.into_response(),
    }
}

async fn assistants(offered: bool, method: &str, rest: &str) -> Response {
    if !offered {
        return (
            StatusCode::GONE,
            r#"{"errorCode":"Gone","message":"The Assistants API was retired"}"#,
        )
            .into_response();
    }
    match (method, rest) {
        ("POST", "assistants") => json_response(json!({"id": "asst-1"})),
        ("POST", "threads") => json_response(json!({"id": "thread-1"})),
        ("POST", "threads/thread-1/messages") => json_response(json!({"id": "m-1"})),
        ("POST", "threads/thread-1/runs") => {
            json_response(json!({"id": "run-1", "status": "completed"}))
        }
        ("GET", "threads/thread-1/runs/run-1/steps") => json_response(json!({"data": []})),
        ("GET", "threads/thread-1/messages") => {
            json_response(json!({"data": [{"role": "assistant",
            "content": [{"type": "text", "text": {"value": "see the files", "annotations": [{"file_path": {"file_id": "f1"}}]}}],
            "attachments": [{"file_id": "f2"}]}]}))
        }
        ("GET", "files/f1") => json_response(json!({"id": "f1", "filename": "../escape.csv"})),
        ("GET", "files/f1/content") => "a,b\n1,2\n".into_response(),
        ("GET", "files/f2") => json_response(json!({"id": "f2", "filename": ".."})),
        ("GET", "files/f2/content") => "x".into_response(),
        ("DELETE", _) => json_response(json!({"deleted": true})),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn route(State(offered): State<bool>, request: Request) -> Response {
    let path = request.uri().path().to_string();
    let method = request.method().to_string();
    if path.starts_with("/v1/mcp/") {
        return mcp(request).await;
    }
    match path.split_once("/aiassistant/openai/") {
        Some((_, rest)) => assistants(offered, &method, rest).await,
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

fn stub(offered: bool) -> Stub {
    Stub::start(move |_| Router::new().fallback(route).with_state(offered))
}

fn query(home: &Home, stub: &Stub, extra: &[&str]) -> Run {
    let mut args = vec![
        "data-agent",
        "query",
        "-w",
        WS,
        "--id",
        AGENT,
        "--prompt",
        "hello",
    ];
    args.extend_from_slice(extra);
    home.run_env(
        &args,
        &[
            ("FABSH_ENDPOINT", stub.endpoint.as_str()),
            ("FABSH_TOKEN", "stub-token"),
        ],
    )
}

#[test]
fn json_answers_and_the_session_id_work() {
    let (home, stub) = (Home::new(), stub(true));
    let out = query(&home, &stub, &["--raw"]).ok_json();
    assert_eq!(out["answer"], "mcp says: hello");
    assert_eq!(out["tool"], "DataAgent_stub");
    assert_eq!(out["raw"]["structuredContent"]["n"], 1);
}

#[test]
fn downloaded_files_never_leave_the_directory() {
    let (home, stub) = (Home::new(), stub(true));
    let root = tempfile::tempdir().expect("dir");
    let dir = root.path().join("inside");
    let out = query(&home, &stub, &["--download-files", &dir.to_string_lossy()]).ok_json();
    let files = out["files"].as_array().expect("files");
    assert_eq!(files[0]["filename"], "../escape.csv");
    assert_eq!(
        std::fs::read_to_string(dir.join("escape.csv")).expect("inside"),
        "a,b\n1,2\n"
    );
    assert!(
        !root.path().join("escape.csv").exists(),
        "a file escaped the directory"
    );
    assert!(
        files[1]["error"]
            .as_str()
            .expect("refused")
            .contains("refused"),
        "{out}"
    );
    let entries = std::fs::read_dir(&dir).expect("dir").count();
    assert_eq!(entries, 1);
}

#[test]
fn a_retired_surface_means_no_steps_not_invented_ones() {
    let (home, stub) = (Home::new(), stub(false));
    let run = query(&home, &stub, &["--show-steps"]);
    let out = run.ok_json();
    assert_eq!(out["answer"], "mcp says: hello");
    assert_eq!(out["steps"], Value::Null);
    assert!(
        out["note"]
            .as_str()
            .expect("note")
            .contains("not available"),
        "{out}"
    );
    assert!(run.stderr.contains("not available"), "{}", run.stderr);
}
