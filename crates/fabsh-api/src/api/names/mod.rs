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
pub mod confirm;
pub mod file;
pub(crate) mod writes;

use crate::auth::now_secs;
use file::{Entry, NameList, Owner, Stamp};
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
    pub(crate) fn items(workspace: &str) -> ListKey {
        ListKey::Items(workspace.to_lowercase())
    }

    /// The workspace whose items the list holds (none for the workspaces).
    pub(crate) fn workspace(&self) -> Option<&str> {
        match self {
            ListKey::Workspaces => None,
            ListKey::Items(ws) => Some(ws),
        }
    }
}

/// A list as a lookup sees it: the entries it asked for.
pub(crate) struct Listed {
    pub entries: Vec<Entry>,
    /// Unix seconds of the list's last whole listing (0: not known to be whole).
    pub listed_at: i64,
    /// Listed whole by this very call: its entries need no confirmation.
    pub listed_here: bool,
    /// Listed whole within [`FRESH_FOR_SECS`].
    pub fresh: bool,
}

/// The name cache of one endpoint (shared by every clone of the API client).
pub struct NameCache {
    endpoint: String,
    /// Whether the view is backed by the files (not with `--no-cache` or `--local`).
    persist: bool,
    view: Mutex<Option<View>>,
}

/// This process's view of the lists, each read from its file when first needed.
struct View {
    principal: String,
    /// The directory of this endpoint's and principal's files; `None`: in memory only.
    dir: Option<PathBuf>,
    slots: HashMap<ListKey, Slot>,
    /// The lists this process listed whole, with the call that did.
    listed_by: HashMap<ListKey, u64>,
    /// The changes not yet written, to apply again to a file another process replaced.
    journal: Vec<(ListKey, Change)>,
}

/// One list in memory.
#[derive(Default)]
struct Slot {
    /// Whether the file was read (or, in memory only, the list started).
    read: bool,
    /// The file's bytes, which a lookup scans for the names it wants: most runs look up a
    /// name or two and change nothing, so a long list is never built for them.
    bytes: Vec<u8>,
    /// The list built from the bytes, to be changed (inner `None`: no list).
    built: Option<Option<NameList>>,
    /// The version of the file read or written (`None`: there was no file).
    stamp: Option<Stamp>,
}

/// A change to one list (`None`: no such list), which says whether it changed anything;
/// applied to the view now and again to a newer file when flushed.
type Change = Box<dyn Fn(&mut Option<NameList>) -> bool + Send>;

impl NameCache {
    /// A cache for `endpoint`, backed by its files when `persist`.
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

    /// Opens the view for `principal` (once; later calls keep the first). Reads no list
    /// (each is read when first needed); refuses a cache other users may read, by the rule of
    /// every file fabsh keeps.
    pub fn open(&self, principal: &str) -> crate::error::Result<()> {
        let mut view = self.lock();
        if view.is_some() {
            return Ok(());
        }
        let dir = self
            .persist
            .then(|| file::cache_dir(&file::dir(), &self.endpoint, principal));
        if let Some(dir) = &dir {
            file::check_private(dir)?;
        }
        *view = Some(View {
            principal: principal.to_string(),
            dir,
            slots: HashMap::new(),
            listed_by: HashMap::new(),
            journal: Vec::new(),
        });
        Ok(())
    }

    /// Runs `look` on the entries of the list under `key` whose names `wanted` picks (none
    /// when there is no list), as of the file's latest version, marking the list used.
    pub(crate) fn with_list<R>(
        &self,
        key: &ListKey,
        call: u64,
        wanted: impl Fn(&str) -> bool,
        look: impl FnOnce(Listed) -> R,
    ) -> R {
        let mut guard = self.lock();
        let Some(view) = guard.as_mut() else {
            return look(Listed {
                entries: Vec::new(),
                listed_at: 0,
                listed_here: false,
                fresh: false,
            });
        };
        view.sync(key, &self.endpoint);
        let owner = Owner {
            endpoint: &self.endpoint,
            principal: &view.principal,
        };
        let slot = view.slots.entry(key.clone()).or_default();
        let list = match &slot.built {
            Some(Some(list)) => Some(NameList {
                listed_at: list.listed_at,
                entries: list
                    .entries
                    .iter()
                    .filter(|entry| wanted(entry.name()))
                    .cloned()
                    .collect(),
            }),
            Some(None) => None,
            None => file::scan(&slot.bytes, &owner, key, &wanted),
        }
        // An entry the cache cannot read is a miss: the name is listed afresh.
        .unwrap_or_default();
        if let (ListKey::Items(_), Some(dir), Some(stamp)) = (key, &view.dir, slot.stamp)
            && let Some(marked) = file::mark_used(&file::list_path(dir, key), stamp)
        {
            slot.stamp = Some(marked);
        }
        let fresh = list.listed_at > 0 && now_secs() - list.listed_at < FRESH_FOR_SECS;
        look(Listed {
            entries: list.entries,
            listed_at: list.listed_at,
            listed_here: view.listed_by.get(key) == Some(&call),
            fresh,
        })
    }

