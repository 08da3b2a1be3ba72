//! The name cache on disk: one JSON file per endpoint and signed-in principal under the state
//! dir (`$XDG_STATE_HOME/fabsh/names/`), private (0600 in a 0700 directory) and replaced
//! whole through a temporary file and a rename, so a reader, in this process or another,
//! only ever sees a complete file. Two processes writing at once lose at worst one of their
//! updates, never the file: every id read from it is confirmed by the service before use.

use crate::config::private_file;
use serde::{Deserialize, Serialize};
use sha2::Digest;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The format's version; a file of another version is ignored (and replaced on the next
/// write).
const VERSION: u32 = 1;
/// Item lists kept per file: those of the workspaces used most recently.
pub(crate) const MAX_WORKSPACES_WITH_ITEMS: usize = 8;
/// A list longer than this is kept in memory only, so a file stays a few megabytes at most.
pub(crate) const MAX_ENTRIES_PER_LIST: usize = 50_000;
/// Files kept in the directory (one per endpoint and principal); the least recently written
/// go first.
const MAX_FILES: usize = 16;

/// The directory of the name caches.
pub(crate) fn dir() -> PathBuf {
    dirs::state_dir()
        .or_else(dirs::config_dir)
        .unwrap_or_else(|| PathBuf::from("."))
        .join("fabsh")
        .join("names")
}

/// The file of one endpoint and principal: named by a digest of both, so neither is spelled
/// in a file name.
pub(crate) fn path_for(endpoint: &str, principal: &str) -> PathBuf {
    let digest = sha2::Sha256::digest(format!("{endpoint}\n{principal}").as_bytes());
    let name: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    dir().join(format!("{name}.json"))
}

/// What one file holds.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct CacheFile {
    pub version: u32,
    /// The endpoint (`.../v1`) the names are from.
    pub endpoint: String,
    /// Who listed them (tenant and object id, when the token says).
    pub principal: String,
    /// The workspaces the principal can see.
    #[serde(default)]
    pub workspaces: NameList,
    /// The items of recently used workspaces, by lowercase workspace id.
    #[serde(default)]
    pub items: BTreeMap<String, NameList>,
}

/// Names as of a listing, plus what fabsh has seen or done since.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct NameList {
    /// Unix seconds of the last complete listing; 0 when the list is not known to be whole
    /// (never listed, or changed since in ways fabsh could not follow).
    #[serde(default)]
    pub listed_at: i64,
    /// Unix seconds of the last lookup in it (which lists go when the file is full).
    #[serde(default)]
    pub used_at: i64,
    #[serde(default)]
    pub entries: Vec<Entry>,
}

/// One name: `[id, displayName, type]` (type empty for workspaces), compact on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry(pub String, pub String, #[serde(default)] pub String);

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

/// When and how big a file was, to notice another process replacing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
}

/// The file's stamp; `None` when there is no file.
pub(crate) fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some(Stamp {
        modified: meta.modified().ok(),
        len: meta.len(),
    })
}

/// The file at `path` when it is one of this endpoint and principal in this version; an
/// unreadable or foreign file reads as empty (it is only a cache).
pub(crate) fn load(path: &Path, endpoint: &str, principal: &str) -> CacheFile {
    let fresh = || CacheFile {
        version: VERSION,
        endpoint: endpoint.to_string(),
        principal: principal.to_string(),
        ..CacheFile::default()
    };
    let Ok(bytes) = std::fs::read(path) else {
        return fresh();
    };
    match serde_json::from_slice::<CacheFile>(&bytes) {
        Ok(file)
            if file.version == VERSION
                && file.endpoint == endpoint
                && file.principal == principal =>
        {
            file
        }
        _ => fresh(),
    }
}

/// Any cache file, whoever it belongs to (`cache show`); `None` when unreadable.
pub(crate) fn read_any(path: &Path) -> Option<CacheFile> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Writes `file` to `path` privately and atomically after trimming it to its bounds, then
/// trims the directory to its number of files. Returns the new stamp.
pub(crate) fn save(path: &Path, file: &mut CacheFile) -> std::io::Result<Option<Stamp>> {
    trim(file);
    let mut on_disk = file.clone();
    on_disk
        .items
        .retain(|_, list| list.entries.len() <= MAX_ENTRIES_PER_LIST);
    let bytes = serde_json::to_vec(&on_disk).map_err(std::io::Error::other)?;
    private_file::write(path, &bytes)?;
    trim_dir(path);
    Ok(stamp(path))
}

/// Keeps the item lists of the most recently used workspaces only.
fn trim(file: &mut CacheFile) {
    if file.items.len() <= MAX_WORKSPACES_WITH_ITEMS {
        return;
    }
    let mut by_use: Vec<(i64, String)> = file
        .items
        .iter()
        .map(|(ws, list)| (list.used_at, ws.clone()))
        .collect();
    by_use.sort_by(|a, b| b.cmp(a));
    for (_, ws) in by_use.into_iter().skip(MAX_WORKSPACES_WITH_ITEMS) {
        file.items.remove(&ws);
    }
}

/// Removes the least recently written files beyond [`MAX_FILES`], never `keep`.
fn trim_dir(keep: &Path) {
    let Some(dir) = keep.parent() else { return };
    let mut files = cache_files(dir);
    if files.len() <= MAX_FILES {
        return;
    }
    files.sort_by_key(|path| {
        std::cmp::Reverse(
            std::fs::metadata(path)
                .and_then(|m| m.modified())
                .unwrap_or(SystemTime::UNIX_EPOCH),
        )
    });
    for path in files.into_iter().skip(MAX_FILES) {
        if path != keep {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The cache files in `dir`.
pub(crate) fn cache_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_keeps_the_item_lists_of_the_most_recently_used_workspaces() {
        let mut file = CacheFile::default();
        for n in 0..(MAX_WORKSPACES_WITH_ITEMS as i64 + 3) {
            let list = NameList {
                used_at: n,
                ..NameList::default()
            };
            file.items.insert(format!("ws{n:02}"), list);
        }
        trim(&mut file);
        assert_eq!(file.items.len(), MAX_WORKSPACES_WITH_ITEMS);
        assert!(!file.items.contains_key("ws00") && file.items.contains_key("ws10"));
    }

    #[test]
    fn entries_are_compact_arrays_and_foreign_files_read_as_empty() {
        let entry = Entry("id".into(), "Sales".into(), "Notebook".into());
        let text = serde_json::to_string(&entry).expect("serializes");
        assert_eq!(text, r#"["id","Sales","Notebook"]"#);

        let dir = tempfile::tempdir().expect("temp");
        let path = dir.path().join("x.json");
        let mut file = load(&path, "http://a/v1", "me");
        file.workspaces.entries.push(entry);
        save(&path, &mut file).expect("saved");
        assert_eq!(load(&path, "http://a/v1", "me").workspaces.entries.len(), 1);
        assert!(
            load(&path, "http://b/v1", "me")
                .workspaces
                .entries
                .is_empty()
        );
        assert!(
            load(&path, "http://a/v1", "you")
                .workspaces
                .entries
                .is_empty()
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
