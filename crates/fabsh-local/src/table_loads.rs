//! A lakehouse's load-table operation (`Tables_LoadTable`) as local Fabric runs it: CSV or
//! Parquet files from the lakehouse's own OneLake `Files` become a table of its SQL data, so `sql query`,
//! data agents and their `expected_sql` see the rows as soon as the operation succeeds.
//! Checked when the request comes (its route); the files are read when it runs, as the
//! service reads them then.

use super::api_error::ApiError;
use super::onelake::{self, NoSource, Source};
use super::store::items;
use super::tables::{self, CsvFormat, LoadMode, TextTable};
use axum::http::StatusCode;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// A load, as its operation keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TableLoad {
    pub workspace_id: String,
    pub item_id: String,
    /// The table (in the lakehouse's one schema of tables, `dbo`).
    pub table: String,
    /// `Files/...`.
    pub relative_path: String,
    /// A folder's files rather than one file.
    pub folder: bool,
    pub recursive: bool,
    /// Of a folder's files.
    pub extension: String,
    pub append: bool,
    /// Parquet files rather than CSV ones (`header` and `delimiter` then mean nothing).
    pub parquet: bool,
    pub header: bool,
    pub delimiter: u8,
}

impl TableLoad {
    /// Reads the files and loads them into the table of the item's SQL data in `data_dir`.
    pub(crate) fn apply(&self, data_dir: &Path, conn: &Connection) -> Result<(), ApiError> {
        if items::get(conn, &self.workspace_id, &self.item_id)?.is_none() {
            return Err(ApiError::item_not_found(&self.item_id));
        }
        let source = Source {
            workspace_id: &self.workspace_id,
            item_id: &self.item_id,
            relative_path: &self.relative_path,
            folder: self.folder,
            recursive: self.recursive,
            extension: &self.extension,
        };
        let files = onelake::files_to_load(data_dir, &source).map_err(|why| match why {
            NoSource::Invalid => ApiError::invalid_parameter("relativePath", &self.relative_path),
            NoSource::Missing(what) => path_not_found(&what),
            NoSource::Io(err) => ApiError::internal(format!("cannot read the files: {err}")),
        })?;
        let mut contents = Vec::with_capacity(files.len());
        for (name, file) in files {
            let bytes = std::fs::read(&file)
                .map_err(|err| ApiError::internal(format!("cannot read {name}: {err}")))?;
            contents.push((name, bytes));
        }
        let invalid = |why: String| ApiError::bad_request("InvalidInput", why);
        let table = if self.parquet {
            tables::read_parquet(&self.table, contents)
        } else {
            let named: Vec<(&str, &[u8])> = contents
                .iter()
                .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
                .collect();
            let format = CsvFormat {
                header: self.header,
                delimiter: self.delimiter,
            };
            TextTable::read(&self.table, &named, format)
        }
        .map_err(invalid)?;
        let demo = tables::is_demo(conn, &self.item_id)?;
        let mut sql = tables::open_write(data_dir, &self.item_id, demo)?;
        let mode = if self.append {
            LoadMode::Append
        } else {
            LoadMode::Overwrite
        };
        table.load(&mut sql, mode).map_err(invalid)?;
        Ok(())
    }
}

/// The failure of a load whose files are not there. The service's code for it is not in the
/// swagger or a recording; OneLake's own (ADLS) code for a missing path is `PathNotFound`.
fn path_not_found(what: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "PathNotFound",
        format!("Cannot load the table: {what} in the lakehouse's OneLake storage"),
    )
}
