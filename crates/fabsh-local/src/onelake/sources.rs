//! The files a lakehouse's load-table operation reads from its own OneLake `Files`: one file,
//! or those of a folder with the extension asked for (and below it, when recursive).

use super::files::{self, Found, ItemDirs};
use super::names;
use std::path::{Path, PathBuf};

/// Where a load's files are.
pub(crate) struct Source<'a> {
    pub workspace_id: &'a str,
    pub item_id: &'a str,
    /// `Files/...`, as the request named it.
    pub relative_path: &'a str,
    /// A folder (`pathType: Folder`) rather than one file.
    pub folder: bool,
    /// With `folder`: its sub-folders' files too.
    pub recursive: bool,
    /// With `folder`: the extension of the files taken (`csv`), any case.
    pub extension: &'a str,
}

/// Why a load has nothing to read.
#[derive(Debug)]
pub(crate) enum NoSource {
    /// Not a path in the item.
    Invalid,
    /// Nothing there (or a file where a folder was named, or the other way round): the text
    /// says which.
    Missing(String),
    /// The disk failed.
    Io(std::io::Error),
}

/// The files of `source` in `data_dir`: their paths in the item and on disk, in path order.
pub(crate) fn files_to_load(
    data_dir: &Path,
    source: &Source,
) -> Result<Vec<(String, PathBuf)>, NoSource> {
    let checked = names::item_path(source.relative_path).map_err(|_| NoSource::Invalid)?;
    let dirs = ItemDirs::of(data_dir, source.workspace_id, source.item_id);
    let path = source.relative_path;
    let found = files::stat(&dirs.file(&checked)).map_err(NoSource::Io)?;
    match (found, source.folder) {
        (Found::File(_), false) => Ok(vec![(path.to_string(), dirs.file(&checked))]),
        (Found::Directory, false) => Err(NoSource::Missing(format!(
            "'{path}' is a folder, not a file"
        ))),
        (Found::File(_), true) => Err(NoSource::Missing(format!(
            "'{path}' is a file, not a folder"
        ))),
        (Found::Missing, _) => Err(NoSource::Missing(format!("'{path}' does not exist"))),
        (Found::Directory, true) => {
            let suffix = format!(".{}", source.extension.to_ascii_lowercase());
            let mut found: Vec<(String, PathBuf)> = files::walk(&dirs.root, path)
                .map_err(NoSource::Io)?
                .into_iter()
                .filter(|walked| walked.meta.is_some())
                .filter(|walked| walked.path.to_ascii_lowercase().ends_with(&suffix))
                .filter(|walked| {
                    source.recursive
                        || walked
                            .path
                            .rsplit_once('/')
                            .is_some_and(|(parent, _)| parent == path)
                })
                .map(|walked| {
                    let mut file = dirs.root.clone();
                    file.extend(walked.path.split('/'));
                    (walked.path, file)
                })
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(NoSource::Missing(format!(
                    "'{path}' holds no {suffix} file{}",
                    if source.recursive {
                        ""
                    } else {
                        " (give recursive to look in its sub-folders)"
                    }
                )));
            }
            Ok(found)
        }
    }
}
