//! `onelake rm`: files deleted, one row each.

use super::run::{DEFAULT_FILES_AT_ONCE, Run, failed_status, outcome};
use super::{PATH, RECURSIVE, lake_path};
use crate::commands::spec::HandlerFuture;
use crate::commands::typed::{Command, typed_args};
use crate::context::Ctx;
use crate::error::Error;
use crate::reply::Reply;
use fabsh_api::onelake::{LakePath, not_in_onelake};
use serde_json::json;

typed_args! {
    /// `onelake rm`.
    pub(super) struct Rm {
        path: String = PATH,
        recursive: bool = RECURSIVE,
    }
}

impl Command for Rm {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let path = lake_path(&ctx, &self.path, "PATH").await?;
            if path.inner.is_empty() {
                return Err(Error::usage(format!(
                    "PATH: {path} is an item; onelake rm deletes files in it"
                ))
                .with_hint("to delete the item, use `fabsh item delete`"));
            }
            let lake = ctx.onelake()?;
            let files: Vec<LakePath> = if self.recursive {
                lake.files_below(&path).await?
            } else if lake.exists(&path).await? {
                vec![path.clone()]
            } else if lake.list(&path, false).await?.is_empty() {
                return Err(not_in_onelake(&path));
            } else {
                return Err(Error::usage(format!("PATH: {path} is a folder"))
                    .with_hint("give --recursive to delete every file below it"));
            };
            if ctx.api().options().dry_run {
                // Deletes go through object_store, not the HTTP layer that records a dry run:
                // the plan is said here, and nothing is sent.
                let planned: Vec<_> = files
                    .iter()
                    .map(|file| json!({"path": file.to_string(), "status": "planned"}))
                    .collect();
                return Ok(Reply::json(json!(planned)).with_dry_run_items(json!(planned)));
            }
            let run = Run::new(&ctx, files.len(), None, DEFAULT_FILES_AT_ONCE, "deleting");
            let delete = async |file: &LakePath| {
                lake.delete(file).await?;
                Ok(json!({"path": file.to_string(), "status": "deleted"}))
            };
            let failure = |file: &LakePath, err: &Error| json!({"path": file.to_string(), "status": failed_status(err), "error": err.message});
            let (rows, errors) = run.each(&files, files.iter().map(delete), failure).await;
            Ok(outcome(&ctx, rows, errors.len(), files.len(), "deleted"))
        })
    }
}
