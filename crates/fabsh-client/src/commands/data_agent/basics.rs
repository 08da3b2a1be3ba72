//! `data-agent list | show | create | update | delete`: the agent as a workspace item.

use super::{AGENT, AgentTarget};
use crate::commands::common::{
    self, DESCRIPTION, DISPLAY_NAME, HARD_DELETE, NEW_DESCRIPTION, NEW_DISPLAY_NAME,
    SENSITIVITY_LABEL, WORKSPACE,
};
use crate::commands::item::basics::{checked_description, created_reply, update_body};
use crate::commands::names;
use crate::commands::spec::{CommandSpec, Example, Handler, HandlerFuture, Traits};
use crate::commands::typed::{Command, Paging, handler, typed_args};
use crate::context::Ctx;
use crate::error::Error;
use crate::reply::Reply;
use fabsh_api::api::data_agents;
use fabsh_model::wire::{CreateTypedItemRequest, SensitivityLabelSettings};
use fabsh_model::{item_types, naming};

pub(super) const LIST: CommandSpec = CommandSpec {
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
    handler: Handler::Data(handler::<List>),
};

pub(super) const SHOW: CommandSpec = CommandSpec {
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
    handler: Handler::Data(handler::<Show>),
};

pub(super) const CREATE: CommandSpec = CommandSpec {
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
    handler: Handler::Data(handler::<Create>),
};

pub(super) const UPDATE: CommandSpec = CommandSpec {
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
    handler: Handler::Data(handler::<Update>),
};

pub(super) const DELETE: CommandSpec = CommandSpec {
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
    handler: Handler::Data(handler::<Delete>),
};

typed_args! {
    /// `data-agent list`.
    struct List {
        workspace: String = WORKSPACE,
        paging: Paging,
    }
}

impl Command for List {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let workspace = ctx.workspace_id(&self.workspace).await?;
            common::paged_by(ctx.api(), data_agents::list_req(&workspace), &self.paging).await
        })
    }
}

typed_args! {
    /// `data-agent show`.
    struct Show {
        target: AgentTarget,
    }
}

impl Command for Show {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            Ok(Reply::json(agent.get(ctx.api()).await?))
        })
    }
}

typed_args! {
    /// `data-agent create`.
    struct Create {
        workspace: String = WORKSPACE,
        name: String = DISPLAY_NAME,
        description: Option<String> = DESCRIPTION,
        sensitivity_label: Option<String> = SENSITIVITY_LABEL,
    }
}

impl Command for Create {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            if self.name.trim().is_empty() {
                return Err(Error::usage("--name cannot be empty"));
            }
            let rules = naming::item(item_types::DATA_AGENT);
            names::checked(&DISPLAY_NAME, rules, &self.name)?;
            let body = CreateTypedItemRequest {
                display_name: self.name.clone(),
                description: checked_description(self.description.as_deref())?.map(str::to_string),
                folder_id: None,
                sensitivity_label_settings: self
                    .sensitivity_label
                    .clone()
                    .map(|label_id| SensitivityLabelSettings { label_id }),
                definition: None,
            };
            let workspace = ctx.workspace_id(&self.workspace).await?;
            let created = data_agents::create(ctx.api(), &workspace, &body).await?;
            Ok(created_reply(created, "agent"))
        })
    }
}

typed_args! {
    /// `data-agent update`.
    struct Update {
        target: AgentTarget,
        name: Option<String> = NEW_DISPLAY_NAME,
        description: Option<String> = NEW_DESCRIPTION,
    }
}

impl Command for Update {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let body = update_body(self.name.as_deref(), self.description.as_deref())?;
            let agent = self.target.resolve(&ctx).await?;
            let updated = agent.update(ctx.api(), &body).await?;
            Ok(Reply::json(updated))
        })
    }
}

typed_args! {
    /// `data-agent delete`.
    struct Delete {
        target: AgentTarget,
        hard: bool = HARD_DELETE,
    }
}

impl Command for Delete {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            agent.delete(ctx.api(), self.hard).await?;
            let how = if self.hard { " permanently" } else { "" };
            Ok(Reply::done(format!(
                "deleted data agent {}{how}",
                common::named_as(&self.target.agent, &agent.id)
            )))
        })
    }
}
