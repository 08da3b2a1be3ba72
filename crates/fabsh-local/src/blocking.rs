//! Store work happens off the async worker threads. Every SQLite call can block (the writer's
//! lock, a busy file, a slow disk, a long read), and a worker blocked in one stalls every
//! request and timer queued on it: with as many workers as cores, a few slow calls stopped the
//! whole server (issue 13). So each handler that touches the store runs, after its extractors,
//! as one closure on tokio's blocking pool ([`blocking`] wraps it for the router), and
//! background tasks put their store work there with [`run`].
//!
//! Why this shape:
//! - The blocking pool, not a database thread of our own: the store serves four readers and a
//!   writer at once (WAL), which one thread with a channel would serialise and a thread per
//!   connection would need a scheduler for; the pool grows with demand and reuses its threads,
//!   and the writer's mutex already keeps writes one at a time and short.
//! - Not `block_in_place`: it panics on a current-thread runtime (`#[tokio::test]`, an
//!   embedding application's choice) and stalls everything else in the task.
//! - A whole handler per hop, not each store call: a request makes two to four calls (the
//!   caller's role, a load, a write), so one hop costs less, and the synchronous helpers
//!   (role checks, loads, paging) keep borrowing their arguments. Extractors, the body
//!   included, still run on the async side: a slow client holds no pool thread.

use crate::api_error::{ApiError, REQUEST_ID};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::handler::Handler;
use axum::response::{IntoResponse, Response};
use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;

thread_local! {
    /// Set while this thread runs work [`run`] handed it.
    static ON_POOL: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread runs store work handed off by [`run`] (what a server's store checks).
pub(crate) fn on_pool() -> bool {
    ON_POOL.get()
}

/// Clears [`ON_POOL`] when the work ends, panicking or not: pool threads are shared with
/// whatever else in the process uses `spawn_blocking`.
struct Reset;

impl Drop for Reset {
    fn drop(&mut self) {
        ON_POOL.set(false);
    }
}

/// Runs `work` on tokio's blocking pool and returns its result; the request id of the
/// request being served (if any) goes with it, for error bodies. A panic in `work` is a 500.
pub(crate) async fn run<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    let request_id = REQUEST_ID.try_with(Clone::clone).ok();
    let joined = tokio::task::spawn_blocking(move || {
        ON_POOL.set(true);
        let _reset = Reset;
        match request_id {
            Some(id) => REQUEST_ID.sync_scope(id, work),
            None => work(),
        }
    })
    .await;
    joined.map_err(|err| ApiError::internal(format!("The request failed in the server: {err}")))
}

/// A synchronous handler, run on the blocking pool by [`blocking`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Blocking<F>(F);

/// Serves a route with a synchronous handler: `get(blocking(items::show))`. Its extractors run
/// as usual; the handler itself runs through [`run`].
pub(crate) fn blocking<F>(handler: F) -> Blocking<F> {
    Blocking(handler)
}

/// The `Handler` impls, one per number of extractors, as axum writes its own.
macro_rules! blocking_handler {
    ([$($part:ident),*], $last:ident) => {
        #[allow(non_snake_case, unused_mut)]
        impl<F, S, Res, M, $($part,)* $last> Handler<(M, $($part,)* $last,), S> for Blocking<F>
        where
            F: FnOnce($($part,)* $last,) -> Res + Clone + Send + Sync + 'static,
            S: Send + Sync + 'static,
            Res: IntoResponse,
            $( $part: FromRequestParts<S> + Send + 'static, )*
            $last: FromRequest<S, M> + Send + 'static,
        {
            type Future = Pin<Box<dyn Future<Output = Response> + Send>>;

            fn call(self, request: Request, state: S) -> Self::Future {
                let (mut parts, body) = request.into_parts();
                Box::pin(async move {
                    $(
                        let $part = match $part::from_request_parts(&mut parts, &state).await {
                            Ok(value) => value,
                            Err(rejection) => return rejection.into_response(),
                        };
                    )*
                    let request = Request::from_parts(parts, body);
                    let $last = match $last::from_request(request, &state).await {
                        Ok(value) => value,
                        Err(rejection) => return rejection.into_response(),
                    };
                    let handler = self.0;
                    run(move || handler($($part,)* $last,).into_response())
                        .await
                        .unwrap_or_else(IntoResponse::into_response)
                })
            }
        }
    };
}

blocking_handler!([], T1);
blocking_handler!([T1], T2);
blocking_handler!([T1, T2], T3);
blocking_handler!([T1, T2, T3], T4);
blocking_handler!([T1, T2, T3, T4], T5);
blocking_handler!([T1, T2, T3, T4, T5], T6);
blocking_handler!([T1, T2, T3, T4, T5, T6], T7);

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn work_runs_on_the_pool_with_the_request_id() {
        assert!(!on_pool());
        let seen = REQUEST_ID
            .scope("r-1".to_string(), async {
                run(|| (on_pool(), crate::api_error::current_request_id())).await
            })
            .await
            .expect("ran");
        assert_eq!(seen, (true, "r-1".to_string()));
        assert!(!on_pool());
        let failed = run(|| -> () { panic!("boom") }).await.expect_err("a 500");
        assert_eq!(failed.status, axum::http::StatusCode::INTERNAL_SERVER_ERROR);
    }
}
