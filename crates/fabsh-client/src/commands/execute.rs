//! Running one checked command: its handler, with the per-call options its flags ask for.
//! The CLI, the REPL and scripts all run commands through [`execute`].

use super::args::Args;
use super::common::{TraitFlags, call_options, operation_label};
use super::spec::{CommandSpec, Handler};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::names::confirm::STALE_NAME;
use serde_json::json;

/// Runs `spec`'s handler on `ctx`. Under the command's own `--dry-run` the handler runs to
/// its end on made-up answers (see [`fabsh_api::api::dry_run`]) and the reply is every request
/// that would have changed something, in order: `{dryRun: true, requests: [...]}` (and
/// `items`, when the handler says what it would do to each). A context
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
    let own_dry_run = TraitFlags::of(&args).dry_run && !inherited;
    let mut options = call_options(&args);
    options.dry_run |= inherited;
    options.confirm_names_later = true;
    // A dry run destroys nothing: it may trust the cache as a read does.
    options.names_listed_now = spec.traits.destructive && !options.dry_run;
    options.label = Some(operation_label(spec, &args));
    let nested = ctx.api().options().confirm_names_later;
    let mut call = ctx.for_call(options.clone());
    let mut reply = run_confirmed(handler, &call, args.clone()).await;
    // A cached name was stale: nothing was changed yet (confirmations come before the
    // first write), so the command starts over, and its lookups list afresh. A command run
    // by another leaves that to the outer one, whose call it shares.
    if let Err(err) = &reply
        && err.has_code(STALE_NAME)
        && !nested
        && !call.api().call_wrote()
    {
        call = ctx.for_call(options);
        reply = run_confirmed(handler, &call, args).await;
    }
    // What the command taught the name cache reaches the file once, at the end (a command
    // run by another leaves that to the outer one too).
    if !nested {
        ctx.api().flush_names();
    }
    let reply = reply?;
    if !own_dry_run {
        return Ok(reply);
    }
    // The handler's reply describes made-up answers; the plan is what the user asked for.
    let requests = call.api().take_dry_run_log();
    let mut plan = json!({"dryRun": true, "requests": requests});
    if let Some(items) = reply.dry_run_items {
        plan["items"] = items;
    }
    Ok(Reply::json(plan))
}

/// Runs the handler, then confirms the cached names it looked up but sent no request about.
async fn run_confirmed(
    handler: fn(Ctx, Args) -> super::spec::HandlerFuture,
    call: &Ctx,
    args: Args,
) -> Result<Reply> {
    let reply = handler(call.clone(), args).await?;
    call.api().confirm_pending().await?;
    Ok(reply)
}
