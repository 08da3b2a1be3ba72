//! Reads: Get Blob (whole or a range, streamed from the file), Get Blob Properties (`HEAD`,
//! the same headers without the body) and List Blobs.

use super::Target;
use super::access;
use super::answer::{self, StorageError, set};
use super::conditions::{self, Conditions, http_date};
use super::files::{self, Found, ItemDirs, Meta};
use super::listing::{self, ListQuery, Named};
use super::metadata::{self, UserMetadata};
use super::names::{self, AREAS};
use crate::state::Shared;
use axum::body::Body;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use tokio::io::AsyncReadExt;

/// The headers every answer about a blob carries.
pub(crate) fn blob_headers(response: &mut Response, meta: &Meta) {
    set(response, "etag", &meta.etag);
    set(response, "last-modified", &http_date(meta.modified));
    set(response, "x-ms-creation-time", &http_date(meta.modified));
}

/// Bodies up to this length are read whole in the one trip to the blocking pool that finds
/// the file; longer ones are streamed [`STREAM_CHUNK`] at a time. A small file's GET took five trips
/// (stat, open, seek, read, and the read that finds its end), each a hand-off between
/// threads, for a kilobyte.
const READ_WHOLE: u64 = 64 * 1024;

/// Bytes of a longer body read at a time: each read of a tokio file is a hand-off to another
/// thread, so a large read costs the same hand-off as a small one.
const STREAM_CHUNK: usize = 512 * 1024;

/// What a GET or HEAD answers, decided on the blocking pool.
enum Reading {
    /// 304: the conditions say the caller has it.
    NotModified(Meta),
    /// The blob, or the range of it asked for.
    Content {
        meta: Meta,
        /// The blob's user metadata (`x-ms-meta-*`).
        user: UserMetadata,
        range: Option<(u64, u64)>,
        length: u64,
        body: Content,
    },
}

/// The bytes of an answer.
enum Content {
    /// None (`HEAD`).
    Empty,
    /// All of them, read already.
    Read(Vec<u8>),
    /// The file, at the first byte to send.
    File(std::fs::File),
}

/// Finds and opens the blob's file and decides the answer; runs on the blocking pool.
fn open(target: &Target, headers: &HeaderMap, head: bool) -> Result<Reading, StorageError> {
    use std::io::{Read, Seek};
    let file = &target.file();
    // Checked without following a symbolic link first, as `files::stat` does (one is no blob).
    let Found::File(_) = files::stat(file)? else {
        return Err(StorageError::blob_not_found());
    };
    let mut opened = match std::fs::File::open(file) {
        Ok(opened) => opened,
        // Deleted since the stat: as if it had never been there.
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(StorageError::blob_not_found());
        }
        Err(err) => return Err(err.into()),
    };
    // The properties of the file opened, not of the path: a blob replaced in between is
    // answered with the ETag of the bytes sent.
    let meta = files::meta_of(&opened.metadata()?);
    if !Conditions::of(headers).read(&meta)? {
        return Ok(Reading::NotModified(meta));
    }
    let range = conditions::range(headers, meta.size)?;
    let (first, length) = match range {
        Some((first, last)) => (first, last - first + 1),
        None => (0, meta.size),
    };
    let body = if head {
        Content::Empty
    } else {
        opened.seek(std::io::SeekFrom::Start(first))?;
        if length <= READ_WHOLE {
            let mut bytes = Vec::with_capacity(usize::try_from(length).unwrap_or(0));
            opened.take(length).read_to_end(&mut bytes)?;
            Content::Read(bytes)
        } else {
            Content::File(opened)
        }
    };
    let user = metadata::load(&target.dirs, target.path.as_str(), &meta.etag);
    Ok(Reading::Content {
        meta,
        user,
        range,
        length,
        body,
    })
}

