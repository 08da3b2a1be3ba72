//! Request bodies streamed to a file in the item's staging folder, never held in memory: a
//! declared length over the cap is refused before a byte is read (413
//! `RequestBodyTooLarge`), a body is cut off at the cap, and one that stalls longer than the
//! header timeout is given up on. The file is removed if anything fails or the request is
//! dropped (`files::Temporary`), so an interrupted upload leaves nothing behind.

use super::answer::StorageError;
use super::files::Temporary;
use crate::state::Shared;
use axum::body::Body;
use axum::http::{StatusCode, header};
use hyper::body::Body as _;
use std::io::{Seek, Write};
use std::path::PathBuf;
use std::time::Duration;

/// Largest Put Blob body Azure takes (5000 MiB).
pub(crate) const PUT_BLOB_LIMIT: u64 = 5000 * 1024 * 1024;
/// Largest Put Block body Azure takes (4000 MiB).
pub(crate) const PUT_BLOCK_LIMIT: u64 = 4000 * 1024 * 1024;

/// Bytes gathered before each write to the file.
const WRITE_BUFFER: usize = 1024 * 1024;

fn too_large(limit: u64) -> StorageError {
    StorageError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        "RequestBodyTooLarge",
        format!(
            "The request body is too large and exceeds the maximum permissible limit ({limit} bytes)."
        ),
    )
}

/// The length a request declares, if it declares one.
pub(crate) fn declared_length(headers: &axum::http::HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse().ok())
}

/// Refuses a declared length over `limit` before anything is read.
pub(crate) fn check_declared(
    headers: &axum::http::HeaderMap,
    limit: u64,
) -> Result<(), StorageError> {
    match declared_length(headers) {
        Some(length) if length > limit => Err(too_large(limit)),
        _ => Ok(()),
    }
}

/// Writes `body` to a new private file at `path` (its folder made if missing); returns the
/// guarded file and its length.
pub(crate) async fn to_file(
    state: &Shared,
    body: Body,
    path: PathBuf,
    limit: u64,
) -> Result<(Temporary, u64), StorageError> {
    if let Some(dir) = path.parent() {
        let mut builder = tokio::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        builder.mode(0o700);
        builder.create(dir).await?;
    }
    let mut options = tokio::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    options.mode(0o600);
    let file = options.open(&path).await?.into_std().await;
    let guard = Temporary::new(path);
    let written = write_body(state, body, file, limit).await?;
    Ok((guard, written))
}

/// Writes `body` into `file` from `offset` on; returns its length.
pub(crate) async fn into_file_at(
    state: &Shared,
    body: Body,
    mut file: std::fs::File,
    offset: u64,
    limit: u64,
) -> Result<u64, StorageError> {
    file.seek(std::io::SeekFrom::Start(offset))?;
    write_body(state, body, file, limit).await
}

/// Writes `body` into `file` where it stands, refusing more than `limit` bytes and a body
/// that stalls; returns its length. The body's own buffers are written as they are, about
/// [`WRITE_BUFFER`] at a time on the blocking pool, one batch being written while the next
/// arrives: no copy of the bytes on the way (an async file and a buffered writer made two).
async fn write_body(
    state: &Shared,
    body: Body,
    file: std::fs::File,
    limit: u64,
) -> Result<u64, StorageError> {
    let mut writer = Batches::new(file);
    let stall = Duration::from_millis(state.faults.header_timeout_ms);
    let mut body = body;
    let mut written: u64 = 0;
    loop {
        let next = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx));
        let frame = match tokio::time::timeout(stall, next).await {
            Err(_) => {
                return Err(StorageError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    "RequestTimeout",
                    "The request body did not arrive in time.",
                ));
            }
            Ok(None) => break,
            Ok(Some(Err(err))) => {
                return Err(StorageError::new(
                    StatusCode::BAD_REQUEST,
                    "InvalidInput",
                    format!("The request body could not be read: {err}"),
                ));
            }
            Ok(Some(Ok(frame))) => frame,
        };
        if let Ok(data) = frame.into_data() {
            written += data.len() as u64;
            if written > limit {
                return Err(too_large(limit));
            }
            writer.push(data).await?;
        }
    }
    writer.finish().await?;
    Ok(written)
}

/// Writes every buffer of `batch`, in as few calls as the file takes (one, usually): a call
/// per buffer took the file's lock as often, and two blocks of a blob are written into one
/// file at once.
fn write_all_vectored(file: &mut std::fs::File, batch: &[bytes::Bytes]) -> std::io::Result<()> {
    let mut slices: Vec<std::io::IoSlice<'_>> = batch
        .iter()
        .map(|chunk| std::io::IoSlice::new(chunk))
        .collect();
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        let written = file.write_vectored(rest)?;
        if written == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        std::io::IoSlice::advance_slices(&mut rest, written);
    }
    Ok(())
}

/// A file written in batches of received buffers, one batch at a time on the blocking pool.
struct Batches {
    /// The file, when no batch is being written.
    file: Option<std::fs::File>,
    /// The batch being written; it hands the file back.
    writing: Option<tokio::task::JoinHandle<std::io::Result<std::fs::File>>>,
    gathered: Vec<bytes::Bytes>,
    gathered_len: usize,
}

impl Batches {
    fn new(file: std::fs::File) -> Batches {
        Batches {
            file: Some(file),
            writing: None,
            gathered: Vec::new(),
            gathered_len: 0,
        }
    }

    /// Adds `data`; starts writing the batch once it holds [`WRITE_BUFFER`] bytes.
    async fn push(&mut self, data: bytes::Bytes) -> std::io::Result<()> {
        self.gathered_len += data.len();
        self.gathered.push(data);
        if self.gathered_len >= WRITE_BUFFER {
            self.start().await?;
        }
        Ok(())
    }

    /// Waits for the batch being written, then starts writing the gathered one.
    async fn start(&mut self) -> std::io::Result<()> {
        let mut file = match self.file.take() {
            Some(file) => file,
            None => self.wait().await?,
        };
        let batch = std::mem::take(&mut self.gathered);
        self.gathered_len = 0;
        self.writing = Some(tokio::task::spawn_blocking(move || {
            write_all_vectored(&mut file, &batch)?;
            Ok(file)
        }));
        Ok(())
    }

    /// The file, once the batch being written is.
    async fn wait(&mut self) -> std::io::Result<std::fs::File> {
        let Some(writing) = self.writing.take() else {
            return Err(std::io::Error::other("an earlier batch failed"));
        };
        writing.await.map_err(std::io::Error::other)?
    }

    /// Writes what is left and waits for every batch.
    async fn finish(mut self) -> std::io::Result<()> {
        if !self.gathered.is_empty() {
            self.start().await?;
        }
        if self.writing.is_some() {
            self.wait().await?;
        }
        Ok(())
    }
}
