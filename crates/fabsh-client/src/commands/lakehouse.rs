//! `lakehouse tables`: a lakehouse's tables (Fabric REST `Tables_ListTables`), managed and
//! external, with their format and OneLake location.

use super::common::{self, WORKSPACE};
use super::spec::{ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits};
use super::typed::{Command, Paging, handler, typed_args};
use crate::context::Ctx;
use fabsh_api::api::request::Req;
use fabsh_model::item_types;

/// `--item`: the lakehouse.
const LAKEHOUSE: ArgSpec = ArgSpec::req("item", ArgKind::Ref, "Lakehouse id or display name");

/// The `lakehouse` commands.
pub static COMMANDS: &[CommandSpec] = &[CommandSpec {
    group: "lakehouse",
    name: "tables",
    summary: "List a lakehouse's tables",
    about: "Managed and external tables, with their format and location in OneLake (a lakehouse with schemas is listed by the service's schema-enabled API, which this does not use yet).",
    args: &[WORKSPACE, LAKEHOUSE],
    traits: Traits::LIST,
    columns: &["name", "type", "format", "location"],
    examples: &[Example {
        command: "lakehouse tables -w Demo --item SalesLakehouse",
        about: "the demo lakehouse's tables",
    }],
    handler: Handler::Data(handler::<Tables>),
}];

typed_args! {
    /// `lakehouse tables`.
    struct Tables {
        workspace: String = WORKSPACE,
        item: String = LAKEHOUSE,
        paging: Paging,
    }
}

impl Command for Tables {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let workspace = ctx.workspace_id(&self.workspace).await?;
            let lakehouse = ctx
                .item_id(&workspace, &self.item, Some(item_types::LAKEHOUSE))
                .await?;
            let req = Req::get(format!(
                "/workspaces/{workspace}/lakehouses/{lakehouse}/tables"
            ));
            common::paged_by(ctx.api(), req, &self.paging).await
        })
    }
}
