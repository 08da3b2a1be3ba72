//! A definition as a folder of files: one file per part, at the part's path. Writing refuses
//! paths that would leave the folder; reading turns every file back into a part.

use crate::error::{Error, Result};
use base64::Engine;
use fabsh_model::definition::extra_parts::extra_parts;
use fabsh_model::definition::{LENIENT_BASE64, encode_payload, paths, platform};
use fabsh_model::item_types;
use serde_json::{Map, Value, json};
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Base64 characters decoded at a time when writing a part (a multiple of 4).
const DECODE_CHUNK: usize = 64 * 1024;

/// Writes parts under a folder that was empty (or missing) when it was opened, so what ends
/// up there is exactly one definition. The parts go to a hidden folder beside it, moved into
/// place by [`DirWriter::finish`]: a run that fails half-way leaves nothing behind (the hidden
/// folder is removed), so the same command can simply run again.
#[derive(Debug)]
pub struct DirWriter {
    /// Where the parts are written until the end.
    partial: PathBuf,
    /// Where they end up.
    root: PathBuf,
    finished: bool,
}

impl DirWriter {
    /// Opens `dir` for writing; a non-empty folder is refused, because stale files there
    /// would later be read back as parts.
    pub fn create(dir: &Path) -> Result<DirWriter> {
        check_empty_or_missing(dir)?;
        let name = dir.file_name().map_or_else(
            || "export".to_string(),
            |name| name.to_string_lossy().into_owned(),
        );
        let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
        let parent = parent.unwrap_or(Path::new("."));
        fs::create_dir_all(parent)
            .map_err(|err| Error::usage(format!("cannot create {}: {err}", parent.display())))?;
        let partial = parent.join(format!(".{name}.partial-{}", std::process::id()));
        // A folder left by a process that was killed (the same pid, much later) goes first.
        let _ = fs::remove_dir_all(&partial);
        fs::create_dir(&partial)
            .map_err(|err| Error::usage(format!("cannot create {}: {err}", partial.display())))?;
        Ok(DirWriter {
            partial,
            root: dir.to_path_buf(),
            finished: false,
        })
    }

    /// The folder the parts end up in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Moves the parts into place, over the folder if it is there (still empty).
    pub fn finish(mut self) -> Result<()> {
        let cannot = |err: std::io::Error| {
            Error::runtime(format!(
                "cannot move the parts into {}: {err}",
                self.root.display()
            ))
        };
        match fs::remove_dir(&self.root) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => return Err(cannot(err)),
            _ => {}
        }
        fs::rename(&self.partial, &self.root).map_err(cannot)?;
        self.finished = true;
        Ok(())
    }

    /// Decodes a base64 payload into the part's file, a chunk at a time so a large part never
    /// sits in memory decoded. Returns the number of bytes written.
    pub fn write_part(&self, path: &str, payload: &str) -> Result<u64> {
        let target = paths::under(&self.partial, path).map_err(Error::runtime)?;
        let shown = self.root.join(path);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|err| {
                Error::runtime(format!("cannot create {}: {err}", parent.display()))
            })?;
        }
        let io_error = |err: std::io::Error| {
            Error::runtime(format!("cannot write {}: {err}", shown.display()))
        };
        let mut file = File::create_new(&target).map_err(|err| {
            if err.kind() == std::io::ErrorKind::AlreadyExists {
                Error::runtime(format!("part {path} appears more than once"))
            } else {
                io_error(err)
            }
        })?;
        let mut pending: Vec<u8> = Vec::with_capacity(DECODE_CHUNK);
        let mut decoded: Vec<u8> = Vec::with_capacity(DECODE_CHUNK / 4 * 3);
        let mut written = 0u64;
        let mut flush = |pending: &mut Vec<u8>| -> Result<()> {
            decoded.clear();
            LENIENT_BASE64
                .decode_vec(&pending[..], &mut decoded)
                .map_err(|err| {
                    Error::runtime(format!(
                        "part {path}: the payload is not valid base64 ({err})"
                    ))
                })?;
            file.write_all(&decoded).map_err(io_error)?;
            written += decoded.len() as u64;
            pending.clear();
            Ok(())
        };
        for byte in payload.bytes().filter(|b| !b.is_ascii_whitespace()) {
            pending.push(byte);
            if pending.len() == DECODE_CHUNK {
                flush(&mut pending)?;
            }
        }
        flush(&mut pending)?;
        Ok(written)
    }
}

impl Drop for DirWriter {
    fn drop(&mut self) {
        if !self.finished {
            let _ = fs::remove_dir_all(&self.partial);
        }
    }
}

