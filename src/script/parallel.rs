//! The `fabsh` module: running registry commands by name, alone (`fabsh::run`), one page at
//! a time (`fabsh::page`), or many at once (`fabsh::parallel`).
//!
//! `parallel` runs the handlers concurrently on the runtime, at most `concurrency` at a time
//! (that many workers), all through the one API client and so the one shared rate limiter. It
//! returns one result per call, in call order, each `#{ok: value}` or `#{error: map}`: a call
//! that cannot even start (unknown command, bad arguments) or whose task dies still gets its
//! error in its place. With `timings: true` each result also carries `elapsed_ms`, the time
//! its call took once it started (waiting for a free slot not counted).
//!
//! With `report_on_cancel: true` a Ctrl-C does not throw: calls stop being started, the running
//! ones are stopped, and every result is still returned, the calls not run with a
//! `fabsh.NotStarted` error and the stopped ones with `fabsh.Interrupted` (marked
//! `outcome_unknown` when the command changes things). The command that made the run then
//! ends as cancelled (exit 130) after reporting; a second Ctrl-C cancels at once.

use super::bindings::{check_args, raw_args, run_command, value_of};
use super::convert::{at_call, error_map, throw, to_dynamic};
use super::host::Host;
use fabsh_client::bridge::CancellationToken;
use fabsh_client::commands::common::ALL;
use fabsh_client::commands::{self, Args, CommandSpec, Registry};
use fabsh_client::context::Ctx;
use fabsh_client::error::{Error, ErrorKind, INTERRUPTED, NOT_STARTED, Result};
use fabsh_client::output::Spinner;
use fabsh_client::reply::Body;
use futures::FutureExt;
use rhai::{
    Array, Dynamic, Engine, FuncRegistration, ImmutableString, Map, Module, NativeCallContext,
};
use serde_json::{Value, json};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::task::JoinSet;

/// How many calls `parallel` runs at once unless told.
pub const DEFAULT_CONCURRENCY: usize = 8;

/// A call ready to run: the command, its checked arguments, and the context it runs on.
type Prepared = (&'static CommandSpec, Args, Ctx);

type RhaiResult = std::result::Result<Dynamic, Box<rhai::EvalAltResult>>;

/// Registers the `fabsh` module.
pub(super) fn register(engine: &mut Engine, host: &Host, registry: Registry) {
    let mut module = Module::new();
    let h = host.clone();
    FuncRegistration::new("parallel")
        .with_volatility(true)
        .set_into_module(
            &mut module,
            move |context: NativeCallContext, calls: Array| {
                parallel(&h, registry, calls, &Map::new()).map_err(|err| at_call(&context, err))
            },
        );
    let h = host.clone();
    FuncRegistration::new("parallel")
        .with_comments(["/// `fabsh::parallel(calls, #{concurrency, progress, timings, report_on_cancel})`: run `#{command: \"item create\", args: #{...}}` calls concurrently; one `#{ok}` or `#{error}` per call, in order"])
        .with_volatility(true)
        .set_into_module(
            &mut module,
            move |context: NativeCallContext, calls: Array, options: Map| {
                parallel(&h, registry, calls, &options).map_err(|err| at_call(&context, err))
            },
        );
    let h = host.clone();
    FuncRegistration::new("run")
        .with_volatility(true)
        .set_into_module(
            &mut module,
            move |context: NativeCallContext, command: ImmutableString| {
                call(&h, registry, &command, &Map::new()).map_err(|err| at_call(&context, err))
            },
        );
    let h = host.clone();
    FuncRegistration::new("run")
        .with_comments(["/// `fabsh::run(command, args)`: run one command named as on the command line: `fabsh::run(\"item show\", #{workspace: ws, id: id})`"])
        .with_volatility(true)
        .set_into_module(
            &mut module,
            move |context: NativeCallContext, command: ImmutableString, args: Map| {
                call(&h, registry, &command, &args).map_err(|err| at_call(&context, err))
            },
        );
    let h = host.clone();
    FuncRegistration::new("page")
        .with_comments(["/// `fabsh::page(command, args)`: one page of a list: `#{items, continuation_token}`; pass the token back as `continuation_token`"])
        .with_volatility(true)
        .set_into_module(
            &mut module,
            move |context: NativeCallContext, command: ImmutableString, args: Map| {
                page(&h, registry, &command, &args).map_err(|err| at_call(&context, throw(err)))
            },
        );
    let h = host.clone();
    FuncRegistration::new("backend")
        .with_comments(["/// `fabsh::backend()`: `local`, or the endpoint's host"])
        .with_volatility(true)
        .set_into_module(&mut module, move |context: NativeCallContext| {
            h.ctx()
                .map(|ctx| Dynamic::from(ctx.backend().to_string()))
                .map_err(|err| at_call(&context, throw(err)))
        });
    module.build_index();
    engine.register_static_module("fabsh", module.into());
}

/// The command written as on the command line (`item create`), or a usage error.
fn command(registry: Registry, path: &str) -> Result<&'static CommandSpec> {
    let spec = registry.find_path(path).ok_or_else(|| {
        Error::usage(format!(
            "unknown command `{path}`; write it as on the command line, e.g. \"item create\""
        ))
    })?;
    if !spec.is_scriptable() {
        return Err(Error::usage(format!(
            "`{path}` is not available in scripts; run it from a shell"
        )));
    }
    Ok(spec)
}

