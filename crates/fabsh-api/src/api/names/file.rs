//! The name cache on disk: one directory per endpoint and signed-in principal under the state
//! dir (`$XDG_STATE_HOME/fabsh/names/<digest>/`, 0700) holding one file per list,
//! `workspaces.json` and `items-<workspace id>.json`, so a lookup reads only the lists it
//! needs and a write replaces only the lists it changed. A file is replaced whole through a
//! temporary file (0600 from its first byte) and a rename, so a reader, in this process or
//! another, only ever sees a complete file. Two processes writing one list at once lose at
//! worst one of their updates, never the file: every id read from it is confirmed by the
//! service before use.
//!
//! Bounds: [`MAX_WORKSPACES_WITH_ITEMS`] item lists per directory (those used longest ago go;
//! a lookup marks its list used through the file's modification time, without rewriting
//! it), [`MAX_ENTRIES_PER_LIST`] entries per file, [`MAX_CACHES`] directories (those written
//! longest ago go).

use super::ListKey;
use crate::config::private_file;
use serde::{Deserialize, Serialize};
use sha2::Digest;
use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The format's version; a file of another version reads as empty (and is replaced on the
/// next write). Version 1 was one file per endpoint and principal, read whole by every run.
const VERSION: u32 = 2;
/// Item lists kept per directory: those of the workspaces used most recently.
pub(crate) const MAX_WORKSPACES_WITH_ITEMS: usize = 8;
/// A list longer than this is kept in memory only, so a file stays a few megabytes at most.
pub(crate) const MAX_ENTRIES_PER_LIST: usize = 50_000;
/// Directories kept (one per endpoint and principal); those written longest ago go first.
pub(crate) const MAX_CACHES: usize = 16;
/// How often a lookup marks its list used: eviction only needs the order of use to the
/// minute, and a mark is a change of the file's time other processes notice.
const MARK_USED_EVERY: Duration = Duration::from_secs(60);
/// How old a temporary file left by a process that died mid-write must be to be removed.
const STRAY_AFTER: Duration = Duration::from_secs(600);

const WORKSPACES_FILE: &str = "workspaces.json";
const ITEMS_PREFIX: &str = "items-";

/// The directory of the name caches.
pub fn dir() -> PathBuf {
    dirs::state_dir()
        .or_else(dirs::config_dir)
        .unwrap_or_else(|| PathBuf::from("."))
        .join("fabsh")
        .join("names")
}

/// The directory of one endpoint and principal: named by a digest of both, so neither is
/// spelled in a file name.
pub(crate) fn cache_dir(root: &Path, endpoint: &str, principal: &str) -> PathBuf {
    root.join(short_digest(&format!("{endpoint}\n{principal}")))
}

/// Refuses the cache of one endpoint and principal when other users may read it: the
/// folder of the caches, this cache's folder, or one of its lists.
pub(crate) fn check_private(cache_dir: &Path) -> crate::error::Result<()> {
    // A cache folder that cannot be read holds no caches: names are then listed afresh.
    let lists: Vec<PathBuf> = std::fs::read_dir(cache_dir)
        .into_iter()
        .flatten()
        .filter_map(|entry| Some(entry.ok()?.path()))
        .collect();
    let mut paths: Vec<&Path> = cache_dir.parent().into_iter().collect();
    paths.push(cache_dir);
    paths.extend(lists.iter().map(PathBuf::as_path));
    private_file::check_private("the name cache", &paths, None)
}

/// The file of the list under `key` in `cache_dir`.
pub(crate) fn list_path(cache_dir: &Path, key: &ListKey) -> PathBuf {
    match key {
        ListKey::Workspaces => cache_dir.join(WORKSPACES_FILE),
        ListKey::Items(ws) => {
            // A workspace id from a path is a GUID; anything else is named by digest.
            let plain = ws.len() <= 64
                && ws
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase() || b == b'-');
            let name = if plain { ws.clone() } else { short_digest(ws) };
            cache_dir.join(format!("{ITEMS_PREFIX}{name}.json"))
        }
    }
}

