//! Following a run to its end (`job run --wait`): wait as long as the service's
//! `Retry-After` says before each look (never longer than the time left), show the status on
//! the progress line, stop at a final status or when `--timeout` passes. The first Ctrl-C
//! stops the wait: at a terminal the user is asked whether to cancel the run; elsewhere the
//! run is left running, and the error says which run and how to follow it.

use super::run::NextCommands;
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::output;
use fabsh_api::api::jobs::{self, Started};
use fabsh_model::jobs::JobInstance;
use std::time::Duration;
use tokio::time::Instant;

/// The wait between looks when the service names none (or names 0).
const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// The shortest wait between looks, so a `Retry-After: 0` does not spin.
const MIN_POLL: Duration = Duration::from_millis(100);

/// How a wait ended.
pub(super) enum Waited {
    /// The run reached a final status.
    Ended(JobInstance),
    /// `--timeout` passed first; the run as last seen.
    TimedOut(JobInstance),
}

fn poll_wait(retry_after: Option<Duration>) -> Duration {
    match retry_after {
        Some(wait) if !wait.is_zero() => wait.max(MIN_POLL),
        Some(_) => MIN_POLL,
        None => DEFAULT_POLL,
    }
}

/// Follows `started` until it ends or `timeout` passes.
pub(super) async fn follow(
    ctx: &Ctx,
    started: &Started,
    timeout: Option<Duration>,
    next: &NextCommands,
) -> Result<Waited> {
    let api = ctx.api();
    let deadline = timeout.map(|t| Instant::now() + t);
    let interrupt = ctx.bridge().interruptible();
    let spinner = api.progress().spinner(format!("run {}", started.id));
    let mut wait = poll_wait(Some(started.retry_after));
    loop {
        let sleep = match deadline {
            Some(deadline) => wait.min(deadline.saturating_duration_since(Instant::now())),
            None => wait,
        };
        tokio::select! {
            () = interrupt.token().cancelled() => {
                spinner.finish();
                drop(interrupt);
                return Err(interrupted(ctx, started, next).await);
            }
            () = tokio::time::sleep(sleep) => {}
        }
        let (instance, retry_after) = jobs::poll(api, &started.url)
            .await
            .map_err(|err| lost_track(err, started, next))?;
        spinner.update(instance.status.as_str(), None);
        if instance.status.is_final() {
            spinner.finish();
            return Ok(Waited::Ended(instance));
        }
        if deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            spinner.finish();
            return Ok(Waited::TimedOut(instance));
        }
        wait = poll_wait(retry_after);
    }
}

/// How to look at the run, or stop it.
fn follow_hint(next: &NextCommands) -> String {
    format!(
        "follow it with `{}`, or cancel it with `{}`",
        next.show, next.cancel
    )
}

/// A look at the run that failed (the server went away, the token expired): the run was
/// started and may still be running, so the error names it.
fn lost_track(err: Error, started: &Started, next: &NextCommands) -> Error {
    err.with_cause(format!(
        "stopped waiting; run {} was started and may still be running",
        started.id
    ))
    .with_hint(follow_hint(next))
}

/// Ctrl-C while waiting: cancel the run if the person at the terminal says so, else leave
/// it running; either way the command ends as cancelled (exit 130). After a SIGTERM nobody
/// is asked: the run is left running and named.
async fn interrupted(ctx: &Ctx, started: &Started, next: &NextCommands) -> Error {
    let id = started.id.clone();
    let answer = if ctx.bridge().was_terminated() {
        None
    } else {
        let question = format!("Stopped waiting. Cancel run {id} too?");
        tokio::task::spawn_blocking(move || output::ask_at_terminal(&question))
            .await
            .ok()
            .flatten()
    };
    match answer {
        Some(true) => {
            let cancel = cancel_by_url(ctx, started).await;
            match cancel {
                Ok(()) => Error::new(ErrorKind::Cancelled, format!("run {id} was cancelled")),
                Err(err) => Error::new(
                    ErrorKind::Cancelled,
                    format!(
                        "stopped waiting; cancelling run {id} failed, so it may still be running"
                    ),
                )
                .with_cause(err.message.clone())
                .with_hint(format!("check it with `{}`", next.show)),
            }
        }
        _ => Error::new(
            ErrorKind::Cancelled,
            format!("stopped waiting; run {id} is left running"),
        )
        .with_hint(follow_hint(next)),
    }
}

/// Cancels the run `started` follows (its URL plus `/cancel`).
async fn cancel_by_url(ctx: &Ctx, started: &Started) -> Result<()> {
    let mut url = started.url.clone();
    url.set_path(&format!("{}/cancel", url.path().trim_end_matches('/')));
    let req = fabsh_api::api::request::Req::new(reqwest::Method::POST, url.as_str());
    ctx.api().send(req).await?;
    Ok(())
}
