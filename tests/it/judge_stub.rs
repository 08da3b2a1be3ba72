//! A stand-in judge: an OpenAI-compatible chat-completions server on a loopback port. It
//! refuses a temperature for reasoning models with 400, as the service does; it records every
//! other request, answers the first one 429 and the second 503 (so retries are exercised), and grades by numbers: `yes` when the expected answer's digits appear in the
//! actual answer's. It reads the default prompt (`Expected answer:` / `Actual answer:` lines)
//! and the tests' critic prompt (`E=...|A=...`).

use crate::stub::Stub;
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

/// The key tests give the judge.
pub(crate) const KEY: &str = "judge-test-key-5f2b";

/// One request the judge saw.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub authorization: Option<String>,
    /// Azure OpenAI's key header.
    pub api_key: Option<String>,
    /// The path and query the request went to.
    pub uri: String,
    pub body: Value,
}

/// The running judge.
pub(crate) struct Judge {
    pub stub: Stub,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Judge {
    /// Starts the judge.
    pub(crate) fn start() -> Judge {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let state = Arc::clone(&seen);
        // Both shapes of endpoint: OpenAI-compatible, and Azure OpenAI's (its v1 API and a
        // deployment under a dated api-version).
        let stub = Stub::start(move |_| {
            Router::new()
                .route("/v1/chat/completions", post(complete))
                .route("/openai/v1/chat/completions", post(complete))
                .route(
                    "/openai/deployments/{deployment}/chat/completions",
                    post(complete),
                )
                .with_state(state)
        });
        Judge { stub, seen }
    }

    /// An Azure OpenAI endpoint on the stand-in that names deployment `name`.
    pub(crate) fn azure_deployment(&self, name: &str) -> String {
        let origin = self.stub.endpoint.trim_end_matches("/v1");
        format!("{origin}/openai/deployments/{name}")
    }

    /// The stand-in's Azure OpenAI v1 chat-completions URL.
    pub(crate) fn azure_v1(&self) -> String {
        let origin = self.stub.endpoint.trim_end_matches("/v1");
        format!("{origin}/openai/v1/chat/completions")
    }

    /// A judge that answers every request 500 (with `Retry-After: 0`, so the client's retries
    /// are quick), recording them.
    pub(crate) fn failing() -> Judge {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let state = Arc::clone(&seen);
        let stub = Stub::start(move |_| {
            Router::new()
                .route("/v1/chat/completions", post(fail))
                .with_state(state)
        });
        Judge { stub, seen }
    }

    /// `--llm-endpoint`: the OpenAI-compatible base URL.
    pub(crate) fn endpoint(&self) -> &str {
        &self.stub.endpoint
    }

    /// Every request so far.
    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("lock").clone()
    }

    /// The user prompts of the requests that were answered with a verdict.
    pub(crate) fn prompts(&self) -> Vec<String> {
        self.seen()
            .iter()
            .skip(2)
            .map(|seen| {
                seen.body["messages"][1]["content"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    }
}

/// An o-series or gpt-5.x name, or a deployment the tests name `reasoning-...` (a name that
/// does not say what model it runs, as an Azure deployment's need not).
fn is_reasoning_model(model: &Value) -> bool {
    let name = model.as_str().unwrap_or_default().to_ascii_lowercase();
    let o_series = name.len() > 1 && name.starts_with('o') && name.as_bytes()[1].is_ascii_digit();
    o_series || name.starts_with("gpt-5") || name.starts_with("reasoning-")
}

fn digits(text: &str) -> String {
    text.chars().filter(char::is_ascii_digit).collect()
}

/// The expected and actual answers in a prompt of either form.
fn answers_in(prompt: &str) -> (String, String) {
    if let (Some(e), Some(a)) = (prompt.find("E="), prompt.find("|A=")) {
        let expected = prompt[e + 2..].split('|').next().unwrap_or_default();
        return (expected.to_string(), prompt[a + 3..].to_string());
    }
    let line = |label: &str| {
        prompt
            .lines()
            .find_map(|l| l.strip_prefix(label))
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    (line("Expected answer:"), line("Actual answer:"))
}

/// The base URL of a judge that is not there: a loopback port that was just free, closed.
pub(crate) fn unreachable_endpoint() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    drop(listener);
    format!("http://127.0.0.1:{port}/v1")
}

fn record(seen: &Mutex<Vec<Seen>>, uri: &Uri, headers: &HeaderMap, body: &Value) -> usize {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(String::from)
    };
    let mut seen = seen.lock().expect("lock");
    seen.push(Seen {
        authorization: header("authorization"),
        api_key: header("api-key"),
        uri: uri.to_string(),
        body: body.clone(),
    });
    seen.len()
}

async fn fail(
    State(seen): State<Arc<Mutex<Vec<Seen>>>>,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    record(&seen, &uri, &headers, &body);
    let error = json!({"error": {"message": "the stand-in judge is failing on purpose"}});
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        [("retry-after", "0")],
        error.to_string(),
    )
        .into_response()
}

async fn complete(
    State(seen): State<Arc<Mutex<Vec<Seen>>>>,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    if body.get("temperature").is_some() && is_reasoning_model(&body["model"]) {
        // As OpenAI and Azure OpenAI answer a reasoning model asked for temperature 0; not
        // recorded, so the counts above stay those of the requests the judge takes.
        let refusal = json!({"error": {
            "message": "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
            "type": "invalid_request_error",
            "param": "temperature",
            "code": "unsupported_value",
        }});
        return (StatusCode::BAD_REQUEST, axum::Json(refusal)).into_response();
    }
    let count = record(&seen, &uri, &headers, &body);
    match count {
        1 => return (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "0")], "{}").into_response(),
        2 => return (StatusCode::SERVICE_UNAVAILABLE, "{}").into_response(),
        _ => {}
    }
    let prompt = body["messages"][1]["content"].as_str().unwrap_or_default();
    let (expected, actual) = answers_in(prompt);
    let right = !digits(&expected).is_empty() && digits(&actual).contains(&digits(&expected));
    let verdict = json!({
        "verdict": if right { "yes" } else { "no" },
        "rationale": format!("expected {expected}"),
    });
    let reply = json!({"choices": [{"message": {"role": "assistant", "content": format!("```json\n{verdict}\n```")}}]});
    axum::Json(reply).into_response()
}
