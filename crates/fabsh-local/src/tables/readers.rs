//! Read connections to the items' data files, kept open between queries.
//!
//! Opening a file costs more than most queries run on it: SQLite allocates its caches and
//! parses every `CREATE TABLE` again before the first statement, and closing frees it all.
//! In an evaluation each question and each reference query is one small query, so that was
//! half the server's work per query. A connection a query is done with goes back to the
//! item's idle list and the next query takes it.
//!
//! Nothing a query sets outlives it: each query sets its own limits, progress handler and
//! authorizer before it runs (see `agents::sql_run`), and the handler and authorizer are
//! cleared when the connection comes back. SQLite itself sees another process's writes and
//! schema changes at the start of each read, so an idle connection never answers from stale
//! data; a file replaced by another (same path, new inode) is not the file an idle connection
//! reads, so those are dropped.

use rusqlite::Connection;
use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::sync::Mutex;

/// Idle connections kept per item: as many as queries usually run on one item at once.
const IDLE_PER_ITEM: usize = 4;
/// Items with idle connections kept: a server rarely queries more at once, and each idle
/// connection holds a file descriptor and a page cache.
const ITEMS: usize = 32;

/// Which file a connection reads: the same path may later name another file.
#[cfg(unix)]
type FileId = (u64, u64);
#[cfg(not(unix))]
type FileId = ();

/// The file at `path` now, or `None` when there is none (or it cannot be told apart from a
/// later file there, where connections are not kept).
fn file_id(path: &Path) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path).ok()?;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// The idle read connections of one server, by item.
#[derive(Default)]
pub(super) struct Readers {
    idle: Mutex<HashMap<String, Vec<(FileId, Connection)>>>,
}

impl std::fmt::Debug for Readers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Readers").finish_non_exhaustive()
    }
}

impl Readers {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<(FileId, Connection)>>> {
        // The map holds whole entries only; a panic elsewhere cannot leave one half-made.
        crate::locks::lock(&self.idle)
    }

    /// A connection to `item_id`'s file at `path`: an idle one on the same file, else one
    /// `open` makes. It comes back here when dropped.
    pub(super) fn take(
        &self,
        item_id: &str,
        path: &Path,
        open: impl FnOnce() -> rusqlite::Result<Connection>,
    ) -> rusqlite::Result<Reader<'_>> {
        let file = file_id(path);
        let reused = {
            let mut idle = self.lock();
            match idle.get_mut(item_id) {
                Some(list) if list.last().is_some_and(|(at, _)| Some(*at) == file) => list.pop(),
                Some(_) => {
                    // Another file is there now: what was kept reads the old one.
                    idle.remove(item_id);
                    None
                }
                None => None,
            }
        };
        let conn = match reused {
            Some((_, conn)) => conn,
            None => open()?,
        };
        Ok(Reader {
            readers: self,
            item_id: item_id.to_string(),
            file,
            conn: Some(conn),
        })
    }

    fn give_back(&self, item_id: String, file: FileId, conn: Connection) {
        let mut idle = self.lock();
        if !idle.contains_key(&item_id) && idle.len() >= ITEMS {
            // Make room: any item will do, the next query of it opens a connection again.
            if let Some(other) = idle.keys().next().cloned() {
                idle.remove(&other);
            }
        }
        let list = idle.entry(item_id).or_default();
        if list.len() < IDLE_PER_ITEM {
            list.push((file, conn));
        }
    }
}

/// A read connection to an item's data, back to its server's idle list when dropped.
pub(crate) struct Reader<'a> {
    readers: &'a Readers,
    item_id: String,
    file: Option<FileId>,
    conn: Option<Connection>,
}

impl Deref for Reader<'_> {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        self.conn
            .as_ref()
            .expect("a reader holds its connection until dropped")
    }
}

impl DerefMut for Reader<'_> {
    fn deref_mut(&mut self) -> &mut Connection {
        self.conn
            .as_mut()
            .expect("a reader holds its connection until dropped")
    }
}

impl Drop for Reader<'_> {
    fn drop(&mut self) {
        let (Some(mut conn), Some(file)) = (self.conn.take(), self.file) else {
            return;
        };
        // Kept only when clean: no statement left mid-way, nothing of the last query's set.
        let cleared = conn.is_autocommit()
            && conn
                .authorizer(
                    None::<fn(rusqlite::hooks::AuthContext<'_>) -> rusqlite::hooks::Authorization>,
                )
                .is_ok();
        if cleared {
            conn.progress_handler(0, None::<fn() -> bool>).ok();
            self.readers
                .give_back(std::mem::take(&mut self.item_id), file, conn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Tables, data_path, open_write};

    /// A connection's own setting, to tell whether a reader is the connection used before.
    fn cache_size(conn: &rusqlite::Connection) -> i64 {
        conn.query_row("PRAGMA cache_size", [], |row| row.get(0))
            .expect("cache_size")
    }

    fn count(conn: &rusqlite::Connection, table: &str) -> i64 {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |row| {
            row.get(0)
        })
        .expect("count")
    }

    #[test]
    fn a_reader_goes_back_clean_and_is_taken_again() {
        let dir = tempfile::tempdir().expect("dir");
        let tables = Tables::new(dir.path());
        {
            let mut conn = tables.open_read("demo", true).expect("open").expect("data");
            conn.execute_batch("PRAGMA cache_size = -1234")
                .expect("pragma");
            conn.authorizer(Some(|_: rusqlite::hooks::AuthContext<'_>| {
                rusqlite::hooks::Authorization::Deny
            }))
            .expect("authorizer");
        }
        let again = tables.open_read("demo", true).expect("open").expect("data");
        assert_eq!(
            cache_size(&again),
            -1234,
            "the idle connection was not reused"
        );
        // The last query's authorizer went with it: this one may read what it is allowed.
        assert_eq!(count(&again, "customers"), 240);
    }

    #[test]
    fn an_idle_reader_sees_new_rows_and_tables_and_never_a_replaced_file() {
        let dir = tempfile::tempdir().expect("dir");
        let tables = Tables::new(dir.path());
        let orders = count(
            &tables.open_read("demo", true).expect("open").expect("data"),
            "orders",
        );
        assert_eq!(orders, 3000);
        // Another connection (another process, as `local load-table` is) changes the file.
        open_write(dir.path(), "demo", true)
            .expect("writer")
            .execute_batch(
                "CREATE TABLE returns(id INTEGER); INSERT INTO returns VALUES (1), (2);
                 DELETE FROM orders WHERE rowid IN (SELECT rowid FROM orders LIMIT 10);",
            )
            .expect("write");
        let reader = tables.open_read("demo", true).expect("open").expect("data");
        assert_eq!(count(&reader, "returns"), 2);
        assert_eq!(count(&reader, "orders"), 2990);
        reader
            .execute_batch("PRAGMA cache_size = -777")
            .expect("pragma");
        drop(reader);
        // The file is replaced by another one at the same path: the idle connection, which
        // still reads the old file, is not used.
        let path = data_path(dir.path(), "demo");
        let other = dir.path().join("other.sqlite3");
        let made = rusqlite::Connection::open(&other).expect("other");
        made.execute_batch("CREATE TABLE orders(id INTEGER); INSERT INTO orders VALUES (1);")
            .expect("other table");
        drop(made);
        std::fs::rename(&other, &path).expect("replace");
        let reader = tables.open_read("demo", true).expect("open").expect("data");
        assert_eq!(count(&reader, "orders"), 1);
        assert_ne!(cache_size(&reader), -777);
    }
}
