//! The scripting host: one Rhai engine builder for `fabsh run`, `fabsh -e`, the REPL and the
//! commands that dispatch to the stdlib. Registry commands become functions generated from
//! the registry (`bindings`); `fabsh::parallel` runs many at once; a few natives cover JSON,
//! files, the environment and time; the stdlib modules are Rhai source compiled in.

mod bindings;
mod convert;
pub mod docs;
mod failure;
mod grading;
mod host;
mod natives;
mod parallel;
pub mod runner;
mod sandbox;
pub mod stdlib;

pub use bindings::{
    MAX_PARAMETERS, arities, function_name, module_name, option_keys, positional_args,
    qualified_name,
};
pub use convert::{to_dynamic, to_json};
pub use failure::ScriptFailure;
pub use host::Host;
pub use parallel::DEFAULT_CONCURRENCY;
pub use sandbox::syntax_engine;

use crate::commands::{GROUPS, Group};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::output::Printer;
use rhai::{Dynamic, Engine, Scope};
use serde_json::Value;

/// The engine every front end uses, with bindings for the whole registry.
pub fn engine(host: &Host) -> Result<Engine> {
    build(host, GROUPS)
}

/// The engine with bindings for `groups` (tests bring a registry of their own).
pub fn build(host: &Host, groups: &'static [Group]) -> Result<Engine> {
    let mut engine = Engine::new();
    sandbox::apply_limits(&mut engine);
    sandbox::restrict(&mut engine, host);
    bindings::register(&mut engine, host, groups)?;
    parallel::register(&mut engine, host, groups);
    natives::register(&mut engine, host);
    grading::register(&mut engine, host);
    stdlib::register(&mut engine, host.stdlib_dir())?;
    Ok(engine)
}

/// Runs a stdlib function (`"bulk::create"`) on `ctx` with JSON arguments and returns its
/// JSON result: how commands such as `item bulk-create` dispatch to the stdlib.
pub async fn call_stdlib(ctx: Ctx, function: &'static str, args: Vec<Value>) -> Result<Value> {
    StdlibCall::start(ctx).call(function, args).await
}

/// A stdlib call whose engine is built before its arguments are known: a command starts it,
/// does its own requests meanwhile, then calls. The engine (a few milliseconds of work) and
/// the script live on one blocking thread, so the commands the script calls can wait on the
/// runtime; a call never made just ends the thread.
pub struct StdlibCall {
    call: std::sync::mpsc::SyncSender<(&'static str, Vec<Value>)>,
    answer: tokio::task::JoinHandle<Option<Result<Value>>>,
}

impl StdlibCall {
    /// Starts building the engine for `ctx`.
    pub fn start(ctx: Ctx) -> StdlibCall {
        let (call, calls) = std::sync::mpsc::sync_channel(1);
        let handle = ctx.bridge().handle().clone();
        let answer = handle.spawn_blocking(move || {
            let host = Host::connected(ctx, Printer::plain());
            let engine = engine(&host);
            let (function, args) = calls.recv().ok()?;
            Some(engine.and_then(|engine| run_function(&engine, function, args)))
        });
        StdlibCall { call, answer }
    }

    /// Runs `function` with `args` once the engine is ready.
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

fn run_function(engine: &Engine, function: &'static str, args: Vec<Value>) -> Result<Value> {
    let mut scope = Scope::new();
    let names: Vec<String> = (0..args.len()).map(|at| format!("arg{at}")).collect();
    for (name, value) in names.iter().zip(args) {
        scope.push_dynamic(name.as_str(), to_dynamic(value));
    }
    let code = format!("{function}({})", names.join(", "));
    let value = engine
        .eval_with_scope::<Dynamic>(&mut scope, &code)
        .map_err(|err| failure::from_eval(*err, function, &code).error)?;
    to_json(&value).map_err(Error::runtime)
}

#[cfg(test)]
mod tests;
