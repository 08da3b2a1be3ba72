//! Where OneLake's files live and what is known of them. An item's files are
//! `<data dir>/onelake/<workspace id>/<item id>/{Files,Tables}/...`, plain files whose names
//! are the blob names' segments (checked by `names`); uploads in progress are under
//! `<data dir>/onelake-staging/<workspace id>/<item id>/` (same file system, so a finished
//! upload is renamed into place and a reader never sees half a file).
//!
//! A blob's properties come from its file alone: size and modification time, and an ETag
//! made of them with the inode and change time, so that any replacement (each is a new file
//! renamed into place) gets a new one. No table beside the files can drift from them, and a
//! file put into the folder by other means is served like any other. The price is that a
//! content type given at upload is not kept: every blob is `application/octet-stream`.

use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The content type every blob is answered with (see the module comment).
pub(crate) const CONTENT_TYPE: &str = "application/octet-stream";

/// The root of OneLake's files in the data dir.
fn files_root(data_dir: &Path) -> PathBuf {
    data_dir.join("onelake")
}

/// The root of uploads in progress in the data dir.
fn staging_root(data_dir: &Path) -> PathBuf {
    data_dir.join("onelake-staging")
}

/// The folders of one item: its files and its uploads in progress.
#[derive(Debug, Clone)]
pub(crate) struct ItemDirs {
    /// `<data dir>/onelake/<ws>/<item>`: holds `Files` and `Tables`.
    pub root: PathBuf,
    /// `<data dir>/onelake-staging/<ws>/<item>`.
    pub staging: PathBuf,
}

impl ItemDirs {
    /// The folders of an item (ids only, never names: they come from the store).
    pub(crate) fn of(data_dir: &Path, workspace_id: &str, item_id: &str) -> ItemDirs {
        ItemDirs {
            root: files_root(data_dir).join(workspace_id).join(item_id),
            staging: staging_root(data_dir).join(workspace_id).join(item_id),
        }
    }

    /// The file of a checked path in the item.
    pub(crate) fn file(&self, path: &super::names::ItemPath) -> PathBuf {
        let mut file = self.root.clone();
        file.extend(path.segments());
        file
    }

    /// What the staging folder keeps of the blob at `path` (a path in the item) under `kind`
    /// (`blocks`, `committed`, `metadata`): named by the SHA-256 of the path, so any path,
    /// however long or deep, is one name in one folder.
    pub(crate) fn of_blob(&self, kind: &str, path: &str) -> PathBuf {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(path.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        self.staging.join(kind).join(hex)
    }

    /// A fresh name for an upload in progress (made by the caller).
    pub(crate) fn upload(&self) -> PathBuf {
        self.staging.join("uploads").join(crate::store::new_id())
    }
}

/// A blob's properties.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Meta {
    /// Its length in bytes.
    pub size: u64,
    /// When its content last changed.
    pub modified: SystemTime,
    /// Its ETag, quoted as the `ETag` header carries it.
    pub etag: String,
}

/// What a path in an item's folder is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found {
    /// Nothing.
    Missing,
    /// A blob.
    File(Meta),
    /// A folder.
    Directory,
}

impl Found {
    /// The blob's properties, if it is one.
    pub(crate) fn file(&self) -> Option<&Meta> {
        match self {
            Found::File(meta) => Some(meta),
            Found::Missing | Found::Directory => None,
        }
    }
}

/// What `path` is, without following a symbolic link (one is treated as missing: the data
/// dir holds none of its own, and none may lead out of it).
pub(crate) fn stat(path: &Path) -> io::Result<Found> {
    match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.is_file() => Ok(Found::File(meta_of(&metadata))),
        Ok(metadata) if metadata.is_dir() => Ok(Found::Directory),
        Ok(_) => Ok(Found::Missing),
        Err(err)
            if matches!(
                err.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(Found::Missing)
        }
        Err(err) => Err(err),
    }
}

/// A file's properties from its metadata.
pub(crate) fn meta_of(metadata: &std::fs::Metadata) -> Meta {
    use sha2::Digest;
    // No modification time (a file system without one) is the epoch: still a valid date.
    let modified = metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH);
    let mut hasher = sha2::Sha256::new();
    hasher.update(metadata.len().to_le_bytes());
    if let Ok(since) = modified.duration_since(SystemTime::UNIX_EPOCH) {
        hasher.update(since.as_nanos().to_le_bytes());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        hasher.update(metadata.ino().to_le_bytes());
        hasher.update(metadata.ctime().to_le_bytes());
        hasher.update(metadata.ctime_nsec().to_le_bytes());
    }
    let digest = hasher.finalize();
    let hex: String = digest[..8].iter().map(|b| format!("{b:02X}")).collect();
    Meta {
        size: metadata.len(),
        modified,
        etag: format!("\"0x{hex}\""),
    }
}

/// Removes a folder and everything in it; a folder already gone is fine.
fn remove_tree(dir: &Path) -> io::Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Removes an item's files and uploads (the item was deleted).
pub(crate) fn remove_item(data_dir: &Path, workspace_id: &str, item_id: &str) -> io::Result<()> {
    let dirs = ItemDirs::of(data_dir, workspace_id, item_id);
    remove_tree(&dirs.root)?;
    remove_tree(&dirs.staging)
}

/// Removes a workspace's files and uploads (the workspace was deleted).
pub(crate) fn remove_workspace(data_dir: &Path, workspace_id: &str) -> io::Result<()> {
    remove_tree(&files_root(data_dir).join(workspace_id))?;
    remove_tree(&staging_root(data_dir).join(workspace_id))
}

