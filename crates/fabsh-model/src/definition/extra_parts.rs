//! Files in a definition folder that the user did not mean as parts: paths the item type's
//! definition format does not use, and — for any type — editor backups and hidden files.
//! `--dir` refuses them unless `--allow-extra`, so notes and `*.swp` files are not uploaded
//! without a word.

use super::platform;
use crate::item_types;

/// Suffixes of files editors and tools leave behind (`notebook-content.py~`, `x.swp`).
const LEFTOVER_SUFFIXES: &[&str] = &["~", ".swp", ".swo", ".swx", ".bak", ".orig", ".rej", ".tmp"];

/// Files operating systems leave in folders.
const LEFTOVER_NAMES: &[&str] = &["Thumbs.db", "desktop.ini", ".DS_Store"];

/// The paths of `paths` that are not parts of an `item_type` definition, in their order.
/// With a type whose layout is known, that is every path outside the layout; otherwise (an
/// unknown type, or none) only hidden files and leftovers are, since any other name may be a
/// part. `.platform` is always a part.
pub fn extra_parts<'a>(paths: &[&'a str], item_type: Option<&str>) -> Vec<&'a str> {
    let rules = item_type
        .and_then(item_types::find)
        .and_then(|known| known.parts);
    paths
        .iter()
        .copied()
        .filter(|path| *path != platform::PATH)
        .filter(|path| {
            is_leftover(path)
                || match rules {
                    Some(rules) => !rules.is_canonical(path),
                    None => is_hidden(path),
                }
        })
        .collect()
}

/// A backup, swap or system file, whatever the type's layout says.
fn is_leftover(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    LEFTOVER_NAMES.contains(&name)
        || LEFTOVER_SUFFIXES
            .iter()
            .any(|suffix| name.ends_with(suffix))
        || (name.len() > 1 && name.starts_with('#') && name.ends_with('#'))
}

/// A file or folder whose name starts with a dot (`.git/config`, `.notes`).
fn is_hidden(path: &str) -> bool {
    path.split('/').any(|segment| segment.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::extra_parts;

    #[test]
    fn a_known_layout_keeps_its_parts_and_refuses_the_rest() {
        let paths = [
            "notebook-content.py",
            ".platform",
            "notes.txt",
            "notebook-content.py~",
            ".notebook-content.py.swp",
        ];
        assert_eq!(
            extra_parts(&paths, Some("notebook")),
            [
                "notes.txt",
                "notebook-content.py~",
                ".notebook-content.py.swp"
            ]
        );
    }

    #[test]
    fn hidden_folders_a_layout_names_are_parts() {
        let paths = [
            ".pbi/localSettings.json",
            "definition.pbism",
            "model.bim.bak",
        ];
        assert_eq!(
            extra_parts(&paths, Some("SemanticModel")),
            ["model.bim.bak"]
        );
    }

    #[test]
    fn without_a_layout_only_hidden_files_and_leftovers_are_extra() {
        let paths = [
            "EventhouseProperties.json",
            ".git/config",
            "#draft.kql#",
            "Thumbs.db",
            ".platform",
        ];
        assert_eq!(
            extra_parts(&paths, Some("Eventhouse")),
            [".git/config", "#draft.kql#", "Thumbs.db"]
        );
        assert_eq!(
            extra_parts(&paths, None),
            [".git/config", "#draft.kql#", "Thumbs.db"]
        );
    }
}
