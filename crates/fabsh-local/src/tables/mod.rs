//! Real tables for lakehouse and warehouse items: each item's data is its own SQLite file,
//! `<data dir>/tables/<item id>.sqlite3`, apart from the main store so that loading data
//! never blocks the API's writer. The demo lakehouse's file is generated on first use, which
//! keeps first start (and every test server) fast.

mod csv_load;
mod demo;
mod parquet_load;
mod readers;

pub(crate) use csv_load::{CsvFormat, LoadMode, TextTable, valid_name as valid_table_name};
pub(crate) use parquet_load::read as read_parquet;
pub(crate) use readers::Reader;

use crate::private_files;
use crate::store::principals;
use rusqlite::{Connection, OpenFlags};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// `meta` key naming the seeded lakehouse whose tables are the demo dataset, in stores seeded
/// before copies of the demo workspace could be made.
const DEMO_LAKEHOUSE_KEY: &str = "demo_lakehouse_id";

/// `meta` key marking one lakehouse whose tables are the demo dataset.
fn demo_lakehouse_key(item_id: &str) -> String {
    format!("{DEMO_LAKEHOUSE_KEY}/{item_id}")
}

/// Marks a lakehouse as holding the demo dataset (generated when first read).
pub(crate) fn mark_demo(conn: &Connection, item_id: &str) -> rusqlite::Result<()> {
    principals::meta_set(conn, &demo_lakehouse_key(item_id), b"1")
}

/// True for a lakehouse seeded with the demo dataset.
pub(crate) fn is_demo(conn: &Connection, item_id: &str) -> rusqlite::Result<bool> {
    if principals::meta_get(conn, &demo_lakehouse_key(item_id))?.is_some() {
        return Ok(true);
    }
    let first = principals::meta_get(conn, DEMO_LAKEHOUSE_KEY)?;
    Ok(first.is_some_and(|id| id == item_id.as_bytes()))
}

/// Serialises demo generation within the process; across processes the rename settles it.
static GENERATING: Mutex<()> = Mutex::new(());

/// A table or view of an item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TableInfo {
    /// Its name.
    pub name: String,
    /// True for views.
    pub is_view: bool,
    /// Column names and declared types, in order.
    pub columns: Vec<(String, String)>,
}

/// The directory of the items' data files.
pub(crate) fn tables_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("tables")
}

/// The data file of an item.
pub(crate) fn data_path(data_dir: &Path, item_id: &str) -> PathBuf {
    tables_dir(data_dir).join(format!("{item_id}.sqlite3"))
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(Duration::from_secs(10))?;
    Ok(())
}

/// Opens an item's data file for reading.
fn open_file(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    configure(&conn)?;
    Ok(conn)
}

/// Opens (creating) an item's data for writing.
pub(crate) fn open_write(
    data_dir: &Path,
    item_id: &str,
    demo: bool,
) -> rusqlite::Result<Connection> {
    let path = data_path(data_dir, item_id);
    if demo && !path.exists() {
        generate_demo(&path)?;
    }
    if let Some(dir) = path.parent() {
        private_files::create_dir(dir).map_err(io_error)?;
    }
    private_files::create_file(&path).map_err(io_error)?;
    let conn = Connection::open(&path)?;
    configure(&conn)?;
    Ok(conn)
}

fn io_error(err: std::io::Error) -> rusqlite::Error {
    rusqlite::Error::ToSqlConversionFailure(Box::new(err))
}

/// Writes the demo dataset to a temporary file and renames it into place, so a reader never
/// sees a half-written file.
fn generate_demo(path: &Path) -> rusqlite::Result<()> {
    let _guard = crate::locks::lock(&GENERATING);
    if path.exists() {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        private_files::create_dir(dir).map_err(io_error)?;
    }
    let temporary = path.with_extension(format!("tmp-{}", std::process::id()));
    let _ = std::fs::remove_file(&temporary);
    private_files::create_file(&temporary).map_err(io_error)?;
    {
        let mut conn = Connection::open(&temporary)?;
        demo::write(&mut conn)?;
    }
    std::fs::rename(&temporary, path).map_err(io_error)
}

/// The item tables of one server: the directory their files are in, the schemas it has read
/// from them, and its idle read connections to them (see [`readers`]).
///
/// Agent requests ask for an item's schema on every call, and opening the file means parsing
/// every `CREATE TABLE` in it again. So the schema is remembered per item with the schema
/// cookie it was read at (the counter SQLite keeps in the file header and bumps on every
/// schema change), and used only while the file's cookie is still the same: a table loaded
/// by any process is seen at once, and an item keeps one entry. Nothing else is remembered,
/// and the memo is the server's own (two servers in one process share nothing).
#[derive(Debug)]
pub(crate) struct Tables {
    dir: PathBuf,
    schemas: Mutex<HashMap<String, ReadAt>>,
    readers: readers::Readers,
}

/// A read connection to an item's data, and the tables and views the file holds.
pub(crate) type ItemData<'a> = (Reader<'a>, Arc<Vec<TableInfo>>);

/// A schema and the schema cookie it was read at.
type ReadAt = (u32, Arc<Vec<TableInfo>>);

impl Tables {
    /// The tables of the items of the store in `data_dir`.
    pub(crate) fn new(data_dir: &Path) -> Tables {
        Tables {
            dir: data_dir.to_path_buf(),
            schemas: Mutex::default(),
            readers: readers::Readers::default(),
        }
    }

