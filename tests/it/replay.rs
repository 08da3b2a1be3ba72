//! Real recorded Fabric traffic (`../shared/recordings/fabric-cli`, copied under
//! `tests/recordings`) replayed on loopback: the HTTP core must send the same follow-up
//! requests the recording shows (LRO polls, `/result` fetches, 429 retries) and parse every
//! response — items, pages, operation states, `null` 202 bodies and error bodies.

use fabsh_api::api::{ApiClient, Req};
use fabsh_api::auth::{Secret, StaticToken};
use fabsh_client::output::Progress;
use reqwest::Method;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex};

#[derive(Debug, Deserialize)]
pub(crate) struct Cassette {
    pub(crate) interactions: Vec<Interaction>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Interaction {
    pub(crate) request: RecordedRequest,
    pub(crate) response: RecordedResponse,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RecordedRequest {
    pub(crate) method: String,
    pub(crate) uri: String,
    pub(crate) body: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct RecordedResponse {
    pub(crate) status: Status,
    pub(crate) headers: HashMap<String, Vec<String>>,
    pub(crate) body: Body,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Status {
    pub(crate) code: u16,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Body {
    pub(crate) string: Option<String>,
}

/// A recording of `tests/recordings` by file name.
pub(crate) fn cassette(name: &str) -> Cassette {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/recordings")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_yaml_ng::from_str(&text).expect("cassette YAML")
}

/// `METHOD /path?sorted&query`, host dropped: how requests are matched to the recording.
fn key(method: &str, uri: &str) -> String {
    let url = reqwest::Url::parse(uri).expect("recorded URI");
    let mut pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| (k.to_lowercase(), v.into_owned()))
        .collect();
    pairs.sort();
    let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{method} {}?{}", url.path(), query.join("&"))
}

struct Replay {
    queues: HashMap<String, VecDeque<RecordedResponse>>,
    last: HashMap<String, RecordedResponse>,
    unexpected: Vec<String>,
    origin: String,
}

async fn serve(cassette: &Cassette) -> (String, Arc<Mutex<Replay>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let origin = format!("http://{}", listener.local_addr().expect("addr"));
    let mut queues: HashMap<String, VecDeque<RecordedResponse>> = HashMap::new();
    for interaction in &cassette.interactions {
        queues
            .entry(key(&interaction.request.method, &interaction.request.uri))
            .or_default()
            .push_back(interaction.response.clone());
    }
    let state = Arc::new(Mutex::new(Replay {
        queues,
        last: HashMap::new(),
        unexpected: Vec::new(),
        origin: origin.clone(),
    }));
    let shared = Arc::clone(&state);
    let app = axum::Router::new().fallback(move |method: Method, uri: axum::http::Uri| {
        let state = Arc::clone(&shared);
        async move { answer(&state, method.as_str(), &uri.to_string()) }
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    (origin, state)
}

fn answer(state: &Mutex<Replay>, method: &str, path: &str) -> axum::response::Response {
    let mut replay = state.lock().expect("lock");
    let uri = format!("{}{path}", replay.origin);
    let key = key(method, &uri);
    let recorded = match replay.queues.get_mut(&key).and_then(VecDeque::pop_front) {
        Some(response) => {
            replay.last.insert(key, response.clone());
            response
        }
        // The client polled more often than the recording did: repeat the last state.
        None => match replay.last.get(&key) {
            Some(response) if path.contains("/operations/") => response.clone(),
            _ => {
                replay.unexpected.push(key);
                let mut response =
                    axum::response::Response::new(axum::body::Body::from("unexpected request"));
                *response.status_mut() = axum::http::StatusCode::IM_A_TEAPOT;
                return response;
            }
        },
    };
    let mut builder = axum::http::Response::builder().status(recorded.status.code);
    for (name, values) in &recorded.headers {
        let lower = name.to_lowercase();
        if matches!(
            lower.as_str(),
            "content-encoding" | "content-length" | "transfer-encoding"
        ) {
            continue;
        }
        for value in values {
            let value = match lower.as_str() {
                // Point the operation links at the replay server, and do not make the test wait.
                "location" => rehost(value, &replay.origin),
                "retry-after" => "0".to_string(),
                _ => value.clone(),
            };
            builder = builder.header(name.as_str(), value);
        }
    }
    builder
        .body(axum::body::Body::from(
            recorded.body.string.unwrap_or_default(),
        ))
        .expect("response")
}

fn rehost(url: &str, origin: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(parsed) => {
            let mut rest = parsed.path().to_string();
            if let Some(query) = parsed.query() {
                rest.push('?');
                rest.push_str(query);
            }
            format!("{origin}{rest}")
        }
        Err(_) => url.to_string(),
    }
}

/// The requests the client itself sends: not operation polls or results, and not the
/// repeat of a request that was answered 429.
fn initiating(cassette: &Cassette) -> Vec<&Interaction> {
    let mut out = Vec::new();
    let mut previous: Option<&Interaction> = None;
    for interaction in &cassette.interactions {
        let is_poll = interaction.request.uri.contains("/v1/operations/");
        let is_retry = previous.is_some_and(|p| {
            p.response.status.code == 429
                && key(&p.request.method, &p.request.uri)
                    == key(&interaction.request.method, &interaction.request.uri)
        });
        if !is_poll && !is_retry {
            out.push(interaction);
        }
        previous = Some(interaction);
    }
    out
}

/// The status a request finally got: after its 429s, and after its LRO when it was a 202.
fn final_status(cassette: &Cassette, index: usize) -> u16 {
    let first = &cassette.interactions[index];
    let mut status = first.response.status.code;
    let mut next = index + 1;
    while status == 429 {
        status = cassette.interactions[next].response.status.code;
        next += 1;
    }
    status
}

async fn replay_cassette(path: &Path) {
    let cassette = cassette(&path.file_name().expect("name").to_string_lossy());
    let (origin, state) = serve(&cassette).await;
    let auth = Arc::new(StaticToken::new(Secret::new("replay-token"), "test"));
    let tracer = std::env::var_os("REPLAY_TRACE").map(|_| {
        fabsh_client::output::trace_to_stderr();
        fabsh_client::output::Tracer
    });
    let api = ApiClient::new(&origin, auth, tracer, Arc::new(Progress::hidden())).expect("client");
    let name = path
        .file_name()
        .expect("name")
        .to_string_lossy()
        .to_string();
    for interaction in initiating(&cassette) {
        let index = cassette
            .interactions
            .iter()
            .position(|i| std::ptr::eq(i, interaction))
            .expect("index");
        let request = &interaction.request;
        let url = reqwest::Url::parse(&request.uri).expect("uri");
        let mut req = Req::new(
            Method::from_bytes(request.method.as_bytes()).expect("method"),
            url.path().trim_start_matches("/v1"),
        );
        req.query = url
            .query_pairs()
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        if let Some(body) = request.body.as_deref().filter(|b| !b.is_empty()) {
            req = req.body(serde_json::from_str(body).unwrap_or(Value::String(body.to_string())));
        }
        let status = final_status(&cassette, index);
        let outcome = api.lro(req).await;
        match outcome {
            Ok(_) => assert!(
                status < 400,
                "{name}: {} {} succeeded but was recorded as {status}",
                request.method,
                request.uri
            ),
            Err(err) => {
                let recorded: Value = serde_json::from_str(
                    cassette.interactions[index..]
                        .iter()
                        .find(|i| i.response.status.code >= 400 && i.response.status.code != 429)
                        .and_then(|i| i.response.body.string.as_deref())
                        .unwrap_or("{}"),
                )
                .unwrap_or(Value::Null);
                assert!(
                    status >= 400 || recorded.get("errorCode").is_some(),
                    "{name}: {} {} failed ({err}) but was recorded as {status}",
                    request.method,
                    request.uri
                );
                assert_eq!(
                    err.code.as_deref(),
                    recorded["errorCode"].as_str(),
                    "{name}: error code of {}",
                    request.uri
                );
                assert_eq!(
                    err.request_id.as_deref(),
                    recorded["requestId"].as_str(),
                    "{name}: request id"
                );
            }
        }
    }
    let replay = state.lock().expect("lock");
    assert!(
        replay.unexpected.is_empty(),
        "{name}: requests not in the recording: {:?}",
        replay.unexpected
    );
    // fab asks for `/result` even when the finished operation links none; the service then
    // says OperationHasNoResult. Not asking is the documented behaviour.
    let needless_result = |response: &RecordedResponse| {
        response
            .body
            .string
            .as_deref()
            .is_some_and(|body| body.contains("OperationHasNoResult"))
    };
    let left: Vec<&String> = replay
        .queues
        .iter()
        .filter(|(_, queue)| queue.iter().any(|response| !needless_result(response)))
        .map(|(key, _)| key)
        .collect();
    assert!(
        left.is_empty(),
        "{name}: recorded requests the client never sent: {left:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_recording_replays_through_the_http_core() {
    let cassettes = crate::support::recording_files();
    assert!(
        cassettes.len() >= 11,
        "expected the recordings, found {}",
        cassettes.len()
    );
    // Each cassette has its own server and client, so they replay side by side.
    futures::future::join_all(cassettes.iter().map(|path| replay_cassette(path))).await;
}
