//! GET `/v1/tags` and `/v1/admin/tags`: the tenant's tags, paged (both lists are the same here,
//! since local Fabric has one tenant-wide tag set).

use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::paging::{PageToken, Paging};
use crate::state::Shared;
use crate::store::tags::{self, Tag};
use axum::extract::State;
use axum::response::Response;

/// GET: a page of tags.
pub(super) fn list(
    State(state): State<Shared>,
    caller: Caller,
    paging: Paging,
) -> Result<Response, ApiError> {
    caller.known(&state)?;
    let token = paging.token(PageToken::first("tags", None), Ok)?;
    paging.respond(
        &token,
        |after, limit| state.db.read(|c| tags::list(c, after, limit)),
        |tag| tag.seq,
        Tag::to_wire,
    )
}