fn short_digest(text: &str) -> String {
    let digest = sha2::Sha256::digest(text.as_bytes());
    digest[..12].iter().map(|b| format!("{b:02x}")).collect()
}

/// Names as of a listing, plus what fabsh has seen or done since.
#[derive(Debug, Clone, Default)]
pub struct NameList {
    /// Unix seconds of the last complete listing; 0 when the list is not known to be whole
    /// (never listed, or changed since in ways fabsh could not follow).
    pub listed_at: i64,
    pub entries: Vec<Entry>,
}

/// One name: `[id, displayName, type]` (type empty for workspaces), compact on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry(pub String, pub String, #[serde(default)] pub String);

impl Entry {
    pub fn id(&self) -> &str {
        &self.0
    }
    pub fn name(&self) -> &str {
        &self.1
    }
    pub fn kind(&self) -> &str {
        &self.2
    }
}

/// One list file as written.
#[derive(Serialize)]
struct ListOut<'a> {
    version: u32,
    endpoint: &'a str,
    principal: &'a str,
    /// The workspace whose items these are (none for the workspaces).
    #[serde(skip_serializing_if = "Option::is_none")]
    workspace: Option<&'a str>,
    listed_at: i64,
    entries: &'a [Entry],
}

/// One list file as read, its strings borrowed from the bytes (copied only when escaped), so
/// a lookup in a long list allocates for the entries it keeps only.
#[derive(Deserialize)]
struct ListIn<'a> {
    version: u32,
    #[serde(borrow)]
    endpoint: Cow<'a, str>,
    #[serde(borrow)]
    principal: Cow<'a, str>,
    #[serde(borrow, default)]
    workspace: Option<Cow<'a, str>>,
    #[serde(default)]
    listed_at: i64,
    #[serde(borrow, default)]
    entries: Vec<EntryIn<'a>>,
}

#[derive(Deserialize)]
struct EntryIn<'a>(
    #[serde(borrow)] Cow<'a, str>,
    #[serde(borrow)] Cow<'a, str>,
    #[serde(borrow, default)] Cow<'a, str>,
);

impl EntryIn<'_> {
    fn owned(self) -> Entry {
        Entry(
            self.0.into_owned(),
            self.1.into_owned(),
            self.2.into_owned(),
        )
    }
}

/// Whose list a file must be to be read.
pub(crate) struct Owner<'a> {
    pub endpoint: &'a str,
    pub principal: &'a str,
}

/// The entries of the list in `bytes` whose names `wanted` picks, and when it was listed;
/// `None` when the bytes are not this owner's list under `key` in this version (a foreign
/// or damaged file reads as no list: it is only a cache).
pub(crate) fn scan(
    bytes: &[u8],
    owner: &Owner,
    key: &ListKey,
    wanted: impl Fn(&str) -> bool,
) -> Option<NameList> {
    let file: ListIn = serde_json::from_slice(bytes).ok()?;
    let ours = file.version == VERSION
        && file.endpoint == owner.endpoint
        && file.principal == owner.principal
        && file.workspace.as_deref() == key.workspace();
    ours.then(|| NameList {
        listed_at: file.listed_at,
        entries: file
            .entries
            .into_iter()
            .filter(|entry| wanted(&entry.1))
            .map(EntryIn::owned)
            .collect(),
    })
}

/// When and how big a file was, and which file it was, to notice another process replacing
/// it (a rename brings a new inode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
}

fn stamp_of(meta: &std::fs::Metadata) -> Stamp {
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(meta);
    #[cfg(not(unix))]
    let inode = 0;
    Stamp {
        modified: meta.modified().ok(),
        len: meta.len(),
        inode,
    }
}

/// The file's stamp; `None` when there is no file.
pub(crate) fn stamp(path: &Path) -> Option<Stamp> {
    std::fs::metadata(path).ok().map(|meta| stamp_of(&meta))
}

