//! GET `/v1/tags` and `/v1/admin/tags`: the tenant's tags, paged (both lists are the same here,
//! since local Fabric has one tenant-wide tag set).

use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::paging::PageToken;
use crate::respond::{Origin, Query};
use crate::state::Shared;
use crate::store::tags::{self, Tag};
use axum::extract::State;
use axum::http::Uri;
use axum::response::Response;

/// GET: a page of tags.
pub fn list(
    State(state): State<Shared>,
    caller: Caller,
    Origin(origin): Origin,
    uri: Uri,
    query: Query,
) -> Result<Response, ApiError> {
    caller.known(&state)?;
    let token = match query.get("continuationToken") {
        Some(text) => PageToken::decode(text, "tags", None)?,
        None => PageToken {
            kind: "tags".into(),
            ..PageToken::default()
        },
    };
    token.respond(
        state.faults.page_size,
        &origin,
        uri.path(),
        |after, limit| state.db.read(|c| tags::list(c, after, limit)),
        |tag| tag.seq,
        Tag::to_wire,
    )
}
