//! Get Block List (`GET …/{blob}?comp=blocklist&blocklisttype=committed|uncommitted|all`):
//! the blocks a blob was committed from and those staged for it since, by id and size, in
//! Azure's XML. A client resuming an upload asks it for what it sent already. The committed
//! list is kept when a Put Block List commits, with the ETag of the blob it made (as user
//! metadata is, see `metadata`): a blob written otherwise (Put Blob, Copy Blob, a file put
//! into the folder) has no committed blocks, as Azure answers for a blob put whole.

use super::Target;
use super::answer::{self, StorageError, set};
use super::files;
use super::read::blob_headers;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::PathBuf;

/// A block of a list: its id (base64) and size in bytes.
pub(crate) type Listed = (String, u64);

/// What the committed-list file holds.
#[derive(Debug, Serialize, Deserialize)]
struct Kept {
    etag: String,
    blocks: Vec<Listed>,
}

/// The file keeping the committed block list of the blob `target`.
fn committed_file(target: &Target) -> PathBuf {
    target.dirs.of_blob("committed", target.path.as_str())
}

/// Keeps `blocks` as the committed list of the blob just made with `etag`.
pub(crate) fn save_committed(
    target: &Target,
    etag: &str,
    blocks: Vec<Listed>,
) -> Result<(), StorageError> {
    let file = committed_file(target);
    let kept = Kept {
        etag: etag.to_string(),
        blocks,
    };
    let text = serde_json::to_vec(&kept).map_err(StorageError::internal)?;
    files::make_parents(&file)?;
    // Written whole beside, then renamed: a reader sees the old list or the new one.
    let fresh = file.with_extension("new");
    std::io::Write::write_all(&mut crate::private_files::rewrite(&fresh)?, &text)?;
    std::fs::rename(&fresh, &file)?;
    Ok(())
}

/// The committed list of the blob `target` whose ETag is now `etag`; none when none was
/// kept for that very blob.
fn load_committed(target: &Target, etag: &str) -> Vec<Listed> {
    let Ok(text) = std::fs::read(committed_file(target)) else {
        return Vec::new();
    };
    match serde_json::from_slice::<Kept>(&text) {
        Ok(kept) if kept.etag == etag => kept.blocks,
        _ => Vec::new(),
    }
}

/// Get Block List, 200 with the lists asked for; 404 `BlobNotFound` when there is neither a
/// blob nor a staged block (Azure answers the uncommitted list of a blob not yet committed).
pub(crate) async fn get(
    target: &Target,
    query: &HashMap<String, String>,
) -> Result<Response, StorageError> {
    // Azure's default is the committed list.
    let (committed, staged) = match query.get("blocklisttype").map(String::as_str) {
        None | Some("committed") => (true, false),
        Some("uncommitted") => (false, true),
        Some("all") => (true, true),
        Some(other) => return Err(StorageError::invalid_query("blocklisttype", other)),
    };
    let owned = target.clone();
    let (blob, committed_list, staged_list) = crate::blocking::run(move || {
        let blob = files::stat(&owned.file())?.file().cloned();
        let staged_list = super::staged::listed(&owned)?;
        if blob.is_none() && staged_list.is_empty() {
            return Err(StorageError::blob_not_found());
        }
        // No blob yet: nothing committed, only the staged blocks.
        let committed_list = blob
            .as_ref()
            .map(|meta| load_committed(&owned, &meta.etag))
            .unwrap_or_default();
        Ok((blob, committed_list, staged_list))
    })
    .await
    .map_err(|err| StorageError::internal(err.message))??;
    let body = super::xml::block_list_answer(
        committed.then_some(committed_list.as_slice()),
        staged.then_some(staged_list.as_slice()),
    );
    let mut response = (StatusCode::OK, body).into_response();
    answer::add_common(&mut response);
    set(&mut response, "content-type", "application/xml");
    if let Some(meta) = &blob {
        blob_headers(&mut response, meta);
        set(
            &mut response,
            "x-ms-blob-content-length",
            &meta.size.to_string(),
        );
    }
    Ok(response)
}
