//! `lakehouse tables`: a lakehouse's tables (Fabric REST `Tables_ListTables`), managed and
//! external, with their format and OneLake location; `lakehouse load-table` ([`load`]).

mod load;

use super::common::{self, WORKSPACE};
use super::spec::{ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits};
use super::typed::{Command, Paging, handler, typed_args};
use crate::context::Ctx;
use fabsh_api::api::request::Req;
use fabsh_model::item_types;

/// The service's refusal of the table API on a lakehouse with schemas.
const WITH_SCHEMAS: &str = "UnsupportedOperationForSchemasEnabledLakehouse";

/// `--item`: the lakehouse.
pub(super) const LAKEHOUSE: ArgSpec =
    ArgSpec::req("item", ArgKind::Ref, "Lakehouse id or display name");

/// The `lakehouse` commands.
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        group: "lakehouse",
        name: "tables",
        summary: "List a lakehouse's tables",
        about: "Managed and external tables, with their format and location in OneLake. The service refuses this API on a lakehouse with schemas; `fabsh sql tables` lists those through the SQL endpoint.",
        args: &[WORKSPACE, LAKEHOUSE],
        traits: Traits::LIST,
        columns: &["name", "type", "format", "location"],
        examples: &[Example {
            command: "lakehouse tables -w Demo --item SalesLakehouse",
            about: "the demo lakehouse's tables",
        }],
        handler: Handler::Data(handler::<Tables>),
    },
    CommandSpec {
        group: "lakehouse",
        name: "load-table",
        summary: "Load a CSV or Parquet file (or a folder of them) from a lakehouse's Files into a table",
        about: "Runs the service's load-table operation and waits for it. --from names the file or folder under the lakehouse's Files; --from-local uploads a file of this machine there first (to --from, or Files/ and its name). --mode append (the default) adds the rows, making the table if missing; --mode overwrite replaces the table and asks first unless --yes. On a lakehouse with schemas the table goes into its default schema unless written SCHEMA.NAME.",
        args: &[
            WORKSPACE,
            LAKEHOUSE,
            load::TABLE,
            load::FROM,
            load::FROM_LOCAL,
            load::MODE,
            load::FORMAT,
            load::HEADER,
            load::DELIMITER,
            load::RECURSIVE,
            load::OVERWRITE,
        ],
        traits: Traits::MUTATE.lro(),
        columns: &["table", "from", "mode", "status"],
        examples: &[
            Example {
                command: "lakehouse load-table -w Demo --item SalesLakehouse --table returns --from-local ./returns.csv",
                about: "upload a CSV file and load it as a table",
            },
            Example {
                command: "lakehouse load-table -w Demo --item SalesLakehouse --table returns --from Files/raw --format csv --mode overwrite --yes",
                about: "replace a table with the CSV files of a folder",
            },
        ],
        handler: Handler::Data(handler::<load::LoadTable>),
    },
];

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
            common::paged_by(ctx.api(), req, &self.paging)
                .await
                .map_err(|err| {
                    // The API predates schemas, and the service refuses it there.
                    if err.code.as_deref() == Some(WITH_SCHEMAS) {
                        let hint = format!(
                            "its SQL endpoint lists them: `fabsh sql tables -w {} --item {}`",
                            self.workspace, self.item
                        );
                        err.with_hint(hint)
                    } else {
                        err
                    }
                })
        })
    }
}
