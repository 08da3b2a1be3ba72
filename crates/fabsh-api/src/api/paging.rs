//! Paged lists: `{value: [...], continuationToken, continuationUri}`, both keys gone on the
//! last page.

use super::ApiClient;
use super::names::file::Entry;
use super::names::writes;
use super::request::Req;
use crate::error::{Error, Result};
use futures::StreamExt;
use futures::stream::BoxStream;
use serde_json::Value;

/// A listing's pages as they arrive, each a page's items or the error that ended it.
pub type PageStream = BoxStream<'static, Result<Vec<Value>>>;

/// One page of a list.
#[derive(Debug, Default)]
pub struct Page {
    pub items: Vec<Value>,
    pub continuation_token: Option<String>,
    pub continuation_uri: Option<String>,
}

impl Page {
    /// Splits a list response into its items and continuation.
    pub fn from_body(body: Value) -> Result<Page> {
        let Value::Object(mut map) = body else {
            return Err(Error::runtime(
                "expected a list response with a `value` array",
            ));
        };
        let items = match map.remove("value").or_else(|| map.remove("data")) {
            Some(Value::Array(items)) => items,
            Some(Value::Null) | None => Vec::new(),
            Some(_) => {
                return Err(Error::runtime(
                    "the list response's `value` is not an array",
                ));
            }
        };
        let text = |value: Option<Value>| match value {
            Some(Value::String(text)) if !text.is_empty() => Some(text),
            _ => None,
        };
        let continuation_uri = text(map.remove("continuationUri"));
        // Some pages only give the link; its token still lets the user continue by hand.
        let continuation_token = text(map.remove("continuationToken")).or_else(|| {
            let url = reqwest::Url::parse(continuation_uri.as_deref()?).ok()?;
            url.query_pairs()
                .find(|(key, _)| key == "continuationToken")
                .map(|(_, value)| value.into_owned())
        });
        Ok(Page {
            items,
            continuation_token,
            continuation_uri,
        })
    }

    /// True when another page follows.
    pub fn has_more(&self) -> bool {
        self.continuation_token.is_some() || self.continuation_uri.is_some()
    }
}

impl ApiClient {
    /// Fetches one page; `token` continues an earlier listing.
    /// A page of workspaces or of a workspace's items adds its names to the name cache (and
    /// replaces them when it is the only page).
    pub async fn page(&self, req: &Req, token: Option<&str>) -> Result<Page> {
        let page = self.fetch_page(req, token).await?;
        if let Some(listing) = writes::listing(&req.target, &req.query)
            && let Ok(names) = self.names().await
        {
            // A first page with none after it is the whole list.
            if listing.whole && token.is_none() && !page.has_more() {
                let entries = page
                    .items
                    .iter()
                    .filter_map(|value| writes::entry_of(&listing.key, value))
                    .collect();
                names.after_whole_listing(&listing, entries, self.call_id());
            } else {
                names.after_page(&listing, &page.items);
            }
        }
        Ok(page)
    }

    async fn fetch_page(&self, req: &Req, token: Option<&str>) -> Result<Page> {
        let mut req = req.clone();
        if let Some(token) = token {
            req.query.retain(|(key, _)| key != "continuationToken");
            req.query
                .push(("continuationToken".into(), token.to_string()));
        }
        Page::from_body(self.json(req).await?)
    }

    /// Every page, fetched one after another as the stream is read.
    ///
    /// The next page repeats the original request (filters included) with the
    /// `continuationToken`; a page that only gives a `continuationUri` is followed as is.
    /// A whole listing of workspaces or of a workspace's items, read to its last page,
    /// replaces that list in the name cache.
    pub fn pages(&self, req: Req, start_token: Option<String>) -> PageStream {
        enum Next {
            Token(Option<String>),
            Uri(String),
            Done,
        }
        let api = self.clone();
        let whole = match start_token {
            None => writes::listing(&req.target, &req.query).filter(|listing| listing.whole),
            Some(_) => None,
        };
        let collected: Option<Vec<Entry>> = whole.as_ref().map(|_| Vec::new());
        let start = (Next::Token(start_token), collected);
        futures::stream::unfold(start, move |(next, mut collected)| {
            let api = api.clone();
            let req = req.clone();
            let whole = whole.clone();
            async move {
                let page = match next {
                    Next::Done => return None,
                    Next::Token(token) => api.fetch_page(&req, token.as_deref()).await,
                    Next::Uri(uri) => match api.url_for(&uri) {
                        Ok(url) => api.fetch_page(&Req::get(url.as_str()), None).await,
                        Err(err) => Err(err),
                    },
                };
                match page {
                    Ok(page) => {
                        let next = match (page.continuation_token, page.continuation_uri) {
                            (Some(token), _) => Next::Token(Some(token)),
                            (None, Some(uri)) => Next::Uri(uri),
                            (None, None) => Next::Done,
                        };
                        if let (Some(listing), Some(entries)) = (&whole, collected.as_mut()) {
                            entries.extend(
                                page.items
                                    .iter()
                                    .filter_map(|value| writes::entry_of(&listing.key, value)),
                            );
                        }
                        if matches!(next, Next::Done)
                            && let (Some(listing), Some(entries)) = (&whole, collected.take())
                            && let Ok(names) = api.names().await
                        {
                            names.after_whole_listing(listing, entries, api.call_id());
                        }
                        Some((Ok(page.items), (next, collected)))
                    }
                    Err(err) => Some((Err(err), (Next::Done, None))),
                }
            }
        })
        .boxed()
    }

    /// Every item of every page, collected.
    pub async fn all(&self, req: Req) -> Result<Vec<Value>> {
        let mut pages = self.pages(req, None);
        let mut items = Vec::new();
        while let Some(page) = pages.next().await {
            items.extend(page?);
        }
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use super::Page;
    use serde_json::json;

    #[test]
    fn splits_items_and_continuation() {
        let page = Page::from_body(json!({"value": [1, 2], "continuationToken": "abc", "continuationUri": "https://x/v1/items?continuationToken=abc"})).expect("page");
        assert_eq!(page.items.len(), 2);
        assert_eq!(page.continuation_token.as_deref(), Some("abc"));
        assert!(page.has_more());
        let link_only = Page::from_body(
            json!({"value": [], "continuationUri": "https://x/v1/items?continuationToken=a%3D"}),
        )
        .expect("page");
        assert_eq!(link_only.continuation_token.as_deref(), Some("a="));
        let last = Page::from_body(json!({"value": []})).expect("page");
        assert!(!last.has_more());
    }
}
