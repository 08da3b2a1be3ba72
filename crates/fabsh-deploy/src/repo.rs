//! Reading a repository in Fabric's git layout: a folder per item named
//! `<displayName>.<Type>` holding `.platform` and the definition parts; other folders are
//! workspace folders; an Eventhouse's `.children/` holds its KQL databases.
//!
//! Nothing outside the repository's real path is read: a link is followed only when its
//! target is inside, and one that leads out is refused by name; only regular files are read
//! (a device or a pipe would read without end or block); each folder is read once (a link
//! loop, or a folder linked in twice, is refused); and what is read is capped: a part and an
//! item's files at what one definition request holds, the repository at
//! [`REPOSITORY_BYTES`] and [`REPOSITORY_ENTRIES`].

use crate::boundary::{Boundary, Leaves, shown_target};
use crate::error::{Error, Input, Result};
use crate::file::{self, FileError, human_size};
use fabsh_model::definition::platform;
use fabsh_model::item_types;
use fabsh_model::limits::DEFINITION_BYTES;
use serde_json::Value;
use std::collections::HashSet;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// The most bytes deploy reads from one repository, all items' files together (and the most
/// its parameterised parts may add up to in a plan). The reader and the planner hold the
/// repository in memory, so this bounds what a plan takes to a few times it; real
/// repositories are far smaller (fabric-cicd's sample of 40 items is under 1 MiB), so one
/// beyond it is a folder named by mistake (a data folder, a home directory).
pub const REPOSITORY_BYTES: u64 = 1 << 30;

/// The most files and folders deploy meets walking one repository, for the same reason:
/// a walk of a folder that is not a repository (`/`, a build tree) stops early.
pub const REPOSITORY_ENTRIES: u64 = 100_000;

/// One file of an item, its path relative to the item's folder, with `/` separators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoPart {
    pub path: String,
    pub bytes: Vec<u8>,
}

impl RepoPart {
    /// The part as text, when it is UTF-8 (parameters apply only to text parts).
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes).ok()
    }
}

/// One item of the repository.
#[derive(Debug, Clone)]
pub struct RepoItem {
    pub item_type: String,
    pub display_name: String,
    pub description: Option<String>,
    pub logical_id: String,
    /// The workspace folder: `/a/b`, or empty for the root.
    pub folder: String,
    /// The item's folder relative to the repository root (`subfolder/X.Notebook`), which
    /// `file_path` filters are written against.
    pub dir: String,
    /// Every part but `.platform`, sorted by path.
    pub parts: Vec<RepoPart>,
    /// The `.platform` document as written (sent as a part, and read for `creationPayload`).
    pub platform: Value,
    /// For a KQL database under an Eventhouse's `.children/`: the Eventhouse's logical id.
    pub parent_logical_id: Option<String>,
}

impl RepoItem {
    /// `Name.Type`, how messages name the item.
    pub fn key(&self) -> String {
        format!("{}.{}", self.display_name, self.item_type)
    }

    /// The `.platform` part's bytes as read.
    pub fn platform_bytes(&self) -> Vec<u8> {
        // A JSON value prints itself (`{:#}`: pretty, as `to_vec_pretty` writes it).
        format!("{:#}", self.platform).into_bytes()
    }
}

/// Parts that a type keeps in its folder but never deploys: the Eventhouse's children are
/// items of their own; `.pbi/` holds Power BI Desktop's local cache.
fn excluded_part(item_type: &str, path: &str) -> bool {
    match item_type {
        item_types::EVENTHOUSE => path.starts_with(".children/"),
        item_types::REPORT | item_types::SEMANTIC_MODEL | item_types::DATA_AGENT => {
            path.starts_with(".pbi/")
        }
        _ => false,
    }
}

/// What a deployment repository looks like, for the refusal of a folder that is not one.
pub const LAYOUT: &str = "a deployment repository is a folder holding one <name>.<Type> folder per item (Sales.Lakehouse, Report.Notebook), each with a .platform file, as Fabric's git integration and `fabsh deploy export` write it; other folders under it are workspace folders";

/// Every item under `root`, in path order. A folder that is not a repository is refused
/// before anything else is read from it: one item's own folder, and one with no item folder
/// under it (a home directory, a README): deploying it would call every item of the
/// workspace an orphan.
pub fn read(root: &Path) -> Result<Vec<RepoItem>> {
    let mut reader = Reader::new(root)?;
    let mut items = Vec::new();
    let real = reader.boundary.real().to_path_buf();
    let shown = root.display().to_string();
    if is_item(&real) {
        return Err(Error::not_repository(
            shown,
            format!(
                "one item's folder (it holds {}), not a repository: give the folder that holds it",
                platform::PATH
            ),
        ));
    }
    reader.walk(&real, "", "", &mut items)?;
    if items.is_empty() {
        return Err(Error::not_repository(
            shown,
            "not a repository: no <name>.<Type> folder with a .platform file under it",
        ));
    }
    Ok(items)
}

/// A folder's identity, so that no folder is read twice whatever path leads to it.
#[cfg(unix)]
type FolderId = (u64, u64);
#[cfg(not(unix))]
type FolderId = PathBuf;

