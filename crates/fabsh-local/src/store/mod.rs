//! The SQLite store: one writer connection behind a mutex, a few reader connections, WAL so
//! readers never wait for the writer, and a busy timeout because another process may have the
//! same file open. Every call may block, so a server's store is used only from tokio's
//! blocking pool (`crate::blocking`; debug builds check). The store caches nothing: every
//! request reads the file. Beside it a server keeps two memos of its own (`state.rs`), parsed
//! agent definitions and item table schemas, whose entries are used only while a version the
//! files keep (the item's parts version, the table file's schema cookie) still matches.

pub(crate) mod assistants;
pub(crate) mod creation_payloads;
pub(crate) mod deleted_items;
pub(crate) mod environment_publishes;
pub(crate) mod folders;
pub(crate) mod identities;
mod item_names;
pub(crate) mod items;
pub(crate) mod jobs;
pub(crate) mod links;
pub(crate) mod livy_sessions;
pub(crate) mod mlv_definitions;
pub(crate) mod operations;
pub(crate) mod principals;
pub(crate) mod schema;
pub(crate) mod shares;
pub(crate) mod shortcuts;
pub(crate) mod sign_in;
pub(crate) mod tags;
pub(crate) mod workspace_tags;
pub(crate) mod workspaces;

use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

/// File name of the database inside the data directory.
pub const DB_FILE: &str = "local-fabric.sqlite3";

const READERS: usize = 4;
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The database handle shared by all request handlers.
pub(crate) struct Db {
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
    path: PathBuf,
    /// Set once a server owns the store: from then on every call must come from work
    /// `crate::blocking` handed to the blocking pool (checked in debug builds).
    guarded: AtomicBool,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db").field("path", &self.path).finish()
    }
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(())
}

impl Db {
    /// Opens (creating if needed) the database in `data_dir` and brings the schema up to date.
    pub(crate) fn open(data_dir: &Path) -> rusqlite::Result<Db> {
        let path = data_dir.join(DB_FILE);
        let mut writer = Connection::open(&path)?;
        // WAL is a property of the file; setting it from the writer covers every connection.
        writer.pragma_update(None, "journal_mode", "WAL")?;
        configure(&writer)?;
        schema::migrate(&mut writer)?;
        let mut readers = Vec::with_capacity(READERS);
        for _ in 0..READERS {
            let reader = Connection::open_with_flags(
                &path,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            configure(&reader)?;
            // Readers must never write: the single writer is what keeps transactions short
            // and free of busy-retry storms inside this process.
            reader.pragma_update(None, "query_only", "ON")?;
            readers.push(Mutex::new(reader));
        }
        Ok(Db {
            writer: Mutex::new(writer),
            readers,
            next_reader: AtomicUsize::new(0),
            path,
            guarded: AtomicBool::new(false),
        })
    }

    /// The directory holding the database file, and beside it the tables of lakehouse and
    /// warehouse items.
    pub(crate) fn data_dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// From now on, calls must come through `crate::blocking` (a server's store): debug
    /// builds check it on every call, so a handler or task that forgets fails its tests.
    pub(crate) fn guard_async_workers(&self) {
        self.guarded.store(true, Ordering::Relaxed);
    }

    fn check_thread(&self) {
        debug_assert!(
            !self.guarded.load(Ordering::Relaxed) || crate::blocking::on_pool(),
            "the store was used on an async worker thread: run it through crate::blocking"
        );
    }

    /// Runs `f` on a reader connection. Readers see the last committed state.
    pub(crate) fn read<T, E>(&self, f: impl FnOnce(&Connection) -> Result<T, E>) -> Result<T, E> {
        self.check_thread();
        let start = self.next_reader.fetch_add(1, Ordering::Relaxed);
        for i in 0..self.readers.len() {
            if let Ok(conn) = self.readers[(start + i) % self.readers.len()].try_lock() {
                return f(&conn);
            }
        }
        // All readers busy: queue on one. A poisoned lock only means a panic happened while
        // reading; the connection itself is still usable.
        let conn = crate::locks::lock(&self.readers[start % self.readers.len()]);
        f(&conn)
    }

    /// Runs `f` inside one `BEGIN IMMEDIATE` transaction on the writer; commits on `Ok`,
    /// rolls back on `Err`. Immediate mode takes the file's write lock up front, so checks made
    /// inside `f` (name in use, folder exists) still hold at commit, even across processes.
    pub(crate) fn write<T, E: From<rusqlite::Error>>(
        &self,
        f: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        self.write_then(f, |_| {})
    }

    /// Like [`Db::write`], then runs `after_commit` on the result while the next writer still
    /// waits, so what it records about the committed state cannot be overtaken by a later
    /// write (a cache of what was just written, say).
    pub(crate) fn write_then<T, E: From<rusqlite::Error>>(
        &self,
        f: impl FnOnce(&Transaction<'_>) -> Result<T, E>,
        after_commit: impl FnOnce(&T),
    ) -> Result<T, E> {
        self.check_thread();
        let mut conn = crate::locks::lock(&self.writer);
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let value = f(&tx)?;
        tx.commit()?;
        after_commit(&value);
        Ok(value)
    }
}

/// A fresh lower-case GUID.
pub(crate) fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(conn: &Connection) -> rusqlite::Result<i64> {
        conn.query_row("SELECT 1", [], |row| row.get(0))
    }

    #[tokio::test]
    async fn a_guarded_store_is_used_through_the_blocking_pool() {
        let dir = tempfile::tempdir().expect("dir");
        let db = std::sync::Arc::new(Db::open(dir.path()).expect("open"));
        assert_eq!(db.read(one).expect("read"), 1);
        db.guard_async_workers();
        let store = std::sync::Arc::clone(&db);
        let read = crate::blocking::run(move || store.read(one)).await;
        assert_eq!(read.expect("ran").expect("read"), 1);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "async worker")]
    fn a_guarded_store_refuses_a_call_that_did_not_come_through_the_pool() {
        let dir = tempfile::tempdir().expect("dir");
        let db = Db::open(dir.path()).expect("open");
        db.guard_async_workers();
        let _ = db.read(one);
    }
}
