//! Long-running operations: an inline 200/201, or a 202 whose operation is polled until it
//! succeeds or fails, then its result fetched when it has one.

use super::ApiClient;
use super::request::{Req, Resp};
use crate::error::{Error, ErrorKind, Result};
use fabsh_http::retry;
use reqwest::Url;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::time::Instant;

/// Shortest wait between polls.
const FIRST_POLL: Duration = Duration::from_millis(25);
/// The first poll never waits longer than this, whatever `Retry-After` says.
const FIRST_POLL_CAP: Duration = Duration::from_millis(500);

/// How a long-running call ended.
#[derive(Debug)]
pub enum LroOutcome {
    /// Finished: the result, or `Null` for operations without one.
    Done(Value),
    /// Still running, because `--no-wait` was given: `{operationId, status, location}`.
    Pending(Value),
}

impl LroOutcome {
    /// The result or the pending operation, whichever it is.
    pub fn into_value(self) -> Value {
        match self {
            LroOutcome::Done(value) | LroOutcome::Pending(value) => value,
        }
    }
}

/// A 202's operation.
struct Operation {
    id: String,
    url: Url,
    retry_after: Duration,
}

/// How a long-running call ended, with the result's raw response (for bodies too large to
/// parse into a `Value`, such as a definition written to a folder).
#[derive(Debug)]
pub enum LroResponse {
    /// Finished: the response carrying the result, or `None` for operations without one.
    Done(Option<Resp>),
    /// Still running, because `--no-wait` was given: `{operationId, status, location}`.
    Pending(Value),
}

impl ApiClient {
    /// Sends a request that may start a long-running operation and waits for it (unless
    /// `--no-wait`), within `--lro-timeout`.
    pub async fn lro(&self, req: Req) -> Result<LroOutcome> {
        Ok(match self.lro_response(req).await? {
            LroResponse::Done(Some(resp)) => LroOutcome::Done(resp.json()?),
            LroResponse::Done(None) => LroOutcome::Done(Value::Null),
            LroResponse::Pending(pending) => LroOutcome::Pending(pending),
        })
    }

    /// As [`ApiClient::lro`], returning the result's response unparsed.
    pub async fn lro_response(&self, req: Req) -> Result<LroResponse> {
        // A change made by an operation lands while it runs: a name list fetched meanwhile
        // may miss it, so the lists the request changes are forgotten again once it ends.
        let written = match req.mutates() {
            true => Some((
                self.url_for(&req.target)?,
                req.method.clone(),
                req.query.clone(),
            )),
            false => None,
        };
        let resp = self.send(req).await?;
        if resp.status != 202 {
            return Ok(LroResponse::Done(Some(resp)));
        }
        let op = self.operation_of(&resp)?;
        if self.options.no_wait {
            // What the operation will change is not known yet.
            if let Some((url, method, query)) = &written {
                self.after_write(method, query, url, None).await;
            }
            return Ok(LroResponse::Pending(json!({
                "operationId": op.id,
                "status": "Running",
                "location": op.url.as_str(),
            })));
        }
        let changes = written.is_some();
        let outcome = self.wait_for(op, changes).await;
        if let Some((url, method, query)) = &written {
            // A create's result is the new item.
            let answer = match &outcome {
                Ok(Some(result)) => result.json().ok(),
                _ => None,
            };
            self.after_write(method, query, url, answer.as_ref()).await;
        }
        outcome.map(LroResponse::Done)
    }

