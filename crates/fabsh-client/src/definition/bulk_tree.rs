//! A bulk export written as files (`<folders>/<name>.<Type>/<part>`, each item folder holding a
//! `.platform`), read back into a bulk import body. The body's exact size is known from file
//! sizes alone, so a body over the request limit is refused before a byte is read, and a body
//! within it is built once, straight into the bytes that are sent.

use crate::error::{Error, Result};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use fabsh_model::definition::{paths, platform};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// One file of the tree.
#[derive(Debug)]
struct TreeFile {
    /// Path inside the tree, `/`-separated, no leading `/`.
    relative: String,
    /// Where it is on disk.
    on_disk: PathBuf,
    /// Its size in bytes.
    len: u64,
}

/// The files of an exported tree, checked: safe paths, no links, every file inside exactly one
/// item folder, every `.platform` readable.
#[derive(Debug)]
pub struct ImportTree {
    files: Vec<TreeFile>,
    items: usize,
}

impl ImportTree {
    /// Scans `dir`. Refuses (as usage errors) links, non-UTF-8 names, unsafe paths, files
    /// outside an item folder, nested item folders and `.platform` parts the service would
    /// refuse.
    pub fn scan(dir: &Path) -> Result<ImportTree> {
        let meta = fs::metadata(dir)
            .map_err(|err| Error::usage(format!("--dir: cannot read {}: {err}", dir.display())))?;
        if !meta.is_dir() {
            return Err(Error::usage(format!(
                "--dir: {} is not a folder",
                dir.display()
            )));
        }
        let mut files = Vec::new();
        collect(dir, "", &mut files)?;
        files.sort_by(|a, b| a.relative.cmp(&b.relative));
        let roots: BTreeSet<&str> = files
            .iter()
            .filter_map(|f| f.relative.strip_suffix(platform::PATH))
            .map(|root| root.trim_end_matches('/'))
            .collect();
        if roots.is_empty() {
            return Err(Error::usage(format!(
                "--dir: {} holds no item folder (a folder with a .platform file)",
                dir.display()
            ))
            .with_hint("write one with `fabsh item bulk-export-definitions --dir`"));
        }
        for root in &roots {
            if root.is_empty() {
                return Err(Error::usage(format!(
                    "--dir: {} itself holds a .platform; give the folder above the item folders",
                    dir.display()
                )));
            }
            if let Some(outer) = roots.iter().find(|o| root.starts_with(&format!("{o}/"))) {
                return Err(Error::usage(format!(
                    "--dir: item folder {root} is inside item folder {outer}"
                )));
            }
        }
        for file in &files {
            let inside = roots
                .iter()
                .any(|root| file.relative.starts_with(&format!("{root}/")));
            if !inside {
                return Err(Error::usage(format!(
                    "--dir: {} is not inside an item folder (a folder with a .platform file)",
                    file.relative
                )));
            }
            if file.relative.ends_with(&format!("/{}", platform::PATH)) {
                check_platform(file)?;
            }
        }
        Ok(ImportTree {
            items: roots.len(),
            files,
        })
    }

    /// How many items the tree holds.
    pub fn item_count(&self) -> usize {
        self.items
    }

    /// The exact length of the body `build` makes with these serialized `options`.
    pub fn body_len(&self, options: &[u8]) -> u64 {
        let mut len = (BODY_START.len() + BODY_END.len() + options.len() + 1) as u64;
        for (index, file) in self.files.iter().enumerate() {
            len += u64::from(index > 0)
                + (PART_START.len() + PART_MIDDLE.len() + PART_END.len()) as u64
                + json_string_len(&format!("/{}", file.relative))
                + base64_len(file.len);
        }
        len
    }

    /// The body `{"definitionParts": [...], "options": <options>}`, written straight into one
    /// buffer of its final size; files are read one at a time.
    pub fn build(&self, options: &[u8]) -> Result<Vec<u8>> {
        let expected = self.body_len(options);
        let mut body = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
        body.extend_from_slice(BODY_START.as_bytes());
        for (index, file) in self.files.iter().enumerate() {
            if index > 0 {
                body.push(b',');
            }
            body.extend_from_slice(PART_START.as_bytes());
            serde_json::to_writer(&mut body, &format!("/{}", file.relative))?;
            body.extend_from_slice(PART_MIDDLE.as_bytes());
            let bytes = fs::read(&file.on_disk).map_err(|err| {
                Error::usage(format!(
                    "--dir: cannot read {}: {err}",
                    file.on_disk.display()
                ))
            })?;
            if bytes.len() as u64 != file.len {
                return Err(Error::runtime(format!(
                    "{} changed while the import was being assembled",
                    file.on_disk.display()
                )));
            }
            let start = body.len();
            body.resize(start + base64_len(file.len) as usize, 0);
            STANDARD
                .encode_slice(&bytes, &mut body[start..])
                .map_err(|err| Error::runtime(format!("encoding {}: {err}", file.relative)))?;
            body.extend_from_slice(PART_END.as_bytes());
        }
        body.extend_from_slice(BODY_END.as_bytes());
        body.extend_from_slice(options);
        body.push(b'}');
        debug_assert_eq!(body.len() as u64, expected);
        Ok(body)
    }
}