/// A file's bytes and the stamp of the version they are.
pub(crate) struct Contents {
    pub bytes: Vec<u8>,
    pub stamp: Stamp,
}

/// The file at `path`; `None` when there is none (or it cannot be read).
pub(crate) fn read(path: &Path) -> Option<Contents> {
    let mut file = std::fs::File::open(path).ok()?;
    let stamp = stamp_of(&file.metadata().ok()?);
    let mut bytes = Vec::with_capacity(usize::try_from(stamp.len).unwrap_or(0) + 1);
    file.read_to_end(&mut bytes).ok()?;
    Some(Contents { bytes, stamp })
}

/// Marks the list at `path` used now, when the file is still the version `stamp` says and
/// was last marked (or written) more than a minute ago: it moves the file's modification
/// time, which orders item lists for eviction, and rewrites nothing. The new stamp, if
/// marked.
pub(crate) fn mark_used(path: &Path, stamp: Stamp) -> Option<Stamp> {
    // Most lookups come within the minute of the last mark: no need to open the file.
    if stamp
        .modified
        .is_none_or(|at| !is_older(at, MARK_USED_EVERY))
    {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if stamp_of(&meta) != stamp {
        return None;
    }
    let now = SystemTime::now();
    let just_written = match now.duration_since(meta.modified().ok()?) {
        Ok(since) => since < MARK_USED_EVERY,
        // Modified in the future (a clock set back): as if just written.
        Err(_) => true,
    };
    if just_written {
        return None;
    }
    file.set_modified(now).ok()?;
    Some(stamp_of(&file.metadata().ok()?))
}

/// Writes `list` to `path` privately and atomically, or removes the file when the list is
/// gone or longer than a file may be; then trims the directory and the caches to their
/// bounds. The new stamp (`None`: no file).
pub(crate) fn save(
    path: &Path,
    owner: &Owner,
    key: &ListKey,
    list: Option<&NameList>,
) -> std::io::Result<Option<Stamp>> {
    let Some(list) = list.filter(|list| list.entries.len() <= MAX_ENTRIES_PER_LIST) else {
        return match std::fs::remove_file(path) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err),
            _ => Ok(None),
        };
    };
    let out = ListOut {
        version: VERSION,
        endpoint: owner.endpoint,
        principal: owner.principal,
        workspace: key.workspace(),
        listed_at: list.listed_at,
        entries: &list.entries,
    };
    let bytes = serde_json::to_vec(&out).map_err(std::io::Error::other)?;
    private_file::write(path, &bytes)?;
    if let Some(cache) = path.parent() {
        trim_item_lists(cache, path);
        if let Some(root) = cache.parent() {
            trim_caches(root, cache);
        }
    }
    Ok(stamp(path))
}

/// Keeps the item lists used most recently (by modification time), never `keep`; removes
/// temporary files a process left when it died mid-write.
fn trim_item_lists(cache: &Path, keep: &Path) {
    let mut lists = Vec::new();
    for (path, modified) in entries_of(cache) {
        // A file whose name is not text is no cache of fabsh's: a stray.
        let name = path.file_name().and_then(|n| n.to_str());
        if name.is_some_and(|name| name.starts_with(ITEMS_PREFIX) && name.ends_with(".json")) {
            lists.push((modified, path));
        } else if name != Some(WORKSPACES_FILE) && is_older(modified, STRAY_AFTER) {
            let _ = std::fs::remove_file(&path);
        }
    }
    if lists.len() <= MAX_WORKSPACES_WITH_ITEMS {
        return;
    }
    lists.sort_by(|a, b| b.cmp(a));
    for (_, path) in lists.into_iter().skip(MAX_WORKSPACES_WITH_ITEMS) {
        if path != keep {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Keeps the caches written most recently, never `keep`; removes version 1's files.
fn trim_caches(root: &Path, keep: &Path) {
    let mut caches = Vec::new();
    for (path, modified) in entries_of(root) {
        if path.is_dir() {
            caches.push((modified, path));
        } else if path.extension().is_some_and(|ext| ext == "json") {
            let _ = std::fs::remove_file(&path);
        }
    }
    if caches.len() <= MAX_CACHES {
        return;
    }
    caches.sort_by(|a, b| b.cmp(a));
    for (_, path) in caches.into_iter().skip(MAX_CACHES) {
        if path != keep {
            let _ = std::fs::remove_dir_all(path);
        }
    }
}

fn is_older(modified: SystemTime, than: Duration) -> bool {
    SystemTime::now()
        .duration_since(modified)
        .is_ok_and(|age| age > than)
}

/// The paths in `dir` with their modification times.
fn entries_of(dir: &Path) -> Vec<(PathBuf, SystemTime)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let modified = entry.metadata().ok()?.modified().ok()?;
            Some((entry.path(), modified))
        })
        .collect()
}