#[cfg(unix)]
fn folder_id(_real: &Path, meta: &Metadata) -> FolderId {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn folder_id(real: &Path, _meta: &Metadata) -> FolderId {
    real.to_path_buf()
}

/// One walk of a repository: what it has read so far.
struct Reader {
    boundary: Boundary,
    /// The folders entered.
    seen: HashSet<FolderId>,
    /// Files and folders met.
    entries: u64,
    /// Bytes read.
    bytes: u64,
}

/// `a/b` from `a` and `b`; `b` when `a` is empty.
fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}/{name}")
    }
}

/// Whether the folder at `path` holds a `.platform` file (an item's folder).
fn is_item(path: &Path) -> bool {
    std::fs::metadata(path.join(platform::PATH)).is_ok_and(|meta| meta.is_file())
}

impl Reader {
    fn new(root: &Path) -> Result<Reader> {
        let shown = root.display().to_string();
        let unreadable = |err: std::io::Error| Error::not_repository(&shown, err.to_string());
        let boundary = Boundary::new(root).map_err(unreadable)?;
        let meta = std::fs::metadata(boundary.real()).map_err(unreadable)?;
        if !meta.is_dir() {
            return Err(Error::not_repository(shown, "not a folder"));
        }
        let mut seen = HashSet::new();
        seen.insert(folder_id(boundary.real(), &meta));
        Ok(Reader {
            boundary,
            seen,
            entries: 0,
            bytes: 0,
        })
    }

    /// The entries of the real folder `dir` (shown as `shown`), sorted by name.
    fn entries(&mut self, dir: &Path, shown: &str) -> Result<Vec<std::fs::DirEntry>> {
        let io = |err| Error::read(Input::Repository, shown, err);
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(io)? {
            entries.push(entry.map_err(io)?);
            self.entries += 1;
            if self.entries > REPOSITORY_ENTRIES {
                return Err(Error::invalid(
                    Input::Repository,
                    shown,
                    format!(
                        "the repository has more than {REPOSITORY_ENTRIES} files and folders, the most deploy reads: is this the repository's folder?"
                    ),
                ));
            }
        }
        entries.sort_by_key(std::fs::DirEntry::file_name);
        Ok(entries)
    }

    /// The real path of the entry at `path` (shown as `shown`, relative to the repository)
    /// and what it is: a link is followed when its target is in the repository, and refused
    /// when it leads out or nowhere.
    fn follow(&self, path: &Path, shown: &str) -> Result<(PathBuf, Metadata)> {
        let own = std::fs::symlink_metadata(path)
            .map_err(|err| Error::read(Input::Repository, shown, err))?;
        if !own.file_type().is_symlink() {
            return Ok((path.to_path_buf(), own));
        }
        let real = self.boundary.resolve(path).map_err(|leaves| {
            let message = match leaves {
                Leaves::Outside => format!(
                    "{}, which leads out of the repository ({}): links are followed only to files and folders inside it",
                    shown_target(path),
                    self.boundary.real().display()
                ),
                Leaves::Unresolved(err) => {
                    format!("{}, which leads nowhere ({err})", shown_target(path))
                }
            };
            Error::invalid(Input::Repository, shown, message)
        })?;
        let meta =
            std::fs::metadata(&real).map_err(|err| Error::read(Input::Repository, shown, err))?;
        Ok((real, meta))
    }

    /// Marks the folder `real` read, refusing one read already.
    fn enter(&mut self, real: &Path, meta: &Metadata, shown: &str) -> Result<()> {
        if self.seen.insert(folder_id(real, meta)) {
            return Ok(());
        }
        Err(Error::invalid(
            Input::Repository,
            shown,
            "leads to a folder read already: a link loop, or a folder linked in twice, is not followed",
        ))
    }

    /// Walks non-item folders: each becomes a workspace folder segment. Files beside the
    /// item folders are not read, and neither are folders whose name starts with a dot.
    fn walk(
        &mut self,
        dir: &Path,
        rel: &str,
        folder: &str,
        items: &mut Vec<RepoItem>,
    ) -> Result<()> {
        for entry in self.entries(dir, if rel.is_empty() { "." } else { rel })? {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            // Only folders are followed here; a link to nothing is not one.
            if name.starts_with('.') || !std::fs::metadata(&path).is_ok_and(|m| m.is_dir()) {
                continue;
            }
            let shown = join(rel, &name);
            let (real, meta) = self.follow(&path, &shown)?;
            self.enter(&real, &meta, &shown)?;
            if !is_item(&real) {
                self.walk(&real, &shown, &format!("{folder}/{name}"), items)?;
                continue;
            }
            let item = self.read_item(&real, &shown, folder, None)?;
            let parent = item.logical_id.clone();
            let is_eventhouse = item.item_type == "Eventhouse";
            items.push(item);
            let children = real.join(".children");
            if is_eventhouse && std::fs::metadata(&children).is_ok_and(|m| m.is_dir()) {
                let shown = format!("{shown}/.children");
                let (children, meta) = self.follow(&children, &shown)?;
                self.enter(&children, &meta, &shown)?;
                for child in self.entries(&children, &shown)? {
                    let path = child.path();
                    if !is_item(&path) {
                        continue;
                    }
                    let child_shown = join(&shown, &child.file_name().to_string_lossy());
                    let (real, meta) = self.follow(&path, &child_shown)?;
                    self.enter(&real, &meta, &child_shown)?;
                    items.push(self.read_item(&real, &child_shown, folder, Some(&parent))?);
                }
            }
        }
        Ok(())
    }

