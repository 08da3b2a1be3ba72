//! The promotion file (`promote.yml`, beside config.yml or in the repository folder): what a
//! promotion does to the test workspace after deploying to it and before evaluating its data
//! agents, since a repository carries its lakehouses' definitions but not their data. Each
//! step loads a file of this machine into a lakehouse table, or runs an item's job and waits
//! for it:
//!
//! ```yaml
//! prepare:
//!   - load_table: {lakehouse: SalesLakehouse, table: orders, from_local: data/orders.csv, mode: overwrite}
//!   - job: {item: Load sales, timeout: 600}
//! ```
//!
//! A local file is read only under the promotion file's own folder (its real path, links
//! followed), as deploy reads a repository: a crafted repository cannot have a promotion
//! upload `/etc/passwd` or a secret to a lakehouse.

use crate::boundary::{Boundary, Leaves, shown_target};
use crate::error::{Error, Input, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The promotion file's name, looked for beside config.yml, then in the repository folder.
pub const FILE_NAME: &str = "promote.yml";

/// What a promotion file holds.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromoteFile {
    /// Steps run in the test workspace, in order, before its agents are evaluated. Each is a
    /// map of one key, its kind (YAML's usual shape, not a `!tag`).
    #[serde(default, with = "serde_yaml_ng::with::singleton_map_recursive")]
    pub prepare: Vec<Step>,
}

/// One preparation step.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// `lakehouse load-table` of a file of this machine.
    LoadTable(LoadTable),
    /// `job run --wait` of an item's job.
    Job(Job),
}

/// A file of this machine loaded into a lakehouse table of the test workspace.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LoadTable {
    /// The lakehouse (name or id) in the test workspace.
    pub lakehouse: String,
    /// The table (`name`, or `schema.name` on a lakehouse with schemas).
    pub table: String,
    /// The file, relative to the promotion file's folder; its real path once read.
    pub from_local: PathBuf,
    /// `append` or `overwrite` (the command's default when absent: append).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// `csv` or `parquet` (from the file's extension when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Whether a CSV file's first line names the columns (the command's default: it does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<bool>,
    /// A CSV file's delimiter (the command's default: `,`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delimiter: Option<String>,
}

/// An item's job in the test workspace, run to its end.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Job {
    /// The item (name or id).
    pub item: String,
    /// The job type (the command's default follows the item's type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_type: Option<String>,
    /// Seconds to wait before the promotion gives up on the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
}

/// The promotion file to read: `given` (`--prepare`), else [`FILE_NAME`] beside the config
/// file, else in the repository folder; none when there is none.
pub fn find(given: Option<&Path>, config: Option<&Path>, dir: Option<&Path>) -> Option<PathBuf> {
    if let Some(given) = given {
        return Some(given.to_path_buf());
    }
    let beside_config = config.map(|config| {
        config
            .parent()
            .unwrap_or_else(|| Path::new(""))
            .join(FILE_NAME)
    });
    [beside_config, dir.map(|dir| dir.join(FILE_NAME))]
        .into_iter()
        .flatten()
        .find(|path| path.is_file())
}

/// Reads the promotion file at `path`: its steps, each local file checked to be a regular
/// file under the file's folder and given as its real path.
pub fn load(path: &Path) -> Result<PromoteFile> {
    let shown = path.display().to_string();
    let text = crate::yaml::read_text(path, &shown, Input::Promotion)?;
    let mut file: PromoteFile = crate::yaml::parse(&text, &shown, Input::Promotion)?;
    let folder = path.parent().unwrap_or_else(|| Path::new("."));
    let folder = if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    };
    let boundary =
        Boundary::new(folder).map_err(|err| Error::read(Input::Promotion, &shown, err))?;
    for (index, step) in file.prepare.iter_mut().enumerate() {
        if let Step::LoadTable(load) = step {
            load.from_local = confined(&boundary, folder, &load.from_local).map_err(|why| {
                Error::invalid(
                    Input::Promotion,
                    &shown,
                    format!(
                        "prepare[{index}].load_table.from_local {}: {why}",
                        load.from_local.display()
                    ),
                )
            })?;
        }
    }
    Ok(file)
}

