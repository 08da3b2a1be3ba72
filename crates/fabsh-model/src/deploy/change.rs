//! What differs in one row of a plan, as a value: apply decides what to write from it, and
//! the plan's JSON (and a saved plan) carries it as the words a person reads
//! (`part notebook-content.py changed`, `folder / -> /a`), which parse back to the same value.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// One thing that differs between a repository item and the workspace's, or why an orphan
/// is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The description differs.
    Description,
    /// A definition part differs.
    Part { path: String, change: PartChange },
    /// The item is in another folder: `from` where it is, `to` where the repository puts it
    /// (paths `/a/b`, empty for the root).
    Folder { from: String, to: String },
    /// A shortcut of the lakehouse's `shortcuts.metadata.json` that it lacks (by name).
    ShortcutMissing(String),
    /// A shortcut the lakehouse has at the same place, but otherwise (by name).
    ShortcutDiffers(String),
    /// An environment's staged state is not published: never (None), or its last publish
    /// ended in this state.
    PublishPending(Option<String>),
    /// A semantic model is not bound to this connection (by id).
    Binding(String),
    /// An orphan `--delete-orphans` keeps, and why.
    Kept(Kept),
}

/// How a part differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartChange {
    Added,
    Removed,
    Changed,
}

/// Why an orphan is kept under `--delete-orphans`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// Its name matches config.yml's `unpublish.exclude_regex`.
    ExcludeRegex,
    /// config.yml's `unpublish.skip` is true for the environment.
    UnpublishSkip,
    /// A type that holds data, not opted in: by `--delete-type`, or by this feature flag
    /// when the type has one.
    Protected {
        item_type: String,
        feature: Option<String>,
    },
}

impl PartChange {
    fn word(self) -> &'static str {
        match self {
            PartChange::Added => "added",
            PartChange::Removed => "removed",
            PartChange::Changed => "changed",
        }
    }
}

/// A folder as a change shows it: the root is `/`.
fn shown_folder(path: &str) -> &str {
    if path.is_empty() { "/" } else { path }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Description => f.write_str("description"),
            Change::Part { path, change } => write!(f, "part {path} {}", change.word()),
            Change::Folder { from, to } => {
                write!(f, "folder {} -> {}", shown_folder(from), shown_folder(to))
            }
            Change::ShortcutMissing(name) => write!(f, "shortcut {name} missing"),
            Change::ShortcutDiffers(name) => write!(f, "shortcut {name} differs"),
            Change::PublishPending(None) => f.write_str("publish pending: never published"),
            Change::PublishPending(Some(state)) => {
                write!(f, "publish pending: the last publish is {state}")
            }
            Change::Binding(id) => write!(f, "binding to connection {id}"),
            Change::Kept(Kept::ExcludeRegex) => {
                f.write_str("kept: matches unpublish.exclude_regex")
            }
            Change::Kept(Kept::UnpublishSkip) => {
                f.write_str("kept: unpublish.skip is true for this environment")
            }
            Change::Kept(Kept::Protected { item_type, feature }) => {
                write!(
                    f,
                    "kept: a {item_type} holds data, deleted only with --delete-type {item_type}"
                )?;
                match feature {
                    Some(flag) => write!(f, " or config.yml's features {flag}"),
                    None => Ok(()),
                }
            }
        }
    }
}

/// Words that are not a change this version writes (a saved plan edited, or from another
/// version).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownChange(pub String);

impl fmt::Display for UnknownChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a change a plan writes: {:?}", self.0)
    }
}

impl std::error::Error for UnknownChange {}

impl FromStr for Change {
    type Err = UnknownChange;

