//! Listing, reading, uploading, downloading and deleting OneLake files. Uploads and downloads
//! stream in chunks: a file is never read whole into memory. Nothing half-written is left at
//! a destination: an upload's blocks become the file only when its block list is committed
//! (a failed or interrupted upload leaves none; its blocks are resumed by the next run, see
//! `blocks`), and a download goes to a temporary file beside the destination that is renamed
//! over it when whole.

use super::{LakePath, OneLake, lake_error};
use crate::error::{Error, Result};
use futures::TryStreamExt;
use object_store::path::Path as StorePath;
use object_store::{
    Attribute, Attributes, ObjectMeta, ObjectStore, PutMode, PutOptions, PutPayload,
};
use serde::Serialize;
use std::path::{Path, PathBuf};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The size of an upload's blocks, and of the part a file smaller than it is sent in. With
/// the blocks in flight ([`blocks_at_once`]), it bounds the memory an upload takes (a block
/// per block in flight, and one being read per file), whatever the files' size.
pub(super) const CHUNK: usize = 4 * 1024 * 1024;
/// The most blocks a blob is committed from (Azure Blob Storage's limit, which OneLake's Blob
/// API shares).
const MAX_BLOCKS: u64 = 50_000;
/// The largest file an upload takes: [`MAX_BLOCKS`] blocks of [`CHUNK`] bytes (195 GiB).
const MAX_UPLOAD_BYTES: u64 = MAX_BLOCKS * CHUNK as u64;

/// Refuses a file too large to upload, before anything is sent.
pub fn check_upload_size(from: &Path, size: u64) -> Result<()> {
    if size > MAX_UPLOAD_BYTES {
        return Err(Error::usage(format!(
            "{} is {size} bytes; a OneLake file is sent in at most {MAX_BLOCKS} blocks of {} MiB, {MAX_UPLOAD_BYTES} bytes",
            from.display(),
            CHUNK >> 20
        )));
    }
    Ok(())
}

/// Bytes of a download gathered before each write to its file.
const WRITE_BUFFER: usize = 1024 * 1024;

/// How many blocks of each file to send at once when `files` files are sent, `files_at_once`
/// at a time: about `files_at_once` blocks in flight in all. A file sent alone has that many
/// of its own blocks going; files sent side by side one each, which keeps as many requests
/// busy with fewer blocks arriving out of order and no two written into one blob at once.
pub fn blocks_at_once(files: usize, files_at_once: usize) -> usize {
    let files_at_once = files_at_once.max(1);
    (files_at_once / files.clamp(1, files_at_once)).max(1)
}

/// How a file is sent.
pub struct Sending<'a> {
    /// Replace a file at the destination (without it, an existing one is refused).
    pub overwrite: bool,
    /// The file's SHA-256 (hex), kept with the blob as its `fabsh_sha256` metadata, so a
    /// later listing tells whether it changed without reading it (`onelake sync`).
    pub sha256: Option<&'a str>,
    /// Told how many more bytes went, as they go (a progress bar).
    pub sent: &'a (dyn Fn(u64) + Send + Sync),
    /// Blocks of the file in flight at once ([`blocks_at_once`]).
    pub blocks_at_once: usize,
}

/// A file or folder of a listing.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// Its path, `WORKSPACE/ITEM/...`.
    pub path: String,
    /// Its last segment.
    pub name: String,
    /// `file` or `folder`.
    pub kind: &'static str,
    /// Bytes, for a file.
    pub size: Option<u64>,
    /// When it last changed (RFC 3339), for a file.
    pub modified: Option<String>,
}

/// The blob name of `path` in its workspace's store, as it is: a name is not re-encoded, so
/// `données/été.csv` is stored as written (object_store's `Path::from` would store
/// `donn%C3%A9es`).
fn blob(path: &LakePath) -> Result<StorePath> {
    StorePath::parse(path.in_workspace())
        .map_err(|err| Error::usage(format!("{path} is not a OneLake path: {err}")))
}

impl OneLake {
    /// The files and folders at `path` (every file below it with `recursive`); a file's own
    /// entry when `path` is a file.
    pub async fn list(&self, path: &LakePath, recursive: bool) -> Result<Vec<Entry>> {
        let store = self.store(&path.workspace)?;
        let prefix = blob(path)?;
        let entry = |meta: &ObjectMeta| file_entry(path, meta);
        let mut entries: Vec<Entry> = if recursive {
            match store
                .list(Some(&prefix))
                .map_ok(|meta| entry(&meta))
                .try_collect()
                .await
            {
                Ok(entries) => entries,
                Err(err) => return Err(listing_failed(&*store, &prefix, err, path).await),
            }
        } else {
            let listed = match store.list_with_delimiter(Some(&prefix)).await {
                Ok(listed) => listed,
                Err(err) => return Err(listing_failed(&*store, &prefix, err, path).await),
            };
            let folders = listed.common_prefixes.iter().map(|folder| {
                let name = folder.filename().unwrap_or(folder.as_ref()).to_string();
                Entry {
                    path: path.listed(folder.as_ref()),
                    name,
                    kind: "folder",
                    size: None,
                    modified: None,
                }
            });
            folders.chain(listed.objects.iter().map(entry)).collect()
        };
        if entries.is_empty() && !path.inner.is_empty() {
            // Not a folder: a file, or nothing.
            match store.head(&prefix).await {
                Ok(meta) => entries.push(entry(&meta)),
                Err(object_store::Error::NotFound { .. }) => {}
                Err(err) => return Err(lake_error(err, path)),
            }
        }
        Ok(entries)
    }

