//! `data-agent list | show | create | update | delete`: the agent as a workspace item.

use super::{AGENT, agent};
use crate::api::data_agents;
use crate::commands::args::Args;
use crate::commands::common::{
    self, DESCRIPTION, DISPLAY_NAME, HARD_DELETE, NEW_DESCRIPTION, NEW_DISPLAY_NAME,
    SENSITIVITY_LABEL, WORKSPACE,
};
use crate::commands::item::basics::{checked_description, created_reply, update_body};
use crate::commands::spec::{CommandSpec, Example, Handler, HandlerFuture, Traits};
use crate::context::Ctx;
use crate::error::Error;
use crate::reply::Reply;
use serde_json::{Map, Value, json};

pub const LIST: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "list",
    summary: "List the data agents of a workspace",
    about: "Without --all, one page is returned with the token for the next one (the command line prints it on stderr; --continuation-token continues there).",
    args: &[WORKSPACE],
    traits: Traits::LIST,
    columns: &["id", "displayName", "description"],
    examples: &[Example {
        command: "data-agent list -w Demo",
        about: "the agents of the Demo workspace",
    }],
    handler: Handler::Data(list),
};

pub const SHOW: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "show",
    summary: "Show one data agent",
    about: "properties.publishedDescription appears once the agent is published.",
    args: &[WORKSPACE, AGENT],
    traits: Traits::READ,
    columns: &[],
    examples: &[Example {
        command: "data-agent show -w Demo --id \"Sales agent\"",
        about: "by display name",
    }],
    handler: Handler::Data(show),
};

pub const CREATE: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "create",
    summary: "Create a data agent",
    about: "A create whose answer is lost is checked by name before it is sent again, so it never makes two agents.",
    args: &[WORKSPACE, DISPLAY_NAME, DESCRIPTION, SENSITIVITY_LABEL],
    traits: Traits::MUTATE,
    columns: &["id", "displayName", "type"],
    examples: &[Example {
        command: "data-agent create -w Demo --name \"Support agent\" --description \"Answers support questions\"",
        about: "a new, empty agent",
    }],
    handler: Handler::Data(create),
};

pub const UPDATE: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "update",
    summary: "Rename a data agent or change its description",
    about: "",
    args: &[WORKSPACE, AGENT, NEW_DISPLAY_NAME, NEW_DESCRIPTION],
    traits: Traits::MUTATE,
    columns: &[],
    examples: &[Example {
        command: "data-agent update -w Demo --id \"Sales agent\" --description \"Sales and stock\"",
        about: "new description",
    }],
    handler: Handler::Data(update),
};

pub const DELETE: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "delete",
    summary: "Delete a data agent (recoverable unless --hard-delete)",
    about: "Asks for confirmation on a terminal unless --yes.",
    args: &[WORKSPACE, AGENT, HARD_DELETE],
    traits: Traits::DESTRUCTIVE.void(),
    columns: &[],
    examples: &[Example {
        command: "data-agent delete -w Demo --id \"Sales agent\" --yes",
        about: "without asking",
    }],
    handler: Handler::Data(delete),
};

fn list(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let workspace = ctx.workspace_id(args.str("workspace")?).await?;
        common::paged(ctx.api(), data_agents::list_req(&workspace), &args).await
    })
}

fn show(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let agent = agent(&ctx, &args).await?;
        Ok(Reply::json(agent.get(ctx.api()).await?))
    })
}

fn create(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let mut body = Map::new();
        let name = args.str("name")?;
        if name.trim().is_empty() {
            return Err(Error::usage("--name cannot be empty"));
        }
        body.insert("displayName".into(), json!(name));
        if let Some(description) = checked_description(args.opt_str("description"))? {
            body.insert("description".into(), json!(description));
        }
        if let Some(label) = args.opt_str("sensitivity-label") {
            body.insert("sensitivityLabelSettings".into(), json!({"labelId": label}));
        }
        let workspace = ctx.workspace_id(args.str("workspace")?).await?;
        let created = data_agents::create(ctx.api(), &workspace, Value::Object(body)).await?;
        Ok(created_reply(created, "agent"))
    })
}

fn update(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let body = update_body(args.opt_str("name"), args.opt_str("description"))?;
        let agent = agent(&ctx, &args).await?;
        let updated = agent.update(ctx.api(), body).await?;
        Ok(Reply::json(updated))
    })
}

fn delete(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let agent = agent(&ctx, &args).await?;
        let hard = args.flag("hard-delete");
        agent.delete(ctx.api(), hard).await?;
        let how = if hard { " permanently" } else { "" };
        Ok(Reply::done(format!(
            "deleted data agent {}{how}",
            common::named_as(args.str("id")?, &agent.id)
        )))
    })
}
