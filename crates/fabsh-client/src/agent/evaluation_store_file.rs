//! The evaluation store's file, before SQLite uses it: made whole (schema and all) under a
//! temporary name and linked into place, so an empty or damaged file at the store's path is
//! never one fabsh left half made; refused, naming the file and the way out, when other users
//! can read it, when it is empty (its history is gone) or when it is not a database.

use crate::error::{Error, Result};
use fabsh_api::config::private_file::{self, shell_word};
use rusqlite::Connection;
use std::path::{Path, PathBuf};

/// The files SQLite keeps for a database at `path`: the database, its write-ahead log and
/// shared memory, and its rollback journal.
fn store_files(path: &Path) -> Vec<PathBuf> {
    let mut files = vec![path.to_path_buf()];
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        files.push(PathBuf::from(name));
    }
    files
}

/// Refuses a store that other users can read, by the rule every file fabsh keeps follows
/// (and `local serve` applies to its own store): the folder, the database and SQLite's files
/// beside it, with group or other permissions. The runs hold the agent's answers, which may
/// be data.
pub(crate) fn check_private(path: &Path) -> Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    let files = store_files(path);
    let mut paths = vec![folder];
    paths.extend(files.iter().map(PathBuf::as_path));
    private_file::check_private("the evaluation store", &paths, Some(folder))
}

/// Creates the store at `path` with `schema` unless a file is there: built under a temporary
/// name in a private folder and hard-linked into place, which fails rather than replaces when
/// another evaluation made the store meanwhile.
pub(crate) fn create_if_missing(path: &Path, schema: &str) -> Result<()> {
    if path.exists() {
        return Ok(());
    }
    let cannot = |err: &dyn std::fmt::Display| {
        Error::runtime(format!("cannot create {}", path.display())).with_cause(err)
    };
    let folder = path.parent().unwrap_or(Path::new("."));
    fabsh_api::config::private_file::create_dir(folder).map_err(|err| cannot(&err))?;
    let temporary = path.with_extension(format!("new{}", std::process::id()));
    let made = (|| -> std::result::Result<(), String> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        options.open(&temporary).map_err(|err| err.to_string())?;
        let conn = Connection::open(&temporary).map_err(|err| err.to_string())?;
        conn.execute_batch(schema).map_err(|err| err.to_string())?;
        conn.close().map_err(|(_, err)| err.to_string())?;
        match std::fs::hard_link(&temporary, path) {
            Err(err) if err.kind() != std::io::ErrorKind::AlreadyExists => Err(err.to_string()),
            _ => Ok(()),
        }
    })();
    let _ = std::fs::remove_file(&temporary);
    made.map_err(|err| cannot(&err))
}

/// Refuses a store file that is empty: fabsh never leaves one (see [`create_if_missing`]),
/// so it was truncated and its history is gone; starting over in it would say nothing.
pub(crate) fn check_not_empty(path: &Path) -> Result<()> {
    let len = std::fs::metadata(path).map_or(1, |meta| meta.len());
    if len > 0 {
        return Ok(());
    }
    Err(unusable(
        path,
        "is empty (0 bytes): the runs it held are gone",
    ))
}

/// The error for a store file that cannot be used: which file, that `--no-save` evaluates
/// without it, and how to move it aside for a new one.
pub(crate) fn unusable(path: &Path, why: &str) -> Error {
    let shown = shell_word(&path.display().to_string());
    Error::runtime(format!("the evaluation store {} {why}", path.display())).with_hint(format!(
        "`data-agent evaluate --no-save` runs without it; to start a new store, move it aside: `mv {shown} {shown}.broken`"
    ))
}
