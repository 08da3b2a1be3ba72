//! Layers around the handlers: the headers every response carries, the request log behind
//! `GET /_local/requests`, and fault injection on API routes.

use super::api_error::{ApiError, REQUEST_ID};
use super::api_quotas::ApiQuotas;
use super::auth;
use super::clock;
use super::state::Shared;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How many requests `GET /_local/requests` remembers.
const LOG_CAPACITY: usize = 2000;

/// Per-request flags set by the fault layer for handlers to see.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RequestFlags {
    /// The response will be replaced by a 500 after the change is committed.
    pub lost_response: bool,
}

#[derive(Debug, Default)]
struct LogInner {
    total: u64,
    /// Requests per caller (token digest): a count stays true when the tail forgets.
    per_caller: HashMap<String, u64>,
    recent: VecDeque<Logged>,
}

/// One request as the log keeps it.
#[derive(Debug)]
struct Logged {
    method: String,
    path: String,
    query: Option<String>,
    status: u16,
    /// The digest of its bearer token, if it sent one: which caller made it, without keeping
    /// a token in memory longer than the request.
    caller: Option<String>,
}

/// Count and tail of the requests served (except `/_local/*`).
#[derive(Debug, Default)]
pub(crate) struct RequestLog {
    inner: Mutex<LogInner>,
}

impl RequestLog {
    fn record(&self, logged: Logged) {
        // Only counters and a bounded queue live behind this lock.
        let mut inner = crate::locks::lock(&self.inner);
        inner.total += 1;
        if let Some(caller) = &logged.caller {
            *inner.per_caller.entry(caller.clone()).or_insert(0) += 1;
        }
        if inner.recent.len() == LOG_CAPACITY {
            inner.recent.pop_front();
        }
        inner.recent.push_back(logged);
    }

    /// `{"count": N, "requests": [{method, path, query, status}, ...]}`; with a bearer token
    /// given, only that token's requests and count (tests sharing one server each count
    /// their own).
    pub(crate) fn to_json(&self, of_token: Option<&str>) -> Value {
        let inner = crate::locks::lock(&self.inner);
        let caller = of_token.map(auth::secret_digest);
        let theirs = |logged: &&Logged| caller.is_none() || logged.caller == caller;
        let requests: Vec<Value> = inner
            .recent
            .iter()
            .filter(theirs)
            .map(|logged| {
                json!({"method": logged.method, "path": logged.path, "query": logged.query, "status": logged.status})
            })
            .collect();
        let count = match &caller {
            Some(caller) => inner.per_caller.get(caller).copied().unwrap_or(0),
            None => inner.total,
        };
        json!({"count": count, "requests": requests})
    }
}

/// Order in which the service lists headers in `Access-Control-Expose-Headers`.
const EXPOSABLE: [&str; 4] = ["Location", "Retry-After", "ETag", "x-ms-operation-id"];

/// Outermost layer: request id (header and error bodies), exposed headers, JSON content type
/// by default, and the request log.
pub(crate) async fn common(State(state): State<Shared>, request: Request, next: Next) -> Response {
    let request_id = uuid::Uuid::new_v4().to_string();
    let method = request.method().clone();
    let uri = request.uri().clone();
    let caller = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(auth::secret_digest);
    let mut response = REQUEST_ID
        .scope(request_id.clone(), next.run(request))
        .await;
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        headers.insert("RequestId", value);
    }
    let mut exposed = String::from("RequestId");
    for name in EXPOSABLE {
        if headers.contains_key(name) {
            exposed.push(',');
            exposed.push_str(name);
        }
    }
    if let Ok(value) = HeaderValue::from_str(&exposed) {
        headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, value);
    }
    if !headers.contains_key(header::CONTENT_TYPE) {
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
    }
    if !uri.path().starts_with("/_local/") {
        state.requests.record(Logged {
            method: method.to_string(),
            path: uri.path().to_string(),
            query: uri.query().map(str::to_string),
            status: response.status().as_u16(),
            caller,
        });
    }
    response
}

/// API-only layer: latency, quota (429), injected 5xx before any change, and lost responses
/// or a crash after the change is committed.
pub(crate) async fn faults(
    State(state): State<Shared>,
    mut request: Request,
    next: Next,
) -> Response {
    let faults = &state.faults;
    if faults.latency_ms > 0 {
        super::faults::precise_sleep(Duration::from_millis(faults.latency_ms)).await;
    }
    if faults.quota_rps > 0
        && let Err(wait) = state.quota.admit(faults.quota_rps, Instant::now())
    {
        return throttled(wait);
    }
    if faults.per_api_quotas
        && let Err(wait) = per_api_quota(&state, &request)
    {
        return throttled(wait);
    }
    let errors = state.spreads.errors(request.method());
    if errors.next(faults.error_rate) {
        // Alternate the two statuses clients treat alike (by count, not by chance).
        let error = if errors.picked() % 2 == 1 {
            ApiError::internal("An internal error occurred.")
        } else {
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "ServiceUnavailable",
                "The service is temporarily unavailable.",
            )
            .retriable(true)
        };
        return error.into_response();
    }
    let mutating = matches!(
        *request.method(),
        Method::POST | Method::PUT | Method::PATCH | Method::DELETE
    );
    let lost = mutating && state.spreads.lost_responses.next(faults.lost_response_rate);
    request.extensions_mut().insert(RequestFlags {
        lost_response: lost,
    });
    let response = next.run(request).await;
    if mutating
        && response.status().is_success()
        && state.spreads.crash_now(faults.crash_after_writes)
    {
        // A crash, not a shutdown: the change is committed, its answer never leaves, every
        // open connection drops and new ones are refused, as when the process dies.
        std::process::exit(super::faults::CRASH_STATUS);
    }
    if lost && response.status().is_success() {
        return ApiError::internal("An internal error occurred.").into_response();
    }
    response
}

/// The per-API quota of the request's caller; requests without a valid token are left for
/// the handler to refuse (401), uncounted.
fn per_api_quota(state: &Shared, request: &Request) -> Result<(), Duration> {
    let path = request.uri().path();
    if !ApiQuotas::applies(path) {
        return Ok(());
    }
    let caller = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split_once(' '))
        .and_then(|(_, token)| auth::verify(state, token.trim()).ok());
    match caller {
        Some(claims) => state.api_quotas.admit(&claims.oid, path, Instant::now()),
        None => Ok(()),
    }
}

/// The recorded 429: `RequestBlocked`, whole-second `Retry-After` of at least 1, the
/// "blocked until" time in the message and `isRetriable: true` (recorded since 2026-04).
fn throttled(wait: Duration) -> Response {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let seconds = seconds.max(1);
    let until = clock::now_nanos().saturating_add((seconds as i64).saturating_mul(1_000_000_000));
    ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "RequestBlocked",
        format!(
            "Request is blocked by the upstream service until: {} (UTC)",
            clock::blocked_until(until)
        ),
    )
    .retriable(true)
    .header(header::RETRY_AFTER, seconds.to_string())
    .into_response()
}
