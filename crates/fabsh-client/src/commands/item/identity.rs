//! `item assign-identity`: give an item (and its child items) a default identity.

use crate::api::{LroOutcome, bulk};
use crate::commands::args::Args;
use crate::commands::common::{self, ITEM, WORKSPACE};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::context::Ctx;
use crate::reply::Reply;

pub const ASSIGN_IDENTITY: CommandSpec = CommandSpec {
    group: "item",
    name: "assign-identity",
    summary: "Assign an item's default identity (beta API)",
    about: "Prints {assignmentStatus: [{itemId, status, parentItemId?, errorInfo?}]}, one entry per item the assignment covered (child items such as a lakehouse's SQL endpoint included); exit 5 when any of them failed. `item show --include DefaultIdentity` shows the identity afterwards.",
    args: &[
        WORKSPACE,
        ITEM,
        ArgSpec::opt(
            "assignment-type",
            ArgKind::Enum(&["Caller"]),
            "Whose identity to assign: Caller, the subject making the request (the only kind)",
        )
        .default("Caller"),
    ],
    traits: Traits::MUTATE.lro(),
    columns: &[],
    examples: &[Example {
        command: "item assign-identity -w Demo --id SalesLakehouse",
        about: "the caller becomes the lakehouse's identity",
    }],
    handler: Handler::Data(assign_identity),
};

fn assign_identity(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let assignment_type = args.str("assignment-type")?.to_string();
        let workspace = ctx.workspace_id(args.str("workspace")?).await?;
        let id = ctx.item_id(&workspace, args.str("id")?, None).await?;
        let value =
            match bulk::assign_identity(ctx.api(), &workspace, &id, &assignment_type).await? {
                LroOutcome::Pending(pending) => return Ok(Reply::json(pending)),
                LroOutcome::Done(value) => value,
            };
        Ok(common::per_item_reply(
            value,
            "assignmentStatus",
            "status",
            "item(s) could not be given the identity",
        ))
    })
}
