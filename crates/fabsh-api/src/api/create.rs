//! Creating things without ever making two: a create is never resent blindly. When its
//! answer is lost (5xx, timeout, dropped connection) we look for what it would have made
//! before sending it again.

use super::{ApiClient, LroOutcome, Req};
use crate::error::{Error, Result};
use fabsh_http::retry;
use serde_json::Value;
use std::future::Future;

/// How many times a create is sent at most.
const MAX_CREATE_ATTEMPTS: u32 = 4;

/// What a checked create produced.
#[derive(Debug)]
pub struct Created {
    /// The result (or, with `--no-wait`, the pending operation).
    pub outcome: LroOutcome,
    /// True when the answer was lost and the thing was found by looking it up instead.
    pub recovered: bool,
}

impl ApiClient {
    /// Sends a create (possibly long-running). On an ambiguous failure, `find_existing` looks
    /// for the thing by its unique name; found means the earlier attempt worked, not found
    /// means it is safe to send again.
    pub async fn create_checked<F, Fut>(&self, req: Req, find_existing: F) -> Result<Created>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<Option<Value>>>,
    {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let err = match self.lro(req.clone()).await {
                Ok(outcome) => {
                    return Ok(Created {
                        outcome,
                        recovered: false,
                    });
                }
                Err(err) => err,
            };
            // Accepted, then lost track of (its operation could not be followed to the end):
            // looked up once, never sent again while it may still be running.
            if err.outcome_unknown {
                return match find_existing().await {
                    Ok(Some(existing)) => Ok(Created {
                        outcome: LroOutcome::Done(existing),
                        recovered: true,
                    }),
                    _ => Err(err),
                };
            }
            let lost_answer = err.is_ambiguous();
            // A name clash after a lost answer usually means our own earlier attempt won.
            let clash_after_retry = attempt > 1 && is_name_conflict(&err);
            if !lost_answer && !clash_after_retry {
                return Err(err);
            }
            if lost_answer {
                tokio::time::sleep(retry::backoff(attempt)).await;
            }
            // When even the look-up fails (the service went down), nothing settles whether
            // the create took effect: the caller gets the create's error, marked unknown.
            let found = find_existing().await.map_err(|lookup| {
                err.clone()
                    .with_outcome_unknown()
                    .with_cause(format!("could not check whether it was made: {lookup}"))
            })?;
            if let Some(existing) = found {
                return Ok(Created {
                    outcome: LroOutcome::Done(existing),
                    recovered: true,
                });
            }
            if clash_after_retry || attempt >= MAX_CREATE_ATTEMPTS {
                return Err(err);
            }
        }
    }
}

/// True for the service's "that name is taken" answers (400 or 409 by report).
pub fn is_name_conflict(err: &Error) -> bool {
    err.status == Some(409)
        || err
            .code
            .as_deref()
            .is_some_and(|code| code.ends_with("AlreadyInUse") || code.ends_with("AlreadyExists"))
}
