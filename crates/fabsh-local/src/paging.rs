//! Continuation tokens and page bodies. A token is opaque to clients (base64 of a small JSON
//! document) and carries the list's filters and the last key served, so `continuationUri` can
//! hold only the token, as the service's does, and filters survive from page to page. When a
//! request carries a token, the token's filters win over any query parameters sent with it.

use super::api_error::ApiError;
use super::respond;
use axum::http::StatusCode;
use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The state of a paged list between pages.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageToken {
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
}

impl PageToken {
    /// The opaque text form.
    pub fn encode(&self) -> String {
        STANDARD.encode(serde_json::to_vec(self).unwrap_or_default())
    }

    /// Parses a token, checking it belongs to this list and workspace.
    pub fn decode(text: &str, kind: &str, workspace: Option<&str>) -> Result<PageToken, ApiError> {
        let invalid = || {
            ApiError::bad_request(
                "InvalidContinuationToken",
                "The continuation token is not valid for this request",
            )
        };
        let bytes = STANDARD.decode(text.trim()).map_err(|_| invalid())?;
        let token: PageToken = serde_json::from_slice(&bytes).map_err(|_| invalid())?;
        if token.kind != kind || token.workspace.as_deref() != workspace {
            return Err(invalid());
        }
        Ok(token)
    }
}

/// Fetches one page: asks `fetch(after, limit + 1)` for one row more than a page to learn
/// whether another page exists without counting.
pub fn fetch_page<T, E>(
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

impl PageToken {
    /// Answers one page of a keyset-paged list: fetches a row more than a page (to learn
    /// whether another follows), turns the rows into wire JSON, and links the next page with
    /// a token that continues after the last row and keeps this token's filters.
    pub fn respond<T, E>(
        &self,
        page_size: u32,
        origin: &str,
        path: &str,
        fetch: impl FnOnce(i64, i64) -> Result<Vec<T>, E>,
        key: impl Fn(&T) -> i64,
        wire: impl Fn(&T) -> Value,
    ) -> Result<Response, ApiError>
    where
        ApiError: From<E>,
    {
        let (rows, next) = fetch_page(self.after, page_size, fetch, key)?;
        let next = next.map(|after| PageToken {
            after,
            ..self.clone()
        });
        let values = rows.iter().map(wire).collect();
        Ok(respond::json(
            StatusCode::OK,
            &page_body(values, next.as_ref(), origin, path),
        ))
    }
}

/// `{"value": [...], "continuationToken"?, "continuationUri"?}`; both keys absent on the last
/// page. `continuationUri` repeats the request path with only the token in the query.
pub fn page_body(values: Vec<Value>, next: Option<&PageToken>, origin: &str, path: &str) -> Value {
    let mut map = Map::new();
    map.insert("value".into(), Value::Array(values));
    if let Some(token) = next {
        let text = token.encode();
        let encoded: String = form_urlencoded::byte_serialize(text.as_bytes()).collect();
        map.insert("continuationToken".into(), json!(text));
        map.insert(
            "continuationUri".into(),
            json!(format!("{origin}{path}?continuationToken={encoded}")),
        );
    }
    Value::Object(map)
}

/// One page of a list held in memory (the data-agent configuration lives in definition
/// parts, not in rows): the token's `after` counts the entries already served, and `scope`
/// binds it to this list.
pub fn slice_page(
    values: Vec<Value>,
    token: Option<&str>,
    kind: &str,
    scope: &str,
    page_size: u32,
    origin: &str,
    path: &str,
) -> Result<Value, ApiError> {
    let after = match token {
        Some(text) => PageToken::decode(text, kind, Some(scope))?.after.max(0) as usize,
        None => 0,
    };
    let size = page_size.max(1) as usize;
    let end = after.saturating_add(size).min(values.len());
    let next = (end < values.len()).then(|| PageToken {
        kind: kind.to_string(),
        workspace: Some(scope.to_string()),
        after: end as i64,
        ..PageToken::default()
    });
    let page: Vec<Value> = values.into_iter().skip(after).take(size).collect();
    Ok(page_body(page, next.as_ref(), origin, path))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let body = page_body(vec![json!(1)], None, "http://h", "/v1/x");
        assert!(body.get("continuationToken").is_none());
        assert!(body.get("continuationUri").is_none());
        let token = PageToken {
            kind: "x".into(),
            after: 1,
            ..PageToken::default()
        };
        let body = page_body(vec![], Some(&token), "http://h", "/v1/x");
        let uri = body["continuationUri"].as_str().unwrap();
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
