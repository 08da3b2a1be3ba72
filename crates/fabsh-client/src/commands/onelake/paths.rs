//! Paths on both sides: OneLake paths as users write them, and local files below a folder.

use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use fabsh_api::onelake::LakePath;
use fabsh_model::item_types;
use std::path::{Path, PathBuf};

/// `text` as a OneLake path, its item's type found when only a name was given (OneLake names
/// items `Name.Type`, or by id): then the workspace and item are addressed by id, and shown
/// as written.
pub(super) async fn lake_path(ctx: &Ctx, text: &str, what: &str) -> Result<LakePath> {
    let mut path = LakePath::parse(text, what)?;
    let typed = path.item.contains('.') || uuid::Uuid::parse_str(&path.item).is_ok();
    if !typed {
        let workspace = ctx.workspace_id(&path.workspace).await?;
        // A lakehouse first, as OneLake paths mostly name one: its SQL endpoint of the same
        // name has no files of its own, and a lookup by type does not ask which is meant.
        let item = match ctx
            .item_id(&workspace, &path.item, Some(item_types::LAKEHOUSE))
            .await
        {
            Err(err) if err.kind == ErrorKind::NotFound => {
                ctx.item_id(&workspace, &path.item, None).await?
            }
            found => found?,
        };
        path.shown_as = Some(format!("{}/{}", path.workspace, path.item));
        path.item = item;
        path.workspace = workspace;
    }
    Ok(path)
}

/// Where `file`, listed below the folder `folder`, is relative to it (`sub/a.csv`).
pub(super) fn below<'a>(folder: &LakePath, file: &'a LakePath) -> &'a str {
    file.inner
        .strip_prefix(&folder.inner)
        .map_or(file.inner.as_str(), |rest| rest.trim_start_matches('/'))
}

/// The refusal of a file `cat` and `head` cannot print.
pub(super) fn not_text(path: &LakePath) -> Error {
    Error::usage(format!("{path} is not UTF-8 text"))
        .with_hint(format!("download it with `fabsh onelake cp {path} .`"))
}

/// A relative path with `/` between its segments.
pub(super) fn slashed(relative: &Path) -> String {
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// `relative` (`/`-separated, from OneLake) under the local folder `dir`; `..` and absolute
/// segments never leave it (OneLake refuses them, and a path is checked again here).
pub(super) fn local_under(dir: &Path, relative: &str) -> PathBuf {
    relative
        .split('/')
        .filter(|segment| !segment.is_empty() && *segment != "." && *segment != "..")
        .fold(dir.to_path_buf(), |path, segment| path.join(segment))
}

/// Every regular file below `dir`, in name order; symbolic links are not followed.
pub(super) fn local_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let read = std::fs::read_dir(&folder).map_err(|err| {
            Error::runtime(format!("cannot read {}", folder.display())).with_cause(err)
        })?;
        for entry in read {
            let entry =
                entry.map_err(|err| Error::runtime("cannot read a folder").with_cause(err))?;
            let kind = entry
                .file_type()
                .map_err(|err| Error::runtime("cannot read a folder").with_cause(err))?;
            if kind.is_dir() {
                folders.push(entry.path());
            } else if kind.is_file() {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    Ok(files)
}
