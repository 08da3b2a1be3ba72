//! Continuation tokens and page bodies. A token is opaque to clients (base64 of a small JSON
//! document) and carries the list's filters and the last key served, so `continuationUri` can
//! hold only the token, as the service's does, and filters survive from page to page. When a
//! request carries a token, the token's filters win over any query parameters sent with it.

use super::api_error::ApiError;
use super::respond::{self, Origin, Query};
use super::state::Shared;
use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use fabsh_model::wire::Page;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The state of a paged list between pages.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct PageToken {
    /// Which list (`items`, `folders`, ...); a token is only valid for its own list.
    #[serde(rename = "k")]
    pub kind: String,
    /// The workspace the list belongs to, when any.
    #[serde(rename = "w", default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The last creation sequence served; the next page starts after it.
    #[serde(rename = "a")]
    pub after: i64,
    /// `type` filter.
    #[serde(rename = "t", default, skip_serializing_if = "Option::is_none")]
    pub item_type: Option<String>,
    /// `rootFolderId` filter.
    #[serde(rename = "f", default, skip_serializing_if = "Option::is_none")]
    pub root_folder: Option<String>,
    /// `recursive` filter.
    #[serde(rename = "r", default)]
    pub recursive: bool,
    /// Any other filter text (the `roles` list of workspace lists).
    #[serde(rename = "x", default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<String>,
    /// A list's own filters, as its route writes them (JSON text: the Livy beta list's).
    #[serde(rename = "q", default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<String>,
}

impl PageToken {
    /// The first page of the list `kind` (of `workspace`, when the list belongs to one).
    pub(crate) fn first(kind: &str, workspace: Option<&str>) -> PageToken {
        PageToken {
            kind: kind.to_string(),
            workspace: workspace.map(str::to_string),
            ..PageToken::default()
        }
    }

    /// The opaque text form.
    pub(crate) fn encode(&self) -> String {
        // A token is strings, numbers and a bool, which always serialize.
        STANDARD.encode(serde_json::to_vec(self).expect("a page token serializes"))
    }

    /// Parses a token, checking it belongs to this list and workspace.
    pub(crate) fn decode(
        text: &str,
        kind: &str,
        workspace: Option<&str>,
    ) -> Result<PageToken, ApiError> {
        let bytes = STANDARD.decode(text.trim()).map_err(|_| invalid_token())?;
        let token: PageToken = serde_json::from_slice(&bytes).map_err(|_| invalid_token())?;
        if token.kind != kind || token.workspace.as_deref() != workspace {
            return Err(invalid_token());
        }
        Ok(token)
    }
}

/// What a list request brings to paging: the continuation token it sent, and where its
/// pages live (origin and path, for `continuationUri`), with the server's page size.
#[derive(Debug, Clone)]
pub(crate) struct Paging {
    sent: Option<String>,
    pub origin: String,
    path: String,
    page_size: u32,
}

impl FromRequestParts<Shared> for Paging {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Shared) -> Result<Self, ApiError> {
        let Origin(origin) = Origin::from_request_parts(parts, state).await?;
        let query = Query::from_request_parts(parts, state).await?;
        Ok(Paging {
            sent: query.get("continuationToken").map(str::to_string),
            origin,
            path: parts.uri.path().to_string(),
            page_size: state.faults.page_size,
        })
    }
}

impl Paging {
    /// The state of the list: the token the request sent, which must belong to `list` (its
    /// kind, workspace and, when `list` sets one, its `extra` scope), or for a first page
    /// what `first` makes of `list` (the filters of the query). A sent token's filters win
    /// over the query's.
    pub(crate) fn token(
        &self,
        list: PageToken,
        first: impl FnOnce(PageToken) -> Result<PageToken, ApiError>,
    ) -> Result<PageToken, ApiError> {
        let Some(text) = &self.sent else {
            return first(list);
        };
        let token = PageToken::decode(text, &list.kind, list.workspace.as_deref())?;
        if list.extra.is_some() && token.extra != list.extra {
            return Err(invalid_token());
        }
        Ok(token)
    }

    /// Answers the page of a keyset-paged list that `token` continues to: fetches a row more
    /// than a page (to learn whether another follows), turns the rows into wire JSON, and
    /// links the next page with a token that continues after the last row and keeps this
    /// token's filters.
    pub(crate) fn respond<T, E, W: Serialize>(
        &self,
        token: &PageToken,
        fetch: impl FnOnce(i64, i64) -> Result<Vec<T>, E>,
        key: impl Fn(&T) -> i64,
        wire: impl Fn(&T) -> W,
    ) -> Result<Response, ApiError>
    where
        ApiError: From<E>,
    {
        let (rows, next) = fetch_page(token.after, self.page_size, fetch, key)?;
        let next = next.map(|after| PageToken {
            after,
            ..token.clone()
        });
        let values = rows.iter().map(wire).collect();
        Ok(self.page(values, next.as_ref()))
    }

