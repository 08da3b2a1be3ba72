//! Files only their owner may read (token cache, name cache, evaluation store, conversation
//! threads): the directory is created 0700, the file written beside its final name with mode
//! 0600 and renamed over it, so a reader never sees half a file and the file is private from
//! its first byte. One rule for all of them when they are read: a file or folder that other
//! users may read is refused, not used, with the command that makes it private.

use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Creates `dir` (and its parents) with mode 0700 if missing.
pub fn create_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Writes `bytes` to `path` privately and atomically.
pub fn write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    create_dir(dir)?;
    let temp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options.open(&temp).and_then(|mut out| {
        out.write_all(bytes)?;
        out.sync_all()
    });
    written
        .and_then(|()| std::fs::rename(&temp, path))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&temp);
        })
}

/// Refuses `what` (`the token cache`, `the evaluation store`...) when one of `paths` (its
/// files, and the folders fabsh made for them) lets group or others in; a missing path is
/// fine (it is made private when created). The hint's `chmod` names `fix`, or else the path
/// refused: a file gets `chmod 600`, a folder `chmod -R go-rwx`.
pub fn check_private(what: &str, paths: &[&Path], fix: Option<&Path>) -> Result<()> {
    for path in paths {
        if let Some(mode) = shared_mode(path)? {
            let fix = fix.unwrap_or(path);
            let shown = shell_word(&fix.display().to_string());
            let chmod = if fix.is_dir() {
                format!("chmod -R go-rwx {shown}")
            } else {
                format!("chmod 600 {shown}")
            };
            return Err(Error::usage(format!(
                "refusing {what} {}: its mode {mode:o} lets other users read it",
                path.display()
            ))
            .with_hint(format!("make it private with `{chmod}`")));
        }
    }
    Ok(())
}

/// The permission bits of `path` when group or others have some; none when it is private
/// or absent.
#[cfg(unix)]
fn shared_mode(path: &Path) -> Result<Option<u32>> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Ok(meta) => {
            let mode = meta.permissions().mode() & 0o777;
            Ok((mode & 0o077 != 0).then_some(mode))
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(Error::runtime(format!("cannot read {}", path.display())).with_cause(err)),
    }
}

#[cfg(not(unix))]
fn shared_mode(_path: &Path) -> Result<Option<u32>> {
    Ok(None)
}

/// `text` as one shell word: as is when nothing in it is special to the shell, else quoted.
pub fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
