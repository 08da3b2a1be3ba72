//! The persistent name cache: the workspaces, and the items of recently used workspaces, as
//! of their last listing, kept per endpoint and signed-in principal (see [`file`]), so a name
//! costs one request instead of a listing.
//!
//! A cached id is never acted on unconfirmed: the resolver hands it out as *pending* and the
//! call's first request confirms it (see [`confirm`]): the service must answer for that id
//! with the same displayName (ignoring case) and type, else the entry goes and the command
//! starts over from a listing. A name seen once with one type may since have been given to an
//! item of another type (ambiguous), which only a listing shows: a cached answer rules that
//! out for [`FRESH_FOR_SECS`] after the listing, and is listed again after that.
//!
//! Every process (and the REPL or a script, across their commands) reads through one
//! in-memory view of the file, reloaded when another process replaced it. fabsh's own writes
//! and listings update it (see [`writes`]); `--no-cache` (or `FABSH_NO_CACHE`) keeps it in
//! memory for the one process.

pub mod completion;
pub(crate) mod confirm;
pub(crate) mod file;
pub(crate) mod writes;

use crate::auth::now_secs;
use file::{CacheFile, Entry, NameList, Stamp};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

/// How long after a listing a cached name may rule out that another type took it too:
/// 15 minutes. An older entry is still used for names given with their type.
pub const FRESH_FOR_SECS: i64 = 15 * 60;

/// The environment variable that turns the persistent cache off (as `--no-cache` does).
pub const NO_CACHE_VAR: &str = "FABSH_NO_CACHE";

/// Which list of names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ListKey {
    Workspaces,
    /// The items of a workspace, by its lowercase id.
    Items(String),
}

impl ListKey {
    pub fn items(workspace: &str) -> ListKey {
        ListKey::Items(workspace.to_lowercase())
    }
}

/// A list as a lookup sees it.
pub(crate) struct Listed<'a> {
    pub list: &'a NameList,
    /// Listed whole by this very call: its entries need no confirmation.
    pub listed_here: bool,
    /// Listed whole within [`FRESH_FOR_SECS`].
    pub fresh: bool,
}

/// The name cache of one endpoint (shared by every clone of the API client).
pub struct NameCache {
    endpoint: String,
    /// Whether the view is backed by the file (not with `--no-cache` or `--local`).
    persist: bool,
    view: Mutex<Option<View>>,
}

struct View {
    path: Option<PathBuf>,
    file: CacheFile,
    stamp: Option<Stamp>,
    /// The lists this process listed whole, with the call that did.
    listed_by: HashMap<ListKey, u64>,
    /// The changes not yet written, to apply again to a file another process replaced.
    journal: Vec<Change>,
}

/// A change to the cache, applied to the view now and again to a newer file when flushed.
type Change = Box<dyn Fn(&mut CacheFile) -> bool + Send>;

impl NameCache {
    /// A cache for `endpoint`, backed by its file when `persist`.
    pub fn new(endpoint: &str, persist: bool) -> NameCache {
        NameCache {
            endpoint: endpoint.to_string(),
            persist,
            view: Mutex::new(None),
        }
    }

    /// Whether the view has been opened (the principal is known).
    pub fn is_open(&self) -> bool {
        self.lock().is_some()
    }

    /// Opens the view for `principal` (once; later calls keep the first).
    pub fn open(&self, principal: &str) {
        let mut view = self.lock();
        if view.is_some() {
            return;
        }
        let path = self
            .persist
            .then(|| file::path_for(&self.endpoint, principal));
        let loaded = match &path {
            Some(path) => file::load(path, &self.endpoint, principal),
            None => file::load(std::path::Path::new(""), &self.endpoint, principal),
        };
        *view = Some(View {
            stamp: path.as_deref().and_then(file::stamp),
            path,
            file: loaded,
            listed_by: HashMap::new(),
            journal: Vec::new(),
        });
    }

    /// Runs `look` on the list under `key` (empty when none), as of the file's latest
    /// version, noting the list as used.
    pub(crate) fn with_list<R>(
        &self,
        key: &ListKey,
        call: u64,
        look: impl FnOnce(Listed) -> R,
    ) -> R {
        let mut guard = self.lock();
        let Some(view) = guard.as_mut() else {
            return look(Listed {
                list: &NameList::default(),
                listed_here: false,
                fresh: false,
            });
        };
        view.reload_if_replaced();
        let now = now_secs();
        let listed_here = view.listed_by.get(key) == Some(&call);
        let list = view.list_mut(key);
        list.used_at = now;
        let fresh = list.listed_at > 0 && now - list.listed_at < FRESH_FOR_SECS;
        look(Listed {
            list,
            listed_here,
            fresh,
        })
    }