    /// Follows an accepted operation to its end. When it `changes` something, losing track of
    /// it (the service stops answering, the wait runs out) leaves unknown whether the change
    /// was made, and the error says so (`outcome_unknown`): the request was sent and accepted,
    /// so it is not a plain failure. The operation's own verdict (Failed) is a plain failure.
    async fn wait_for(&self, op: Operation, changes: bool) -> Result<Option<Resp>> {
        let unsettled = |err: Error| {
            if changes {
                err.with_outcome_unknown()
            } else {
                err
            }
        };
        let deadline = Instant::now() + self.options.lro_timeout;
        let label = self
            .options
            .label
            .clone()
            .unwrap_or_else(|| format!("operation {}", op.id));
        let spinner = self.progress.spinner(label);
        let mut delay = if op.retry_after.is_zero() {
            FIRST_POLL
        } else {
            op.retry_after.min(FIRST_POLL_CAP)
        };
        let mut cap = op.retry_after.max(Duration::from_secs(1));
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Err(unsettled(Error::new(
                    ErrorKind::Timeout,
                    format!(
                        "operation {} was still running after {} s",
                        op.id,
                        self.options.lro_timeout.as_secs()
                    ),
                )
                .with_hint(format!(
                    "it may still finish: check with `fabsh api GET /operations/{}`, or allow longer with --lro-timeout",
                    op.id
                ))));
            }
            tokio::time::sleep(delay.min(deadline - now)).await;
            let resp = self
                .send(Req::get(op.url.as_str()))
                .await
                .map_err(unsettled)?;
            let state = resp.json()?;
            let status = state
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("Undefined");
            let percent = state.get("percentComplete").and_then(Value::as_u64);
            spinner.update(status, percent);
            match status {
                "Succeeded" | "Completed" => {
                    spinner.finish();
                    return self.result_of(&op, &resp).await.map_err(unsettled);
                }
                "Failed" | "Cancelled" | "Canceled" => {
                    spinner.finish();
                    return Err(operation_error(&op.id, status, &state));
                }
                _ => {
                    if let Some(wait) = retry::retry_after(&resp.headers) {
                        cap = wait.max(Duration::from_secs(1));
                    }
                    delay = (delay * 2).min(cap);
                }
            }
        }
    }

    /// The result of a succeeded operation: its `Location` when it gives one, else none.
    async fn result_of(&self, op: &Operation, state: &Resp) -> Result<Option<Resp>> {
        let Some(location) = state.header("location") else {
            return Ok(None);
        };
        let url = self.url_for(location)?;
        if url == op.url {
            return Ok(None);
        }
        match self.send(Req::get(url.as_str())).await {
            Ok(resp) => Ok(Some(resp)),
            Err(err) if err.has_code("OperationHasNoResult") => Ok(None),
            Err(err) => Err(err),
        }
    }

    fn operation_of(&self, resp: &Resp) -> Result<Operation> {
        let id = resp.header("x-ms-operation-id").map(String::from);
        let url = match (resp.header("location"), &id) {
            (Some(location), _) => match self.url_for(location) {
                Ok(url) => url,
                Err(err) => match &id {
                    Some(id) => self.url_for(&format!("/operations/{id}"))?,
                    None => return Err(err),
                },
            },
            (None, Some(id)) => self.url_for(&format!("/operations/{id}"))?,
            (None, None) => {
                return Err(Error::runtime(
                    "the service accepted the request (202) but named no operation to follow",
                ));
            }
        };
        let id = id.unwrap_or_else(|| {
            url.path_segments()
                .and_then(|mut segments| segments.rfind(|s| !s.is_empty()))
                .unwrap_or_default()
                .to_string()
        });
        Ok(Operation {
            id,
            url,
            retry_after: retry::retry_after(&resp.headers).unwrap_or(Duration::ZERO),
        })
    }
}

fn operation_error(id: &str, status: &str, state: &Value) -> Error {
    let error = state.get("error").filter(|error| error.is_object());
    let text = |key: &str| error.and_then(|e| e.get(key)).and_then(Value::as_str);
    let message = text("message").unwrap_or("the operation failed without saying why");
    let mut err = Error::new(
        ErrorKind::Api,
        format!("operation {id} {}: {message}", status.to_lowercase()),
    )
    .with_request_id(text("requestId").map(String::from));
    if let Some(code) = text("errorCode").or_else(|| text("code")) {
        err = err.with_code(code);
    }
    if let Some(details) = error
        .and_then(|e| e.get("moreDetails"))
        .and_then(Value::as_array)
    {
        for detail in details {
            if let Some(message) = detail.get("message").and_then(Value::as_str) {
                err = err.with_cause(message);
            }
        }
    }
    err
}
