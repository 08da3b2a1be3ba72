//! `fabsh local load-table`: a CSV file into a table of a lakehouse or warehouse item, straight
//! on the data dir or through the running server's `/_local/tables` route.

use super::admin::open_store;
use super::api_error::ApiError;
use super::store::items::{self, FolderScope, Item};
use super::store::{Db, workspaces};
use super::tables::{self, TextTable};
use fabsh_model::agent::sources::SOURCE_KINDS;
use serde_json::{Value, json};
use std::path::Path;

/// Most items of one type looked through when finding an item by name.
const MAX_ITEMS: i64 = 100_000;

/// The item holding tables, by id or name, among the SQL source types of the workspace.
fn find_item(db: &Db, workspace: &str, item: &str) -> Result<Item, ApiError> {
    db.read(|conn| {
        let ws = workspaces::find(conn, workspace)?
            .ok_or_else(|| ApiError::workspace_not_found(workspace))?;
        for kind in SOURCE_KINDS.iter().filter(|kind| kind.sql) {
            let found = items::list(
                conn,
                &ws.id,
                Some(kind.item_type),
                &FolderScope::All,
                0,
                MAX_ITEMS,
            )?
            .into_iter()
            .find(|i| i.id.eq_ignore_ascii_case(item) || i.display_name.eq_ignore_ascii_case(item));
            if let Some(found) = found {
                return Ok(found);
            }
        }
        Err(ApiError::new(
            axum::http::StatusCode::NOT_FOUND,
            "ItemNotFound",
            format!("No lakehouse, warehouse or SQL database '{item}' in the workspace"),
        ))
    })
}

/// What makes a load impossible before any store is opened.
#[derive(Debug)]
pub enum LoadProblem {
    /// The table name is not one.
    Table(String),
    /// The CSV cannot be read as a table.
    File(String),
}

/// Why `csv` cannot be loaded into `table`, if it cannot: checked by the client before it
/// opens the store or sends anything.
pub fn check_csv(table: &str, csv: &[u8]) -> std::result::Result<(), LoadProblem> {
    if !tables::valid_table_name(table) {
        return Err(LoadProblem::Table(format!(
            "'{table}' is not a valid table name (letters, digits and _, not starting with a digit)"
        )));
    }
    TextTable::parse(table, csv)
        .map(drop)
        .map_err(LoadProblem::File)
}

/// Loads `csv` into `table` of the item; answers what was loaded.
pub(crate) fn load_table_in(
    db: &Db,
    workspace: &str,
    item: &str,
    table: &str,
    csv: &[u8],
) -> Result<Value, ApiError> {
    // The file is checked before the item is looked for: a bad file is the caller's
    // mistake whatever the item.
    let invalid = |message| ApiError::bad_request("InvalidInput", message);
    let parsed = TextTable::parse(table, csv).map_err(invalid)?;
    let item = find_item(db, workspace, item)?;
    let demo = db.read(|conn| tables::is_demo(conn, &item.id))?;
    let mut conn = tables::open_write(db.data_dir(), &item.id, demo)?;
    let loaded = parsed
        .load(&mut conn, tables::LoadMode::Overwrite)
        .map_err(invalid)?;
    Ok(json!({
        "workspaceId": item.workspace_id,
        "itemId": item.id,
        "item": item.display_name,
        "table": loaded.table,
        "rows": loaded.rows,
        "columns": loaded.columns,
    }))
}

/// Loads a CSV file into a table, straight on the store in `data_dir`.
pub fn load_table(
    data_dir: &Path,
    workspace: &str,
    item: &str,
    table: &str,
    csv: &[u8],
) -> crate::Result<Value> {
    let (db, _) = open_store(data_dir)?;
    load_table_in(&db, workspace, item, table, csv).map_err(crate::Error::from)
}
