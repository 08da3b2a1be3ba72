//! `mcp serve --files DIR`: the only local files a tool call may name. An assistant is
//! driven by text it reads (an item's description, an agent's answer), so a path it passes
//! is resolved under the roots the person starting the server named, and refused before
//! anything runs when it could leave them: `..`, an absolute path elsewhere, a symlink out.

use fabsh_client::commands::deploy;
use fabsh_client::commands::{Args, LocalPath};
use fabsh_client::error::{Error, Result};
use std::path::{Component, Path, PathBuf};

/// The folders tool calls may read and write under, canonical; the first is where a
/// relative path starts.
#[derive(Debug, Clone, Default)]
pub struct FileRoots {
    roots: Vec<PathBuf>,
}

impl FileRoots {
    /// The roots `--files` named, each an existing folder.
    pub fn new(named: &[String]) -> Result<FileRoots> {
        let roots = named
            .iter()
            .map(|dir| {
                let canonical = std::fs::canonicalize(dir).map_err(|err| {
                    Error::usage(format!("--files {dir:?}: no such folder")).with_cause(err)
                })?;
                if !canonical.is_dir() {
                    return Err(Error::usage(format!("--files {dir:?} is not a folder")));
                }
                Ok(canonical)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(FileRoots { roots })
    }

    /// True when the server was given no folder: no argument may name a file.
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// The path `text` (the argument `key`) names, checked for `how` it is used. A write may
    /// replace what is there only when `replace` (the call's `overwrite: true` on a server
    /// that allows writes).
    pub fn resolve(&self, key: &str, text: &str, how: LocalPath, replace: bool) -> Result<PathBuf> {
        let first = self.roots.first().ok_or_else(|| {
            Error::usage(format!(
                "argument `{key}` names a local file, and this server reaches none"
            ))
        })?;
        let given = Path::new(text);
        if given
            .components()
            .any(|part| matches!(part, Component::ParentDir))
        {
            return Err(self.outside(key, text, "it climbs with `..`"));
        }
        let joined = if given.is_absolute() {
            given.to_path_buf()
        } else {
            first.join(given)
        };
        match how {
            LocalPath::ReadFile | LocalPath::ReadDir => {
                let found = std::fs::canonicalize(&joined).map_err(|err| {
                    Error::usage(format!("argument `{key}`: cannot read {text:?}")).with_cause(err)
                })?;
                self.inside(key, text, &found)?;
                Ok(found)
            }
            LocalPath::WriteFile | LocalPath::WriteDir => {
                let (Some(parent), Some(name)) = (joined.parent(), joined.file_name()) else {
                    return Err(self.outside(key, text, "it names no file"));
                };
                let parent = std::fs::canonicalize(parent).map_err(|err| {
                    Error::usage(format!(
                        "argument `{key}`: the folder of {text:?} does not exist"
                    ))
                    .with_cause(err)
                })?;
                self.inside(key, text, &parent)?;
                let target = parent.join(name);
                self.replaceable(key, text, &target, how, replace)?;
                Ok(target)
            }
        }
    }

    /// The folder and file a deploy call's config names (`core.repository_directory`,
    /// `core.parameter`, relative to the config's folder), which the command reads next:
    /// under the roots too, checked before anything runs. A config that does not load is
    /// left to the command to refuse.
    pub fn check_config_paths(&self, args: &Args) -> Result<()> {
        let Some(config) = args.opt_str(deploy::CONFIG.long) else {
            return Ok(());
        };
        let Ok(settings) =
            fabsh_deploy::config::load(Path::new(config), args.opt_str(deploy::ENVIRONMENT.long))
        else {
            return Ok(());
        };
        let named = [
            ("core.repository_directory", settings.repository_directory),
            ("core.parameter", settings.parameter),
        ];
        for (key, path) in named {
            let Some(path) = path else { continue };
            let shown = format!("{key} {}", path.display());
            let found = std::fs::canonicalize(&path).map_err(|err| {
                Error::usage(format!("argument `config`: cannot read {shown}")).with_cause(err)
            })?;
            self.inside("config", &shown, &found)?;
        }
        Ok(())
    }

    /// Refuses to write over what exists at `target` unless `replace`, and refuses a
    /// symlink there outright (it may lead out of the roots).
    fn replaceable(
        &self,
        key: &str,
        text: &str,
        target: &Path,
        how: LocalPath,
        replace: bool,
    ) -> Result<()> {
        let Ok(meta) = std::fs::symlink_metadata(target) else {
            return Ok(());
        };
        if meta.file_type().is_symlink() {
            return Err(self.outside(key, text, "it is a symlink"));
        }
        let empty_dir = how == LocalPath::WriteDir
            && meta.is_dir()
            && std::fs::read_dir(target).is_ok_and(|mut entries| entries.next().is_none());
        if empty_dir || replace {
            return Ok(());
        }
        Err(Error::usage(format!(
            "argument `{key}`: {text:?} exists, and nothing is replaced without `overwrite: true`"
        ))
        .with_hint("nothing was written; name a new file, or pass overwrite: true on a server started with --allow-writes"))
    }

    fn inside(&self, key: &str, text: &str, found: &Path) -> Result<()> {
        if self.roots.iter().any(|root| found.starts_with(root)) {
            Ok(())
        } else {
            Err(self.outside(key, text, "it leads outside them"))
        }
    }

    fn outside(&self, key: &str, text: &str, why: &str) -> Error {
        let roots: Vec<String> = self
            .roots
            .iter()
            .map(|root| root.display().to_string())
            .collect();
        Error::usage(format!(
            "argument `{key}`: {text:?} is refused, as this server reaches only files under {}: {why}",
            roots.join(", ")
        ))
        .with_hint("nothing was read or sent; give a path inside those folders (a relative one starts at the first)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_under_the_roots() {
        let root = tempfile::tempdir().expect("temp dir");
        let outside = tempfile::tempdir().expect("temp dir");
        std::fs::write(root.path().join("in.json"), "[]").expect("write");
        std::fs::write(outside.path().join("secret.txt"), "s").expect("write");
        let roots = FileRoots::new(&[root.path().display().to_string()]).expect("roots");
        assert!(
            roots
                .resolve("f", "in.json", LocalPath::ReadFile, false)
                .is_ok()
        );
        let secret = outside.path().join("secret.txt").display().to_string();
        for text in ["../x", "a/../in.json", secret.as_str()] {
            assert!(
                roots
                    .resolve("f", text, LocalPath::ReadFile, false)
                    .is_err(),
                "{text}"
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.path(), root.path().join("link")).expect("link");
            assert!(
                roots
                    .resolve("f", "link/secret.txt", LocalPath::ReadFile, false)
                    .is_err()
            );
            assert!(
                roots
                    .resolve("f", "link/new.txt", LocalPath::WriteFile, false)
                    .is_err()
            );
        }
        assert!(
            roots
                .resolve("f", "in.json", LocalPath::WriteFile, false)
                .is_err()
        );
        assert!(
            roots
                .resolve("f", "in.json", LocalPath::WriteFile, true)
                .is_ok()
        );
        assert!(
            roots
                .resolve("f", "new.json", LocalPath::WriteFile, false)
                .is_ok()
        );
    }
}
