//! The send loop: rate limiter, auth header, retries, 401 refresh, error mapping, traces and
//! the `--dry-run` record. Every request of the process goes through [`ApiClient::send`].

use super::fabric_error;
use super::request::{Req, Resp, Safety};
use super::{ApiClient, dry_run, trusted_hosts};
use crate::error::{Error, Result};
use fabsh_http::retry::{self, MAX_FAILED_ATTEMPTS, MAX_THROTTLED_ATTEMPTS};
use serde_json::Value;
use tokio::time::Instant;

/// The code given to failures where the request was sent but no HTTP answer arrived.
pub(super) const CONNECTION_FAILED: &str = "fabsh.ConnectionFailed";
/// The code given to failures where no connection was made, so nothing was sent.
pub(super) const COULD_NOT_CONNECT: &str = "fabsh.CouldNotConnect";

impl ApiClient {
    /// Sends `req` and returns the successful response, or the error.
    ///
    /// - 429: waits `Retry-After` (through the shared limiter, which also slows everyone
    ///   down) and resends; always safe, the service did not act on the request.
    /// - 5xx and connection failures: resent with jittered backoff only when the request is
    ///   safe to repeat; a create is never resent, since the service may have acted on it.
    /// - 401 `TokenExpired`: asks the token provider for a fresh token once.
    ///
    /// Under `--dry-run` a request that changes something, or that is about something the
    /// dry run only planned, is recorded and answered with a made-up success instead.
    ///
    /// After a request that changed something, or may have (its answer was lost), the name
    /// lists it made stale are forgotten.
    pub async fn send(&self, req: Req) -> Result<Resp> {
        let url = self.url_for(&req.target)?;
        // Cached names the call's lookups handed out are confirmed first (a read may have
        // gone out alongside the checks: then this is its answer).
        if let Some(sent) = self.confirm_before(&req, &url).await? {
            return sent;
        }
        if self.options.dry_run && (req.mutates() || dry_run::names_planned(&req, &url)) {
            return Ok(self.answer_dry_run(&req, &url));
        }
        let outcome = self.send_to(&req, &url).await;
        let acted = match &outcome {
            Ok(_) => true,
            Err(err) => err.is_ambiguous(),
        };
        if req.mutates() && acted {
            self.call.note_write();
            match &outcome {
                // An operation: its result says what changed (see `lro_response`).
                Ok(resp) if resp.status == 202 => self.forget_stale_lists(&url),
                Ok(resp) => {
                    let answer = resp.json().ok();
                    self.after_write(&req.method, &req.query, &url, answer.as_ref())
                        .await;
                }
                Err(_) => self.after_write(&req.method, &req.query, &url, None).await,
            }
        }
        outcome
    }

    /// Forgets the process's cached lists a write to `url` made stale.
    pub(crate) fn forget_stale_lists(&self, url: &reqwest::Url) {
        if let Some(path) = self.path_under_base(url) {
            self.resolver.forget_after_write(&path);
        }
    }

    /// After a write to `url` (answered by `answer`, when it answered with JSON): forgets
    /// the stale lists and tells the name cache what changed.
    pub(crate) async fn after_write(
        &self,
        method: &reqwest::Method,
        query: &[(String, String)],
        url: &reqwest::Url,
        answer: Option<&Value>,
    ) {
        let Some(path) = self.path_under_base(url) else {
            return;
        };
        self.resolver.forget_after_write(&path);
        // Opened even when this process looked nothing up: a new name must reach the file.
        if let Ok(names) = self.names().await {
            names.after_write(method, &path, query, answer);
        }
    }