/// Checks a command's arguments given as one map.
fn checked_args(host: &Host, spec: &'static CommandSpec, args: &Map) -> Result<Args> {
    check_args(host, spec, raw_args(spec, &[], &[], Some(args))?)
}

fn call(host: &Host, registry: Registry, path: &str, args: &Map) -> RhaiResult {
    let spec = command(registry, path).map_err(throw)?;
    let raw = raw_args(spec, &[], &[], Some(args)).map_err(throw)?;
    run_command(host, spec, raw).map(to_dynamic).map_err(throw)
}

/// One page of a paged list: `#{items, continuation_token}` (the token is `()` on the last).
fn page(host: &Host, registry: Registry, path: &str, args: &Map) -> Result<Dynamic> {
    let spec = command(registry, path)?;
    if !spec.traits.paged {
        return Err(Error::usage(format!("`{path}` does not return pages")));
    }
    // One page is what this function is for: never every page by default.
    let mut args = args.clone();
    args.entry(ALL.long.into()).or_insert(Dynamic::FALSE);
    let args = checked_args(host, spec, &args)?;
    let ctx = host.ctx_for(spec)?;
    let value = host.bridge().block_on(async {
        let reply = commands::execute(spec, args, &ctx).await?;
        Ok(match reply.body {
            Body::Page {
                items,
                continuation_token,
            } => json!({"items": items, "continuation_token": continuation_token}),
            body => {
                let items = fabsh_client::reply::Reply::from_body(body)
                    .into_value()
                    .await?;
                json!({"items": items, "continuation_token": null})
            }
        })
    })?;
    Ok(to_dynamic(value))
}

fn parallel(host: &Host, registry: Registry, calls: Array, options: &Map) -> RhaiResult {
    let ParallelOptions {
        concurrency,
        label,
        timings,
        report_on_cancel,
    } = parallel_options(options).map_err(throw)?;
    let prepared: Vec<Result<Prepared>> = calls
        .iter()
        .map(|call| {
            let (spec, args) = prepare_call(host, registry, call)?;
            // One spinner per call would fight over the terminal; the bar shows progress.
            Ok((spec, args, host.ctx_for(spec)?.without_progress()))
        })
        .collect();
    let bar = label.map(|label| host.progress().bar(prepared.len() as u64, label));
    let handle = host.bridge().handle().clone();
    // Held for the whole run: the first Ctrl-C stops the run, which still returns every result.
    let interruptible = report_on_cancel.then(|| host.bridge().interruptible());
    let stop = interruptible.as_ref().map(|work| work.token().clone());
    let results = host
        .bridge()
        .block_on(run_all(handle, prepared, concurrency, bar, stop))
        .map_err(throw)?;
    drop(interruptible);
    Ok(Dynamic::from_array(
        results
            .into_iter()
            .map(|(result, elapsed)| {
                let mut entry = Map::new();
                match result {
                    Ok(value) => entry.insert("ok".into(), to_dynamic(value)),
                    Err(err) => entry.insert("error".into(), error_map(&err)),
                };
                if timings {
                    let ms = elapsed.as_millis().min(i64::MAX as u128) as i64;
                    entry.insert("elapsed_ms".into(), Dynamic::from_int(ms));
                }
                Dynamic::from_map(entry)
            })
            .collect(),
    ))
}