    /// Every file below the folder `path`, at any depth, as paths in its item.
    pub async fn files_below(&self, path: &LakePath) -> Result<Vec<LakePath>> {
        let store = self.store(&path.workspace)?;
        let item = format!("{}/", path.item);
        let prefix = blob(path)?;
        let listed: Vec<ObjectMeta> = match store.list(Some(&prefix)).try_collect().await {
            Ok(listed) => listed,
            Err(err) => return Err(listing_failed(&*store, &prefix, err, path).await),
        };
        listed
            .into_iter()
            .map(|meta| {
                // A listing names its blobs from the item segment it was asked with.
                let inner = meta.location.as_ref().strip_prefix(&item);
                inner
                    .map(|inner| path.at(inner.to_string()))
                    .ok_or_else(|| {
                        Error::runtime(format!(
                            "OneLake listed {} under {path}, outside its item",
                            meta.location
                        ))
                    })
            })
            .collect()
    }

    /// The bytes of the file at `path`, at most `limit` of them from its start.
    pub async fn read(&self, path: &LakePath, limit: Option<u64>) -> Result<Vec<u8>> {
        let store = self.store(&path.workspace)?;
        let location = blob(path)?;
        let bytes = match limit {
            Some(limit) => {
                let size = store
                    .head(&location)
                    .await
                    .map_err(|err| lake_error(err, path))?
                    .size;
                store.get_range(&location, 0..size.min(limit)).await
            }
            None => match store.get(&location).await {
                Ok(result) => result.bytes().await,
                Err(err) => Err(err),
            },
        }
        .map_err(|err| lake_error(err, path))?;
        Ok(bytes.to_vec())
    }

    /// True when a file exists at `path`.
    pub async fn exists(&self, path: &LakePath) -> Result<bool> {
        let store = self.store(&path.workspace)?;
        match store.head(&blob(path)?).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(err) => Err(lake_error(err, path)),
        }
    }

    /// Uploads the local file `from` to `to`, replacing a file there only with
    /// `how.overwrite`. The blob appears only when whole: a single Put Blob, or blocks that
    /// are committed at the end (dropping this future before then leaves no file, and the
    /// blocks sent for the same command run again).
    pub async fn upload(&self, from: &Path, to: &LakePath, how: &Sending<'_>) -> Result<u64> {
        let overwrite = how.overwrite;
        let mut attributes = Attributes::new();
        if let Some(sha256) = how.sha256 {
            attributes.insert(
                Attribute::Metadata(super::inventory::SHA256_KEY.into()),
                sha256.to_string().into(),
            );
        }
        let store = self.store(&to.workspace)?;
        let location = blob(to)?;
        let local = |err: std::io::Error| {
            Error::runtime(format!("cannot read {}", from.display())).with_cause(err)
        };
        let mut file = tokio::fs::File::open(from).await.map_err(local)?;
        let size = file.metadata().await.map_err(local)?.len();
        check_upload_size(from, size)?;
        if size <= CHUNK as u64 {
            // One Put Blob; without overwrite it is create-only (`If-None-Match: *`), so the
            // service refuses it where a file exists, with no question asked first.
            let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(CHUNK));
            file.read_to_end(&mut bytes).await.map_err(local)?;
            if how.sha256.is_none() {
                // The bytes are here anyway: kept with the blob, so a later sync finds the
                // file unchanged without sending it again.
                attributes.insert(
                    Attribute::Metadata(super::inventory::SHA256_KEY.into()),
                    super::inventory::sha256_hex(bytes.as_slice())
                        .map_err(local)?
                        .into(),
                );
            }
            let mode = if overwrite {
                PutMode::Overwrite
            } else {
                PutMode::Create
            };
            let options = PutOptions {
                mode,
                attributes,
                ..PutOptions::default()
            };
            store
                .put_opts(&location, PutPayload::from(bytes), options)
                .await
                .map_err(|err| lake_error(err, to))?;
            (how.sent)(size);
            return Ok(size);
        }
        // In blocks, through the Blob API's own calls so that a run stopped half-way is
        // resumed by the next (see `blocks`); the commit is create-only, so no question is
        // asked first here either.
        let modified = file.metadata().await.map_err(local)?.modified().ok();
        self.upload_blocks(file, from, (size, modified), to, how)
            .await
    }

    /// Downloads `from` to the local file `to` (through a temporary file beside it, removed
    /// if this fails or is dropped before the end), replacing a file there only with
    /// `overwrite`; `received` is told how many more bytes came, as they come.
    pub async fn download(
        &self,
        from: &LakePath,
        to: &Path,
        overwrite: bool,
        received: &(dyn Fn(u64) + Send + Sync),
    ) -> Result<u64> {
        if !overwrite && to.exists() {
            return Err(super::destination_exists(to.display()));
        }
        let store = self.store(&from.workspace)?;
        let result = store
            .get(&blob(from)?)
            .await
            .map_err(|err| lake_error(err, from))?;
        let local = |err: std::io::Error| {
            Error::runtime(format!("cannot write {}", to.display())).with_cause(err)
        };
        if let Some(dir) = to.parent().filter(|d| !d.as_os_str().is_empty()) {
            tokio::fs::create_dir_all(dir).await.map_err(local)?;
        }
        let partial = Partial::new(partial_path(to));
        let written = async {
            // Chunks arrive as the connection gives them (often 16 KiB): gathered to a
            // block before each write, as each write of a tokio file is a hand-off to
            // another thread.
            let file = tokio::fs::File::create(&partial.0).await.map_err(local)?;
            let mut file = tokio::io::BufWriter::with_capacity(WRITE_BUFFER, file);
            let mut stream = result.into_stream();
            let mut bytes = 0u64;
            while let Some(chunk) = stream
                .try_next()
                .await
                .map_err(|err| lake_error(err, from))?
            {
                file.write_all(&chunk).await.map_err(local)?;
                bytes += chunk.len() as u64;
                received(chunk.len() as u64);
            }
            // Whole before the rename; not synced to disk, as `cp` does not (a sync per file
            // made a download of many small files 30x slower).
            file.flush().await.map_err(local)?;
            Ok::<u64, Error>(bytes)
        }
        .await;
        let bytes = written?;
        tokio::fs::rename(&partial.0, to).await.map_err(local)?;
        partial.renamed();
        Ok(bytes)
    }

    /// Deletes the file at `path`.
    pub async fn delete(&self, path: &LakePath) -> Result<()> {
        let store = self.store(&path.workspace)?;
        store
            .delete(&blob(path)?)
            .await
            .map_err(|err| lake_error(err, path))
    }
}

