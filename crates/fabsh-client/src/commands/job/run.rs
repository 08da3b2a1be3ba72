//! `job run`: check the flags, learn the item's type (for the default job type), start the
//! run, and with `--wait` follow it to its end.

use super::JOB_TYPE_FLAG;
use super::instances::{item_target, run_row};
use super::wait::{self, Waited};
use crate::api::{items, jobs};
use crate::commands::args::Args;
use crate::commands::spec::HandlerFuture;
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use fabsh_model::jobs::{
    JOB_TYPES, JobInstance, JobParameter, JobStatus, RunRequest, accepts_job_type, default_job_type,
};
use serde_json::{Value, json};
use std::time::Duration;

/// Said with every run on local Fabric, which executes no code.
const LIFECYCLE_ONLY_NOTE: &str = "local Fabric followed the run's lifecycle but executed nothing: no notebook cell, pipeline activity or Spark code ran";

pub(super) fn run(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let request = run_request(&args)?;
        let timeout = wait_limit(&args)?;
        let (workspace, item) = item_target(&ctx, &args).await?;
        let job_type = job_type(&ctx, &args, &workspace, &item).await?;
        let api = ctx.api();
        let Some(started) = jobs::run(api, &workspace, &item, &job_type, &request).await? else {
            return Ok(Reply::json(Value::Null));
        };
        let note = started.lifecycle_only.then_some(LIFECYCLE_ONLY_NOTE);
        let next = NextCommands::new(&ctx, &args, &started.id);
        if args.flag("no-wait") {
            let reply = Reply::json(json!({
                "id": started.id,
                "itemId": item,
                "jobType": job_type,
                "location": started.url.as_str(),
            }))
            .with_note(format!(
                "run {} started; follow it with `{}`",
                started.id, next.show
            ));
            return Ok(match note {
                Some(note) => reply.with_note(note),
                None => reply,
            });
        }
        let waited = wait::follow(&ctx, &started, timeout, &next).await?;
        let reply = ended(&ctx, &args, (&workspace, &item), &next, waited).await?;
        Ok(match started.lifecycle_only {
            true => reply.with_note(LIFECYCLE_ONLY_NOTE),
            false => reply,
        })
    })
}

/// The commands that follow or cancel a run, as the user would type them next: the
/// workspace and item as they were given, and the global flags that chose the backend.
pub(super) struct NextCommands {
    pub show: String,
    pub cancel: String,
}

impl NextCommands {
    fn new(ctx: &Ctx, args: &Args, run: &str) -> NextCommands {
        use crate::config::private_file::shell_word;
        let settings = ctx.settings();
        let mut globals = String::new();
        if settings.local {
            globals.push_str(" --local");
        }
        if let Some(profile) = &settings.profile {
            globals.push_str(&format!(" --profile {}", shell_word(profile)));
        }
        if let Some(endpoint) = &settings.endpoint {
            globals.push_str(&format!(" --endpoint {}", shell_word(endpoint)));
        }
        let workspace = args.opt_str("workspace").unwrap_or_default();
        let item = args.opt_str("id").unwrap_or_default();
        // `Demo/Welcome` as the user most likely wrote it, unless a name holds a `/`.
        let target = if workspace.contains('/') || item.contains('/') {
            format!("-w {} --id {}", shell_word(workspace), shell_word(item))
        } else {
            shell_word(&format!("{workspace}/{item}"))
        };
        NextCommands {
            show: format!("fabsh{globals} job show {target} --instance {run}"),
            cancel: format!("fabsh{globals} job cancel {target} --instance {run}"),
        }
    }
}

/// `--timeout` in seconds, not with `--no-wait`; `--cancel-on-timeout` only with `--timeout`.
fn wait_limit(args: &Args) -> Result<Option<Duration>> {
    let timeout = args.int("timeout");
    if args.flag("no-wait") && args.flag("wait") {
        return Err(Error::usage("--wait and --no-wait contradict each other")
            .with_hint("job run waits by default; --no-wait returns once the run is started"));
    }
    if timeout.is_some() && args.flag("no-wait") {
        return Err(
            Error::usage("--timeout is how long to wait, and --no-wait does not wait")
                .with_hint("leave out --no-wait to follow the run, or leave --timeout out"),
        );
    }
    if args.flag("cancel-on-timeout") && timeout.is_none() {
        return Err(Error::usage("--cancel-on-timeout needs --timeout")
            .with_hint("for example --wait --timeout 600 --cancel-on-timeout"));
    }
    Ok(timeout.map(|s| Duration::from_secs(s.unsigned_abs())))
}