    /// Changes the cache with `change` (which says whether it changed anything). The change
    /// is written with the next [`NameCache::flush`] (each command's end), applied again to
    /// the file's latest version then, so what another process wrote meanwhile is kept, and
    /// bulk work writes the file once, not once per item.
    pub(crate) fn update(&self, change: impl Fn(&mut CacheFile) -> bool + Send + 'static) {
        let mut guard = self.lock();
        let Some(view) = guard.as_mut() else { return };
        view.reload_if_replaced();
        if change(&mut view.file) && view.path.is_some() {
            view.journal.push(Box::new(change));
        }
    }

    /// Writes the changes made since the last flush to the file.
    pub fn flush(&self) {
        let mut guard = self.lock();
        let Some(view) = guard.as_mut() else { return };
        if view.journal.is_empty() {
            return;
        }
        view.reload_if_replaced();
        view.journal.clear();
        if let Some(path) = &view.path {
            // Only a cache: a file that cannot be written costs listings, nothing else.
            if let Ok(stamp) = file::save(path, &mut view.file) {
                view.stamp = stamp;
            }
        }
    }

    /// Replaces the list under `key` with a whole listing made by `call`, and writes it.
    pub(crate) fn replace(&self, key: &ListKey, entries: Vec<Entry>, call: u64) {
        let listed_at = now_secs();
        let key_for_change = key.clone();
        self.update(move |file| {
            *list_or_default(file, &key_for_change) = NameList {
                listed_at,
                used_at: listed_at,
                entries: entries.clone(),
            };
            true
        });
        if let Some(view) = self.lock().as_mut() {
            view.listed_by.insert(key.clone(), call);
        }
        self.flush();
    }

    /// Forgets everything (`cache clear`), in memory and on disk.
    pub fn clear(&self) {
        self.update(|file| {
            file.workspaces = NameList::default();
            file.items.clear();
            true
        });
        self.flush();
        if let Some(view) = self.lock().as_mut() {
            view.listed_by.clear();
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<View>> {
        // Every change leaves the view whole, so a poisoned lock still guards a usable view.
        self.view
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl View {
    /// Takes the file's latest version when another process replaced it; what this process
    /// listed is then no longer its own listing.
    fn reload_if_replaced(&mut self) {
        let Some(path) = &self.path else { return };
        let now = file::stamp(path);
        if now == self.stamp {
            return;
        }
        self.file = file::load(path, &self.file.endpoint, &self.file.principal);
        self.stamp = now;
        self.listed_by.clear();
        for change in &self.journal {
            change(&mut self.file);
        }
    }

    fn list_mut(&mut self, key: &ListKey) -> &mut NameList {
        list_or_default(&mut self.file, key)
    }
}

/// The list under `key` in `file`, made empty if missing.
pub(crate) fn list_or_default<'a>(file: &'a mut CacheFile, key: &ListKey) -> &'a mut NameList {
    match key {
        ListKey::Workspaces => &mut file.workspaces,
        ListKey::Items(ws) => file.items.entry(ws.clone()).or_default(),
    }
}

/// The list under `key` in `file`, if any.
pub(crate) fn list_in<'a>(file: &'a mut CacheFile, key: &ListKey) -> Option<&'a mut NameList> {
    match key {
        ListKey::Workspaces => Some(&mut file.workspaces),
        ListKey::Items(ws) => file.items.get_mut(ws),
    }
}

/// Who a token is for, as the cache file records it: the tenant and object id (or subject)
/// its claims name; a token that is not a JWT stands for itself, by digest.
pub(crate) fn principal_of(token: &str) -> String {
    use sha2::Digest;
    let claim = |claims: &serde_json::Map<String, serde_json::Value>, name: &str| {
        claims
            .get(name)
            .and_then(|value| value.as_str())
            .unwrap_or_default()
            .to_string()
    };
    match crate::auth::claims::payload(token) {
        Some(claims) => {
            let who = [claim(&claims, "oid"), claim(&claims, "sub")]
                .into_iter()
                .find(|who| !who.is_empty())
                .unwrap_or_default();
            format!("{}/{who}", claim(&claims, "tid"))
        }
        None => {
            let digest = sha2::Sha256::digest(token.as_bytes());
            let short: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
            format!("token:{short}")
        }
    }
}