    /// The send loop of [`ApiClient::send`].
    pub(crate) async fn send_to(&self, req: &Req, url: &reqwest::Url) -> Result<Resp> {
        // Bytes: each attempt shares the one serialized body instead of copying it.
        let body = req.body_bytes()?;
        let mut throttled = 0;
        let mut failed = 0;
        let mut refreshed = false;
        let mut force_refresh = false;
        loop {
            self.limiter.acquire().await;
            let token = self.auth.token(std::mem::take(&mut force_refresh)).await?;
            let mut builder = self
                .http
                .request(req.method.clone(), url.clone())
                .bearer_auth(token.expose());
            if !req.query.is_empty() {
                builder = builder.query(&req.query);
            }
            for (name, value) in &req.headers {
                builder = builder.header(name.as_str(), value.as_str());
            }
            if let Some(timeout) = req.timeout {
                builder = builder.timeout(timeout);
            }
            if let Some(body) = &body {
                builder = builder
                    .header("content-type", "application/json; charset=utf-8")
                    .body(body.clone());
            }
            if let Some(tracer) = &self.tracer {
                tracer.request(&req.method, url, &req.query, body.as_deref());
            }
            let started = Instant::now();
            let outcome = match builder.send().await {
                Ok(response) => {
                    let status = response.status().as_u16();
                    let headers = response.headers().clone();
                    match read_body(response).await {
                        Ok(bytes) => Ok(Resp {
                            status,
                            headers,
                            body: bytes,
                        }),
                        Err(err) => Err(err),
                    }
                }
                Err(err) => Err(err),
            };
            let resp = match outcome {
                Ok(resp) => resp,
                Err(err) => {
                    if let Some(tracer) = &self.tracer {
                        tracer.failure(&err.to_string(), started.elapsed());
                    }
                    // A connection that was never made cannot have reached the service. On
                    // loopback nothing is in between: a refused connection means no server
                    // listens there (a stopped local Fabric), and trying again only waits.
                    let repeatable = (req.safety != Safety::Create || err.is_connect())
                        && !(err.is_connect() && trusted_hosts::is_loopback(url));
                    failed += 1;
                    if repeatable && failed < MAX_FAILED_ATTEMPTS {
                        tokio::time::sleep(retry::backoff(failed)).await;
                        continue;
                    }
                    return Err(network_error(req, url, &err));
                }
            };
            if let Some(tracer) = &self.tracer {
                tracer.response(resp.status, started.elapsed(), &resp.headers, &resp.body);
            }
            match resp.status {
                200..=299 => {
                    self.limiter.on_accepted(started);
                    return Ok(resp);
                }
                429 => {
                    let wait =
                        retry::retry_after(&resp.headers).unwrap_or(retry::DEFAULT_THROTTLE_WAIT);
                    self.limiter.on_throttled(wait);
                    throttled += 1;
                    if throttled < MAX_THROTTLED_ATTEMPTS {
                        continue;
                    }
                }
                401 if !refreshed => {
                    let err = fabric_error::from_response(resp.status, &resp.headers, &resp.body);
                    if err.has_code("TokenExpired") {
                        refreshed = true;
                        force_refresh = true;
                        continue;
                    }
                }
                500..=599 if req.safety != Safety::Create => {
                    self.limiter.on_accepted(started);
                    failed += 1;
                    if failed < MAX_FAILED_ATTEMPTS {
                        let wait = retry::retry_after(&resp.headers)
                            .unwrap_or_else(|| retry::backoff(failed));
                        tokio::time::sleep(wait).await;
                        continue;
                    }
                }
                _ => {}
            }
            return Err(self.api_error(req, &resp));
        }
    }

    fn api_error(&self, req: &Req, resp: &Resp) -> Error {
        let mut err = fabric_error::from_response(resp.status, &resp.headers, &resp.body);
        match resp.status {
            401 => {
                err = err
                    .with_hint(format!(
                        "the credentials from {} were rejected",
                        self.auth.source()
                    ))
                    .with_hint(self.auth.sign_in_hint());
            }
            500..=599 if req.safety == Safety::Create => {
                err = err.with_hint(
                    "the service may or may not have made the change; check before trying again",
                );
            }
            _ => {}
        }
        err
    }
}

/// Largest body size taken from `Content-Length` to reserve memory up front; bigger bodies
/// still arrive, growing the buffer as they do.
const MAX_RESERVED_BODY: u64 = 256 * 1024 * 1024;

/// The whole body, read chunk by chunk into one buffer sized from `Content-Length`: collecting
/// the chunks first and joining them afterwards would hold a large definition twice.
async fn read_body(mut response: reqwest::Response) -> reqwest::Result<bytes::Bytes> {
    let reserved = response
        .content_length()
        .unwrap_or(0)
        .min(MAX_RESERVED_BODY);
    let mut body = Vec::with_capacity(usize::try_from(reserved).unwrap_or(0));
    while let Some(chunk) = response.chunk().await? {
        body.extend_from_slice(&chunk);
    }
    Ok(bytes::Bytes::from(body))
}

fn network_error(req: &Req, url: &reqwest::Url, err: &reqwest::Error) -> Error {
    let what = if err.is_timeout() {
        "timed out"
    } else if err.is_connect() {
        "could not connect"
    } else {
        "failed"
    };
    let code = if err.is_connect() {
        COULD_NOT_CONNECT
    } else {
        CONNECTION_FAILED
    };
    let mut error = Error::runtime(format!("{} {} {what}", req.method, url))
        .with_code(code)
        .with_cause(err);
    if let Some(source) = std::error::Error::source(err) {
        error = error.with_cause(source);
    }
    if req.safety == Safety::Create && !err.is_connect() {
        error = error.with_hint(
            "the service may or may not have made the change; check before trying again",
        );
    } else if err.is_connect() && trusted_hosts::is_loopback(url) {
        error = error.with_hint(format!(
            "nothing listens at {}: a local Fabric server there is not running; start one with `eval \"$(fabsh local serve --detach)\"`, use --local, or unset FABSH_ENDPOINT",
            url.origin().ascii_serialization()
        ));
    } else {
        error =
            error.with_hint("check the endpoint (--endpoint / FABSH_ENDPOINT) and your network");
    }
    error
}

impl Error {
    /// True when a create failed in a way that leaves unknown whether the service acted:
    /// a 5xx, a timeout, or a connection lost after sending (not one never made).
    pub fn is_ambiguous(&self) -> bool {
        match self.status {
            Some(status) => status >= 500,
            None => self.has_code(CONNECTION_FAILED),
        }
    }
}
