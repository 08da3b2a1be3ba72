//! Names for Tab: the workspaces, or a workspace's items with their types, as the name cache
//! last listed them. Completion asks on every Tab (a shell runs a new process each time), so a
//! recent listing in the cache answers it without a request; an older one is listed again.

use super::{ListKey, NameCache};
use crate::api::ApiClient;
use crate::api::items::{ListFilter, list_req};
use crate::api::workspaces;
use crate::auth::now_secs;
use crate::error::Result;
use fabsh_model::wire::{Item, Workspace};

/// How old a cached listing may be and still answer Tab: a minute, so a name created
/// elsewhere shows up soon while a burst of Tabs costs one listing.
pub const COMPLETION_FRESH_SECS: i64 = 60;

/// A name and its type (empty for workspaces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameAndType {
    pub name: String,
    pub kind: String,
}

impl NameCache {
    /// The names under `key` when a whole listing of them is at most `max_age` seconds old
    /// (any age when `None`), else nothing.
    fn listed_names(&self, key: &ListKey, max_age: Option<i64>) -> Option<Vec<NameAndType>> {
        self.with_list(
            key,
            0,
            |_| true,
            |listed| {
                let age = now_secs() - listed.listed_at;
                (listed.listed_at > 0 && max_age.is_none_or(|max| age <= max)).then(|| {
                    listed
                        .entries
                        .iter()
                        .map(|entry| NameAndType {
                            name: entry.name().to_string(),
                            kind: entry.kind().to_string(),
                        })
                        .collect()
                })
            },
        )
    }
}

impl ApiClient {
    /// The workspaces' names for completion: a recent cached listing, else a new listing
    /// (which the cache keeps).
    pub async fn workspace_names(&self) -> Result<Vec<NameAndType>> {
        let key = ListKey::Workspaces;
        if let Some(names) = self
            .names()
            .await?
            .listed_names(&key, Some(COMPLETION_FRESH_SECS))
        {
            return Ok(names);
        }
        let listed: Vec<Workspace> = self.all_as(workspaces::list_req(), "a workspace").await?;
        Ok(listed
            .into_iter()
            .map(|ws| NameAndType {
                name: ws.display_name,
                kind: ws.kind,
            })
            .collect())
    }

    /// The names and types of the items in the workspace named or identified by `workspace`,
    /// as [`ApiClient::workspace_names`] finds them.
    pub async fn item_names(&self, workspace: &str) -> Result<Vec<NameAndType>> {
        // Tab needs no confirmed id: a cached one that is stale only offers stale names.
        let cached = self.names().await?.with_list(
            &ListKey::Workspaces,
            0,
            |name| name.eq_ignore_ascii_case(workspace.trim()),
            |listed| listed.entries.first().map(|entry| entry.id().to_string()),
        );
        let id = match cached {
            Some(id) => id,
            None => self.resolver().workspace(self, workspace).await?,
        };
        let key = ListKey::items(&id);
        if let Some(names) = self
            .names()
            .await?
            .listed_names(&key, Some(COMPLETION_FRESH_SECS))
        {
            return Ok(names);
        }
        let listed: Vec<Item> = self
            .all_as(list_req(&id, &ListFilter::default()), "an item")
            .await?;
        Ok(listed
            .into_iter()
            .map(|item| NameAndType {
                name: item.display_name,
                kind: item.item_type,
            })
            .collect())
    }
}