const BODY_START: &str = "{\"definitionParts\":[";
/// Closes the parts and opens the options; the body's final `}` follows the options.
const BODY_END: &str = "],\"options\":";
const PART_START: &str = "{\"path\":";
const PART_MIDDLE: &str = ",\"payload\":\"";
/// Ends a part; spells out INLINE_BASE64 (a test checks they agree).
const PART_END: &str = "\",\"payloadType\":\"InlineBase64\"}";

/// Length of standard padded base64 for `len` bytes.
fn base64_len(len: u64) -> u64 {
    len.div_ceil(3) * 4
}

/// Length of `text` as a JSON string literal, quotes included.
fn json_string_len(text: &str) -> u64 {
    // Serializing a `&str` cannot fail.
    serde_json::to_string(text).map_or(0, |s| s.len() as u64)
}

fn check_platform(file: &TreeFile) -> Result<()> {
    let bytes = fs::read(&file.on_disk).map_err(|err| {
        Error::usage(format!(
            "--dir: cannot read {}: {err}",
            file.on_disk.display()
        ))
    })?;
    let doc = platform::document(&bytes)
        .map_err(|err| Error::usage(format!("--dir: {}: {err}", file.relative)))?;
    if let Some((_, problem)) = platform::problems(&doc)
        .into_iter()
        .find(|(error, _)| *error)
    {
        return Err(Error::usage(format!("--dir: {}: {problem}", file.relative)));
    }
    Ok(())
}

fn collect(dir: &Path, prefix: &str, files: &mut Vec<TreeFile>) -> Result<()> {
    let unreadable = |path: &Path, err: std::io::Error| {
        Error::usage(format!("--dir: cannot read {}: {err}", path.display()))
    };
    for entry in fs::read_dir(dir).map_err(|err| unreadable(dir, err))? {
        let entry = entry.map_err(|err| unreadable(dir, err))?;
        let on_disk = entry.path();
        let name = entry
            .file_name()
            .into_string()
            .map_err(|name| Error::usage(format!("--dir: file names must be UTF-8 ({name:?})")))?;
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        if let Some(problem) = paths::problem(&relative) {
            return Err(Error::usage(format!("--dir: {relative}: {problem}")));
        }
        let kind = entry.file_type().map_err(|err| unreadable(&on_disk, err))?;
        if kind.is_symlink() {
            return Err(Error::usage(format!(
                "--dir: {} is a symbolic link; links are not followed",
                on_disk.display()
            )));
        }
        if kind.is_dir() {
            collect(&on_disk, &relative, files)?;
        } else {
            let len = entry
                .metadata()
                .map_err(|err| unreadable(&on_disk, err))?
                .len();
            files.push(TreeFile {
                relative,
                on_disk,
                len,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabsh_model::definition::INLINE_BASE64;
    use serde_json::Value;

    fn write(root: &Path, path: &str, bytes: &[u8]) {
        let target = root.join(path);
        fs::create_dir_all(target.parent().expect("parent")).expect("dirs");
        fs::write(target, bytes).expect("write");
    }

    fn platform_doc() -> Vec<u8> {
        platform::render(
            "Notebook",
            "N",
            None,
            "8f1a1c0e-5b1e-4a57-9a3c-0f5c9b6e2d11",
        )
    }

    #[test]
    fn the_body_is_exactly_as_long_as_computed_and_valid_json() {
        assert!(PART_END.contains(INLINE_BASE64));
        let dir = tempfile::tempdir().expect("dir");
        write(dir.path(), "F \"q\"/N.Notebook/.platform", &platform_doc());
        for len in 0..5 {
            write(
                dir.path(),
                &format!("F \"q\"/N.Notebook/p{len}.bin"),
                &vec![7u8; len],
            );
        }
        let tree = ImportTree::scan(dir.path()).expect("scan");
        assert_eq!(tree.item_count(), 1);
        let options = br#"{"allowPairingByName":true}"#;
        let body = tree.build(options).expect("body");
        assert_eq!(body.len() as u64, tree.body_len(options));
        let value: Value = serde_json::from_slice(&body).expect("json");
        assert_eq!(value["definitionParts"].as_array().expect("parts").len(), 6);
        assert_eq!(value["options"]["allowPairingByName"], true);
        assert!(
            value["definitionParts"][0]["path"]
                .as_str()
                .expect("path")
                .starts_with("/F \"q\"/N.Notebook/")
        );
    }

    #[test]
    fn files_outside_item_folders_and_bad_platforms_are_refused() {
        let dir = tempfile::tempdir().expect("dir");
        write(dir.path(), "A.Notebook/.platform", &platform_doc());
        write(dir.path(), "stray.txt", b"x");
        assert!(ImportTree::scan(dir.path()).is_err());
        let dir = tempfile::tempdir().expect("dir");
        write(dir.path(), "A.Notebook/.platform", b"{\"metadata\":{}}");
        assert!(ImportTree::scan(dir.path()).is_err());
        let empty = tempfile::tempdir().expect("dir");
        assert!(ImportTree::scan(empty.path()).is_err());
    }
}
