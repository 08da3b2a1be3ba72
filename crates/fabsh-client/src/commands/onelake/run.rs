//! The per-file loop of `cp`, `mv`, `rm` and `sync`: each file's work, `--concurrency` at a
//! time, a row per file in the files' order, a progress bar on a terminal, and Ctrl-C taken
//! as "stop and report": files in flight are dropped (an upload is never committed, a
//! download's temporary file goes), files not started are not started, and every row says
//! what became of its file; the command then ends as cancelled (exit 130).

use crate::bridge::{CancellationToken, Interruptible};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::output::TransferBar;
use crate::reply::Reply;
use fabsh_api::onelake::Sending;
use futures::StreamExt;
use serde_json::Value;

/// The status of a file whose work was stopped by Ctrl-C.
pub(super) const INTERRUPTED: &str = "interrupted";

/// One run of per-file work.
pub(super) struct Run {
    at_once: usize,
    /// Blocks of each file an upload sends at once (`onelake::blocks_at_once`).
    blocks_at_once: usize,
    /// Takes the first Ctrl-C while the run lives.
    stop: Interruptible,
    bar: TransferBar,
}

impl Run {
    /// A run of `files` files (of `bytes` in all, when known), `at_once` at a time, shown as
    /// `label` on a terminal.
    pub(super) fn new(
        ctx: &Ctx,
        files: usize,
        bytes: Option<u64>,
        at_once: usize,
        label: &str,
    ) -> Run {
        Run {
            at_once: at_once.max(1),
            blocks_at_once: fabsh_api::onelake::blocks_at_once(files, at_once),
            stop: ctx.bridge().interruptible(),
            bar: ctx
                .progress()
                .transfer(files as u64, bytes, label.to_string()),
        }
    }

    /// How a file of this run is sent: replacing one there or not, counted on the bar.
    pub(super) fn sending<'a>(
        &self,
        overwrite: bool,
        sha256: Option<&'a str>,
        counted: &'a (dyn Fn(u64) + Send + Sync),
    ) -> Sending<'a> {
        Sending {
            overwrite,
            sha256,
            sent: counted,
            blocks_at_once: self.blocks_at_once,
        }
    }

    /// Counts bytes sent or received, for the bar.
    pub(super) fn bytes(&self, bytes: u64) {
        self.bar.add_bytes(bytes);
    }

    /// Runs the work of every item (`work`, one future per item, in their order): a row per
    /// item, in that order, its own or `failure`'s (given [`ErrorKind::Cancelled`] for an
    /// item Ctrl-C stopped or kept from starting), and the errors of those that failed or were
    /// stopped.
    pub(super) async fn each<T>(
        &self,
        items: &[T],
        work: impl Iterator<Item = impl Future<Output = Result<Value>>>,
        failure: impl Fn(&T, &Error) -> Value,
    ) -> (Vec<Value>, Vec<Error>) {
        // A loop and a named async fn, not `map` with a closure: the handler's future must be
        // Send, which the compiler cannot prove through a closure over borrowed futures.
        let mut guarded = Vec::new();
        for job in work {
            guarded.push(guard(self.stop.token().clone(), &self.bar, job));
        }
        let outcomes: Vec<Result<Value>> = futures::stream::iter(guarded)
            .buffered(self.at_once)
            .collect()
            .await;
        let mut errors = Vec::new();
        let rows = items
            .iter()
            .zip(outcomes)
            .map(|(item, outcome)| {
                outcome.unwrap_or_else(|err| {
                    let row = failure(item, &err);
                    errors.push(err);
                    row
                })
            })
            .collect();
        (rows, errors)
    }
}

/// `job`, unless Ctrl-C (`stop`) comes first; counted on the bar either way.
async fn guard(
    stop: CancellationToken,
    bar: &TransferBar,
    job: impl Future<Output = Result<Value>>,
) -> Result<Value> {
    let outcome = tokio::select! {
        // Checked first: a file not yet started when Ctrl-C came is not started.
        biased;
        () = stop.cancelled() => Err(Error::cancelled()),
        outcome = job => outcome,
    };
    bar.file_done();
    outcome
}

/// The status of a failed item's row: stopped by Ctrl-C, or failed.
pub(super) fn failed_status(err: &Error) -> &'static str {
    if err.kind == ErrorKind::Cancelled {
        INTERRUPTED
    } else {
        "failed"
    }
}

/// The rows, and the command's end: cancelled (exit 130) when Ctrl-C stopped the work,
/// partial (exit 5) when some of `total` failed, else success.
pub(super) fn outcome(
    ctx: &Ctx,
    rows: Vec<Value>,
    failed: usize,
    total: usize,
    done: &str,
) -> Reply {
    let interrupted = ctx.bridge().take_interrupted();
    let reply = Reply::json(Value::Array(rows));
    if interrupted {
        return reply.with_failure(Error::new(
            ErrorKind::Cancelled,
            format!("cancelled: {failed} of {total} file(s) not {done}"),
        ));
    }
    if failed == 0 {
        return reply;
    }
    reply.with_failure(Error::new(
        ErrorKind::Partial,
        format!("{failed} of {total} file(s) not {done}"),
    ))
}

/// `--concurrency` as a count of files (the registry checked its range).
pub(super) fn files_at_once(concurrency: Option<i64>) -> usize {
    concurrency
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(DEFAULT_FILES_AT_ONCE)
}

/// Files copied at once unless `--concurrency` says otherwise (and about as many blocks in
/// flight in all, so this bounds memory).
pub(crate) const DEFAULT_FILES_AT_ONCE: usize = 4;
