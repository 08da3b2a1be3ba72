//! Part paths: relative, `/`-separated, and never able to leave the item's folder. The same
//! rule guards what the client writes to disk, what it reads back, and what local Fabric
//! stores.

use std::path::{Path, PathBuf};

/// Why `path` is not a safe part path, or `None` when it is.
pub fn problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("the path is empty");
    }
    if path.chars().any(char::is_control) {
        return Some("the path contains control characters");
    }
    if path.starts_with('/') {
        return Some("absolute paths are not allowed");
    }
    if path.contains('\\') {
        return Some("backslashes are not allowed; separate folders with /");
    }
    if has_encoded_dot_or_slash(path) {
        return Some("encoded dots and slashes (%2e, %2f, %5c) are not allowed");
    }
    let first = path.split_once('/').map_or(path, |(first, _)| first);
    if first.len() >= 2 && first.as_bytes()[1] == b':' && first.as_bytes()[0].is_ascii_alphabetic()
    {
        return Some("drive letters are not allowed");
    }
    for segment in path.split('/') {
        match segment {
            "" => return Some("empty folder names (`//` or a trailing `/`) are not allowed"),
            "." | ".." => return Some("`.` and `..` are not allowed"),
            _ => {}
        }
    }
    None
}

/// True when `text` carries a percent-encoded `.`, `/` or `\\`: a service that decodes it
/// would see a path other than the one checked (`%2e%2e/` climbs), so such a path is refused
/// outright rather than decoded.
pub fn has_encoded_dot_or_slash(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    ["%2e", "%2f", "%5c"]
        .iter()
        .any(|code| lower.contains(code))
}

/// Where part `path` goes under `root`, refused when it would land anywhere else.
pub fn under(root: &Path, path: &str) -> Result<PathBuf, String> {
    if let Some(problem) = problem(path) {
        return Err(format!("part path {path:?} refused: {problem}"));
    }
    Ok(path
        .split('/')
        .fold(root.to_path_buf(), |dir, segment| dir.join(segment)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_inside_the_item_are_fine() {
        for path in [
            ".platform",
            "notebook-content.py",
            "definition/pages/a b/page.json",
        ] {
            assert_eq!(problem(path), None, "{path}");
        }
    }

    #[test]
    fn paths_that_could_escape_are_refused() {
        for path in [
            "",
            "../x",
            "a/../../x",
            "./x",
            "/etc/passwd",
            "C:/Windows/x",
            "c:x",
            "a\\b",
            "a//b",
            "a/",
            "a\u{0}b",
            "%2e%2e/notebook-content.py",
            "%2E%2E/x",
            ".%2e/x",
            "a%2fb",
        ] {
            assert!(problem(path).is_some(), "{path:?} should be refused");
        }
    }

    #[test]
    fn under_joins_segments_below_the_root() {
        let root = Path::new("/tmp/out");
        assert_eq!(
            under(root, "definition/model.tmdl").expect("safe"),
            Path::new("/tmp/out/definition/model.tmdl")
        );
        assert!(under(root, "../out2/x").is_err());
    }
}
