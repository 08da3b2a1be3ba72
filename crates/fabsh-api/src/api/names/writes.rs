//! What fabsh's own requests teach the name cache: a whole listing replaces a list, a page
//! adds to it, and a write changes the entries it changed (a create adds the new item, a
//! rename renames it, a delete removes it). A write whose effect on names cannot be read from
//! its answer (a create that became a long-running operation, a bulk import, a definition
//! update that may rename) marks the workspace's list as no longer whole, so the next
//! lookup that must rule out ambiguity lists again.

use super::file::{Entry, NameList};
use super::{ListKey, NameCache};
use fabsh_model::wire::{Item, Workspace};
use reqwest::Method;
use serde::Deserialize;
use serde_json::Value;

/// What a listing request lists, when it lists names the cache keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listing {
    pub key: ListKey,
    /// The one type listed (`?type=`), if filtered so.
    pub item_type: Option<String>,
    /// Whether every page of it is every name (of that type): no other filter.
    pub whole: bool,
}

/// The listing `path` (under the endpoint) and `query` make, if it lists workspaces or a
/// workspace's items.
pub(crate) fn listing(path: &str, query: &[(String, String)]) -> Option<Listing> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let filters = query
        .iter()
        .filter(|(key, _)| key != "continuationToken")
        .collect::<Vec<_>>();
    match segments.as_slice() {
        ["workspaces"] => Some(Listing {
            key: ListKey::Workspaces,
            item_type: None,
            whole: filters.is_empty(),
        }),
        ["workspaces", ws, "items"] => {
            let item_type = filters
                .iter()
                .find(|(key, _)| key == "type")
                .map(|(_, value)| value.clone());
            let others = filters.iter().filter(|(key, _)| key != "type").count();
            Some(Listing {
                key: ListKey::items(ws),
                item_type,
                whole: others == 0,
            })
        }
        _ => None,
    }
}

/// The cache entry an answer about a workspace or an item (as `key` lists them) describes;
/// `None` when the answer is not one.
pub(crate) fn entry_of(key: &ListKey, value: &Value) -> Option<Entry> {
    match key {
        ListKey::Workspaces => Workspace::deserialize(value)
            .ok()
            .map(|ws| Entry(ws.id, ws.display_name, ws.kind)),
        ListKey::Items(_) => Item::deserialize(value)
            .ok()
            .map(|item| Entry(item.id, item.display_name, item.item_type)),
    }
}

impl NameCache {
    /// After every page of `listing` from its first, made by `call`.
    pub(crate) fn after_whole_listing(&self, listing: &Listing, entries: Vec<Entry>, call: u64) {
        match &listing.item_type {
            None => self.replace(&listing.key, entries, call),
            Some(kind) => {
                let kind = kind.clone();
                self.update(&listing.key, move |list| {
                    let list = list.get_or_insert_default();
                    list.entries
                        .retain(|entry| !entry.kind().eq_ignore_ascii_case(&kind));
                    list.entries.extend(entries.iter().cloned());
                    true
                });
                self.flush();
            }
        }
    }

    /// After one page of `listing` (not known to be the whole list): adds what it shows.
    pub(crate) fn after_page(&self, listing: &Listing, page: &[Value]) {
        let entries: Vec<Entry> = page
            .iter()
            .filter_map(|value| entry_of(&listing.key, value))
            .collect();
        if entries.is_empty() {
            return;
        }
        self.update(&listing.key, move |list| {
            let list = list.get_or_insert_default();
            let mut changed = false;
            for entry in &entries {
                changed |= upsert(list, entry.clone());
            }
            changed
        });
    }