    /// Reads the regular file `real` (shown as `shown`) when it fits in one part, in what
    /// its item may still hold (`item_left`) and in what the repository may.
    fn read_file(&mut self, real: &Path, shown: &str, item_left: u64) -> Result<Vec<u8>> {
        let repository_left = REPOSITORY_BYTES - self.bytes;
        let cap = DEFINITION_BYTES.min(item_left).min(repository_left);
        let bytes = file::read_regular(real, cap).map_err(|err| match err {
            FileError::TooLarge { size, .. } => {
                let message = if size > DEFINITION_BYTES {
                    format!(
                        "{size} bytes, more than the {} one part may hold (what fits in one definition request)",
                        human_size(DEFINITION_BYTES)
                    )
                } else if cap == item_left {
                    format!(
                        "its item's files add up to more than the {} one definition request holds",
                        human_size(DEFINITION_BYTES)
                    )
                } else {
                    format!(
                        "the repository's files add up to more than {}, the most deploy reads: is this the repository's folder?",
                        human_size(REPOSITORY_BYTES)
                    )
                };
                Error::invalid(Input::Repository, shown, message)
            }
            other => Error::read(Input::Repository, shown, other),
        })?;
        self.bytes += bytes.len() as u64;
        Ok(bytes)
    }

    /// Reads the item in the real folder `dir` (shown as `rel`).
    fn read_item(
        &mut self,
        dir: &Path,
        rel: &str,
        folder: &str,
        parent: Option<&str>,
    ) -> Result<RepoItem> {
        let platform_path = format!("{rel}/{}", platform::PATH);
        let (real, _) = self.follow(&dir.join(platform::PATH), &platform_path)?;
        let bytes = self.read_file(&real, &platform_path, DEFINITION_BYTES)?;
        let mut item_left = DEFINITION_BYTES - bytes.len() as u64;
        let doc = platform::document(&bytes)
            .map_err(|m| Error::invalid(Input::Repository, &platform_path, m))?;
        let fields = platform::fields(&doc);
        let need = |value: Option<String>, what: &str| {
            value.filter(|v| !v.trim().is_empty()).ok_or_else(|| {
                Error::invalid(
                    Input::Repository,
                    &platform_path,
                    format!("{what} is missing or empty"),
                )
            })
        };
        let item_type = need(fields.item_type, "metadata.type")?;
        let display_name = need(fields.display_name, "metadata.displayName")?;
        // A name the service would refuse, refused here: before anything is sent, rather
        // than as one failed item in the middle of a deploy.
        if let Some(problem) = fabsh_model::naming::item(&item_type).problem(&display_name) {
            return Err(Error::invalid(
                Input::Repository,
                &platform_path,
                format!("metadata.displayName {display_name:?}: {problem}"),
            ));
        }
        let logical_id = need(fields.logical_id, "config.logicalId")?;
        let mut files = Vec::new();
        self.collect_files(dir, rel, "", &item_type, &mut files)?;
        let mut parts = Vec::new();
        for (path, file) in files {
            if path == platform::PATH || excluded_part(&item_type, &path) {
                continue;
            }
            let bytes = self.read_file(&file, &format!("{rel}/{path}"), item_left)?;
            item_left -= bytes.len() as u64;
            parts.push(RepoPart { path, bytes });
        }
        parts.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(RepoItem {
            item_type,
            display_name,
            description: fields.description.filter(|d| !d.is_empty()),
            logical_id,
            folder: folder.to_string(),
            dir: rel.to_string(),
            parts,
            platform: doc,
            parent_logical_id: parent.map(str::to_string),
        })
    }

    /// The files under the item folder `dir` (real; the item shown as `item`), each with its
    /// path relative to the folder; the sub-folders a type never deploys are not entered.
    fn collect_files(
        &mut self,
        dir: &Path,
        item: &str,
        prefix: &str,
        item_type: &str,
        out: &mut Vec<(String, PathBuf)>,
    ) -> Result<()> {
        for entry in self.entries(dir, &join(item, prefix))? {
            let rel = join(prefix, &entry.file_name().to_string_lossy());
            if excluded_part(item_type, &format!("{rel}/")) {
                continue;
            }
            let shown = format!("{item}/{rel}");
            let (real, meta) = self.follow(&entry.path(), &shown)?;
            if meta.is_dir() {
                self.enter(&real, &meta, &shown)?;
                self.collect_files(&real, item, &rel, item_type, out)?;
            } else {
                out.push((rel, real));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests;
