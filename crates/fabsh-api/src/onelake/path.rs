//! Where a OneLake path points, as fabsh users write it: `Demo/SalesLakehouse/Files/raw`,
//! `Demo.Workspace/SalesLakehouse.Lakehouse/Files/raw`, or a full URL
//! (`abfss://Demo@onelake.dfs.fabric.microsoft.com/SalesLakehouse.Lakehouse/Files/raw`,
//! `https://onelake.dfs.fabric.microsoft.com/Demo/SalesLakehouse.Lakehouse/Files/raw`).

use crate::error::{Error, Result};
use reqwest::Url;

/// The folders every OneLake item has at its root.
pub const ITEM_ROOTS: [&str; 2] = ["Files", "Tables"];

/// A path in OneLake: a workspace, an item of it, and a path inside the item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LakePath {
    /// Workspace id or name (without `.Workspace`).
    pub workspace: String,
    /// Item id, `Name.Type`, or a name whose type is still to be found.
    pub item: String,
    /// The path inside the item, `/`-separated without a leading `/` (`Files/raw/a.csv`);
    /// empty for the item itself.
    pub inner: String,
    /// `WORKSPACE/ITEM` as the user wrote them, when `workspace` and `item` were resolved to
    /// ids: what messages and listings show.
    pub shown_as: Option<String>,
}

impl LakePath {
    /// Reads `text` as a OneLake path; `what` names it in errors (`SRC`, `PATH`).
    pub fn parse(text: &str, what: &str) -> Result<LakePath> {
        let invalid = |why: &str| {
            Error::usage(format!("{what}: {text:?} is not a OneLake path: {why}")).with_hint(
                "write WORKSPACE/ITEM/Files/..., WORKSPACE.Workspace/ITEM.Type/Files/..., or an abfss:// or https://onelake... URL",
            )
        };
        let (workspace, rest) = if let Some(url) = as_url(text) {
            from_url(&url)
                .ok_or_else(|| invalid("the URL does not name a workspace and an item"))?
        } else {
            let trimmed = text.trim_start_matches('/');
            match trimmed.split_once('/') {
                Some((workspace, rest)) => (workspace.to_string(), rest.to_string()),
                None => return Err(invalid("it names no item")),
            }
        };
        let workspace = workspace
            .strip_suffix(".Workspace")
            .unwrap_or(&workspace)
            .to_string();
        let (item, inner) = match rest.split_once('/') {
            Some((item, inner)) => (item.to_string(), inner.trim_end_matches('/').to_string()),
            None => (rest.clone(), String::new()),
        };
        if workspace.is_empty() || item.is_empty() {
            return Err(invalid("it names no item"));
        }
        for segment in inner.split('/').filter(|s| !s.is_empty()) {
            if segment == "." || segment == ".." {
                return Err(invalid("`.` and `..` are not segments of a OneLake path"));
            }
        }
        if let Some(root) = inner.split('/').next().filter(|r| !r.is_empty())
            && !ITEM_ROOTS.contains(&root)
        {
            return Err(invalid(&format!(
                "inside an item, paths start with Files/ or Tables/, not {root}/"
            )));
        }
        Ok(LakePath {
            workspace,
            item,
            inner,
            shown_as: None,
        })
    }

    /// True when `text`, an argument that may be local or OneLake (`cp SRC DST`), is written
    /// as a OneLake path: a URL, `WORKSPACE.Workspace/...`, or `WORKSPACE/ITEM/Files/...`
    /// (`Tables/...`). A local path of that shape is written `./WORKSPACE/...`.
    pub fn is_written_as_lake(text: &str) -> bool {
        if as_url(text).is_some() {
            return true;
        }
        if text.starts_with("./") || text.starts_with("../") || text.starts_with('/') {
            return false;
        }
        let mut segments = text.split('/');
        let first = segments.next().unwrap_or(text);
        if first.ends_with(".Workspace") && segments.clone().next().is_some() {
            return true;
        }
        segments
            .nth(1)
            .is_some_and(|root| ITEM_ROOTS.contains(&root))
    }

    /// The path inside the item's workspace: `ITEM/INNER`.
    pub fn in_workspace(&self) -> String {
        if self.inner.is_empty() {
            self.item.clone()
        } else {
            format!("{}/{}", self.item, self.inner)
        }
    }

    /// The same item, at `inner`.
    pub fn at(&self, inner: String) -> LakePath {
        LakePath {
            inner,
            ..self.clone()
        }
    }

    /// How a blob the store listed for this path's item (`ITEM/Files/...`) is shown.
    pub fn listed(&self, location: &str) -> String {
        match location.strip_prefix(&self.item) {
            Some(rest) if rest.starts_with('/') => self
                .at(rest.trim_start_matches('/').to_string())
                .to_string(),
            _ => format!("{}/{location}", self.workspace),
        }
    }

    /// The last segment of the inner path (a file's name); none for the item itself.
    pub fn file_name(&self) -> Option<&str> {
        self.inner
            .rsplit('/')
            .next()
            .filter(|name| !name.is_empty())
    }
}

impl std::fmt::Display for LakePath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.shown_as, self.inner.is_empty()) {
            (Some(shown), true) => write!(f, "{shown}"),
            (Some(shown), false) => write!(f, "{shown}/{}", self.inner),
            (None, _) => write!(f, "{}/{}", self.workspace, self.in_workspace()),
        }
    }
}

/// `text` as an `abfss://`, `abfs://` or `https://` OneLake URL.
fn as_url(text: &str) -> Option<Url> {
    let url = Url::parse(text).ok()?;
    match url.scheme() {
        "abfss" | "abfs" => Some(url),
        "https" | "http" if url.host_str().is_some_and(|h| h.contains("onelake")) => Some(url),
        _ => None,
    }
}

/// The workspace and the rest of a URL's path.
fn from_url(url: &Url) -> Option<(String, String)> {
    let decode = |text: &str| {
        percent_decode(text)
            .trim_start_matches('/')
            .trim_end_matches('/')
            .to_string()
    };
    match url.scheme() {
        // abfss://WORKSPACE@onelake.dfs.fabric.microsoft.com/ITEM/...
        "abfss" | "abfs" => {
            let workspace = percent_decode(url.username());
            let rest = decode(url.path());
            (!workspace.is_empty()).then_some((workspace, rest))
        }
        _ => {
            let path = decode(url.path());
            let (workspace, rest) = path.split_once('/')?;
            Some((workspace.to_string(), rest.to_string()))
        }
    }
}

fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests;
