//! Workspace and item names for completion after `-w`, `--id` and in `WORKSPACE/ITEM`. They
//! come from the name cache (see [`fabsh_api::api::names::completion`]): a listing from
//! the last minute answers Tab without a request, so the REPL and shell completion (a new
//! process per Tab) cost a request only now and then.

use fabsh_api::api::names::completion::NameAndType;
use fabsh_client::context::Ctx;
use std::time::Duration;

/// How long the REPL's Tab may wait for a list: a slow service must not freeze the prompt.
pub(crate) const REPL_WAIT: Duration = Duration::from_secs(3);

/// Where completion finds names.
pub(crate) trait NameSource {
    /// The workspaces' display names.
    fn workspaces(&self) -> Vec<String>;
    /// The display names of the items in the workspace named or identified by `workspace`,
    /// of type `kind` only when given (`DataAgent` for `data-agent show --id`).
    fn items(&self, workspace: &str, kind: Option<&str>) -> Vec<String>;
}

/// No names (completion without a connection).
impl NameSource for () {
    fn workspaces(&self) -> Vec<String> {
        Vec::new()
    }
    fn items(&self, _workspace: &str, _kind: Option<&str>) -> Vec<String> {
        Vec::new()
    }
}

/// The names the session's connection sees, each lookup given at most `wait`.
pub(crate) struct SessionNames {
    pub ctx: Ctx,
    pub wait: Duration,
}

impl SessionNames {
    /// Runs `work` on the bridge within the wait; a failure or a timeout is no names. What
    /// a listing taught the name cache is written to its file for the next Tab.
    fn fetch(
        &self,
        work: impl std::future::Future<Output = fabsh_client::error::Result<Vec<NameAndType>>>,
    ) -> Vec<NameAndType> {
        let wait = self.wait;
        let found = self.ctx.bridge().block_on(async move {
            tokio::time::timeout(wait, work)
                .await
                .unwrap_or_else(|_| Err(fabsh_client::error::Error::runtime("timed out")))
        });
        self.ctx.api().flush_names();
        // Names that could not be listed (offline, timed out) complete to none; a completion never
        // fails.
        found.unwrap_or_default()
    }
}

/// The names, sorted, each once.
fn sorted(names: impl Iterator<Item = String>) -> Vec<String> {
    let mut names: Vec<String> = names.collect();
    names.sort();
    names.dedup();
    names
}

impl NameSource for SessionNames {
    fn workspaces(&self) -> Vec<String> {
        let api = self.ctx.api();
        let found = self.fetch(api.workspace_names());
        sorted(found.into_iter().map(|entry| entry.name))
    }

    fn items(&self, workspace: &str, kind: Option<&str>) -> Vec<String> {
        let api = self.ctx.api();
        let found = self.fetch(api.item_names(workspace));
        sorted(
            found
                .into_iter()
                .filter(|entry| kind.is_none_or(|kind| entry.kind.eq_ignore_ascii_case(kind)))
                .map(|entry| entry.name),
        )
    }
}
