//! Writes: Put Blob, Put Block and Put Block List, Copy Blob and Delete Blob (Get Block List,
//! which reads the staged blocks, is `block_list`). Every new content is written to a file in
//! the item's staging folder first and renamed into place only once whole, under
//! `AppState::onelake_commits` with the request's conditions checked against what is there at
//! that moment. Blocks are staged per blob apart from its file (`staged`) and are discarded
//! once a block list is committed or the blob is replaced or deleted, as Azure discards a
//! blob's uncommitted blocks.

use super::Target;
use super::answer::{self, StorageError, set};
use super::conditions::Conditions;
use super::files::{self, Found, Meta, Temporary};
use super::metadata::{self, UserMetadata};
use super::read::blob_headers;
use super::receive::{self, PUT_BLOB_LIMIT, PUT_BLOCK_LIMIT};
use super::staged::{self, Assembly, invalid_block_list};
use super::xml::{self, BlockSource};
use crate::state::Shared;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Most blocks a committed blob may have (Azure's limit).
const MAX_COMMITTED_BLOCKS: usize = 50_000;
/// Largest Put Block List body: 50,000 ids of 64 bytes, base64, in their elements.
const BLOCK_LIST_LIMIT: usize = 8 * 1024 * 1024;

/// 409 `PathConflict` for `Files` or `Tables` themselves, which no write may replace.
fn refuse_area(target: &Target) -> Result<(), StorageError> {
    if target.path.is_area() {
        return Err(StorageError::path_conflict());
    }
    Ok(())
}

/// Puts the finished file `staged` at the blob's place if `conditions` hold against what is
/// there now, with `user` as its metadata; drops the blob's staged blocks. Runs on the
/// blocking pool.
fn commit(
    state: &Shared,
    target: &Target,
    staged: Temporary,
    conditions: &Conditions,
    user: &UserMetadata,
) -> Result<Meta, StorageError> {
    let _turn = crate::locks::lock(&state.onelake_commits);
    check_place(target, conditions)?;
    place(state, target, staged, user)
}

/// Refuses a write where a folder is, or whose `conditions` fail against what is at the
/// blob's place. Called with the commit lock held.
fn check_place(target: &Target, conditions: &Conditions) -> Result<(), StorageError> {
    let current = files::stat(&target.file())?;
    if current == Found::Directory {
        return Err(StorageError::path_conflict());
    }
    conditions.write(current.file())
}

/// Renames `staged` to the blob's place, with `user` as its metadata, and drops the blob's
/// staged blocks. Called with the commit lock held, after [`check_place`].
fn place(
    state: &Shared,
    target: &Target,
    staged: Temporary,
    user: &UserMetadata,
) -> Result<Meta, StorageError> {
    let destination = target.file();
    files::make_parents(&destination)?;
    std::fs::rename(staged.path(), &destination)?;
    staged.keep();
    staged::discard(&state.onelake_staging, target);
    match files::stat(&destination)? {
        Found::File(meta) => {
            metadata::save(target, &meta.etag, user)?;
            Ok(meta)
        }
        Found::Missing | Found::Directory => {
            Err(StorageError::internal("the file just written is gone"))
        }
    }
}

/// The answer to a write that made a blob: `status`, its ETag and Last-Modified.
fn written(status: StatusCode, meta: &Meta) -> Response {
    let mut response = answer::empty(status);
    blob_headers(&mut response, meta);
    set(&mut response, "x-ms-request-server-encrypted", "true");
    response
}

/// Runs `work` on the blocking pool.
async fn on_pool<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, StorageError> + Send + 'static,
) -> Result<T, StorageError> {
    crate::blocking::run(work)
        .await
        .map_err(|err| StorageError::internal(err.message))?
}

/// Checks the conditions before a body is received, so that a create-only upload of an
/// existing blob is refused without reading it (checked again when it is put in place).
async fn precheck(target: &Target, conditions: Conditions) -> Result<Conditions, StorageError> {
    let file = target.file();
    on_pool(move || {
        let current = files::stat(&file)?;
        conditions.write(current.file())?;
        Ok(conditions)
    })
    .await
}

/// Put Blob: `x-ms-blob-type: BlockBlob` (the only type OneLake takes), 201.
pub(crate) async fn put_blob(
    state: &Shared,
    target: &Target,
    headers: &HeaderMap,
    body: Body,
) -> Result<Response, StorageError> {
    refuse_area(target)?;
    blob_type(headers)?;
    receive::check_declared(headers, PUT_BLOB_LIMIT)?;
    let user = metadata::from_headers(headers)?;
    let conditions = precheck(target, Conditions::of(headers)).await?;
    let (staged, _) = receive::to_file(state, body, target.dirs.upload(), PUT_BLOB_LIMIT).await?;
    let (shared, owned) = (state.clone(), target.clone());
    let meta = on_pool(move || commit(&shared, &owned, staged, &conditions, &user)).await?;
    Ok(written(StatusCode::CREATED, &meta))
}

