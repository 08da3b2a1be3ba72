//! A blob's user metadata (`x-ms-meta-<name>: value`): set by Put Blob, Put Block List and
//! Copy Blob (which copies the source's when given none), answered as headers by Get Blob
//! and HEAD and in List Blobs with `include=metadata`, as Azure does. It is kept in a small
//! file in the item's staging folder together with the ETag of the blob it was written with:
//! a blob replaced by other means (a file put into the folder) has another ETag, so stale
//! metadata is never answered for it, and the blob's file stays the one truth (see `files`).

use super::Target;
use super::answer::{StorageError, set_owned};
use super::files::ItemDirs;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Header prefix of user metadata.
const PREFIX: &str = "x-ms-meta-";

/// Metadata names and values, names lower-cased as HTTP headers arrive.
pub(crate) type UserMetadata = BTreeMap<String, String>;

/// What the metadata file holds.
#[derive(Debug, Serialize, Deserialize)]
struct Kept {
    etag: String,
    metadata: UserMetadata,
}

/// The `x-ms-meta-*` headers of a request; 400 `InvalidMetadata` for a name that is not a C#
/// identifier (Azure's rule) or a value that is not visible ASCII text.
pub(crate) fn from_headers(headers: &HeaderMap) -> Result<UserMetadata, StorageError> {
    let mut metadata = UserMetadata::new();
    for (name, value) in headers {
        let Some(key) = name.as_str().strip_prefix(PREFIX) else {
            continue;
        };
        let identifier = key
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let value = value.to_str().ok().filter(|_| identifier).ok_or_else(|| {
            StorageError::new(
                StatusCode::BAD_REQUEST,
                "InvalidMetadata",
                "The metadata specified is invalid. It has characters that are not permitted.",
            )
        })?;
        metadata.insert(key.to_string(), value.to_string());
    }
    Ok(metadata)
}

/// The metadata file of the blob at `path` (a path in the item).
fn file_of(dirs: &ItemDirs, path: &str) -> PathBuf {
    dirs.of_blob("metadata", path)
}

/// Keeps `metadata` for the blob just written with `etag` (none: forgets any). Runs under
/// the commit lock, after the blob's file was put in place.
pub(crate) fn save(
    target: &Target,
    etag: &str,
    metadata: &UserMetadata,
) -> Result<(), StorageError> {
    let file = file_of(&target.dirs, target.path.as_str());
    if metadata.is_empty() {
        forget(target);
        return Ok(());
    }
    let kept = Kept {
        etag: etag.to_string(),
        metadata: metadata.clone(),
    };
    let text = serde_json::to_vec(&kept).map_err(StorageError::internal)?;
    super::files::make_parents(&file)?;
    // Written whole beside, then renamed: a reader sees the old file or the new one.
    let fresh = file.with_extension("new");
    std::io::Write::write_all(&mut crate::private_files::rewrite(&fresh)?, &text)?;
    std::fs::rename(&fresh, &file)?;
    Ok(())
}

/// Forgets the blob's metadata (it was deleted).
pub(crate) fn forget(target: &Target) {
    // None kept is fine; a leftover is ignored, its ETag being another blob's.
    let _ = std::fs::remove_file(file_of(&target.dirs, target.path.as_str()));
}

/// The metadata of the blob at `path` (a path in the item) whose ETag is now `etag`; none
/// when none was kept for that very blob.
pub(crate) fn load(dirs: &ItemDirs, path: &str, etag: &str) -> UserMetadata {
    let Ok(text) = std::fs::read(file_of(dirs, path)) else {
        return UserMetadata::new();
    };
    match serde_json::from_slice::<Kept>(&text) {
        Ok(kept) if kept.etag == etag => kept.metadata,
        _ => UserMetadata::new(),
    }
}

/// Adds the metadata to an answer as `x-ms-meta-*` headers.
pub(crate) fn add_headers(response: &mut Response, metadata: &UserMetadata) {
    for (name, value) in metadata {
        set_owned(response, &format!("{PREFIX}{name}"), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onelake::names::item_path;

    #[test]
    fn metadata_is_answered_only_for_the_blob_it_was_written_with() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = Target {
            path: item_path("Files/a.bin").expect("path"),
            dirs: ItemDirs::of(dir.path(), "ws", "item"),
        };
        let metadata = UserMetadata::from([("fabsh_sha256".to_string(), "ab".to_string())]);
        save(&target, "\"0x1\"", &metadata).expect("saved");
        assert_eq!(load(&target.dirs, "Files/a.bin", "\"0x1\""), metadata);
        assert!(load(&target.dirs, "Files/a.bin", "\"0x2\"").is_empty());
        assert!(load(&target.dirs, "Files/b.bin", "\"0x1\"").is_empty());
        forget(&target);
        assert!(load(&target.dirs, "Files/a.bin", "\"0x1\"").is_empty());
    }

    #[test]
    fn metadata_names_must_be_identifiers() {
        let with = |name: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(
                axum::http::HeaderName::from_bytes(format!("x-ms-meta-{name}").as_bytes())
                    .expect("name"),
                "v".parse().expect("value"),
            );
            from_headers(&headers)
                .map(|m| m.len())
                .map_err(|e| e.code())
        };
        assert_eq!(with("fabsh_sha256"), Ok(1));
        assert_eq!(with("_x1"), Ok(1));
        assert_eq!(with("1x"), Err("InvalidMetadata"));
        assert_eq!(with("a-b"), Err("InvalidMetadata"));
    }
}
