//! Running one checked command: its handler, with the per-call options its flags ask for.
//! The CLI, the REPL and scripts all run commands through [`execute`].

use super::args::Args;
use super::common::call_options;
use super::spec::{CommandSpec, Handler};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use serde_json::json;

/// Runs `spec`'s handler on `ctx`. Under the command's own `--dry-run` the handler runs to
/// its end on made-up answers (see [`crate::api::dry_run`]) and the reply is every request
/// that would have changed something, in order: `{dryRun: true, requests: [...]}`. A context
/// that is already a dry run stays one, so a command that runs other commands (`item
/// bulk-create`) sends nothing either; its inner commands then leave the record to the outer
/// one.
pub async fn execute(spec: &'static CommandSpec, args: Args, ctx: &Ctx) -> Result<Reply> {
    let Handler::Data(handler) = spec.handler else {
        return Err(Error::usage(format!(
            "`fabsh {}` takes over the terminal; run it from a shell",
            spec.path()
        )));
    };
    let inherited = ctx.api().options().dry_run;
    let own_dry_run = args.flag("dry-run") && !inherited;
    let mut options = call_options(&args);
    options.dry_run |= inherited;
    let call = ctx.for_call(options);
    let reply = handler(call.clone(), args).await?;
    if !own_dry_run {
        return Ok(reply);
    }
    // The handler's reply describes made-up answers; the plan is what the user asked for.
    let requests = call.api().take_dry_run_log();
    Ok(Reply::json(json!({"dryRun": true, "requests": requests})))
}