/// A download's temporary file, removed when dropped unless it was renamed into place: a
/// download that fails, or whose future is dropped (Ctrl-C), leaves nothing behind.
struct Partial(PathBuf, bool);

impl Partial {
    fn new(path: PathBuf) -> Partial {
        Partial(path, false)
    }

    fn renamed(mut self) {
        self.1 = true;
    }
}

impl Drop for Partial {
    fn drop(&mut self) {
        if !self.1 {
            // Gone already (never made) is fine; a leftover would be a hidden file beside
            // the destination, which is all that can be done when the disk refuses.
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

/// `path` with a hidden temporary name beside it, unique to this process.
fn partial_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "download".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.fabsh-part-{}", std::process::id()))
}

/// A failed listing as a user reads it. object_store reports every failed List Blobs as
/// `Generic`, its status only in the text; a HEAD of the same path answers in typed errors
/// (refused, no such workspace), which then stand for the listing's. A listing of a path with
/// nothing below it succeeds, so a HEAD answering "not found" here means the workspace.
async fn listing_failed(
    store: &dyn ObjectStore,
    prefix: &StorePath,
    err: object_store::Error,
    path: &LakePath,
) -> Error {
    use object_store::Error as E;
    if !matches!(err, E::Generic { .. }) {
        return lake_error(err, path);
    }
    match store.head(prefix).await {
        Err(typed @ (E::PermissionDenied { .. } | E::Unauthenticated { .. })) => {
            lake_error(typed, path)
        }
        Err(E::NotFound { .. }) => Error::not_found(format!(
            "{path}: its workspace is not in OneLake, or not one you may see"
        )),
        _ => lake_error(err, path),
    }
}

/// A listed file's entry.
fn file_entry(base: &LakePath, meta: &ObjectMeta) -> Entry {
    let location = meta.location.as_ref();
    Entry {
        path: base.listed(location),
        name: meta.location.filename().unwrap_or(location).to_string(),
        kind: "file",
        size: Some(meta.size),
        modified: Some(meta.last_modified.to_rfc3339()),
    }
}

#[cfg(test)]
mod tests {
    use super::blocks_at_once;

    #[test]
    fn about_as_many_blocks_go_at_once_as_files_would() {
        assert_eq!(blocks_at_once(1, 4), 4, "a file alone has them all");
        assert_eq!(blocks_at_once(2, 4), 2);
        assert_eq!(blocks_at_once(3, 4), 1);
        assert_eq!(blocks_at_once(16, 4), 1, "files side by side, one each");
        assert_eq!(blocks_at_once(0, 0), 1, "never none");
    }
}