    /// The inverse of `Display`, for a saved plan read back. A part's path or a shortcut's
    /// name may hold spaces, so each is what lies between the fixed words.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let unknown = || UnknownChange(text.to_string());
        let folder = |shown: &str| match shown {
            "/" => String::new(),
            path => path.to_string(),
        };
        if text == "description" {
            return Ok(Change::Description);
        }
        if let Some(rest) = text.strip_prefix("part ") {
            let (path, word) = rest.rsplit_once(' ').ok_or_else(unknown)?;
            let change = match word {
                "added" => PartChange::Added,
                "removed" => PartChange::Removed,
                "changed" => PartChange::Changed,
                _ => return Err(unknown()),
            };
            return Ok(Change::Part {
                path: path.to_string(),
                change,
            });
        }
        if let Some(rest) = text.strip_prefix("folder ") {
            let (from, to) = rest.split_once(" -> ").ok_or_else(unknown)?;
            return Ok(Change::Folder {
                from: folder(from),
                to: folder(to),
            });
        }
        if let Some(rest) = text.strip_prefix("shortcut ") {
            if let Some(name) = rest.strip_suffix(" missing") {
                return Ok(Change::ShortcutMissing(name.to_string()));
            }
            if let Some(name) = rest.strip_suffix(" differs") {
                return Ok(Change::ShortcutDiffers(name.to_string()));
            }
            return Err(unknown());
        }
        if text == "publish pending: never published" {
            return Ok(Change::PublishPending(None));
        }
        if let Some(state) = text.strip_prefix("publish pending: the last publish is ") {
            return Ok(Change::PublishPending(Some(state.to_string())));
        }
        if let Some(id) = text.strip_prefix("binding to connection ") {
            return Ok(Change::Binding(id.to_string()));
        }
        match text {
            "kept: matches unpublish.exclude_regex" => return Ok(Change::Kept(Kept::ExcludeRegex)),
            "kept: unpublish.skip is true for this environment" => {
                return Ok(Change::Kept(Kept::UnpublishSkip));
            }
            _ => {}
        }
        let rest = text.strip_prefix("kept: a ").ok_or_else(unknown)?;
        let (item_type, how) = rest
            .split_once(" holds data, deleted only with --delete-type ")
            .ok_or_else(unknown)?;
        let feature = match how.split_once(" or config.yml's features ") {
            Some((named, flag)) if named == item_type => Some(flag.to_string()),
            None if how == item_type => None,
            _ => return Err(unknown()),
        };
        Ok(Change::Kept(Kept::Protected {
            item_type: item_type.to_string(),
            feature,
        }))
    }
}

impl Serialize for Change {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Change {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(path: &str, change: PartChange) -> Change {
        Change::Part {
            path: path.into(),
            change,
        }
    }

    /// Each change and the words the plan's JSON has always shown for it.
    fn cases() -> Vec<(Change, &'static str)> {
        vec![
            (Change::Description, "description"),
            (
                part("notebook-content.py", PartChange::Changed),
                "part notebook-content.py changed",
            ),
            (
                part("a b/c d.json", PartChange::Added),
                "part a b/c d.json added",
            ),
            (
                part(".schedules", PartChange::Removed),
                "part .schedules removed",
            ),
            (
                Change::Folder {
                    from: String::new(),
                    to: "/a/b".into(),
                },
                "folder / -> /a/b",
            ),
            (
                Change::Folder {
                    from: "/x".into(),
                    to: String::new(),
                },
                "folder /x -> /",
            ),
            (
                Change::ShortcutMissing("my shortcut".into()),
                "shortcut my shortcut missing",
            ),
            (Change::ShortcutDiffers("s".into()), "shortcut s differs"),
            (
                Change::PublishPending(None),
                "publish pending: never published",
            ),
            (
                Change::PublishPending(Some("Failed".into())),
                "publish pending: the last publish is Failed",
            ),
            (Change::Binding("c-1".into()), "binding to connection c-1"),
            (
                Change::Kept(Kept::ExcludeRegex),
                "kept: matches unpublish.exclude_regex",
            ),
            (
                Change::Kept(Kept::UnpublishSkip),
                "kept: unpublish.skip is true for this environment",
            ),
            (
                Change::Kept(Kept::Protected {
                    item_type: "Lakehouse".into(),
                    feature: Some("enable_lakehouse_unpublish".into()),
                }),
                "kept: a Lakehouse holds data, deleted only with --delete-type Lakehouse or config.yml's features enable_lakehouse_unpublish",
            ),
            (
                Change::Kept(Kept::Protected {
                    item_type: "MLModel".into(),
                    feature: None,
                }),
                "kept: a MLModel holds data, deleted only with --delete-type MLModel",
            ),
        ]
    }

    #[test]
    fn each_change_is_written_as_the_plan_has_always_shown_it_and_read_back() {
        for (change, words) in cases() {
            assert_eq!(change.to_string(), words);
            assert_eq!(
                serde_json::to_value(&change).expect("serialises"),
                serde_json::Value::String(words.into())
            );
            assert_eq!(words.parse::<Change>(), Ok(change), "{words}");
        }
    }

    #[test]
    fn words_no_plan_writes_are_refused() {
        for words in [
            "",
            "part x",
            "part x edited",
            "folder /a",
            "shortcut s gone",
            "kept: because",
            "kept: a Lakehouse holds data, deleted only with --delete-type Warehouse",
        ] {
            assert!(words.parse::<Change>().is_err(), "{words:?}");
        }
    }
}