/// The cache directories under `root`, sorted.
pub fn caches(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = entries_of(root)
        .into_iter()
        .map(|(path, _)| path)
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// One list of a cache as `cache show` reports it.
pub struct Shown {
    pub endpoint: String,
    pub principal: String,
    /// The workspace whose items these are; `None` for the workspaces.
    pub workspace: Option<String>,
    pub list: NameList,
    /// When a lookup or a write last used it.
    pub used_at: Option<SystemTime>,
}

/// Every readable list in the cache directory `cache`, whoever it belongs to: the
/// workspaces first, then the item lists by workspace id.
pub fn read_cache(cache: &Path) -> Vec<Shown> {
    let mut paths: Vec<(PathBuf, SystemTime)> = entries_of(cache)
        .into_iter()
        .filter(|(path, _)| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort_by_key(|(path, _)| !path.ends_with(WORKSPACES_FILE));
    paths
        .into_iter()
        .filter_map(|(path, modified)| {
            let bytes = std::fs::read(&path).ok()?;
            let file: ListIn = serde_json::from_slice(&bytes).ok()?;
            (file.version == VERSION).then(|| Shown {
                endpoint: file.endpoint.into_owned(),
                principal: file.principal.into_owned(),
                workspace: file.workspace.map(Cow::into_owned),
                list: NameList {
                    listed_at: file.listed_at,
                    entries: file.entries.into_iter().map(EntryIn::owned).collect(),
                },
                used_at: Some(modified),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OWNER: Owner = Owner {
        endpoint: "http://a/v1",
        principal: "me",
    };

    fn list_of(n: usize) -> NameList {
        NameList {
            listed_at: 1,
            entries: (0..n)
                .map(|i| Entry(format!("id{i}"), format!("nb-{i}"), "Notebook".into()))
                .collect(),
        }
    }

    fn age(path: &Path, secs: u64) {
        let file = std::fs::File::options()
            .write(true)
            .open(path)
            .expect("open");
        file.set_modified(SystemTime::now() - Duration::from_secs(secs))
            .expect("age");
    }

    #[test]
    fn a_cache_keeps_the_item_lists_of_the_most_recently_used_workspaces() {
        let root = tempfile::tempdir().expect("temp");
        let cache = cache_dir(root.path(), OWNER.endpoint, OWNER.principal);
        for n in 0..MAX_WORKSPACES_WITH_ITEMS {
            let key = ListKey::items(&format!("ws{n:02}"));
            let path = list_path(&cache, &key);
            save(&path, &OWNER, &key, Some(&list_of(1))).expect("saved");
            // Older first: ws00 was used longest ago.
            age(&path, 1000 - n as u64);
        }
        // A lookup marks ws00 used: it stays, the next oldest go.
        let first = list_path(&cache, &ListKey::items("ws00"));
        let marked = mark_used(&first, stamp(&first).expect("stamp"));
        assert!(marked.is_some(), "an old list is marked");
        assert_eq!(mark_used(&first, marked.expect("stamp")), None, "not twice");
        let key = ListKey::items("new");
        let path = list_path(&cache, &key);
        save(&path, &OWNER, &key, Some(&list_of(1))).expect("saved");

        let lists: Vec<String> = entries_of(&cache)
            .into_iter()
            .filter_map(|(p, _)| Some(p.file_name()?.to_str()?.to_string()))
            .filter(|name| name.starts_with(ITEMS_PREFIX))
            .collect();
        assert_eq!(lists.len(), MAX_WORKSPACES_WITH_ITEMS, "{lists:?}");
        for kept in ["items-ws00.json", "items-new.json", "items-ws07.json"] {
            assert!(lists.iter().any(|name| name == kept), "{kept}: {lists:?}");
        }
        assert!(!lists.iter().any(|name| name == "items-ws01.json"));
    }

    #[test]
    fn files_are_private_compact_bounded_and_read_only_by_their_owner() {
        let root = tempfile::tempdir().expect("temp");
        let cache = cache_dir(root.path(), OWNER.endpoint, OWNER.principal);
        let key = ListKey::items("w1");
        let path = list_path(&cache, &key);
        let mut list = list_of(2);
        list.entries[1].1 = "quote \" and tab\t".into();
        save(&path, &OWNER, &key, Some(&list)).expect("saved");
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(text.contains(r#"["id0","nb-0","Notebook"]"#), "{text}");

        let bytes = std::fs::read(&path).expect("read");
        let all = scan(&bytes, &OWNER, &key, |_| true).expect("ours");
        assert_eq!(all.entries, list.entries, "escaped names read back");
        let one = scan(&bytes, &OWNER, &key, |name| name == "nb-0").expect("ours");
        assert_eq!(one.entries.len(), 1);
        let other_endpoint = Owner {
            endpoint: "http://b/v1",
            ..OWNER
        };
        assert!(scan(&bytes, &other_endpoint, &key, |_| true).is_none());
        let other_principal = Owner {
            principal: "you",
            ..OWNER
        };
        assert!(scan(&bytes, &other_principal, &key, |_| true).is_none());
        assert!(scan(&bytes, &OWNER, &ListKey::items("w2"), |_| true).is_none());

        // Too long for a file: the file goes, the list stays in memory only.
        let long = list_of(MAX_ENTRIES_PER_LIST + 1);
        assert_eq!(save(&path, &OWNER, &key, Some(&long)).expect("saved"), None);
        assert!(!path.exists());

        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            save(&path, &OWNER, &key, Some(&list)).expect("saved");
            let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode();
            assert_eq!(mode(&path) & 0o777, 0o600);
            assert_eq!(mode(&cache) & 0o777, 0o700);
        }
    }

    #[test]
    fn caches_beyond_the_bound_go_those_written_longest_ago_first() {
        let root = tempfile::tempdir().expect("temp");
        std::fs::write(root.path().join("0123.json"), "{}").expect("version 1");
        let mut first = None;
        for n in 0..=MAX_CACHES {
            let cache = cache_dir(root.path(), &format!("http://{n}/v1"), "me");
            let owner = Owner {
                endpoint: "x",
                principal: "me",
            };
            let path = list_path(&cache, &ListKey::Workspaces);
            save(&path, &owner, &ListKey::Workspaces, Some(&list_of(1))).expect("saved");
            let when = SystemTime::now() - Duration::from_secs(1000 - n as u64);
            std::fs::File::open(&cache)
                .and_then(|dir| dir.set_modified(when))
                .expect("age");
            first.get_or_insert(cache);
        }
        let kept = caches(root.path());
        assert_eq!(kept.len(), MAX_CACHES);
        assert!(!kept.contains(&first.expect("first")), "the oldest went");
        assert!(!root.path().join("0123.json").exists(), "version 1 gone");
    }
}
