//! Workspace and item names for completion after `-w` and `--id`. They come from the same
//! per-session lists name resolution keeps (fetched once, dropped by the writes that make
//! them stale), so Tab costs a request only the first time and after a change.

use fabsh_client::api::items::{ListFilter, list_req};
use fabsh_client::api::{stale, workspaces};
use fabsh_client::context::Ctx;
use serde_json::Value;
use std::time::Duration;

/// How long Tab may wait for a list: a slow service must not freeze the prompt.
const WAIT: Duration = Duration::from_secs(3);

/// Where completion finds names.
pub trait NameSource {
    /// The workspaces' display names.
    fn workspaces(&self) -> Vec<String>;
    /// The display names of the items in the workspace named or identified by `workspace`.
    fn items(&self, workspace: &str) -> Vec<String>;
}

/// No names (completion without a connection).
impl NameSource for () {
    fn workspaces(&self) -> Vec<String> {
        Vec::new()
    }
    fn items(&self, _workspace: &str) -> Vec<String> {
        Vec::new()
    }
}

/// The names the session's connection sees.
pub struct SessionNames {
    pub ctx: Ctx,
}

impl SessionNames {
    fn names(&self, list: fabsh_client::error::Result<std::sync::Arc<Vec<Value>>>) -> Vec<String> {
        let mut names: Vec<String> = list
            .map(|list| {
                list.iter()
                    .filter_map(|entry| entry["displayName"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names.dedup();
        names
    }

    /// Runs `work` on the bridge within [`WAIT`]; a failure or a timeout is no names.
    fn fetch<T>(
        &self,
        work: impl std::future::Future<Output = fabsh_client::error::Result<T>>,
    ) -> fabsh_client::error::Result<T> {
        self.ctx.bridge().block_on(async move {
            tokio::time::timeout(WAIT, work)
                .await
                .unwrap_or_else(|_| Err(fabsh_client::error::Error::runtime("timed out")))
        })
    }
}

impl NameSource for SessionNames {
    fn workspaces(&self) -> Vec<String> {
        let api = self.ctx.api();
        let list = self.fetch(api.resolver().cached_list(
            stale::workspaces_key(),
            || async { api.all(workspaces::list_req()).await },
            |_| true,
        ));
        self.names(list)
    }

    fn items(&self, workspace: &str) -> Vec<String> {
        let api = self.ctx.api();
        let list = self.fetch(async {
            let id = api.resolver().workspace(api, workspace).await?;
            api.resolver()
                .cached_list(
                    stale::items_key(&id, None),
                    || async { api.all(list_req(&id, &ListFilter::default())).await },
                    |_| true,
                )
                .await
        });
        self.names(list)
    }
}