/// The run's body from `--parameters` and `--execution-data`, checked.
fn run_request(args: &Args) -> Result<RunRequest> {
    let parameters = match args.json("parameters") {
        None => None,
        Some(Value::Object(map)) => Some(
            map.iter()
                .map(|(name, value)| JobParameter::inferred(name, value.clone()))
                .collect(),
        ),
        Some(list @ Value::Array(_)) => Some(
            serde_json::from_value::<Vec<JobParameter>>(list.clone()).map_err(|err| {
                Error::usage(format!("--parameters: {err}")).with_hint(
                    "each entry is {\"name\": ..., \"type\": Text|Integer|Number|Boolean|DateTime|Guid|VariableReference|Automatic, \"value\": ...}",
                )
            })?,
        ),
        Some(_) => {
            return Err(Error::usage(
                "--parameters must be an object {\"name\": value} or a list of {name, type, value}",
            ));
        }
    };
    let execution_data = match args.json("execution-data") {
        None => None,
        Some(Value::Object(map)) => Some(map.clone()),
        Some(_) => return Err(Error::usage("--execution-data must be a JSON object")),
    };
    let request = RunRequest {
        execution_data,
        parameters,
    };
    if let Some(problem) = request.problems().into_iter().next() {
        return Err(Error::usage(format!("--parameters: {problem}")));
    }
    Ok(request)
}

/// `--job-type`, or the item type's default. A known job type in the wrong case is refused
/// (the service's job types are case-sensitive); other names pass through, as the service
/// adds job types.
pub(crate) async fn job_type(
    ctx: &Ctx,
    args: &Args,
    workspace: &str,
    item: &str,
) -> Result<String> {
    let given = args.opt_str(JOB_TYPE_FLAG);
    if let Some(given) = given {
        let known = JOB_TYPES.iter().flat_map(|(_, jobs)| jobs.iter());
        if let Some(exact) = known
            .into_iter()
            .find(|known| known.eq_ignore_ascii_case(given) && **known != given)
        {
            return Err(Error::usage(format!(
                "--{JOB_TYPE_FLAG} {given}: job types are case-sensitive; did you mean {exact}?"
            )));
        }
    }
    let found = items::get(ctx.api(), workspace, item, None).await?;
    let item_type = found["type"].as_str().unwrap_or_default();
    match given {
        Some(given) => {
            let another_types = JOB_TYPES
                .iter()
                .any(|(ty, jobs)| !ty.eq_ignore_ascii_case(item_type) && jobs.contains(&given));
            if another_types && accepts_job_type(item_type, given) == Some(false) {
                // Another item type's job: refused before the run is sent. Names fabsh does
                // not know pass through, as the service adds job types.
                let expected = default_job_type(item_type).unwrap_or_default();
                return Err(Error::usage(format!(
                    "--{JOB_TYPE_FLAG} {given} is not a job type of a {item_type} (its job type is {expected})"
                ))
                .with_hint(format!("leave --{JOB_TYPE_FLAG} out to run {expected}")));
            }
            Ok(given.to_string())
        }
        None => default_job_type(item_type).map(str::to_string).ok_or_else(|| {
            Error::usage(format!(
                "a {item_type} has no on-demand job: jobs run notebooks, pipelines, Spark job definitions and lakehouse table maintenance"
            ))
            .with_hint(format!(
                "Notebook → RunNotebook, DataPipeline → Pipeline, SparkJobDefinition → sparkjob, Lakehouse → TableMaintenance; if the service has a job type for a {item_type}, name it with --{JOB_TYPE_FLAG}"
            ))
        }),
    }
}

/// The reply of a waited run: the final instance, failing with exit 9 when it did not
/// complete, or with exit 10 when the wait ran out.
async fn ended(
    ctx: &Ctx,
    args: &Args,
    (workspace, item): (&str, &str),
    next: &NextCommands,
    waited: Waited,
) -> Result<Reply> {
    match waited {
        Waited::Ended(instance) => {
            let row = run_row(&instance);
            let reply = Reply::json(row);
            match instance.status {
                JobStatus::Completed => Ok(reply),
                _ => Ok(reply.with_failure(run_failed(&instance))),
            }
        }
        Waited::TimedOut(instance) => {
            let id = instance.id.clone();
            let mut err = Error::new(
                ErrorKind::JobTimeout,
                format!(
                    "run {id} was still {} when --timeout passed",
                    instance.status.as_str()
                ),
            );
            let instance = if args.flag("cancel-on-timeout") {
                jobs::cancel(ctx.api(), workspace, item, &id).await?;
                err = err.with_hint(format!("run {id} was cancelled (--cancel-on-timeout)"));
                jobs::get(ctx.api(), workspace, item, &id).await?
            } else {
                err = err.with_hint(format!(
                    "run {id} is left running: follow it with `{}`, or cancel it with `{}`",
                    next.show, next.cancel
                ));
                instance
            };
            err.details = Some(run_row(&instance));
            Ok(Reply::json(run_row(&instance)).with_failure(err))
        }
    }
}

/// The error of a run that ended without completing: its failure reason when it has one.
fn run_failed(instance: &JobInstance) -> Error {
    let reason = instance.failure_reason.as_ref();
    let message = reason
        .and_then(|r| r.message.clone())
        .unwrap_or_else(|| "no failure reason given".to_string());
    let mut err = Error::new(
        ErrorKind::JobEnded,
        format!(
            "run {} ended {}: {message}",
            instance.id,
            instance.status.as_str()
        ),
    );
    if let Some(code) = reason.and_then(|r| r.error_code.clone()) {
        err = err.with_code(code);
    }
    err.with_request_id(reason.and_then(|r| r.request_id.clone()))
}
