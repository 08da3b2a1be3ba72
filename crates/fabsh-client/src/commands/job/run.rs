//! `job run`: check the flags, learn the item's type (for the default job type), start the
//! run, and with `--wait` follow it to its end.

use super::instances::run_row;
use super::wait::{self, Waited};
use super::{
    CANCEL_ON_TIMEOUT, EXECUTION_DATA, JOB_TYPE, JOB_TYPE_FLAG, NO_WAIT, PARAMETERS, TIMEOUT, WAIT,
};
use crate::commands::spec::HandlerFuture;
use crate::commands::typed::{Command, ItemTarget, typed_args};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use fabsh_api::api::{items, jobs};
use fabsh_model::jobs::{
    JOB_TYPES, JobInstance, JobParameter, JobStatus, RunRequest, accepts_job_type, default_job_type,
};
use fabsh_model::wire::Item;
use serde_json::{Value, json};
use std::time::Duration;

/// Said with every run on local Fabric, which executes no code.
const LIFECYCLE_ONLY_NOTE: &str = "local Fabric followed the run's lifecycle but executed nothing: no notebook cell, pipeline activity or Spark code ran";

typed_args! {
    /// `job run`.
    pub(super) struct Run {
        target: ItemTarget,
        job_type: Option<String> = JOB_TYPE,
        parameters: Option<Value> = PARAMETERS,
        execution_data: Option<Value> = EXECUTION_DATA,
        no_wait: bool = NO_WAIT,
        wait: bool = WAIT,
        timeout: Option<i64> = TIMEOUT,
        cancel_on_timeout: bool = CANCEL_ON_TIMEOUT,
    }
}

impl Command for Run {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let request = self.request()?;
            let timeout = self.wait_limit()?;
            let (workspace, item) = self.target.resolve(&ctx).await?;
            let job_type = job_type(&ctx, self.job_type.as_deref(), &workspace, &item).await?;
            let api = ctx.api();
            let Some(started) = jobs::run(api, &workspace, &item, &job_type, &request).await?
            else {
                return Ok(Reply::json(Value::Null));
            };
            let note = started.lifecycle_only.then_some(LIFECYCLE_ONLY_NOTE);
            let next = NextCommands::new(&ctx, &self.target, &started.id);
            if self.no_wait {
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
            let reply = self.ended(&ctx, (&workspace, &item), &next, waited).await?;
            Ok(if started.lifecycle_only {
                reply.with_note(LIFECYCLE_ONLY_NOTE)
            } else {
                reply
            })
        })
    }
}

/// The commands that follow or cancel a run, as the user would type them next: the
/// workspace and item as they were given, and the global flags that chose the backend.
pub(super) struct NextCommands {
    pub show: String,
    pub cancel: String,
}

impl NextCommands {
    fn new(ctx: &Ctx, target: &ItemTarget, run: &str) -> NextCommands {
        use fabsh_api::config::private_file::shell_word;
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
        let (workspace, item) = (target.workspace.as_str(), target.item.as_str());
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

impl Run {
    /// `--timeout` in seconds, not with `--no-wait`; `--cancel-on-timeout` only with
    /// `--timeout`.
    fn wait_limit(&self) -> Result<Option<Duration>> {
        if self.no_wait && self.wait {
            return Err(Error::usage("--wait and --no-wait contradict each other")
                .with_hint("job run waits by default; --no-wait returns once the run is started"));
        }
        if self.timeout.is_some() && self.no_wait {
            return Err(
                Error::usage("--timeout is how long to wait, and --no-wait does not wait")
                    .with_hint("leave out --no-wait to follow the run, or leave --timeout out"),
            );
        }
        if self.cancel_on_timeout && self.timeout.is_none() {
            return Err(Error::usage("--cancel-on-timeout needs --timeout")
                .with_hint("for example --wait --timeout 600 --cancel-on-timeout"));
        }
        Ok(self.timeout.map(|s| Duration::from_secs(s.unsigned_abs())))
    }

    /// The run's body from `--parameters` and `--execution-data`, checked.
    fn request(&self) -> Result<RunRequest> {
        let parameters = match &self.parameters {
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
        let execution_data = match &self.execution_data {
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

    /// The reply of a waited run: the final instance, failing with exit 9 when it did not
    /// complete, or with exit 10 when the wait ran out.
    async fn ended(
        &self,
        ctx: &Ctx,
        (workspace, item): (&str, &str),
        next: &NextCommands,
        waited: Waited,
    ) -> Result<Reply> {
        match waited {
            Waited::Ended(instance) => {
                let row = run_row(&instance)?;
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
                let instance = if self.cancel_on_timeout {
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
                let row = run_row(&instance)?;
                err.details = Some(row.clone());
                Ok(Reply::json(row).with_failure(err))
            }
        }
    }
}

/// `--job-type`, or the item type's default. A known job type in the wrong case is refused
/// (the service's job types are case-sensitive); other names pass through, as the service
/// adds job types.
pub(crate) async fn job_type(
    ctx: &Ctx,
    given: Option<&str>,
    workspace: &str,
    item: &str,
) -> Result<String> {
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
    let found: Item = items::get(ctx.api(), workspace, item, None).await?;
    let item_type = found.item_type.as_str();
    match given {
        Some(given) => {
            let another_types = JOB_TYPES
                .iter()
                .any(|(ty, jobs)| !ty.eq_ignore_ascii_case(item_type) && jobs.contains(&given));
            if another_types && accepts_job_type(item_type, given) == Some(false) {
                // Another item type's job: refused before the run is sent. Names fabsh does
                // not know pass through, as the service adds job types.
                let refused = format!("--{JOB_TYPE_FLAG} {given} is not a job type of a {item_type}");
                // `accepts_job_type` answered for this type, so JOB_TYPES lists it with its
                // job types, the first of which is its default.
                return Err(match default_job_type(item_type) {
                    Some(expected) => Error::usage(format!("{refused} (its job type is {expected})"))
                        .with_hint(format!("leave --{JOB_TYPE_FLAG} out to run {expected}")),
                    None => Error::usage(refused),
                });
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