/// How `parallel` runs its calls.
struct ParallelOptions {
    concurrency: usize,
    /// The progress bar's label, when one is wanted.
    label: Option<String>,
    timings: bool,
    report_on_cancel: bool,
}

/// `#{concurrency: n, progress: "label", timings: bool, report_on_cancel: bool}`.
fn parallel_options(options: &Map) -> Result<ParallelOptions> {
    let mut concurrency = DEFAULT_CONCURRENCY;
    let mut label = None;
    let mut timings = false;
    let mut report_on_cancel = false;
    for (key, value) in options {
        match key.as_str() {
            "concurrency" => {
                concurrency = value
                    .as_int()
                    .ok()
                    .and_then(|n| usize::try_from(n).ok())
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| {
                        Error::usage("fabsh::parallel: concurrency must be a whole number ≥ 1")
                    })?;
            }
            "progress" => {
                label = match value.as_bool() {
                    Ok(false) => None,
                    Ok(true) => Some("working".to_string()),
                    Err(_) if value.is_unit() => None,
                    Err(_) => Some(value.to_string()),
                }
            }
            "timings" => timings = value.as_bool().unwrap_or(false),
            "report_on_cancel" => report_on_cancel = value.as_bool().unwrap_or(false),
            other => {
                return Err(Error::usage(format!(
                    "fabsh::parallel has no option `{other}`; valid options: concurrency, progress, timings, report_on_cancel"
                )));
            }
        }
    }
    Ok(ParallelOptions {
        concurrency,
        label,
        timings,
        report_on_cancel,
    })
}

/// One call `#{command: "item create", args: #{...}}`, checked before anything runs.
fn prepare_call(
    host: &Host,
    registry: Registry,
    call: &Dynamic,
) -> Result<(&'static CommandSpec, Args)> {
    let Some(call) = call.read_lock::<Map>() else {
        return Err(Error::usage(
            "each call must be a map like #{command: \"item show\", args: #{...}}",
        ));
    };
    let path = call
        .get("command")
        .filter(|value| value.is_string())
        .ok_or_else(|| Error::usage("a call has no `command` string"))?
        .to_string();
    let spec = command(registry, &path)?;
    let args = match call.get("args") {
        None => Map::new(),
        Some(value) if value.is_unit() => Map::new(),
        Some(value) => value
            .read_lock::<Map>()
            .map(|map| map.clone())
            .ok_or_else(|| Error::usage(format!("the `args` of `{path}` must be a map")))?,
    };
    Ok((spec, checked_args(host, spec, &args)?))
}

/// A call's outcome and how long it ran.
type Timed = (Result<Value>, Duration);

