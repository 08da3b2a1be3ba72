//! OneLake under local Fabric's own address. The service serves the Azure Blob Storage API at
//! `https://onelake.blob.fabric.microsoft.com/{workspace}/{item}/Files/...`; local Fabric
//! serves the same requests at `{origin}/onelake/{workspace}/{item}/{Files|Tables}/...`, the
//! workspace (the container) named by id or name and the item by id or `Name.Type`. A client
//! such as object_store's `MicrosoftAzure` built `with_endpoint("{origin}/onelake")` and the
//! workspace as its container works against it unchanged.
//!
//! Served: List Blobs (`GET /onelake/{ws}?restype=container&comp=list`), Put Blob, Put Block,
//! Put Block List and Get Block List (`block_list`), Get Blob (ranges), Get Blob Properties
//! (`HEAD`), Delete Blob and Copy Blob (a source on this server), with conditional headers
//! and user metadata (`metadata`); errors in Azure's XML shape (`answer`). Tokens and roles:
//! `access`. Files on disk: `files`.

mod access;
mod answer;
mod block_list;
mod conditions;
mod files;
mod listing;
mod metadata;
mod names;
mod read;
mod receive;
mod reorder;
mod sources;
mod staged;
mod write;
mod xml;

pub(crate) use staged::Reservations;

pub(crate) use files::{exists, remove_item, remove_workspace};
pub(crate) use sources::{NoSource, Source, files_to_load};

use crate::state::Shared;
use access::Granted;
use answer::StorageError;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use files::ItemDirs;
use names::ItemPath;
use std::collections::HashMap;

/// The routes: a workspace (container) and a blob in it.
pub(crate) fn routes(state: &Shared) -> Router<Shared> {
    Router::new()
        .route("/onelake/{ws}", any(container))
        .route("/onelake/{ws}/{*name}", any(blob))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            lost_answers,
        ))
}

/// `onelake-lost-response-rate`: the answer to a write that succeeded is lost on its way
/// back, as when a connection drops, and a 500 goes instead: the client sends the write again
/// to a store that already made it (a create-only commit then finds its blob there).
async fn lost_answers(
    State(state): State<Shared>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let writes = matches!(*request.method(), Method::PUT | Method::DELETE);
    let response = next.run(request).await;
    let rate = state.faults.onelake_lost_response_rate;
    if writes && response.status().is_success() && state.spreads.onelake_lost_responses.next(rate) {
        return StorageError::internal("the answer was lost").into_response();
    }
    response
}

/// A request's query parameters (the last of a repeated one wins).
fn query(raw: Option<&str>) -> HashMap<String, String> {
    // No query is no parameters.
    let text = raw.unwrap_or_default();
    form_urlencoded::parse(text.as_bytes())
        .into_owned()
        .collect()
}

/// Requests on a workspace: List Blobs, and Get Container Properties (`HEAD`).
async fn container(
    State(state): State<Shared>,
    Path(ws): Path<String>,
    method: Method,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> Response {
    let head = method == Method::HEAD;
    let answer = async {
        let principal = access::authenticate(&state, &headers)?;
        let query = query(raw.as_deref());
        // The one call OneLake takes on a workspace besides listing it: its properties.
        if method == Method::HEAD {
            return read::container_properties(&state, principal, ws).await;
        }
        let listing = method == Method::GET
            && query.get("restype").map(String::as_str) == Some("container")
            && query.get("comp").map(String::as_str) == Some("list");
        if !listing {
            return Err(unsupported(&query));
        }
        read::list(&state, principal, ws, &query).await
    };
    finish(answer.await, head)
}

/// Requests on a blob, told apart by method, `comp` and headers as the Blob API does.
async fn blob(
    State(state): State<Shared>,
    Path((ws, name)): Path<(String, String)>,
    method: Method,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let head = method == Method::HEAD;
    let answer = async {
        let principal = access::authenticate(&state, &headers)?;
        let query = query(raw.as_deref());
        let comp = query.get("comp").map(String::as_str);
        let target = resolve(&state, principal.clone(), ws, name).await?;
        match (&method, comp) {
            (&Method::GET | &Method::HEAD, None) => read::get(&target, &method, &headers).await,
            (&Method::GET, Some("blocklist")) => block_list::get(&target, &query).await,
            (&Method::PUT, Some("block")) => {
                write::put_block(&state, &target, &query, &headers, body).await
            }
            (&Method::PUT, Some("blocklist")) => {
                write::put_block_list(&state, &target, &headers, body).await
            }
            (&Method::PUT, None) if headers.contains_key("x-ms-copy-source") => {
                write::copy(&state, &principal, &target, &headers).await
            }
            (&Method::PUT, None) => write::put_blob(&state, &target, &headers, body).await,
            (&Method::DELETE, None) => write::delete(&state, &target, &headers).await,
            (&Method::GET | &Method::HEAD | &Method::PUT | &Method::DELETE, Some(_)) => {
                Err(unsupported(&query))
            }
            _ => Err(StorageError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "UnsupportedHttpVerb",
                "The resource doesn't support the specified HTTP verb.",
            )),
        }
    };
    finish(answer.await, head)
}

/// An error answered whole, or without its body for `HEAD`.
fn finish(answer: Result<Response, StorageError>, head: bool) -> Response {
    match answer {
        Ok(response) => response,
        Err(error) if head => error.without_body(),
        Err(error) => error.into_response(),
    }
}

/// 400 for a `comp`/`restype` this server does not serve.
fn unsupported(query: &HashMap<String, String>) -> StorageError {
    let (name, value) = match (query.get("comp"), query.get("restype")) {
        (Some(comp), _) => ("comp", comp.as_str()),
        (None, Some(restype)) => ("restype", restype.as_str()),
        (None, None) => ("comp", ""),
    };
    StorageError::invalid_query(name, value)
}

/// A blob a request may work on: its workspace and item (ids), its path in the item, and the
/// item's folders.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The path in the item.
    pub path: ItemPath,
    /// The item's folders.
    pub dirs: ItemDirs,
}

impl Target {
    /// The blob's file.
    pub(crate) fn file(&self) -> std::path::PathBuf {
        self.dirs.file(&self.path)
    }
}

/// The blob `name` of the workspace `ws`, for `principal`: the workspace and role first (so a
/// caller without access learns nothing of the names), then the name, then the item.
async fn resolve(
    state: &Shared,
    principal: String,
    ws: String,
    name: String,
) -> Result<Target, StorageError> {
    let shared = state.clone();
    let resolved = crate::blocking::run(move || {
        shared.db.read(|conn| {
            let Granted { workspace_id } = access::workspace(conn, &principal, &ws)?;
            let (item_segment, path) = names::split_blob(&name)?;
            let item_id = access::item(conn, &workspace_id, &item_segment)?;
            Ok::<_, StorageError>((workspace_id, item_id, path))
        })
    })
    .await
    .map_err(|err| StorageError::internal(err.message))?;
    let (workspace_id, item_id, path) = resolved?;
    Ok(Target {
        dirs: ItemDirs::of(state.db.data_dir(), &workspace_id, &item_id),
        path,
    })
}
