//! Workspace and item flags take an id or a display name. Names are resolved with one list
//! call, cached for the life of the process (refreshed once when a name is missing, so
//! things created since are found). An ambiguous name is an error listing the candidates.
//! The API client forgets cached lists after each write that changes them (see [`stale`]).

use super::list_cache::ListCache;
use super::{ApiClient, items, stale, workspaces};
use crate::error::{Error, Result};
use serde_json::Value;
use std::sync::Arc;

/// The name cache of one process: lists fetched once per key at a time, keys side by side.
#[derive(Default)]
pub struct Resolver {
    /// Keyed as [`stale`] builds the keys, plus whatever other callers cache here.
    lists: ListCache,
}

/// True when `text` is a GUID, so no lookup is needed.
pub fn is_guid(text: &str) -> bool {
    uuid::Uuid::try_parse(text.trim()).is_ok()
}

/// The entry whose `displayName` equals `name`, exactly or else ignoring case.
pub fn find_named(list: &[Value], name: &str) -> Option<Value> {
    matching(list, name).first().map(|entry| (*entry).clone())
}

impl Resolver {
    /// The id of the workspace named or identified by `text`.
    pub async fn workspace(&self, api: &ApiClient, text: &str) -> Result<String> {
        if is_guid(text) {
            return Ok(text.trim().to_string());
        }
        self.resolve(stale::workspaces_key(), text, "workspace", || async {
            api.all(workspaces::list_req()).await
        })
        .await
    }

    /// The id of the item named or identified by `text` in `workspace_id`, optionally of one
    /// type only.
    pub async fn item(
        &self,
        api: &ApiClient,
        workspace_id: &str,
        text: &str,
        item_type: Option<&str>,
    ) -> Result<String> {
        if is_guid(text) {
            return Ok(text.trim().to_string());
        }
        let key = stale::items_key(workspace_id, item_type);
        let what = item_type.map_or("item".to_string(), |t| format!("{t} item"));
        self.resolve(key, text, &what, || async {
            let filter = items::ListFilter {
                item_type: item_type.map(String::from),
                ..Default::default()
            };
            api.all(items::list_req(workspace_id, &filter)).await
        })
        .await
    }

    async fn resolve<F, Fut>(&self, key: String, name: &str, what: &str, fetch: F) -> Result<String>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Vec<Value>>>,
    {
        let list = self
            .cached_list(key, fetch, |list| !matching(list, name).is_empty())
            .await?;
        match matching(&list, name).as_slice() {
            [only] => Ok(only["id"].as_str().unwrap_or_default().to_string()),
            [] => Err(not_found(what, name, &list)),
            many => Err(ambiguous(what, name, many)),
        }
    }

    /// A list kept for the life of the process under `key` (fetched on first use, once at a
    /// time per key, so concurrent callers share one request); fetched again when `has_wanted`
    /// says the cached copy lacks what the caller looks for, so things created since are found.
    pub async fn cached_list<F, Fut>(
        &self,
        key: String,
        fetch: F,
        has_wanted: impl Fn(&[Value]) -> bool,
    ) -> Result<Arc<Vec<Value>>>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Vec<Value>>>,
    {
        self.lists.get(&key, fetch, has_wanted).await
    }

    /// Drops every cached list whose key starts with `prefix`.
    pub fn forget_prefix(&self, prefix: &str) {
        self.lists.forget_prefix(prefix);
    }

    /// Drops the cached lists a request that changed something at `path` (under the
    /// endpoint) made stale.
    pub fn forget_after_write(&self, path: &str) {
        for prefix in stale::stale_prefixes(path) {
            self.lists.forget_prefix(&prefix);
        }
    }
}

/// Entries named exactly `name`, or, when none, named `name` ignoring case.
fn matching<'a>(list: &'a [Value], name: &str) -> Vec<&'a Value> {
    let exact: Vec<&Value> = list
        .iter()
        .filter(|entry| entry["displayName"].as_str() == Some(name))
        .collect();
    let named = if exact.is_empty() {
        list.iter()
            .filter(|entry| {
                entry["displayName"]
                    .as_str()
                    .is_some_and(|candidate| candidate.eq_ignore_ascii_case(name))
            })
            .collect()
    } else {
        exact
    };
    without_shadow_children(named)
}

/// Every lakehouse has a SQL endpoint child of the same name. A name that matches both means
/// the lakehouse; the endpoint is still reachable by id or with `--type SQLEndpoint`.
fn without_shadow_children(named: Vec<&Value>) -> Vec<&Value> {
    let is_child = |entry: &Value| entry["type"].as_str() == Some("SQLEndpoint");
    if named.len() > 1 && named.iter().any(|entry| !is_child(entry)) {
        named.into_iter().filter(|entry| !is_child(entry)).collect()
    } else {
        named
    }
}

fn not_found(what: &str, name: &str, list: &[Value]) -> Error {
    let lower = name.to_lowercase();
    let similar: Vec<&str> = list
        .iter()
        .filter_map(|entry| entry["displayName"].as_str())
        .filter(|candidate| {
            let candidate = candidate.to_lowercase();
            candidate.contains(&lower) || lower.contains(&candidate)
        })
        .take(5)
        .collect();
    let err = Error::not_found(format!("no {what} named {name:?}"));
    if similar.is_empty() {
        err.with_hint("pass an id, or check the name with a list command")
    } else {
        err.with_hint(format!("similar names: {}", similar.join(", ")))
    }
}

fn ambiguous(what: &str, name: &str, matches: &[&Value]) -> Error {
    let candidates: Vec<String> = matches
        .iter()
        .map(|entry| {
            let id = entry["id"].as_str().unwrap_or("?");
            match entry["type"].as_str() {
                Some(kind) => format!("{id} ({kind})"),
                None => id.to_string(),
            }
        })
        .collect();
    Error::usage(format!(
        "{} {what}s are named {name:?}: {}",
        matches.len(),
        candidates.join(", ")
    ))
    .with_hint("pass the id instead of the name")
}

#[cfg(test)]
mod tests {
    use super::matching;
    use serde_json::json;

    #[test]
    fn a_lakehouse_wins_over_its_same_named_sql_endpoint() {
        let list = [
            json!({"id": "l", "displayName": "Sales", "type": "Lakehouse"}),
            json!({"id": "s", "displayName": "Sales", "type": "SQLEndpoint"}),
            json!({"id": "e", "displayName": "Only", "type": "SQLEndpoint"}),
        ];
        let ids = |name| {
            matching(&list, name)
                .iter()
                .map(|e| e["id"].clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids("Sales"), [json!("l")]);
        assert_eq!(ids("sales"), [json!("l")]);
        assert_eq!(
            ids("Only"),
            [json!("e")],
            "an endpoint alone is still found"
        );
    }
}
