//! Files an agent's answer references, written into the directory `--download-files` names.
//! The endpoint chooses the file names, so they are not trusted: each is cut to its last
//! path segment, control characters are dropped, and `.`, `..` or an empty name is refused.
//! A file is never written outside the directory, never through a link, and two files with
//! the same name in one answer get `-2`, `-3`, ... suffixes.

use super::assistants::Surface;
use crate::api::ApiClient;
use crate::error::{Error, Result};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The download directory: created if missing; an existing non-directory is a usage error.
pub fn check_dir(text: &str) -> Result<PathBuf> {
    let dir = PathBuf::from(text.trim());
    if dir.as_os_str().is_empty() {
        return Err(Error::usage("--download-files needs a directory"));
    }
    if dir.exists() && !dir.is_dir() {
        return Err(Error::usage(format!(
            "--download-files: {} is not a directory",
            dir.display()
        )));
    }
    std::fs::create_dir_all(&dir).map_err(|err| {
        Error::usage(format!("--download-files: cannot create {}", dir.display())).with_cause(err)
    })?;
    Ok(dir)
}

/// The name a file is written under, or why it is refused.
pub fn safe_name(name: &str) -> std::result::Result<String, String> {
    // What follows the last separator (the whole name when it has none).
    let last = name.rsplit_once(['/', '\\']).map_or(name, |(_, last)| last);
    let cleaned: String = last.chars().filter(|c| !c.is_control()).collect();
    let cleaned = cleaned.trim().to_string();
    if cleaned.is_empty() || cleaned == "." || cleaned == ".." {
        return Err(format!(
            "refused the file name {name:?}: it names no file inside the directory"
        ));
    }
    Ok(cleaned)
}

/// Fetches and writes every file: `{fileId, filename, path, bytes}` each, or
/// `{fileId, error}` for one that could not be had. Never fails as a whole.
pub async fn fetch_all(
    api: &ApiClient,
    surface: &Surface,
    ids: &[String],
    dir: &Path,
) -> Vec<Value> {
    let mut used = Vec::new();
    let mut out = Vec::new();
    for id in ids {
        match fetch_one(api, surface, id, dir, &mut used).await {
            Ok(entry) => out.push(entry),
            Err(err) => out.push(json!({"fileId": id, "error": err.message})),
        }
    }
    out
}

async fn fetch_one(
    api: &ApiClient,
    surface: &Surface,
    id: &str,
    dir: &Path,
    used: &mut Vec<String>,
) -> Result<Value> {
    let meta = api.json(surface.file_req(id, false)).await?;
    let filename = meta["filename"].as_str().unwrap_or(id).to_string();
    let name = safe_name(&filename).map_err(Error::runtime)?;
    let content = api.send(surface.file_req(id, true)).await?;
    let name = unique(&name, used);
    let path = dir.join(&name);
    write_inside(dir, &path, &content.body)?;
    used.push(name);
    Ok(json!({
        "fileId": id,
        "filename": filename,
        "path": path.display().to_string(),
        "bytes": content.body.len(),
    }))
}

/// `name`, or `stem-N.ext` when an earlier file of this answer took it.
fn unique(name: &str, used: &[String]) -> String {
    if !used.iter().any(|u| u == name) {
        return name.to_string();
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, format!(".{ext}")),
        _ => (name, String::new()),
    };
    // Bounded: `used` holds finitely many names, so one of the first `used.len() + 1` is free.
    (2..=used.len() + 2)
        .map(|n| format!("{stem}-{n}{ext}"))
        .find(|candidate| !used.iter().any(|u| u == candidate))
        .unwrap_or_else(|| name.to_string())
}

/// Writes a regular file directly inside `dir`; an existing link or directory there is refused.
fn write_inside(dir: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    if path.parent() != Some(dir) {
        return Err(Error::runtime(format!(
            "refused to write {} outside {}",
            path.display(),
            dir.display()
        )));
    }
    if let Ok(meta) = std::fs::symlink_metadata(path)
        && !meta.file_type().is_file()
    {
        return Err(Error::runtime(format!(
            "refused to write through {}: it is not a plain file",
            path.display()
        )));
    }
    let failed = |err: std::io::Error| {
        Error::runtime(format!("cannot write {}", path.display())).with_cause(err)
    };
    let mut file = std::fs::File::create(path).map_err(failed)?;
    file.write_all(bytes).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cut_to_a_basename_and_traversal_is_refused() {
        assert_eq!(safe_name("../../etc/passwd").as_deref(), Ok("passwd"));
        assert_eq!(
            safe_name("C:\\temp\\result.csv").as_deref(),
            Ok("result.csv")
        );
        assert!(safe_name("..").is_err());
        assert!(safe_name("a/..").is_err());
        assert!(safe_name("").is_err());
    }

    #[test]
    fn repeated_names_get_suffixes() {
        let used = vec!["result.csv".to_string(), "result-2.csv".to_string()];
        assert_eq!(unique("result.csv", &used), "result-3.csv");
        assert_eq!(unique("other", &used), "other");
    }
}