/// The real path of `path` (relative to `folder`) when it is a regular file under the
/// boundary; why not otherwise.
fn confined(
    boundary: &Boundary,
    folder: &Path,
    path: &Path,
) -> std::result::Result<PathBuf, String> {
    if path.is_absolute() {
        return Err("must be a path relative to the promotion file's folder".into());
    }
    let joined = folder.join(path);
    let real = boundary.resolve(&joined).map_err(|leaves| match leaves {
        Leaves::Unresolved(err) => format!("cannot be read ({err})"),
        Leaves::Outside => format!(
            "is {} that leads out of the promotion file's folder, which is all a promotion reads",
            shown_target(&joined)
        ),
    })?;
    if !real.is_file() {
        return Err("is not a regular file".into());
    }
    Ok(real)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn steps_are_read_with_their_files_under_the_promotion_files_folder() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::create_dir(dir.path().join("data")).expect("mkdir");
        std::fs::write(dir.path().join("data/orders.csv"), "a\n1\n").expect("write");
        let file = dir.path().join(FILE_NAME);
        std::fs::write(
            &file,
            "prepare:\n  - load_table: {lakehouse: LH, table: orders, from_local: data/orders.csv, mode: overwrite}\n  - job: {item: Load, job_type: RunNotebook}\n",
        )
        .expect("write");
        let read = load(&file).expect("read");
        let real = std::fs::canonicalize(dir.path().join("data/orders.csv")).expect("real");
        match &read.prepare[..] {
            [Step::LoadTable(load), Step::Job(job)] => {
                assert_eq!(load.from_local, real);
                assert_eq!(load.mode.as_deref(), Some("overwrite"));
                assert_eq!(job.job_type.as_deref(), Some("RunNotebook"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn files_outside_its_folder_unknown_keys_and_missing_files_are_refused() {
        let dir = tempfile::tempdir().expect("dir");
        let outside = tempfile::tempdir().expect("outside");
        std::fs::write(outside.path().join("secret"), "x").expect("write");
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("link"))
            .expect("link");
        let file = dir.path().join(FILE_NAME);
        let refused = |yaml: &str| {
            std::fs::write(&file, yaml).expect("write");
            load(&file).expect_err("refused").to_string()
        };
        let step = |from: &str| {
            format!("prepare:\n  - load_table: {{lakehouse: L, table: t, from_local: '{from}'}}\n")
        };
        assert!(refused(&step("link")).contains("a link to"), "a link out");
        assert!(refused(&step("../x")).contains("cannot be read"));
        let absolute = outside.path().join("secret");
        assert!(refused(&step(&absolute.to_string_lossy())).contains("relative"));
        assert!(refused(&step("missing.csv")).contains("cannot be read"));
        assert!(
            refused("prepare:\n  - copy: {}\n").contains("copy"),
            "unknown step"
        );
        assert!(
            refused("prepare: []\nextra: 1\n").contains("extra"),
            "unknown key"
        );
    }

    #[test]
    fn the_file_is_looked_for_beside_the_config_then_in_the_repository() {
        let dir = tempfile::tempdir().expect("dir");
        let (config_dir, repo) = (dir.path().join("cfg"), dir.path().join("repo"));
        std::fs::create_dir_all(&config_dir).expect("mkdir");
        std::fs::create_dir_all(&repo).expect("mkdir");
        let config = config_dir.join("config.yml");
        assert_eq!(find(None, Some(&config), Some(&repo)), None);
        std::fs::write(repo.join(FILE_NAME), "").expect("write");
        assert_eq!(
            find(None, Some(&config), Some(&repo)),
            Some(repo.join(FILE_NAME))
        );
        std::fs::write(config_dir.join(FILE_NAME), "").expect("write");
        assert_eq!(
            find(None, Some(&config), Some(&repo)),
            Some(config_dir.join(FILE_NAME))
        );
        let given = dir.path().join("other.yml");
        assert_eq!(find(Some(&given), Some(&config), None), Some(given.clone()));
    }
}