/// Refuses a folder that has files in it: stale files there would later be read back as
/// parts. A missing folder is fine (it is created when written).
pub fn check_empty_or_missing(dir: &Path) -> Result<()> {
    let has_entries = match fs::read_dir(dir) {
        Ok(mut entries) => entries.next().is_some(),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => false,
        Err(err) => return Err(Error::usage(format!("cannot use {}: {err}", dir.display()))),
    };
    if has_entries {
        return Err(
            Error::usage(format!("{} is not empty", dir.display())).with_hint(
                "give a new or empty folder, so the files there are exactly the item's parts",
            ),
        );
    }
    Ok(())
}

/// Removes the part files a previous get-definition left in `dir`, so a new definition can be
/// written there. Conservative: the folder must hold a `.platform` (it was written as a
/// definition) and every file must be a part path of the type it names; otherwise nothing is
/// removed and the other files are named. Folders left empty are removed too. A missing
/// folder is fine.
pub fn clean_previous_parts(dir: &Path) -> Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    let mut files = Vec::new();
    collect(dir, "", &mut files)?;
    if files.is_empty() {
        return Ok(());
    }
    let Some((_, platform_file)) = files.iter().find(|(path, _)| path == platform::PATH) else {
        return Err(Error::usage(format!(
            "--clean: {} has no .platform, so it does not look like a definition folder; nothing was removed",
            dir.display()
        ))
        .with_hint("give a folder get-definition --dir wrote, or a new one"));
    };
    let platform = platform::parse(&read(platform_file)?).ok();
    let item_type = platform.as_ref().and_then(|p| p.item_type.as_deref());
    refuse_extra_parts(dir, &files, item_type).map_err(|err| {
        err.with_hint(
            "--clean removes only part files; move the others away first (nothing was removed)",
        )
    })?;
    for (_, file) in &files {
        fs::remove_file(file)
            .map_err(|err| Error::runtime(format!("cannot remove {}: {err}", file.display())))?;
    }
    remove_empty_folders(dir)
}

/// Removes the folders under `dir` (not `dir`) that are empty once their empty folders are.
fn remove_empty_folders(dir: &Path) -> Result<()> {
    let entries = fs::read_dir(dir)
        .map_err(|err| Error::runtime(format!("cannot read {}: {err}", dir.display())))?;
    for entry in entries.flatten() {
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        if is_dir {
            let path = entry.path();
            remove_empty_folders(&path)?;
            // Only an empty folder goes; one with anything left in it stays.
            let _ = fs::remove_dir(&path);
        }
    }
    Ok(())
}

/// Reads the files under `dir` into a definition `{format?, parts}` (paths relative and
/// `/`-separated, `.platform` last as the service orders it). Only regular files are read:
/// symbolic links are refused rather than followed, so nothing outside the folder is sent,
/// and FIFOs, sockets and devices are refused without being opened, since reading one can
/// block forever. Unless `allow_extra`, files that are not parts of an `item_type` definition
/// (the `.platform` part's type when `None`) are refused, every one named: see
/// [`extra_parts`]. A notebook folder holding `notebook-content.ipynb` gets
/// `format: "ipynb"`, which the service needs for that layout.
pub fn read_dir(dir: &Path, allow_extra: bool, item_type: Option<&str>) -> Result<Value> {
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
    files.sort_by(|(a, _), (b, _)| {
        (a == platform::PATH)
            .cmp(&(b == platform::PATH))
            .then(a.cmp(b))
    });
    if files.is_empty() {
        return Err(Error::usage(format!(
            "--dir: {} has no files",
            dir.display()
        )));
    }
    let platform = match files.iter().find(|(path, _)| path == platform::PATH) {
        Some((_, file)) => platform::parse(&read(file)?).ok(),
        None => None,
    };
    let item_type = item_type.or(platform.as_ref().and_then(|p| p.item_type.as_deref()));
    if !allow_extra {
        refuse_extra_parts(dir, &files, item_type)?;
    }
    let ipynb = item_type == Some(item_types::NOTEBOOK)
        && files
            .iter()
            .any(|(path, _)| path == "notebook-content.ipynb");
    let parts = files
        .iter()
        .map(|(path, file)| {
            Ok(json!({"path": path, "payload": encode_payload(&read(file)?), "payloadType": fabsh_model::definition::INLINE_BASE64}))
        })
        .collect::<Result<Vec<Value>>>()?;
    let mut definition = Map::new();
    if ipynb {
        definition.insert("format".into(), json!("ipynb"));
    }
    definition.insert("parts".into(), Value::Array(parts));
    Ok(Value::Object(definition))
}