/// GET or HEAD of a blob.
pub(crate) async fn get(
    target: &Target,
    method: &Method,
    headers: &HeaderMap,
) -> Result<Response, StorageError> {
    let head = method == Method::HEAD;
    let (asked, owned) = (headers.clone(), target.clone());
    let reading = crate::blocking::run(move || open(&owned, &asked, head))
        .await
        .map_err(|err| StorageError::internal(err.message))??;
    let (meta, user, range, length, content) = match reading {
        Reading::NotModified(meta) => {
            let mut response = answer::empty(StatusCode::NOT_MODIFIED);
            blob_headers(&mut response, &meta);
            return Ok(response);
        }
        Reading::Content {
            meta,
            user,
            range,
            length,
            body,
        } => (meta, user, range, length, body),
    };
    let status = match range {
        Some(_) => StatusCode::PARTIAL_CONTENT,
        None => StatusCode::OK,
    };
    let body = match content {
        Content::Empty => Body::empty(),
        Content::Read(bytes) => Body::from(bytes),
        Content::File(opened) => Body::from_stream(tokio_util::io::ReaderStream::with_capacity(
            tokio::fs::File::from_std(opened).take(length),
            STREAM_CHUNK,
        )),
    };
    let mut response = (status, body).into_response();
    answer::add_common(&mut response);
    blob_headers(&mut response, &meta);
    set(&mut response, "content-length", &length.to_string());
    set(&mut response, "content-type", files::CONTENT_TYPE);
    set(&mut response, "accept-ranges", "bytes");
    set(&mut response, "x-ms-blob-type", "BlockBlob");
    set(&mut response, "x-ms-resource-type", "file");
    set(&mut response, "x-ms-server-encrypted", "true");
    set(&mut response, "x-ms-lease-state", "available");
    set(&mut response, "x-ms-lease-status", "unlocked");
    metadata::add_headers(&mut response, &user);
    if let Some((first, last)) = range {
        response.headers_mut().insert(
            header::CONTENT_RANGE,
            format!("bytes {first}-{last}/{}", meta.size)
                .parse()
                .map_err(StorageError::internal)?,
        );
    }
    Ok(response)
}

/// Get Container Properties (`HEAD` on a workspace): 200 for a caller who may work in it.
pub(crate) async fn container_properties(
    state: &Shared,
    principal: String,
    ws: String,
) -> Result<Response, StorageError> {
    let shared = state.clone();
    crate::blocking::run(move || {
        shared
            .db
            .read(|conn| access::workspace(conn, &principal, &ws).map(drop))
    })
    .await
    .map_err(|err| StorageError::internal(err.message))??;
    Ok(answer::empty(StatusCode::OK))
}

/// The List Blobs parameters of a query: 400 `InvalidQueryParameterValue` for a `maxresults`
/// that is not 1 to 5000 (Azure's range; more is answered as 5000).
fn list_query(query: &HashMap<String, String>) -> Result<ListQuery, StorageError> {
    let max_results = match query.get("maxresults") {
        None => listing::MAX_RESULTS,
        Some(text) => match text.parse::<usize>() {
            Ok(n) if n >= 1 => n.min(listing::MAX_RESULTS),
            _ => return Err(StorageError::invalid_query("maxresults", text)),
        },
    };
    let present = |key: &str| query.get(key).filter(|value| !value.is_empty()).cloned();
    // `include` is a comma-separated list (`metadata,snapshots`); only metadata changes what
    // this server answers.
    let with_metadata = query
        .get("include")
        .is_some_and(|include| include.split(',').any(|part| part.trim() == "metadata"));
    Ok(ListQuery {
        with_metadata,
        // No prefix lists from the container's root.
        prefix: query.get("prefix").cloned().unwrap_or_default(),
        delimiter: present("delimiter"),
        marker: present("marker"),
        max_results,
    })
}

/// List Blobs on workspace `ws`.
pub(crate) async fn list(
    state: &Shared,
    principal: String,
    ws: String,
    query: &HashMap<String, String>,
) -> Result<Response, StorageError> {
    let list_query = list_query(query)?;
    let shared = state.clone();
    let asked = list_query.clone();
    let container = ws.clone();
    let page = crate::blocking::run(move || {
        let found = found(&shared, &principal, &ws, &asked)?;
        Ok::<_, StorageError>(listing::page(&asked, found))
    })
    .await
    .map_err(|err| StorageError::internal(err.message))??;
    let origin = state.public_url.as_deref().unwrap_or(&state.bound_origin);
    let body = super::xml::enumeration(
        &format!("{origin}/onelake/"),
        &container,
        &list_query,
        &page,
    );
    let mut response = (StatusCode::OK, body).into_response();
    answer::add_common(&mut response);
    set(&mut response, "content-type", "application/xml");
    Ok(response)
}

