//! `item assign-identity`: give an item (and its child items) a default identity.

use crate::commands::common::{self, ITEM, WORKSPACE};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, ItemTarget, handler, typed_args};
use crate::context::Ctx;
use crate::reply::Reply;
use fabsh_api::api::{LroOutcome, bulk};

const ASSIGNMENT_TYPE: ArgSpec = ArgSpec::opt(
    "assignment-type",
    ArgKind::Enum(&["Caller"]),
    "Whose identity to assign: Caller, the subject making the request (the only kind)",
)
.default("Caller");

pub(super) const ASSIGN_IDENTITY: CommandSpec = CommandSpec {
    group: "item",
    name: "assign-identity",
    summary: "Assign an item's default identity (beta API)",
    about: "Prints {assignmentStatus: [{itemId, status, parentItemId?, errorInfo?}]}, one entry per item the assignment covered (child items such as a lakehouse's SQL endpoint included); exit 5 when any of them failed. `item show --include DefaultIdentity` shows the identity afterwards.",
    args: &[WORKSPACE, ITEM, ASSIGNMENT_TYPE],
    traits: Traits::MUTATE.lro(),
    columns: &[],
    examples: &[Example {
        command: "item assign-identity -w Demo --id SalesLakehouse",
        about: "the caller becomes the lakehouse's identity",
    }],
    handler: Handler::Data(handler::<AssignIdentity>),
};

typed_args! {
    /// `item assign-identity`.
    struct AssignIdentity {
        target: ItemTarget,
        // Always given: the flag has a default.
        assignment_type: String = ASSIGNMENT_TYPE,
    }
}

impl Command for AssignIdentity {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (workspace, id) = self.target.resolve(&ctx).await?;
            let assignment_type = &self.assignment_type;
            let value =
                match bulk::assign_identity(ctx.api(), &workspace, &id, assignment_type).await? {
                    LroOutcome::Pending(pending) => return Ok(Reply::json(pending.into())),
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
}
