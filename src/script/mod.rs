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

use crate::commands::REGISTRY;
use fabsh_client::commands::Registry;
use fabsh_client::context::Ctx;
use fabsh_client::error::{Error, Result};
use fabsh_client::output::Printer;
use fabsh_client::stdlib::{PendingCall, Stdlib};
use rhai::{Dynamic, Engine, Scope};
use serde_json::Value;

/// The engine every front end uses, with bindings for the whole registry.
pub fn engine(host: &Host) -> Result<Engine> {
    build(host, REGISTRY)
}

/// The engine with bindings for `registry` (tests bring a registry of their own).
pub fn build(host: &Host, registry: Registry) -> Result<Engine> {
    let mut engine = Engine::new();
    sandbox::apply_limits(&mut engine);
    sandbox::restrict(&mut engine, host);
    bindings::register(&mut engine, host, registry)?;
    parallel::register(&mut engine, host, registry);
    natives::register(&mut engine, host);
    grading::register(&mut engine, host);
    stdlib::register(&mut engine, host.stdlib_dir())?;
    Ok(engine)
}

/// The stdlib as commands reach it (`item bulk-create` runs `bulk::create`): each call gets
/// an engine of its own on a blocking thread, built while the command does its own requests,
/// so the commands the script calls can wait on the runtime.
pub struct StdlibHost;

impl Stdlib for StdlibHost {
    fn prepare(&self, ctx: Ctx) -> PendingCall {
        let handle = ctx.bridge().handle().clone();
        PendingCall::spawn(&handle, move |calls| {
            let host = Host::connected(ctx, Printer::beside_output());
            let engine = engine(&host);
            let (function, args) = calls.recv().ok()?;
            Some(engine.and_then(|engine| run_function(&engine, function, args)))
        })
    }
}

fn run_function(engine: &Engine, function: &'static str, args: Vec<Value>) -> Result<Value> {
    let mut scope = Scope::new();
    let names: Vec<String> = (0..args.len()).map(|at| format!("arg{at}")).collect();
    for (name, value) in names.iter().zip(args) {
        scope.push_dynamic(name.as_str(), to_dynamic(value));
    }
    // `take`: each argument is moved into the call; a script function's parameters are
    // otherwise copies of the scope's values, deep ones for arrays and maps.
    let code = format!("{function}({})", names.join(", "));
    let moved: Vec<String> = names.iter().map(|name| format!("take({name})")).collect();
    let value = engine
        .eval_with_scope::<Dynamic>(&mut scope, &format!("{function}({})", moved.join(", ")))
        .map_err(|err| failure::from_eval(*err, function, &code).error)?;
    to_json(&value).map_err(Error::runtime)
}

#[cfg(test)]
mod tests;