/// Runs the calls concurrently, `concurrency` at a time, and returns every result in order.
///
/// `concurrency` workers each take the next waiting call as soon as their previous one ends,
/// on the runtime's own threads: a finished call is replaced without a round trip through the
/// script's thread, and calls start in the order given. When `stop` is cancelled, no call
/// starts any more, the running ones are stopped, and each call not finished gets an error
/// saying whether it had started.
async fn run_all(
    handle: tokio::runtime::Handle,
    calls: Vec<Result<Prepared>>,
    concurrency: usize,
    bar: Option<Spinner>,
    stop: Option<CancellationToken>,
) -> Result<Vec<Timed>> {
    let mut results: Vec<Option<Timed>> = calls.iter().map(|_| None).collect();
    let step = |bar: &Option<Spinner>| {
        if let Some(bar) = bar {
            bar.step();
        }
    };
    // Per call: whether it changes things (so a stopped one may have taken effect), and
    // whether it started.
    let mutates: Vec<bool> = calls
        .iter()
        .map(|call| call.as_ref().is_ok_and(|(spec, _, _)| spec.traits.mutates))
        .collect();
    let started: Arc<Vec<AtomicBool>> =
        Arc::new(calls.iter().map(|_| AtomicBool::new(false)).collect());
    // No stop flag given: nothing stops the calls early.
    let stop = stop.unwrap_or_default();
    let mut ready = Vec::new();
    for (index, call) in calls.into_iter().enumerate() {
        match call {
            Ok(call) => ready.push((index, call)),
            Err(err) => {
                results[index] = Some((Err(err), Duration::ZERO));
                step(&bar);
            }
        }
    }
    let workers_needed = concurrency.min(ready.len());
    let waiting = Arc::new(Mutex::new(ready.into_iter()));
    let (done_tx, mut done_rx) = tokio::sync::mpsc::unbounded_channel();
    // Dropping the set (Ctrl-C) aborts whatever is still running.
    let mut workers = JoinSet::new();
    for _ in 0..workers_needed {
        let waiting = Arc::clone(&waiting);
        let started = Arc::clone(&started);
        let stop = stop.clone();
        let done = done_tx.clone();
        workers.spawn_on(
            async move {
                // The lock is held only to take the next call, never across an await; no
                // call is taken once the run is stopped.
                let next = || {
                    let mut waiting = waiting
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    if stop.is_cancelled() {
                        return None;
                    }
                    let call = waiting.next()?;
                    started[call.0].store(true, Ordering::SeqCst);
                    Some(call)
                };
                while let Some((index, (spec, args, ctx))) = next() {
                    let started = Instant::now();
                    // A call that panics gets the panic as its error, and the worker goes on.
                    let result = AssertUnwindSafe(value_of(spec, args, ctx))
                        .catch_unwind()
                        .await
                        .unwrap_or_else(|panic| Err(panicked(panic.as_ref())));
                    if done.send((index, (result, started.elapsed()))).is_err() {
                        return;
                    }
                }
            },
            &handle,
        );
    }
    // Only the workers hold senders now: the channel closes when the last one ends.
    drop(done_tx);
    loop {
        tokio::select! {
            biased;
            () = stop.cancelled() => break,
            finished = done_rx.recv() => match finished {
                Some((index, timed)) => {
                    results[index] = Some(timed);
                    step(&bar);
                }
                None => break,
            },
        }
    }
    if stop.is_cancelled() {
        workers.shutdown().await;
        // Calls that finished while the run was being stopped keep their results.
        while let Ok((index, timed)) = done_rx.try_recv() {
            results[index] = Some(timed);
        }
    }
    Ok(results
        .into_iter()
        .enumerate()
        .map(|(index, result)| {
            result.unwrap_or_else(|| {
                let error = if !stop.is_cancelled() {
                    Error::runtime("the call ended without a result")
                } else if started[index].load(Ordering::SeqCst) {
                    let stopped =
                        Error::new(ErrorKind::Cancelled, "stopped by Ctrl-C while running")
                            .with_code(INTERRUPTED);
                    if mutates[index] {
                        stopped.with_outcome_unknown()
                    } else {
                        stopped
                    }
                } else {
                    Error::new(
                        ErrorKind::Cancelled,
                        "not started: Ctrl-C stopped the run first",
                    )
                    .with_code(NOT_STARTED)
                };
                (Err(error), Duration::ZERO)
            })
        })
        .collect())
}

/// The error of a call that panicked, with the panic's message when it has one.
fn panicked(panic: &(dyn std::any::Any + Send)) -> Error {
    let message = panic
        .downcast_ref::<&str>()
        .map(std::string::ToString::to_string)
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_string());
    Error::runtime(format!(
        "the call failed inside fabsh: it panicked ({message})"
    ))
}
