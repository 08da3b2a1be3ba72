//! `lakehouse load-table`: a CSV or Parquet file (or a folder of them) under a lakehouse's
//! `Files` becomes a table, through the service's load-table operation; `--from-local` uploads
//! a file of this machine first. On a lakehouse with schemas the load goes through the
//! schema route (`schemas/{schema}/tables/{table}/load`), the table in the lakehouse's
//! default schema unless named `SCHEMA.TABLE`: the route the plain one refuses there.

use super::LAKEHOUSE;
use crate::commands::common::WORKSPACE;
use crate::commands::onelake::DEFAULT_FILES_AT_ONCE;
use crate::commands::spec::{ArgKind, ArgSpec, HandlerFuture, LocalPath};
use crate::commands::typed::{Command, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::lakehouses;
use fabsh_api::onelake::{self, LakePath, Sending};
use fabsh_model::item_types;
use fabsh_model::wire::{
    FileFormatOptions, LoadMode, LoadTableRequest, PathType, valid_delimiter, valid_relative_path,
    valid_schema_name, valid_table_name,
};
use serde_json::json;
use std::path::PathBuf;

/// `--table`.
pub(super) const TABLE: ArgSpec = ArgSpec::req(
    "table",
    ArgKind::Str,
    "The table: NAME, or SCHEMA.NAME in a lakehouse with schemas (without one, its default schema)",
);
/// `--from`.
pub(super) const FROM: ArgSpec = ArgSpec::opt(
    "from",
    ArgKind::Str,
    "The file or folder under the lakehouse's Files to load (Files/raw/orders.csv); with --from-local, where the file is uploaded to (default: Files/ and its name)",
);
/// `--from-local`.
pub(super) const FROM_LOCAL: ArgSpec = ArgSpec::opt(
    "from-local",
    ArgKind::Str,
    "A file on this machine: uploaded into the lakehouse's Files first, then loaded",
)
.local(LocalPath::ReadFile);
/// `--mode`.
pub(super) const MODE: ArgSpec = ArgSpec::opt(
    "mode",
    ArgKind::Enum(&["append", "overwrite"]),
    "append adds the rows to the table (made if missing); overwrite replaces the table",
)
.default("append")
.destructive_when("overwrite");
/// `--format`.
pub(super) const FORMAT: ArgSpec = ArgSpec::opt(
    "format",
    ArgKind::Enum(&["csv", "parquet"]),
    "The files' format (default: from the file's extension)",
);
/// `--header`.
pub(super) const HEADER: ArgSpec = ArgSpec::opt(
    "header",
    ArgKind::Bool,
    "Whether a CSV file's first line names the columns (default true; --header false: every line is data)",
);
/// `--delimiter`.
pub(super) const DELIMITER: ArgSpec = ArgSpec::opt(
    "delimiter",
    ArgKind::Str,
    "What separates a CSV file's fields (up to 8 characters, none of ()[]{}'\")",
)
.default(",");
/// `--recursive`.
pub(super) const RECURSIVE: ArgSpec = ArgSpec::opt(
    "recursive",
    ArgKind::Bool,
    "With a folder: the files of its sub-folders too",
)
.short('r');
/// `--overwrite`.
pub(super) const OVERWRITE: ArgSpec = ArgSpec::opt(
    "overwrite",
    ArgKind::Bool,
    "With --from-local: replace the file at --from if one is there (without it, an existing file stops the load before anything is sent)",
);

typed_args! {
    /// `lakehouse load-table`.
    pub(super) struct LoadTable {
        workspace: String = WORKSPACE,
        item: String = LAKEHOUSE,
        table: String = TABLE,
        from: Option<String> = FROM,
        from_local: Option<String> = FROM_LOCAL,
        mode: Option<String> = MODE,
        format: Option<String> = FORMAT,
        header: Option<bool> = HEADER,
        delimiter: Option<String> = DELIMITER,
        recursive: bool = RECURSIVE,
        overwrite: bool = OVERWRITE,
    }
}

/// What the flags ask for, checked before anything is sent.
struct Plan {
    schema: Option<String>,
    table: String,
    /// `Files/...` in the lakehouse.
    relative_path: String,
    upload: Option<PathBuf>,
    /// `csv` or `parquet`: also the extension of a folder's files the load takes.
    format: String,
    request: LoadTableRequest,
}

impl LoadTable {
    fn plan(&self) -> Result<Plan> {
        let (schema, table) = match self.table.split_once('.') {
            Some((schema, table)) => (Some(schema.to_string()), table.to_string()),
            None => (None, self.table.clone()),
        };
        if !valid_table_name(&table) || schema.as_deref().is_some_and(|s| !valid_schema_name(s)) {
            return Err(Error::usage(format!(
                "--table: '{}' is not a table name (letters, digits and _, not digits only; SCHEMA.NAME in a lakehouse with schemas)",
                self.table
            )));
        }
        let upload = self.from_local.as_ref().map(PathBuf::from);
        let local_name = match &upload {
            Some(local) => Some(local.file_name().ok_or_else(|| {
                Error::usage(format!("--from-local: {} names no file", local.display()))
            })?),
            None => None,
        };
        let relative_path = match (&self.from, local_name) {
            // Into the folder, as `onelake cp` puts a file into a path ending in /.
            (Some(from), Some(name)) if from.ends_with('/') => {
                format!("{from}{}", name.to_string_lossy())
            }
            (Some(from), _) => from.trim_end_matches('/').to_string(),
            (None, Some(name)) => format!("Files/{}", name.to_string_lossy()),
            (None, None) => {
                return Err(Error::usage(
                    "give --from (a path under the lakehouse's Files) or --from-local (a file here)",
                ));
            }
        };
        if !valid_relative_path(&relative_path) {
            return Err(Error::usage(format!(
                "--from: '{relative_path}' is not a path under the lakehouse's Files"
            ))
            .with_hint("write it as Files/folder/file.csv: letters, digits, _, spaces, . and -, each part starting with a letter, digit or _"));
        }
        if let Some(local) = &upload
            && !local.is_file()
        {
            return Err(Error::not_found(format!(
                "--from-local: {} is not a readable file",
                local.display()
            )));
        }
        let delimiter = self.delimiter.clone().unwrap_or_else(|| ",".to_string());
        if !valid_delimiter(&delimiter) || delimiter.is_empty() {
            return Err(Error::usage(format!(
                "--delimiter: {delimiter:?} is not a delimiter (1 to 8 characters, none of ()[]{{}}'\")"
            )));
        }
        let format = match self.format.as_deref() {
            Some(format) => format.to_string(),
            None => format_of(&relative_path).ok_or_else(|| {
                Error::usage(format!(
                    "--format: '{relative_path}' ends in neither .csv nor .parquet"
                ))
                .with_hint("give --format csv or --format parquet")
            })?,
        };
        let format_options = if format == "parquet" {
            FileFormatOptions::Parquet
        } else {
            FileFormatOptions::Csv {
                header: Some(self.header.unwrap_or(true)),
                delimiter: Some(delimiter),
            }
        };
        let mode = match self.mode.as_deref() {
            Some("overwrite") => LoadMode::Overwrite,
            _ => LoadMode::Append,
        };
        let request = LoadTableRequest {
            relative_path: relative_path.clone(),
            // Settled against OneLake once the lakehouse is known.
            path_type: PathType::File,
            file_extension: None,
            mode: Some(mode),
            recursive: None,
            format_options: Some(format_options),
        };
        Ok(Plan {
            schema,
            table,
            relative_path,
            upload,
            format,
            request,
        })
    }
}

/// `csv` or `parquet` from a file name's extension.
fn format_of(path: &str) -> Option<String> {
    let (_, extension) = path.rsplit_once('.')?;
    let extension = extension.to_ascii_lowercase();
    matches!(extension.as_str(), "csv" | "parquet").then_some(extension)
}

impl Command for LoadTable {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let mut plan = self.plan()?;
            let workspace = ctx.workspace_id(&self.workspace).await?;
            let lakehouse = ctx
                .item_id(&workspace, &self.item, Some(item_types::LAKEHOUSE))
                .await?;
            let properties = lakehouses::properties(ctx.api(), &workspace, &lakehouse).await?;
            let schema = match (plan.schema.take(), properties.default_schema) {
                (Some(_), None) => {
                    return Err(Error::usage(format!(
                        "--table: {} has no schemas; name the table without one",
                        self.item
                    )));
                }
                (named, default) => named.or(default),
            };
            let lake = ctx.onelake()?;
            let at = LakePath {
                workspace: workspace.clone(),
                item: lakehouse.clone(),
                inner: plan.relative_path.clone(),
                shown_as: Some(format!("{}/{}", self.workspace, self.item)),
            };
            if let Some(local) = &plan.upload {
                if !self.overwrite && lake.exists(&at).await? {
                    return Err(Error::usage(format!(
                        "--from: {} is already in {}",
                        plan.relative_path, self.item
                    ))
                    .with_hint("give --overwrite to replace it, or --from to upload elsewhere"));
                }
                let sending = Sending {
                    overwrite: self.overwrite,
                    sha256: None,
                    sent: &|_| {},
                    blocks_at_once: onelake::blocks_at_once(1, DEFAULT_FILES_AT_ONCE),
                };
                lake.upload(local, &at, &sending).await?;
            } else if !lake.exists(&at).await? {
                if lake.list(&at, false).await?.is_empty() {
                    return Err(Error::not_found(format!(
                        "--from: {} is not in {}",
                        plan.relative_path, self.item
                    ))
                    .with_hint(format!(
                        "see what is there with `fabsh onelake ls {}/{}/Files`",
                        self.workspace, self.item
                    )));
                }
                plan.request.path_type = PathType::Folder;
                plan.request.recursive = Some(self.recursive);
                plan.request.file_extension = Some(plan.format.clone());
            }
            let outcome = lakehouses::load_table(
                ctx.api(),
                &workspace,
                &lakehouse,
                schema.as_deref(),
                &plan.table,
                &plan.request,
            )
            .await?;
            let table = match &schema {
                Some(schema) => format!("{schema}.{}", plan.table),
                None => plan.table.clone(),
            };
            let mut row = json!({
                "table": table,
                "from": plan.relative_path,
                "mode": self.mode.as_deref().unwrap_or("append"),
                "status": "loaded",
            });
            if let fabsh_api::api::LroOutcome::Pending(pending) = outcome {
                row["status"] = json!("running");
                row["operation"] = json!(pending.operation_id);
            }
            Ok(Reply::json(row))
        })
    }
}