    /// After a request to `path` (under the endpoint) that changed something, or may have;
    /// `answer` is its JSON answer when it had one.
    pub(crate) fn after_write(
        &self,
        method: &Method,
        path: &str,
        query: &[(String, String)],
        answer: Option<&Value>,
    ) {
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        let workspace_entry = || answer.and_then(|answer| entry_of(&ListKey::Workspaces, answer));
        match segments.as_slice() {
            // Folders are not items: making, renaming or moving one changes no item's name.
            ["workspaces", _, "folders", ..] => {}
            ["workspaces"] => match workspace_entry() {
                Some(entry) if *method == Method::POST => {
                    let entry = Entry(entry.0, entry.1, String::new());
                    self.update(&ListKey::Workspaces, move |list| {
                        upsert(list.get_or_insert_default(), entry.clone())
                    });
                }
                _ => {}
            },
            ["workspaces", ws] => {
                let ws = ws.to_lowercase();
                let renamed = (*method == Method::PATCH)
                    .then(workspace_entry)
                    .flatten()
                    .map(|entry| Entry(entry.0, entry.1, String::new()));
                if *method == Method::DELETE {
                    self.update(&ListKey::items(&ws), |list| list.take().is_some());
                }
                self.update(&ListKey::Workspaces, move |list| {
                    let list = list.get_or_insert_default();
                    let mut changed = remove(list, &ws);
                    if let Some(entry) = &renamed {
                        changed |= upsert(list, entry.clone());
                    }
                    changed
                });
            }
            ["workspaces", ws, _collection] if *method == Method::POST => {
                let key = ListKey::items(ws);
                let entry = answer.and_then(|answer| entry_of(&key, answer));
                self.update(&key, move |list| {
                    let Some(list) = list else { return false };
                    match &entry {
                        Some(entry) => upsert(list, entry.clone()),
                        None => not_whole(list),
                    }
                });
            }
            ["workspaces", ws, _collection, id] => {
                let id = id.to_lowercase();
                let method = method.clone();
                let key = ListKey::items(ws);
                let entry = answer.and_then(|answer| entry_of(&key, answer));
                self.update(&key, move |list| {
                    let Some(list) = list else { return false };
                    match method {
                        Method::PATCH | Method::PUT => {
                            let removed = remove(list, &id);
                            match &entry {
                                Some(entry) => upsert(list, entry.clone()) | removed,
                                None => removed,
                            }
                        }
                        Method::DELETE => remove(list, &id),
                        // Actions on the collection: a bulk import makes items nobody named
                        // yet; a bulk move or export changes no names.
                        _ if id.starts_with("bulkimport") => not_whole(list),
                        _ => false,
                    }
                });
            }
            ["workspaces", ws, _collection, id, "updateDefinition"] => {
                let renames = query
                    .iter()
                    .any(|(key, value)| key == "updateMetadata" && value == "true");
                if renames {
                    let id = id.to_lowercase();
                    self.update(&ListKey::items(ws), move |list| {
                        let Some(list) = list else { return false };
                        remove(list, &id) | not_whole(list)
                    });
                }
            }
            _ => {}
        }
    }

    /// Drops the entry `id` from the list under `key` (a confirmation failed), and marks the
    /// list as no longer whole.
    pub(crate) fn forget_entry(&self, key: &ListKey, id: &str) {
        let id = id.to_lowercase();
        self.update(key, move |list| {
            let Some(list) = list else { return false };
            remove(list, &id);
            list.listed_at = 0;
            true
        });
    }
}

/// Adds or replaces the entry with `entry`'s id; true when that changed the list.
fn upsert(list: &mut NameList, entry: Entry) -> bool {
    match list
        .entries
        .iter_mut()
        .find(|known| known.id().eq_ignore_ascii_case(entry.id()))
    {
        Some(known) if *known == entry => false,
        Some(known) => {
            *known = entry;
            true
        }
        None => {
            list.entries.push(entry);
            true
        }
    }
}

/// Removes the entry with id `id` (lowercase); true when there was one.
fn remove(list: &mut NameList, id: &str) -> bool {
    let before = list.entries.len();
    list.entries
        .retain(|entry| !entry.id().eq_ignore_ascii_case(id));
    list.entries.len() != before
}

/// Marks the list as no longer whole; true when that changed it.
fn not_whole(list: &mut NameList) -> bool {
    let was_whole = list.listed_at != 0;
    list.listed_at = 0;
    was_whole
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(query: &[(&str, &str)]) -> Vec<(String, String)> {
        query
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn only_unfiltered_listings_are_whole() {
        let items = listing("/workspaces/W1/items", &pairs(&[])).expect("items");
        assert_eq!(items.key, ListKey::Items("w1".into()));
        assert!(items.whole && items.item_type.is_none());
        let typed = listing(
            "/workspaces/w1/items",
            &pairs(&[("type", "Notebook"), ("continuationToken", "x")]),
        )
        .expect("typed");
        assert!(typed.whole);
        assert_eq!(typed.item_type.as_deref(), Some("Notebook"));
        let folder = listing("/workspaces/w1/items", &pairs(&[("rootFolderId", "f")]));
        assert!(!folder.expect("folder").whole);
        assert!(listing("/workspaces/w1/folders", &[]).is_none());
        assert_eq!(
            listing("/workspaces", &[]).expect("workspaces").key,
            ListKey::Workspaces
        );
    }
}
