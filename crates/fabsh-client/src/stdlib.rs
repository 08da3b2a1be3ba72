//! Commands that run stdlib functions (`item bulk-create` runs `bulk::create`, so users can
//! read and copy the loop) reach the script host through this trait: the front end that
//! embeds the host gives the context an implementation ([`Ctx::with_stdlib`]).

use crate::context::Ctx;
use crate::error::{Error, Result};
use serde_json::Value;
use std::sync::mpsc::{Receiver, SyncSender};
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

/// A stdlib function and its arguments, as JSON.
pub type Call = (&'static str, Vec<Value>);

/// Runs stdlib functions for commands.
pub trait Stdlib: Send + Sync {
    /// Starts a call on `ctx`: the host gets ready (builds its engine) while the command
    /// does its own requests, then [`PendingCall::call`] makes the call.
    fn prepare(&self, ctx: Ctx) -> PendingCall;
}

/// A stdlib call whose host is getting ready on a blocking thread; a call never made just
/// ends the thread.
pub struct PendingCall {
    call: SyncSender<Call>,
    answer: JoinHandle<Option<Result<Value>>>,
}

impl PendingCall {
    /// Runs `work` on a blocking thread of `handle`'s runtime: it gets ready, then takes the
    /// call from the receiver (none when the call is dropped unmade) and answers it.
    pub fn spawn(
        handle: &Handle,
        work: impl FnOnce(Receiver<Call>) -> Option<Result<Value>> + Send + 'static,
    ) -> PendingCall {
        let (call, calls) = std::sync::mpsc::sync_channel(1);
        let answer = handle.spawn_blocking(move || work(calls));
        PendingCall { call, answer }
    }

    /// Runs `function` with `args` once the host is ready.
    pub async fn call(self, function: &'static str, args: Vec<Value>) -> Result<Value> {
        let stopped = |reason: String| Error::runtime(format!("{function} stopped: {reason}"));
        self.call
            .send((function, args))
            .map_err(|err| stopped(err.to_string()))?;
        self.answer
            .await
            .map_err(|err| stopped(err.to_string()))?
            .ok_or_else(|| stopped("the script thread ended".into()))?
    }
}

/// Starts a stdlib call on `ctx`, or says that this front end has no script host.
pub fn prepare(ctx: &Ctx) -> Result<PendingCall> {
    let stdlib = ctx
        .stdlib()
        .ok_or_else(|| Error::runtime("this front end cannot run stdlib functions"))?;
    Ok(stdlib.prepare(ctx.clone()))
}

/// Runs a stdlib function (`"bulk::create"`) on `ctx` with JSON arguments and returns its
/// JSON result.
pub async fn call(ctx: Ctx, function: &'static str, args: Vec<Value>) -> Result<Value> {
    prepare(&ctx)?.call(function, args).await
}
