//! A folder that reading stays under: a path is resolved to its real path (every link
//! followed) and refused when that leaves the folder's own real path, so a link in a
//! repository cannot hand deploy a file from elsewhere (`/etc/passwd`, a secret, a device).

use std::path::{Path, PathBuf};

/// A folder's real path.
#[derive(Debug, Clone)]
pub(crate) struct Boundary {
    real: PathBuf,
}

/// Why a path does not resolve inside a boundary.
#[derive(Debug)]
pub(crate) enum Leaves {
    /// It cannot be resolved (missing, a link to nothing, no permission).
    Unresolved(std::io::Error),
    /// It resolves outside.
    Outside,
}

impl Boundary {
    /// The boundary of the folder `dir` (links in its own path followed).
    pub(crate) fn new(dir: &Path) -> std::io::Result<Boundary> {
        Ok(Boundary {
            real: std::fs::canonicalize(dir)?,
        })
    }

    /// The folder's real path.
    pub(crate) fn real(&self) -> &Path {
        &self.real
    }

    /// Whether the real path `real` is the folder or under it.
    pub(crate) fn holds(&self, real: &Path) -> bool {
        real.starts_with(&self.real)
    }

    /// The real path `path` leads to, when it is under the folder.
    pub(crate) fn resolve(&self, path: &Path) -> Result<PathBuf, Leaves> {
        let real = std::fs::canonicalize(path).map_err(Leaves::Unresolved)?;
        if self.holds(&real) {
            Ok(real)
        } else {
            Err(Leaves::Outside)
        }
    }
}

/// How a refused path shows in a message: the link's own text when it is a link (what the
/// repository says, not where it leads on this machine).
pub(crate) fn shown_target(path: &Path) -> String {
    match std::fs::read_link(path) {
        Ok(target) => format!("a link to {}", target.display()),
        Err(_) => "a path".to_string(),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn links_resolve_inside_or_are_refused() {
        let dir = tempfile::tempdir().expect("temp dir");
        let outside = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("in.txt"), "in").expect("write");
        std::fs::write(outside.path().join("out.txt"), "out").expect("write");
        let link = |target: &Path, name: &str| {
            std::os::unix::fs::symlink(target, dir.path().join(name)).expect("link");
        };
        link(&dir.path().join("in.txt"), "inner");
        link(&outside.path().join("out.txt"), "outer");
        link(&dir.path().join("missing"), "dangling");
        let boundary = Boundary::new(dir.path()).expect("boundary");
        let inner = boundary.resolve(&dir.path().join("inner")).expect("inside");
        assert!(inner.ends_with("in.txt"));
        assert!(matches!(
            boundary.resolve(&dir.path().join("outer")),
            Err(Leaves::Outside)
        ));
        assert!(matches!(
            boundary.resolve(&dir.path().join("dangling")),
            Err(Leaves::Unresolved(_))
        ));
        assert!(shown_target(&dir.path().join("outer")).ends_with("out.txt"));
    }
}
