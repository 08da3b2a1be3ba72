//! `tag list`: beyond the spec, so users can find the ids `item apply-tags` takes.

use super::common;
use super::spec::{CommandSpec, Example, Handler, HandlerFuture, Traits};
use super::typed::{Command, Paging, handler, typed_args};
use crate::context::Ctx;
use fabsh_api::api::tags;

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
    handler: Handler::Data(handler::<List>),
}];

typed_args! {
    /// `tag list`.
    struct List {
        paging: Paging,
    }
}

impl Command for List {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move { common::paged_by(ctx.api(), tags::list_req(), &self.paging).await })
    }
}