    /// Changes the list under `key` with `change` (which says whether it changed anything).
    /// The change is written with the next [`NameCache::flush`] (each command's end),
    /// applied again to the file's latest version then, so what another process wrote
    /// meanwhile is kept, and bulk work writes the file once, not once per item.
    pub(crate) fn update(
        &self,
        key: &ListKey,
        change: impl Fn(&mut Option<NameList>) -> bool + Send + 'static,
    ) {
        let mut guard = self.lock();
        let Some(view) = guard.as_mut() else { return };
        view.sync(key, &self.endpoint);
        if change(view.built(key, &self.endpoint)) && view.dir.is_some() {
            view.journal.push((key.clone(), Box::new(change)));
        }
    }

    /// Writes the lists changed since the last flush to their files.
    pub fn flush(&self) {
        let mut guard = self.lock();
        let Some(view) = guard.as_mut() else { return };
        let Some(dir) = view.dir.clone() else { return };
        let mut keys: Vec<ListKey> = Vec::new();
        for (key, _) in &view.journal {
            if !keys.contains(key) {
                keys.push(key.clone());
            }
        }
        for key in keys {
            // Another process's version, if newer, gets this process's changes too.
            view.sync(&key, &self.endpoint);
            let principal = view.principal.clone();
            let owner = Owner {
                endpoint: &self.endpoint,
                principal: &principal,
            };
            let list = view.built(&key, &self.endpoint);
            let saved = file::save(&file::list_path(&dir, &key), &owner, &key, list.as_ref());
            // Only a cache: a file that cannot be written costs listings, nothing else.
            if let Ok(stamp) = saved {
                view.slots.entry(key).or_default().stamp = stamp;
            }
        }
        view.journal.clear();
    }

    /// Replaces the list under `key` with a whole listing made by `call`, and writes it.
    pub(crate) fn replace(&self, key: &ListKey, entries: Vec<Entry>, call: u64) {
        let listed_at = now_secs();
        self.update(key, move |list| {
            *list = Some(NameList {
                listed_at,
                entries: entries.clone(),
            });
            true
        });
        if let Some(view) = self.lock().as_mut() {
            view.listed_by.insert(key.clone(), call);
        }
        self.flush();
    }

    fn lock(&self) -> MutexGuard<'_, Option<View>> {
        // Every change leaves the view whole, so a poisoned lock still guards a usable view.
        self.view
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl View {
    /// Brings the list under `key` to its file's latest version: read when never read, read
    /// again when another process replaced the file (what this process listed is then no
    /// longer its own listing, and its unwritten changes are applied again).
    fn sync(&mut self, key: &ListKey, endpoint: &str) {
        let slot = self.slots.entry(key.clone()).or_default();
        let Some(dir) = &self.dir else {
            slot.read = true;
            return;
        };
        let path = file::list_path(dir, key);
        let again = slot.read;
        if again && file::stamp(&path) == slot.stamp {
            return;
        }
        let read = file::read(&path);
        slot.read = true;
        slot.built = None;
        slot.stamp = read.as_ref().map(|read| read.stamp);
        // No cache file yet: an empty one.
        slot.bytes = read.map(|read| read.bytes).unwrap_or_default();
        if !again {
            return;
        }
        self.listed_by.remove(key);
        if self.journal.iter().any(|(changed, _)| changed == key) {
            let list = self.built(key, endpoint);
            let mut list = std::mem::take(list);
            for (changed, change) in &self.journal {
                if changed == key {
                    change(&mut list);
                }
            }
            *self.built(key, endpoint) = list;
        }
    }

    /// The list under `key` as read, built in memory to be changed.
    fn built(&mut self, key: &ListKey, endpoint: &str) -> &mut Option<NameList> {
        let owner = Owner {
            endpoint,
            principal: &self.principal,
        };
        let slot = self.slots.entry(key.clone()).or_default();
        slot.built.get_or_insert_with(|| {
            let list = file::scan(&slot.bytes, &owner, key, |_| true);
            slot.bytes = Vec::new();
            list
        })
    }
}

/// Who a token is for, as the cache file records it: the tenant and object id (or subject)
/// its claims name; a token that is not a JWT stands for itself, by digest.
pub(crate) fn principal_of(token: &str) -> String {
    use sha2::Digest;
    if let Some(claims) = crate::auth::claims::payload(token) {
        let claim = |name: &str| {
            claims
                .get(name)
                .and_then(|value| value.as_str())
                .filter(|value| !value.is_empty())
        };
        // `tid/oid` (else `tid/sub`); a claim the token lacks is left out of its place: a
        // token naming neither oid nor sub is cached for its tenant alone.
        let mut principal = String::new();
        principal.extend(claim("tid"));
        principal.push('/');
        principal.extend(claim("oid").or_else(|| claim("sub")));
        principal
    } else {
        let digest = sha2::Sha256::digest(token.as_bytes());
        let short: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        format!("token:{short}")
    }
}