/// The files and folders a listing looks at, named relative to the container: under one item
/// when the prefix names one (`Item/...`), else under every item whose `Name.Type` starts
/// with the prefix.
fn found(
    state: &Shared,
    principal: &str,
    ws: &str,
    query: &ListQuery,
) -> Result<Vec<Named>, StorageError> {
    let data_dir = state.db.data_dir();
    let (workspace_id, items) = state.db.read(|conn| {
        let granted = access::workspace(conn, principal, ws)?;
        let items = match query.prefix.split_once('/') {
            Some((segment, _)) => {
                vec![(
                    segment.to_string(),
                    access::item(conn, &granted.workspace_id, segment)?,
                )]
            }
            None => access::all_items(conn, &granted.workspace_id)?
                .into_iter()
                .filter(|(name, _)| name.starts_with(query.prefix.as_str()))
                .collect(),
        };
        Ok::<_, StorageError>((granted.workspace_id, items))
    })?;
    let mut found = Vec::new();
    for (segment, item_id) in items {
        found.push(Named {
            name: segment.clone(),
            meta: None,
            metadata: None,
        });
        // A folder per item is all a listing by `/` of the workspace's root shows.
        if query.delimiter.as_deref() == Some("/") && !query.prefix.contains('/') {
            continue;
        }
        let dirs = ItemDirs::of(data_dir, &workspace_id, &item_id);
        let in_item = query.prefix.split_once('/').map_or("", |(_, rest)| rest);
        for start in starts(in_item) {
            // `Files` and `Tables` are there whether anything was written to them or not.
            if AREAS.contains(&start.as_str()) {
                found.push(Named {
                    name: format!("{segment}/{start}"),
                    meta: None,
                    metadata: None,
                });
            }
            for walked in files::walk(&dirs.root, &start)? {
                let metadata = match &walked.meta {
                    Some(meta) if query.with_metadata => {
                        Some(metadata::load(&dirs, &walked.path, &meta.etag))
                    }
                    _ => None,
                };
                found.push(Named {
                    name: format!("{segment}/{}", walked.path),
                    meta: walked.meta,
                    metadata,
                });
            }
        }
    }
    Ok(found)
}

/// Where in an item a walk for names starting with `prefix` (a path in the item) begins: the
/// folder the prefix ends in, or both areas while the prefix is within the first segment.
/// A folder no checked path can be (`..` and the like) has nothing in it.
fn starts(prefix: &str) -> Vec<String> {
    match prefix.rsplit_once('/') {
        Some((dir, _)) => names::item_path(dir)
            .map(|path| vec![path.as_str().to_string()])
            .unwrap_or_default(), // an impossible folder holds no names
        None => AREAS.iter().map(|area| (*area).to_string()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_walk_starts_where_the_prefix_ends() {
        assert_eq!(starts(""), ["Files", "Tables"]);
        assert_eq!(starts("Fi"), ["Files", "Tables"]);
        assert_eq!(starts("Files/"), ["Files"]);
        assert_eq!(starts("Files/raw/or"), ["Files/raw"]);
        assert!(starts("Files/../x").is_empty());
        assert!(starts("Other/x").is_empty());
    }

    #[test]
    fn maxresults_must_be_a_positive_number() {
        let with = |value: &str| {
            let query = HashMap::from([("maxresults".to_string(), value.to_string())]);
            list_query(&query)
                .map(|q| q.max_results)
                .map_err(|e| e.code())
        };
        assert_eq!(with("10"), Ok(10));
        assert_eq!(with("100000"), Ok(listing::MAX_RESULTS));
        assert_eq!(with("0"), Err("InvalidQueryParameterValue"));
        assert_eq!(with("ten"), Err("InvalidQueryParameterValue"));
    }
}