    /// An item's data, for reading; `None` when the item has no tables yet (the demo
    /// lakehouse's are generated now).
    pub(crate) fn open_read(
        &self,
        item_id: &str,
        demo: bool,
    ) -> rusqlite::Result<Option<Reader<'_>>> {
        let path = data_path(&self.dir, item_id);
        if !path.exists() {
            if !demo {
                return Ok(None);
            }
            generate_demo(&path)?;
        }
        self.readers
            .take(item_id, &path, || open_file(&path))
            .map(Some)
    }

    /// An item's data for a query: a read connection, and the tables and views the file
    /// holds as [`Tables::schema`] remembers them; `None` when the item has no tables yet.
    pub(crate) fn open_query(
        &self,
        item_id: &str,
        demo: bool,
    ) -> rusqlite::Result<Option<ItemData<'_>>> {
        let Some(tables) = self.schema(item_id, demo)? else {
            return Ok(None);
        };
        Ok(self
            .open_read(item_id, demo)?
            .map(|reader| (reader, tables)))
    }

    /// The data directory (the item files are in its `tables/`).
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every table and view of an item with its columns, as [`list`] gives them; `None` when
    /// the item has no tables yet.
    pub(crate) fn schema(
        &self,
        item_id: &str,
        demo: bool,
    ) -> rusqlite::Result<Option<Arc<Vec<TableInfo>>>> {
        let path = data_path(&self.dir, item_id);
        if demo && !path.exists() {
            generate_demo(&path)?;
        }
        let Some(cookie) = schema_cookie(&path) else {
            return Ok(None);
        };
        // The map only holds finished results; a panic elsewhere cannot leave it half-written.
        let lock = || crate::locks::lock(&self.schemas);
        if let Some((read_at, found)) = lock().get(item_id)
            && *read_at == cookie
        {
            return Ok(Some(Arc::clone(found)));
        }
        let Some(conn) = self.open_read(item_id, demo)? else {
            return Ok(None);
        };
        let tables = Arc::new(list(&conn)?);
        lock().insert(item_id.to_string(), (cookie, Arc::clone(&tables)));
        Ok(Some(tables))
    }
}

/// The schema cookie from a SQLite file's header (bytes 40..44), or `None` without a file.
fn schema_cookie(path: &Path) -> Option<u32> {
    use std::io::Read;
    let mut header = [0u8; 44];
    std::fs::File::open(path)
        .ok()?
        .read_exact(&mut header)
        .ok()?;
    Some(u32::from_be_bytes([
        header[40], header[41], header[42], header[43],
    ]))
}

/// Every table and view's name, and whether it is a view: tables first, each group by name.
/// SQLite's own tables (`sqlite_` and more) are left out, and only those.
pub(crate) fn names(conn: &Connection) -> rusqlite::Result<Vec<(String, bool)>> {
    let mut stmt = conn.prepare(
        "SELECT name, type = 'view' FROM sqlite_schema
          WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
          ORDER BY type = 'view', name",
    )?;
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

/// Every table and view with its columns, as [`names`] orders them.
pub(crate) fn list(conn: &Connection) -> rusqlite::Result<Vec<TableInfo>> {
    names(conn)?
        .into_iter()
        .map(|(name, is_view)| {
            let columns = columns(conn, &name)?;
            Ok(TableInfo {
                name,
                is_view,
                columns,
            })
        })
        .collect()
}

/// A table's columns and declared types (lower-case), in order; empty when no such table.
pub(crate) fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare_cached("SELECT name, lower(type) FROM pragma_table_info(?1)")?;
    let rows = stmt.query_map([table], |r| Ok((r.get(0)?, r.get(1)?)))?;
    rows.collect()
}

/// `"name"` for SQL text.
pub(crate) fn quote_identifier(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_dataset_is_generated_once_with_realistic_tables() {
        let dir = tempfile::tempdir().expect("dir");
        let tables = Tables::new(dir.path());
        assert!(tables.open_read("x", false).expect("open").is_none());
        let conn = tables
            .open_read("demo", true)
            .expect("open")
            .expect("demo data");
        let tables = list(&conn).expect("list");
        let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            vec!["customers", "orders", "products", "sales_by_country"]
        );
        assert!(tables[3].is_view);
        let orders: i64 = conn
            .query_row("SELECT count(*) FROM orders", [], |r| r.get(0))
            .expect("count");
        assert!(orders >= 2000, "{orders}");
        let columns = columns(&conn, "orders").expect("columns");
        assert!(columns.contains(&("amount".to_string(), "decimal(12,2)".to_string())));
    }

    #[test]
    fn a_schema_is_remembered_until_the_file_changes_it() {
        let dir = tempfile::tempdir().expect("dir");
        let tables = Tables::new(dir.path());
        assert!(tables.schema("none", false).expect("schema").is_none());
        let first = tables
            .schema("demo", true)
            .expect("schema")
            .expect("tables");
        let again = tables
            .schema("demo", true)
            .expect("schema")
            .expect("tables");
        assert!(Arc::ptr_eq(&first, &again), "read twice");
        // Another server's memo is its own; a change by it (or any process) is seen at once.
        let other = Tables::new(dir.path());
        open_write(dir.path(), "demo", true)
            .expect("open")
            .execute_batch("CREATE TABLE returns(id INTEGER)")
            .expect("create");
        let changed = other.schema("demo", true).expect("schema").expect("tables");
        let seen = tables
            .schema("demo", true)
            .expect("schema")
            .expect("tables");
        assert_eq!(seen.len(), first.len() + 1);
        assert_eq!(seen, changed);
    }
}
