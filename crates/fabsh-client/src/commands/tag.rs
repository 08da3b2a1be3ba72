//! `tag list`: beyond the spec, so users can find the ids `item apply-tags` takes.

use super::args::Args;
use super::common;
use super::spec::{CommandSpec, Example, Handler, HandlerFuture, Traits};
use crate::api::tags;
use crate::context::Ctx;

/// The tag commands.
pub static COMMANDS: &[CommandSpec] = &[CommandSpec {
    group: "tag",
    name: "list",
    summary: "List the tags of the tenant",
    about: "Tags are made by tenant or domain admins; items get them with `fabsh item apply-tags`.",
    args: &[],
    traits: Traits::LIST,
    columns: &["id", "displayName", "scope.type"],
    examples: &[Example {
        command: "tag list --all",
        about: "every tag",
    }],
    handler: Handler::Data(list),
}];

fn list(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move { common::paged(ctx.api(), tags::list_req(), &args).await })
}
