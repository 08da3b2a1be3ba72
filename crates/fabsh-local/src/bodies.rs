//! Reading request bodies within caps. A body is read only when a handler asks for it, after
//! its parts (the caller's token among them) were accepted; then a declared `Content-Length`
//! over the cap is refused (413) before a byte is read, a streamed body is cut off at the cap,
//! and a body that stalls is given up on. Three caps: the sign-in endpoints' forms are small
//! and must arrive whole within the header timeout (anyone may send them); API bodies are JSON
//! of a few fields; only item definitions (creates, updates, bulk imports) and table loads,
//! all from authenticated callers, may be large, and a few of those are read at a time.

use super::api_error::ApiError;
use super::state::Shared;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{StatusCode, header};
use hyper::body::Body as _;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// Largest body of the sign-in endpoints (token, device code): a form of a few fields, a
/// client assertion at most.
pub(crate) const SIGN_IN_LIMIT: usize = 64 * 1024;
/// Largest body of an API request that carries no definition.
pub(crate) const API_LIMIT: usize = 4 * 1024 * 1024;
/// Largest body carrying definitions or table data: the service takes bulk imports of up to
/// 128 MiB, and JSON around base64 parts adds some.
pub(crate) const LARGE_LIMIT: usize = 160 * 1024 * 1024;

/// Bodies over `API_LIMIT` (or of unknown length) read and held at once. Each costs a few
/// times its size while it is parsed, and what the allocator got for it stays with the
/// process afterwards; so this bounds the peak and what is kept.
const LARGE_AT_ONCE: usize = 2;
/// How long a large body waits for its turn before the request is answered 503.
const LARGE_WAIT: Duration = Duration::from_secs(60);

/// Marks a request whose caller presented a valid token (set by the `Caller` extractor and
/// the admin check); large bodies are read only for such requests.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Authenticated;

/// The turns for reading large bodies.
#[derive(Debug)]
pub(crate) struct LargeBodies(Arc<Semaphore>);

impl Default for LargeBodies {
    fn default() -> Self {
        LargeBodies(Arc::new(Semaphore::new(LARGE_AT_ONCE)))
    }
}

/// A large body's turn; held until the handler is done with what was read.
#[derive(Debug)]
pub(crate) struct Turn {
    _permit: Option<OwnedSemaphorePermit>,
}

/// The declared length, when the request declares one.
fn declared_length(request: &Request) -> Option<u64> {
    request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse().ok())
}

fn too_large(limit: usize) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "RequestEntityTooLarge",
        format!("The request body is larger than the {limit} bytes this endpoint accepts"),
    )
    .retriable(false)
}

fn stalled() -> ApiError {
    ApiError::new(
        StatusCode::REQUEST_TIMEOUT,
        "RequestTimeout",
        "The request body did not arrive in time",
    )
}

/// Reads a whole body of at most `limit` bytes. Each wait for more of it is bounded by the
/// header timeout, and with `whole` all of it must arrive within that timeout.
pub(crate) async fn read(
    state: &Shared,
    request: Request,
    limit: usize,
    whole: bool,
) -> Result<Bytes, ApiError> {
    let declared = declared_length(&request);
    if declared.is_some_and(|length| length > limit as u64) {
        return Err(too_large(limit));
    }
    let stall = Duration::from_millis(state.faults.header_timeout_ms);
    let deadline = whole.then(|| Instant::now() + stall);
    // One buffer of the declared size: collecting the pieces and joining them after would
    // hold the body twice.
    let capacity = declared.map_or(0, |length| length as usize);
    let mut buffer = Vec::with_capacity(capacity);
    let mut body: Body = request.into_body();
    loop {
        let mut wait_until = Instant::now() + stall;
        if let Some(deadline) = deadline {
            wait_until = wait_until.min(deadline);
        }
        let next = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx));
        let frame = match tokio::time::timeout_at(wait_until, next).await {
            Err(_) => return Err(stalled()),
            Ok(None) => break,
            Ok(Some(Err(err))) => {
                return Err(ApiError::invalid_body(format!(
                    "The request body could not be read: {err}"
                )));
            }
            Ok(Some(Ok(frame))) => frame,
        };
        if let Ok(data) = frame.into_data() {
            if buffer.len() + data.len() > limit {
                return Err(too_large(limit));
            }
            buffer.extend_from_slice(&data);
        }
    }
    Ok(Bytes::from(buffer))
}

/// Reads a body that may be large, for an authenticated caller only, waiting for its turn
/// when it is (or may be) over `API_LIMIT`.
pub(crate) async fn read_large(
    state: &Shared,
    request: Request,
) -> Result<(Bytes, Turn), ApiError> {
    if request.extensions().get::<Authenticated>().is_none() {
        return Err(ApiError::unauthorized());
    }
    let declared = declared_length(&request);
    if declared.is_some_and(|length| length > LARGE_LIMIT as u64) {
        return Err(too_large(LARGE_LIMIT));
    }
    let turn = if declared.is_some_and(|length| length <= API_LIMIT as u64) {
        Turn { _permit: None }
    } else {
        let waited = tokio::time::timeout(LARGE_WAIT, state.large_bodies.0.clone().acquire_owned());
        match waited.await {
            Ok(Ok(permit)) => Turn {
                _permit: Some(permit),
            },
            // The semaphore is never closed; a timeout is the one way here.
            _ => {
                return Err(ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "ServiceUnavailable",
                    "Too many large requests are being received; try again shortly",
                )
                .retriable(true)
                .header(header::RETRY_AFTER, "5"));
            }
        }
    };
    let bytes = read(state, request, LARGE_LIMIT, false).await?;
    Ok((bytes, turn))
}
