//! The store is private to its user: its database holds the key that signs every token, and
//! its table files hold data. Directories are created 0700 and files 0600 whatever the umask,
//! and a store other users can read is refused rather than used, as the client refuses a
//! token cache others can read.

use crate::store::DB_FILE;
use std::fs::OpenOptions;
use std::io;
use std::path::Path;

/// Creates `dir` and any missing parents, each readable by its owner only.
pub fn create_dir(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Options whose `create` makes a file readable by its owner only.
fn file_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}

/// Opens `path` emptied for writing, creating it readable by its owner only if it is absent.
pub fn rewrite(path: &Path) -> io::Result<std::fs::File> {
    file_options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
}

/// Opens `path` for writing anywhere in it, creating it readable by its owner only if it is
/// absent; what it holds is kept.
pub fn update(path: &Path) -> io::Result<std::fs::File> {
    file_options()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
}

/// Opens `path` for appending, creating it readable by its owner only if it is absent.
pub fn append(path: &Path) -> io::Result<std::fs::File> {
    file_options().append(true).create(true).open(path)
}

/// Creates an empty, private file at `path` unless one is there. SQLite treats an empty file
/// as a new database, and its Unix layer gives the `-wal`, `-shm` and `-journal` files it
/// makes beside a database the database file's own mode, so creating the file before SQLite
/// opens it keeps all of them private, whatever the umask.
pub fn create_file(path: &Path) -> io::Result<()> {
    file_options().write(true).create(true).open(path).map(drop)
}

/// Refuses a store that other users can read: the data dir, the database with its `-wal` and
/// `-shm` files, or the tables dir with group or other permissions. What does not exist yet
/// is created private later.
pub fn check_store(data_dir: &Path) -> crate::Result<()> {
    make_empty_dir_private(data_dir);
    let files = [
        data_dir.to_path_buf(),
        data_dir.join(DB_FILE),
        data_dir.join(format!("{DB_FILE}-wal")),
        data_dir.join(format!("{DB_FILE}-shm")),
        crate::tables::tables_dir(data_dir),
    ];
    for path in files {
        check(&path, data_dir)?;
    }
    Ok(())
}

/// An empty folder made for the store (`mkdir fabric`, mode 0755 under the usual umask) holds
/// nothing anyone could read yet: it is made private (0700) and used. Only its owner can
/// change its mode, so a folder of another user stays as it is, to be refused.
#[cfg(unix)]
fn make_empty_dir_private(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return;
    };
    let empty = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_none());
    if meta.is_dir() && empty && meta.permissions().mode() & 0o077 != 0 {
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    }
}

#[cfg(not(unix))]
fn make_empty_dir_private(_dir: &Path) {}

#[cfg(unix)]
fn check(path: &Path, data_dir: &Path) -> crate::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = match std::fs::metadata(path) {
        Ok(meta) => meta.permissions().mode() & 0o777,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(err) => {
            return Err(
                crate::Error::failed(format!("cannot read {}", path.display())).with_cause(err),
            );
        }
    };
    if mode & 0o077 == 0 {
        return Ok(());
    }
    Err(crate::Error::invalid(format!(
        "refusing the local Fabric store {}: its mode {mode:o} lets other users read it",
        path.display()
    ))
    .with_hint(format!(
        "make it private with `chmod -R go-rwx {}`",
        shell_word(&data_dir.display().to_string())
    )))
}

#[cfg(not(unix))]
fn check(_path: &Path, _data_dir: &Path) -> crate::Result<()> {
    Ok(())
}

/// `text` as one shell word: as is when nothing in it is special to the shell, else quoted.
fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
