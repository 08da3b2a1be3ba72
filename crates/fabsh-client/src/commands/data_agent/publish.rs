//! `data-agent publish | reset`: promote the draft, or throw its changes away.

use super::{AGENT, AgentTarget};
use crate::commands::common::WORKSPACE;
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::error::Error;
use crate::reply::Reply;
use serde_json::json;

const PUBLISHED_DESCRIPTION: ArgSpec = ArgSpec::opt(
    "description",
    ArgKind::Str,
    "What the published agent is for (shown to its callers)",
);
const TO_M365: ArgSpec = ArgSpec::opt(
    "to-m365",
    ArgKind::Bool,
    "Also publish to the Microsoft 365 agent store (not available through the public API)",
);

pub(super) const PUBLISH: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "publish",
    summary: "Publish the draft configuration",
    about: "The published description becomes the description of the agent's MCP tool. There is no public API for the Microsoft 365 agent store: with --to-m365 the agent is published, the store step is reported as not done, and the command exits 1.",
    args: &[WORKSPACE, AGENT, PUBLISHED_DESCRIPTION, TO_M365],
    traits: Traits::MUTATE,
    columns: &[],
    examples: &[Example {
        command: "data-agent publish -w Demo --id \"Sales agent\" --description \"Answers questions about orders and customers\"",
        about: "publish with a description",
    }],
    handler: Handler::Data(handler::<Publish>),
};

pub(super) const RESET: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "reset",
    summary: "Discard the draft's unpublished changes",
    about: "The draft becomes a copy of the published configuration again. Asks for confirmation on a terminal unless --yes.",
    args: &[WORKSPACE, AGENT],
    traits: Traits::DESTRUCTIVE.void(),
    columns: &[],
    examples: &[Example {
        command: "data-agent reset -w Demo --id \"Sales agent\" --yes",
        about: "back to what is published",
    }],
    handler: Handler::Data(handler::<Reset>),
};

typed_args! {
    /// `data-agent publish`.
    struct Publish {
        target: AgentTarget,
        description: Option<String> = PUBLISHED_DESCRIPTION,
        to_m365: bool = TO_M365,
    }
}

impl Command for Publish {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            let published = agent
                .publish(ctx.api(), self.description.as_deref())
                .await?;
            let description = published
                .get("publishedDescription")
                .cloned()
                .unwrap_or_else(|| json!(self.description));
            if !self.to_m365 {
                return Ok(Reply::json(json!({
                    "published": true,
                    "publishedDescription": description,
                })));
            }
            // Publishing to the store is an internal call only the portal and the notebook SDK
            // can make; saying it happened would be a lie.
            let reply = Reply::json(json!({
                "published": true,
                "publishedDescription": description,
                "m365": {"published": false, "reason": "no public API publishes to the Microsoft 365 agent store"},
            }));
            Ok(reply.with_failure(
                Error::runtime("the agent was published, but not to the Microsoft 365 agent store")
                    .with_cause("there is no public API for the Microsoft 365 agent store")
                    .with_hint(
                        "publish it to the store from the agent's Publish dialog in the Fabric portal",
                    ),
            ))
        })
    }
}

typed_args! {
    /// `data-agent reset`.
    struct Reset {
        target: AgentTarget,
    }
}

impl Command for Reset {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            agent.reset(ctx.api()).await.map_err(|err| {
                if err.has_code("DataAgentNotPublished") {
                    err.with_hint("an agent that was never published has nothing to reset to")
                } else {
                    err
                }
            })?;
            Ok(Reply::empty())
        })
    }
}