    /// Answers one page of a list held in memory (the data-agent configuration lives in
    /// definition parts, not in rows): the token's `after` counts the entries already served,
    /// and `scope` binds it to this list.
    pub(crate) fn slice(
        &self,
        values: Vec<Value>,
        kind: &str,
        scope: &str,
    ) -> Result<Response, ApiError> {
        let after = match &self.sent {
            Some(text) => PageToken::decode(text, kind, Some(scope))?.after.max(0) as usize,
            None => 0,
        };
        let size = self.page_size.max(1) as usize;
        let end = after.saturating_add(size).min(values.len());
        let next = (end < values.len()).then(|| PageToken {
            after: end as i64,
            ..PageToken::first(kind, Some(scope))
        });
        let page: Vec<Value> = values.into_iter().skip(after).take(size).collect();
        Ok(self.page(page, next.as_ref()))
    }

    fn page<W: Serialize>(&self, values: Vec<W>, next: Option<&PageToken>) -> Response {
        respond::json(
            StatusCode::OK,
            &page_body(values, next, &self.origin, &self.path),
        )
    }
}

/// 400 `InvalidContinuationToken`: a token sent back that is not one of this list's.
pub(crate) fn invalid_token() -> ApiError {
    ApiError::bad_request(
        "InvalidContinuationToken",
        "The continuation token is not valid for this request",
    )
}

/// Fetches one page: asks `fetch(after, limit + 1)` for one row more than a page to learn
/// whether another page exists without counting.
pub(crate) fn fetch_page<T, E>(
    after: i64,
    page_size: u32,
    fetch: impl FnOnce(i64, i64) -> Result<Vec<T>, E>,
    key: impl Fn(&T) -> i64,
) -> Result<(Vec<T>, Option<i64>), E> {
    let limit = i64::from(page_size);
    let mut rows = fetch(after, limit + 1)?;
    if rows.len() as i64 > limit {
        rows.truncate(limit as usize);
        let last = rows.last().map(&key);
        Ok((rows, last))
    } else {
        Ok((rows, None))
    }
}

/// `{"value": [...], "continuationToken"?, "continuationUri"?}`; both keys absent on the last
/// page. `continuationUri` repeats the request path with only the token in the query.
pub(crate) fn page_body<W>(
    values: Vec<W>,
    next: Option<&PageToken>,
    origin: &str,
    path: &str,
) -> Page<W> {
    let Some(token) = next else {
        return Page::last(values);
    };
    let text = token.encode();
    let encoded: String = form_urlencoded::byte_serialize(text.as_bytes()).collect();
    Page {
        value: values,
        continuation_uri: Some(format!("{origin}{path}?continuationToken={encoded}")),
        continuation_token: Some(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tokens_round_trip_with_their_filters() {
        let token = PageToken {
            kind: "items".into(),
            workspace: Some("ws".into()),
            after: 42,
            item_type: Some("Notebook".into()),
            root_folder: Some("f".into()),
            recursive: false,
            extra: None,
            filters: Some(r#"{"t":"Cancelled"}"#.into()),
        };
        let text = token.encode();
        assert_eq!(
            PageToken::decode(&text, "items", Some("ws")).unwrap(),
            token
        );
    }

    #[test]
    fn tokens_are_bound_to_their_list() {
        let token = PageToken {
            kind: "items".into(),
            workspace: Some("ws".into()),
            ..PageToken::default()
        };
        let text = token.encode();
        assert!(PageToken::decode(&text, "folders", Some("ws")).is_err());
        assert!(PageToken::decode(&text, "items", Some("other")).is_err());
        let garbage = PageToken::decode("not a token", "items", Some("ws")).unwrap_err();
        assert_eq!(garbage.code, "InvalidContinuationToken");
    }

    #[test]
    fn the_last_page_has_no_continuation_keys() {
        let body =
            serde_json::to_value(page_body(vec![json!(1)], None, "http://h", "/v1/x")).unwrap();
        assert_eq!(
            body,
            json!({"value": [1]}),
            "no continuation on the last page"
        );
        let token = PageToken {
            kind: "x".into(),
            after: 1,
            ..PageToken::default()
        };
        let body = page_body(Vec::<Value>::new(), Some(&token), "http://h", "/v1/x");
        let uri = body.continuation_uri.as_deref().unwrap();
        assert!(uri.starts_with("http://h/v1/x?continuationToken="));
        let encoded = uri.split_once("continuationToken=").unwrap().1;
        assert!(
            !encoded.contains(['=', '+', '/']),
            "token not URL-encoded: {encoded}"
        );
    }

    #[test]
    fn fetch_page_detects_a_next_page() {
        let rows: Vec<i64> = (1..=5).collect();
        let (page, next) = fetch_page::<_, ()>(
            0,
            3,
            |after, limit| {
                Ok(rows
                    .iter()
                    .copied()
                    .filter(|r| *r > after)
                    .take(limit as usize)
                    .collect())
            },
            |r| *r,
        )
        .unwrap();
        assert_eq!(page, vec![1, 2, 3]);
        assert_eq!(next, Some(3));
        let (page, next) = fetch_page::<_, ()>(
            3,
            3,
            |after, limit| {
                Ok(rows
                    .iter()
                    .copied()
                    .filter(|r| *r > after)
                    .take(limit as usize)
                    .collect())
            },
            |r| *r,
        )
        .unwrap();
        assert_eq!(page, vec![4, 5]);
        assert_eq!(next, None);
    }
}
