//! Reading a repository in Fabric's git layout: a folder per item named
//! `<displayName>.<Type>` holding `.platform` and the definition parts; other folders are
//! workspace folders; an Eventhouse's `.children/` holds its KQL databases.

use crate::{Error, Result};
use fabsh_model::definition::platform;
use serde_json::Value;
use std::path::Path;

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
        serde_json::to_vec_pretty(&self.platform).unwrap_or_default()
    }
}

/// Parts that a type keeps in its folder but never deploys: the Eventhouse's children are
/// items of their own; `.pbi/` holds Power BI Desktop's local cache.
fn excluded_part(item_type: &str, path: &str) -> bool {
    match item_type {
        "Eventhouse" => path.starts_with(".children/"),
        "Report" | "SemanticModel" | "DataAgent" => path.starts_with(".pbi/"),
        _ => false,
    }
}

/// Every item under `root`, in path order.
pub fn read(root: &Path) -> Result<Vec<RepoItem>> {
    if !root.is_dir() {
        return Err(Error::invalid(
            root.display().to_string(),
            "not a folder (the repository directory)",
        ));
    }
    let mut items = Vec::new();
    walk(root, root, "", &mut items)?;
    Ok(items)
}

fn entries(dir: &Path) -> Result<Vec<std::fs::DirEntry>> {
    let io = |source| Error::Io {
        path: dir.display().to_string(),
        source,
    };
    let mut entries = std::fs::read_dir(dir)
        .map_err(io)?
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(io)?;
    entries.sort_by_key(|entry| entry.file_name());
    Ok(entries)
}

/// Walks non-item folders: each becomes a workspace folder segment.
fn walk(root: &Path, dir: &Path, folder: &str, items: &mut Vec<RepoItem>) -> Result<()> {
    for entry in entries(dir)? {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if !path.is_dir() || name.starts_with('.') {
            continue;
        }
        if path.join(platform::PATH).is_file() {
            let item = read_item(root, &path, folder, None)?;
            let children = path.join(".children");
            let parent = item.logical_id.clone();
            let is_eventhouse = item.item_type == "Eventhouse";
            items.push(item);
            if is_eventhouse && children.is_dir() {
                for child in entries(&children)? {
                    if child.path().join(platform::PATH).is_file() {
                        items.push(read_item(root, &child.path(), folder, Some(&parent))?);
                    }
                }
            }
        } else {
            walk(root, &path, &format!("{folder}/{name}"), items)?;
        }
    }
    Ok(())
}

fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

fn read_item(root: &Path, dir: &Path, folder: &str, parent: Option<&str>) -> Result<RepoItem> {
    let rel = relative(root, dir);
    let platform_path = format!("{rel}/{}", platform::PATH);
    let bytes = std::fs::read(dir.join(platform::PATH)).map_err(|source| Error::Io {
        path: platform_path.clone(),
        source,
    })?;
    let doc = platform::document(&bytes).map_err(|m| Error::invalid(&platform_path, m))?;
    let fields = platform::fields(&doc);
    let need = |value: Option<String>, what: &str| {
        value
            .filter(|v| !v.trim().is_empty())
            .ok_or_else(|| Error::invalid(&platform_path, format!("{what} is missing or empty")))
    };
    let item_type = need(fields.item_type, "metadata.type")?;
    let display_name = need(fields.display_name, "metadata.displayName")?;
    let logical_id = need(fields.logical_id, "config.logicalId")?;
    let mut files = Vec::new();
    collect_files(dir, "", &mut files)?;
    let mut parts = Vec::new();
    for (path, file) in files {
        if path == platform::PATH || excluded_part(&item_type, &path) {
            continue;
        }
        let bytes = std::fs::read(&file).map_err(|source| Error::Io {
            path: format!("{rel}/{path}"),
            source,
        })?;
        parts.push(RepoPart { path, bytes });
    }
    parts.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(RepoItem {
        item_type,
        display_name,
        description: fields.description.filter(|d| !d.is_empty()),
        logical_id,
        folder: folder.to_string(),
        dir: rel,
        parts,
        platform: doc,
        parent_logical_id: parent.map(str::to_string),
    })
}

fn collect_files(
    dir: &Path,
    prefix: &str,
    out: &mut Vec<(String, std::path::PathBuf)>,
) -> Result<()> {
    for entry in entries(dir)? {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        if path.is_dir() {
            collect_files(&path, &rel, out)?;
        } else {
            out.push((rel, path));
        }
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The fabric-cicd sample repository, copied as it is into the tests' fixtures.
    pub(crate) fn sample_dir() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/fabric-cicd-sample/workspace")
    }

    #[test]
    fn the_sample_has_its_items_folders_and_children() {
        let items = read(&sample_dir()).expect("sample reads");
        assert_eq!(items.len(), 40);
        let nested = items
            .iter()
            .find(|i| i.display_name == "Hello World SubfolderSubfolder")
            .expect("nested notebook");
        assert_eq!(nested.folder, "/subfolder/subfolder");
        let taxi = items
            .iter()
            .find(|i| i.display_name == "TaxiDB")
            .expect("kql database");
        assert_eq!(taxi.item_type, "KQLDatabase");
        let eventhouse = items
            .iter()
            .find(|i| i.display_name == "SampleEventhouse")
            .expect("eventhouse");
        assert_eq!(
            taxi.parent_logical_id.as_deref(),
            Some(eventhouse.logical_id.as_str())
        );
        assert!(
            eventhouse
                .parts
                .iter()
                .all(|p| !p.path.starts_with(".children"))
        );
    }
}