/// Refuses the folder when some of its files are not parts of the type's definition.
fn refuse_extra_parts(
    dir: &Path,
    files: &[(String, PathBuf)],
    item_type: Option<&str>,
) -> Result<()> {
    let paths: Vec<&str> = files.iter().map(|(path, _)| path.as_str()).collect();
    let extra = extra_parts(&paths, item_type);
    if extra.is_empty() {
        return Ok(());
    }
    let layout = match item_type {
        Some(name) => format!("a {name} definition"),
        None => "a definition".to_string(),
    };
    let mut err = Error::usage(format!(
        "--dir: {} of the files in {} {} not part of {layout}: {}",
        extra.len(),
        dir.display(),
        if extra.len() == 1 { "is" } else { "are" },
        extra.join(", ")
    ));
    for path in &extra {
        err = err.with_cause(format!("{path}: not a part path {layout} uses"));
    }
    Err(err.with_hint(
        "remove them, or add --allow-extra to send them as parts anyway; nothing was sent",
    ))
}

/// A part's bytes: no more than one definition request carries.
fn read(path: &Path) -> Result<Vec<u8>> {
    fabsh_deploy::file::read_regular(path, fabsh_model::limits::DEFINITION_BYTES)
        .map_err(|err| Error::usage(format!("--dir: cannot read {}: {err}", path.display())))
}

/// Every regular file under `dir`, as (part path, file path), without opening any.
fn collect(dir: &Path, prefix: &str, files: &mut Vec<(String, PathBuf)>) -> Result<()> {
    let unreadable = |path: &Path, err: std::io::Error| {
        Error::usage(format!("--dir: cannot read {}: {err}", path.display()))
    };
    let mut entries: Vec<_> = fs::read_dir(dir)
        .map_err(|err| unreadable(dir, err))?
        .collect::<std::io::Result<_>>()
        .map_err(|err| unreadable(dir, err))?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().into_string().map_err(|name| {
            Error::usage(format!(
                "--dir: {}: file names must be UTF-8 ({name:?})",
                dir.display()
            ))
        })?;
        let relative = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        // The entry's own type (lstat): a link is not followed and nothing is opened.
        let kind = entry.file_type().map_err(|err| unreadable(&path, err))?;
        if kind.is_symlink() {
            return Err(Error::usage(format!(
                "--dir: {} is a symbolic link; links are not followed",
                path.display()
            )));
        }
        if kind.is_dir() {
            collect(&path, &relative, files)?;
        } else if kind.is_file() {
            if let Some(problem) = paths::problem(&relative) {
                return Err(Error::usage(format!(
                    "--dir: {}: {problem}",
                    path.display()
                )));
            }
            files.push((relative, path));
        } else {
            return Err(Error::usage(format!(
                "--dir: {} is not a regular file (a FIFO, socket or device); only files are parts",
                path.display()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writing_then_reading_gives_the_same_parts() {
        let dir = tempfile::tempdir().expect("dir");
        let out = dir.path().join("out");
        let writer = DirWriter::create(&out).expect("writer");
        let big = vec![7u8; DECODE_CHUNK * 2 + 5];
        assert_eq!(
            writer
                .write_part("a/b.bin", &encode_payload(&big))
                .expect("write"),
            big.len() as u64
        );
        writer
            .write_part(".platform", &encode_payload(b"{}"))
            .expect("write");
        assert!(!out.exists(), "nothing is in place before the end");
        writer.finish().expect("moved into place");
        let definition = read_dir(&out, true, None).expect("read");
        let parts = definition["parts"].as_array().expect("parts");
        assert_eq!(parts[0]["path"], "a/b.bin");
        assert_eq!(parts[1]["path"], ".platform");
        assert_eq!(
            fabsh_model::definition::decode_payload(parts[0]["payload"].as_str().expect("text"))
                .expect("b64"),
            big
        );
    }

    #[test]
    fn escaping_paths_and_non_empty_folders_are_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let writer = DirWriter::create(&dir.path().join("out")).expect("writer");
        for path in ["../x", "/x", "C:/x", "a/../../x"] {
            assert!(writer.write_part(path, "eA==").is_err(), "{path}");
        }
        assert!(!dir.path().join("x").exists());
        writer.write_part("kept", "eA==").expect("write");
        // A writer dropped before the end leaves nothing: the same command can run again.
        drop(writer);
        let left: Vec<_> = std::fs::read_dir(dir.path()).expect("dir").collect();
        assert!(left.is_empty(), "{left:?}");
        std::fs::create_dir(dir.path().join("out")).expect("dir");
        std::fs::write(dir.path().join("out/keep"), "x").expect("write");
        assert!(DirWriter::create(&dir.path().join("out")).is_err());
    }
}