/// The `x-ms-blob-type` a Put Blob must carry.
fn blob_type(headers: &HeaderMap) -> Result<(), StorageError> {
    match headers.get("x-ms-blob-type").map(|v| v.to_str()) {
        Some(Ok("BlockBlob")) => Ok(()),
        None => Err(StorageError::new(
            StatusCode::BAD_REQUEST,
            "MissingRequiredHeader",
            "An HTTP header that's mandatory for this request is not specified: x-ms-blob-type",
        )),
        Some(_) => Err(StorageError::invalid_header("x-ms-blob-type")),
    }
}

/// Put Block: the body staged under its block id, 201; the blob is unchanged. The length
/// must be declared (411 `MissingContentLengthHeader` otherwise, as Azure answers): the
/// block's range in the blob's staged-blocks file is reserved from it.
pub(crate) async fn put_block(
    state: &Shared,
    target: &Target,
    query: &HashMap<String, String>,
    headers: &HeaderMap,
    body: Body,
) -> Result<Response, StorageError> {
    refuse_area(target)?;
    let id = query
        .get("blockid")
        .ok_or_else(|| StorageError::invalid_query("blockid", ""))?;
    let key = staged::block_key(id)?;
    receive::check_declared(headers, PUT_BLOCK_LIMIT)?;
    let len = receive::declared_length(headers).ok_or_else(|| {
        StorageError::new(
            StatusCode::LENGTH_REQUIRED,
            "MissingContentLengthHeader",
            "Content-Length HTTP header is missing.",
        )
    })?;
    let (shared, owned) = (state.clone(), target.clone());
    let slot = on_pool(move || staged::reserve(&shared.onelake_staging, &owned, key, len)).await?;
    let file = slot.file.try_clone()?;
    let written = receive::into_file_at(state, body, file, slot.offset, len).await?;
    if written != len {
        return Err(StorageError::new(
            StatusCode::BAD_REQUEST,
            "InvalidInput",
            "The request body is shorter than its Content-Length.",
        ));
    }
    let shared = state.clone();
    on_pool(move || staged::record(&shared.onelake_staging, slot)).await?;
    Ok(answer::empty(StatusCode::CREATED))
}

/// Put Block List: the listed staged blocks joined, in order, into the blob, 201. Only
/// staged blocks can be named: a committed blob keeps no blocks here, so `Committed` entries
/// (and `Latest` ones with nothing staged) are refused as a list naming unknown blocks is.
pub(crate) async fn put_block_list(
    state: &Shared,
    target: &Target,
    headers: &HeaderMap,
    body: Body,
) -> Result<Response, StorageError> {
    refuse_area(target)?;
    let conditions = Conditions::of(headers);
    let user = metadata::from_headers(headers)?;
    let upload = target.dirs.upload();
    let mut request = Request::new(body);
    *request.headers_mut() = headers.clone();
    let body = crate::bodies::read(state, request, BLOCK_LIST_LIMIT, false)
        .await
        .map_err(|err| StorageError::new(err.status, "InvalidInput", err.message))?;
    let list = xml::block_list(&body).ok_or_else(|| {
        StorageError::new(
            StatusCode::BAD_REQUEST,
            "InvalidXmlDocument",
            "XML specified is not syntactically valid.",
        )
    })?;
    if list.len() > MAX_COMMITTED_BLOCKS {
        return Err(invalid_block_list("more than 50,000 blocks"));
    }
    let mut keys = Vec::with_capacity(list.len());
    for entry in &list {
        if entry.source == BlockSource::Committed {
            return Err(invalid_block_list("no committed blocks are kept"));
        }
        keys.push(staged::block_key(&entry.id).map_err(|_| invalid_block_list(&entry.id))?);
    }
    let (shared, owned) = (state.clone(), target.clone());
    let meta = on_pool(move || {
        let turn = crate::locks::lock(&shared.onelake_commits);
        // Conditions first: a commit refused leaves the blocks staged, as Azure does.
        check_place(&owned, &conditions)?;
        let (assembly, lengths) = staged::assemble(&shared.onelake_staging, &owned, &keys, upload)?;
        let meta = match assembly {
            Assembly::Whole(file) => place(&shared, &owned, file, &user)?,
            Assembly::Ranges(blocks) => {
                // Copied without the lock, which every other commit waits for; the
                // conditions are checked again when the copy is put in place.
                drop(turn);
                let file = staged::copy(&owned, &blocks, owned.dirs.upload())?;
                commit(&shared, &owned, file, &conditions, &user)?
            }
        };
        let ids = list.into_iter().map(|entry| entry.id);
        super::block_list::save_committed(&owned, &meta.etag, ids.zip(lengths).collect())?;
        Ok(meta)
    })
    .await?;
    Ok(written(StatusCode::CREATED, &meta))
}

