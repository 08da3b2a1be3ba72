//! The beta Livy session list's filters (swagger `LivySessions_List_Livy_Sessions_(beta)`):
//! `submittedDateTime`, `endDateTime`, `submitter.Id` and `state` read from the query of a first
//! page, kept in its continuation token for the pages after (`continuationUri` carries only
//! the token). A value that is no date-time, GUID or `LivySessionState` is 400
//! `InvalidParameter`; the plain list defines no filters and answers every session.

use crate::api_error::ApiError;
use crate::paging::{PageToken, invalid_token};
use crate::respond::Query;
use crate::store::livy_sessions::Filters;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{OffsetDateTime, PrimitiveDateTime};

/// A date-time filter in Unix seconds: RFC 3339 (`2025-01-31T15:32:03Z`), or without an
/// offset, taken as UTC (the swagger says the times are UTC).
fn instant(name: &str, text: &str) -> Result<i64, ApiError> {
    let trimmed = text.trim();
    let parsed = OffsetDateTime::parse(trimmed, &Rfc3339).or_else(|_| {
        PrimitiveDateTime::parse(
            trimmed,
            format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]"),
        )
        .map(PrimitiveDateTime::assume_utc)
    });
    parsed
        .map(OffsetDateTime::unix_timestamp)
        .map_err(|_| ApiError::invalid_parameter(name, text))
}

/// The swagger `LivySessionState` values, which the `state` filter takes in any case.
const STATES: &[&str] = &[
    "NotStarted",
    "InProgress",
    "Cancelled",
    "Failed",
    "Succeeded",
    "Unknown",
];

/// The beta list's filters from the query; none for the plain list.
fn filters(query: &Query) -> Result<Filters, ApiError> {
    if !query.flag("beta", false)? {
        return Ok(Filters::default());
    }
    let mut filters = Filters::default();
    if let Some(text) = query.get_any_case("submittedDateTime") {
        filters.submitted_from = Some(instant("submittedDateTime", text)?);
    }
    if let Some(text) = query.get_any_case("endDateTime") {
        filters.ended_by = Some(instant("endDateTime", text)?);
    }
    if let Some(text) = query.get_any_case("submitter.Id") {
        let id = uuid::Uuid::parse_str(text.trim())
            .map_err(|_| ApiError::invalid_parameter("submitter.Id", text))?;
        filters.submitter = Some(id.hyphenated().to_string());
    }
    if let Some(text) = query.get_any_case("state") {
        let state = STATES
            .iter()
            .find(|state| state.eq_ignore_ascii_case(text.trim()))
            .ok_or_else(|| ApiError::invalid_parameter("state", text))?;
        filters.state = Some((*state).to_string());
    }
    Ok(filters)
}

/// The first page's token of a list, with the query's filters in it.
pub(super) fn first_page(list: PageToken, query: &Query) -> Result<PageToken, ApiError> {
    let filters = filters(query)?;
    let filters = (filters != Filters::default())
        .then(|| serde_json::to_string(&filters))
        .transpose()
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(PageToken { filters, ..list })
}

/// The filters a page's token carries (a token is the client's to send back: one that does
/// not parse is no valid token).
pub(super) fn token_filters(token: &PageToken) -> Result<Filters, ApiError> {
    match &token.filters {
        None => Ok(Filters::default()),
        Some(text) => serde_json::from_str(text).map_err(|_| invalid_token()),
    }
}