/// One entry of a walk: its path in the item (`Files/raw/x.csv`) and what it is.
#[derive(Debug, Clone)]
pub(crate) struct Walked {
    /// The path in the item, `/`-separated.
    pub path: String,
    /// The blob's properties; `None` for a folder.
    pub meta: Option<Meta>,
}

/// Every file and folder under `start` (a path in the item, `Files` or below), depth first;
/// nothing when it does not exist. Symbolic links and names that are not UTF-8 are skipped:
/// neither can have come through the API.
pub(crate) fn walk(item_root: &Path, start: &str) -> io::Result<Vec<Walked>> {
    let mut found = Vec::new();
    let mut pending = vec![start.to_string()];
    while let Some(dir) = pending.pop() {
        let mut path = item_root.to_path_buf();
        path.extend(dir.split('/'));
        let entries = match std::fs::read_dir(&path) {
            Ok(entries) => entries,
            Err(err)
                if matches!(
                    err.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                continue;
            }
            Err(err) => return Err(err),
        };
        for entry in entries {
            let entry = entry?;
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let child = format!("{dir}/{name}");
            let metadata = entry.metadata()?;
            if metadata.is_dir() {
                found.push(Walked {
                    path: child.clone(),
                    meta: None,
                });
                pending.push(child);
            } else if metadata.is_file() {
                found.push(Walked {
                    path: child,
                    meta: Some(meta_of(&metadata)),
                });
            }
        }
    }
    Ok(found)
}

/// Creates the folders a file at `file` needs. A file where a folder is needed is 409
/// `PathConflict`, as on a hierarchical namespace.
pub(crate) fn make_parents(file: &Path) -> Result<(), super::answer::StorageError> {
    let Some(parent) = file.parent() else {
        return Ok(());
    };
    match crate::private_files::create_dir(parent) {
        Ok(()) => Ok(()),
        Err(err)
            if matches!(
                err.kind(),
                io::ErrorKind::AlreadyExists | io::ErrorKind::NotADirectory
            ) =>
        {
            Err(super::answer::StorageError::path_conflict())
        }
        Err(err) => Err(err.into()),
    }
}

/// Removes a file, ignoring one already gone (an upload's leftovers).
pub(crate) fn discard(file: &Path) {
    // Best effort: what is left is in the staging folder, never at a blob's place, and goes
    // with the item.
    let _ = std::fs::remove_file(file);
}

/// Removes the file on drop unless [`Temporary::keep`] was called: an upload that fails or is
/// cut off (its request dropped) leaves nothing behind.
#[derive(Debug)]
pub(crate) struct Temporary {
    path: PathBuf,
    kept: bool,
}

impl Temporary {
    /// Guards `path`.
    pub(crate) fn new(path: PathBuf) -> Temporary {
        Temporary { path, kept: false }
    }

    /// The guarded path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Stops guarding (the file was renamed away or is to stay).
    pub(crate) fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if !self.kept {
            discard(&self.path);
        }
    }
}

/// Whether `path` (a path in the item: `Files`, `Files/raw`, `Tables/orders`) is a file or a
/// folder in the item's OneLake storage; `Files` and `Tables` themselves always are.
pub(crate) fn exists(data_dir: &Path, workspace_id: &str, item_id: &str, path: &str) -> bool {
    let Ok(checked) = super::names::item_path(path) else {
        return false;
    };
    if checked.is_area() {
        return true;
    }
    let dirs = ItemDirs::of(data_dir, workspace_id, item_id);
    matches!(
        stat(&dirs.file(&checked)),
        Ok(Found::File(_) | Found::Directory)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_file_gets_a_new_etag() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("x");
        std::fs::write(&file, b"one").expect("write");
        let first = stat(&file).expect("stat");
        let replacement = dir.path().join("y");
        std::fs::write(&replacement, b"two").expect("write");
        std::fs::rename(&replacement, &file).expect("rename");
        let second = stat(&file).expect("stat");
        assert_ne!(
            first.file().map(|m| &m.etag),
            second.file().map(|m| &m.etag)
        );
        assert_eq!(second.file().map(|m| m.size), Some(3));
    }

    #[test]
    fn a_walk_finds_files_and_folders_and_nothing_for_a_missing_start() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("Files/a/b")).expect("dirs");
        std::fs::write(dir.path().join("Files/a/b/c.txt"), b"c").expect("write");
        let mut paths: Vec<(String, bool)> = walk(dir.path(), "Files")
            .expect("walk")
            .into_iter()
            .map(|w| (w.path, w.meta.is_some()))
            .collect();
        paths.sort();
        assert_eq!(
            paths,
            [
                ("Files/a".to_string(), false),
                ("Files/a/b".to_string(), false),
                ("Files/a/b/c.txt".to_string(), true),
            ]
        );
        assert!(walk(dir.path(), "Tables").expect("walk").is_empty());
    }

    #[test]
    fn a_temporary_file_goes_unless_kept() {
        let dir = tempfile::tempdir().expect("temp dir");
        let gone = dir.path().join("gone");
        std::fs::write(&gone, b"x").expect("write");
        drop(Temporary::new(gone.clone()));
        assert!(!gone.exists());
        let kept = dir.path().join("kept");
        std::fs::write(&kept, b"x").expect("write");
        Temporary::new(kept.clone()).keep();
        assert!(kept.exists());
    }
}