/// Delete Blob, 202. A folder is deleted only when empty (409 `DirectoryIsNotEmpty`
/// otherwise), as on a hierarchical namespace; `Files` and `Tables` never.
pub(crate) async fn delete(
    state: &Shared,
    target: &Target,
    headers: &HeaderMap,
) -> Result<Response, StorageError> {
    refuse_area(target)?;
    let conditions = Conditions::of(headers);
    let (shared, owned) = (state.clone(), target.clone());
    on_pool(move || {
        let file = owned.file();
        let _turn = crate::locks::lock(&shared.onelake_commits);
        match files::stat(&file)? {
            Found::Missing => Err(StorageError::blob_not_found()),
            Found::Directory => match std::fs::remove_dir(&file) {
                Ok(()) => Ok(()),
                Err(err) if err.kind() == std::io::ErrorKind::DirectoryNotEmpty => {
                    Err(StorageError::new(
                        StatusCode::CONFLICT,
                        "DirectoryIsNotEmpty",
                        "The recursive query parameter value must be true to delete a non-empty directory.",
                    ))
                }
                Err(err) => Err(err.into()),
            },
            Found::File(meta) => {
                conditions.write(Some(&meta))?;
                std::fs::remove_file(&file)?;
                staged::discard(&shared.onelake_staging, &owned);
                metadata::forget(&owned);
                Ok(())
            }
        }
    })
    .await?;
    let mut response = answer::empty(StatusCode::ACCEPTED);
    set(&mut response, "x-ms-delete-type-permanent", "true");
    Ok(response)
}

/// The source a Copy Blob names: a blob URL of this server (`…/onelake/{ws}/{name}`), as
/// workspace and blob name; 400 `CannotVerifyCopySource` for anything else.
fn copy_source(state: &Shared, value: &str) -> Result<(String, String), StorageError> {
    let refuse = || {
        StorageError::new(
            StatusCode::BAD_REQUEST,
            "CannotVerifyCopySource",
            "The copy source must be a blob of this server: {origin}/onelake/{workspace}/{item}/...",
        )
    };
    let uri: axum::http::Uri = value.parse().map_err(|_| refuse())?;
    let ours = uri
        .authority()
        .is_some_and(|authority| state.hosts.permits(authority.as_str()));
    if !ours {
        return Err(refuse());
    }
    let decoded = percent_encoding::percent_decode_str(uri.path())
        .decode_utf8()
        .map_err(|_| refuse())?;
    let rest = decoded.strip_prefix("/onelake/").ok_or_else(refuse)?;
    let (ws, name) = rest.split_once('/').ok_or_else(refuse)?;
    Ok((ws.to_string(), name.to_string()))
}

/// Copy Blob from a blob of this server: done at once, 202 with `x-ms-copy-status: success`.
pub(crate) async fn copy(
    state: &Shared,
    principal: &str,
    target: &Target,
    headers: &HeaderMap,
) -> Result<Response, StorageError> {
    refuse_area(target)?;
    let header = headers
        .get("x-ms-copy-source")
        .and_then(|value| value.to_str().ok())
        .ok_or_else(|| StorageError::invalid_header("x-ms-copy-source"))?;
    let (ws, name) = copy_source(state, header)?;
    let source = super::resolve(state, principal.to_string(), ws, name).await?;
    let conditions = Conditions::of(headers);
    let given = metadata::from_headers(headers)?;
    let (shared, owned) = (state.clone(), target.clone());
    let meta = on_pool(move || {
        let from = source.file();
        let Some(source_meta) = files::stat(&from)?.file().cloned() else {
            return Err(StorageError::new(
                StatusCode::NOT_FOUND,
                "CannotVerifyCopySource",
                "The specified blob does not exist.",
            ));
        };
        // As Azure: the source's metadata, unless the request gives its own.
        let user = if given.is_empty() {
            metadata::load(&source.dirs, source.path.as_str(), &source_meta.etag)
        } else {
            given
        };
        let staged = copied(&from, owned.dirs.upload())?;
        commit(&shared, &owned, staged, &conditions, &user)
    })
    .await?;
    let mut response = written(StatusCode::ACCEPTED, &meta);
    set(&mut response, "x-ms-copy-id", &crate::store::new_id());
    set(&mut response, "x-ms-copy-status", "success");
    Ok(response)
}

/// A staged copy of `from`.
fn copied(from: &Path, into: PathBuf) -> Result<Temporary, StorageError> {
    files::make_parents(&into)?;
    let staged = Temporary::new(into);
    let mut input = std::fs::File::open(from)?;
    let mut out = crate::private_files::rewrite(staged.path())?;
    std::io::copy(&mut input, &mut out)?;
    Ok(staged)
}
