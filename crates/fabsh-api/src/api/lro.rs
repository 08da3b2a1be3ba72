//! Long-running operations: an inline 200/201, or a 202 whose operation is polled until it
//! succeeds or fails, then its result fetched when it has one.

use super::ApiClient;
use super::request::{Req, Resp};
use crate::error::{Error, ErrorKind, Result};
use fabsh_http::retry;
use fabsh_model::wire::{ErrorResponse, OperationState, OperationStatus};
use reqwest::Url;
use serde::de::DeserializeOwned;
use serde_json::Value;
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
    /// Still running, because `--no-wait` was given.
    Pending(PendingOperation),
}

impl LroOutcome {
    /// The result or the pending operation, whichever it is.
    pub fn into_value(self) -> Value {
        match self {
            LroOutcome::Done(value) => value,
            LroOutcome::Pending(pending) => pending.into(),
        }
    }

    /// The result read as `T` (`what` names it: "the new folder"); an operation left running
    /// (`--no-wait`) has none yet, which is an error saying so.
    pub fn done_as<T: DeserializeOwned>(self, what: &str) -> Result<T> {
        match self {
            LroOutcome::Done(value) => super::typed::read(value, what),
            LroOutcome::Pending(pending) => Err(Error::runtime(format!(
                "{what} is not there yet: operation {} is still running",
                pending.operation_id
            ))),
        }
    }
}

/// What `--no-wait` prints of an operation left running: where to follow it.
#[derive(Debug, Clone)]
pub struct PendingOperation {
    pub operation_id: String,
    /// Always `Running`: it was not waited for.
    pub status: OperationStatus,
    /// The operation's URL (`GET` it for its state).
    pub location: String,
}

impl From<PendingOperation> for Value {
    fn from(pending: PendingOperation) -> Value {
        Value::Object(serde_json::Map::from_iter([
            ("operationId".to_string(), Value::from(pending.operation_id)),
            ("status".to_string(), Value::from(pending.status.as_str())),
            ("location".to_string(), Value::from(pending.location)),
        ]))
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
    /// Still running, because `--no-wait` was given.
    Pending(PendingOperation),
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
        let written = if req.mutates() {
            Some((
                self.url_for(&req.target)?,
                req.method.clone(),
                req.query.clone(),
            ))
        } else {
            None
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
            return Ok(LroResponse::Pending(PendingOperation {
                operation_id: op.id,
                status: OperationStatus::Running,
                location: op.url.to_string(),
            }));
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
            let state: OperationState =
                super::typed::read(resp.json()?, "an operation state").map_err(unsettled)?;
            let status = state.status.as_str();
            spinner.update(status, state.percent_complete.map(u64::from));
            match Ended::of(&state.status) {
                Some(Ended::Succeeded) => {
                    spinner.finish();
                    return self.result_of(&op, &resp).await.map_err(unsettled);
                }
                Some(Ended::Failed) => {
                    spinner.finish();
                    return Err(operation_error(&op.id, status, state.error.as_ref()));
                }
                None => {
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
        // The id only names the operation in messages (its URL is what is followed), so a URL
        // without a last segment leaves it empty rather than refusing the operation.
        let id = id.unwrap_or_else(|| {
            url.path_segments()
                .and_then(|mut segments| segments.rfind(|s| !s.is_empty()))
                // A URL without path segments names no operation.
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

/// How an operation ended, by its status: the swagger's `Succeeded` and `Failed`, and the
/// spellings other Fabric APIs use for the same ends (fabric-cli treats them so too).
enum Ended {
    Succeeded,
    Failed,
}

impl Ended {
    fn of(status: &OperationStatus) -> Option<Ended> {
        match status {
            OperationStatus::Succeeded => Some(Ended::Succeeded),
            OperationStatus::Failed => Some(Ended::Failed),
            OperationStatus::Other(text) => match text.as_str() {
                "Completed" => Some(Ended::Succeeded),
                "Cancelled" | "Canceled" => Some(Ended::Failed),
                _ => None,
            },
            _ => None,
        }
    }
}

fn operation_error(id: &str, status: &str, error: Option<&ErrorResponse>) -> Error {
    let message = error
        .and_then(|e| e.message.as_deref())
        .unwrap_or("the operation failed without saying why");
    let mut err = Error::new(
        ErrorKind::Api,
        format!("operation {id} {}: {message}", status.to_lowercase()),
    )
    .with_request_id(error.and_then(|e| e.request_id.clone()));
    if let Some(code) = error.and_then(ErrorResponse::code) {
        err = err.with_code(code);
    }
    let details = error.and_then(|e| e.more_details.as_deref()).unwrap_or(&[]);
    for message in details.iter().filter_map(|d| d.message.as_deref()) {
        err = err.with_cause(message);
    }
    err
}
