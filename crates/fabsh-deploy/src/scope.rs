//! Which of the repository's items a run deploys: fabric-cicd's scope filters (item types in
//! scope, items to include, a name pattern, a folder pattern), given as flags or read from
//! config.yml. The items left out stay known: a reference to one is to the target
//! workspace's item of its name, and that item is no orphan.

use crate::config::Settings;
use crate::error::{Error, Input, Result};
use crate::plan::warning;
use crate::repo::RepoItem;
use fabsh_model::deploy::PlanProblem;
use fabsh_model::item_types;
use regex::Regex;

/// The scope filters given as flags. `types` and `items` replace config.yml's
/// `core.item_types_in_scope` and `publish.items_to_include`; `exclude` applies besides its
/// `publish.exclude_regex` and `publish.folder_exclude_regex`.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// The item types deployed (`--types`).
    pub types: Option<Vec<String>>,
    /// The items deployed (`--items`): `Name.Type`, compared in any case as fabric-cicd
    /// compares them, or a display name.
    pub items: Option<Vec<String>>,
    /// A pattern (`--exclude`): an item whose `Name.Type` it finds is not deployed.
    pub exclude: Option<String>,
}

/// A repository item the scope leaves out.
#[derive(Debug, Clone)]
pub struct LeftOut {
    pub item: RepoItem,
    /// Whether its type is out of scope. fabric-cicd leaves a reference to such an item as
    /// the repository writes it (its items of other types are not its concern); one to an
    /// item of a type in scope, left out by a selective filter, must reach a deployed item.
    pub by_type: bool,
}

/// The filters in effect: the flags, else config.yml's.
struct Scope<'a> {
    types: Option<(&'a [String], &'static str)>,
    items: Option<(&'a [String], &'static str)>,
    exclude: Option<Regex>,
    settings: &'a Settings,
}

/// Why an item is left out.
enum Reason {
    /// Its type is out of scope.
    Type,
    /// An items list does not name it.
    Unlisted,
    /// A pattern excluded it: the plan says which.
    Excluded(String),
}

/// Whether the entry of an items list names `item`.
fn names(entry: &str, item: &RepoItem) -> bool {
    entry.trim().eq_ignore_ascii_case(&item.key()) || entry.trim() == item.display_name
}

/// Whether `pattern` finds the folder `/a/b` or one of its parents, as fabric-cicd walks
/// up an item's folders (an item at the root is in no folder it could exclude).
fn folder_excluded(pattern: &Regex, folder: &str) -> bool {
    let mut path = folder;
    while !path.is_empty() {
        if pattern.is_match(path) {
            return true;
        }
        path = path.rsplit_once('/').map_or("", |(parent, _)| parent);
    }
    false
}

impl Scope<'_> {
    /// Why `item` is left out, or None when it is deployed.
    fn leaves_out(&self, item: &RepoItem) -> Option<Reason> {
        if let Some((types, _)) = self.types
            && !types.contains(&item.item_type)
        {
            return Some(Reason::Type);
        }
        if let Some((items, _)) = self.items
            && !items.iter().any(|entry| names(entry, item))
        {
            return Some(Reason::Unlisted);
        }
        let said = |what: &str| Some(Reason::Excluded(format!("matched {what}: not deployed")));
        if let Some(pattern) = &self.settings.publish_exclude
            && pattern.is_match(&item.display_name)
        {
            return said("publish.exclude_regex");
        }
        if let Some(pattern) = &self.exclude
            && pattern.is_match(&item.key())
        {
            return said("--exclude");
        }
        if let Some(pattern) = &self.settings.publish_folder_exclude
            && folder_excluded(pattern, &item.folder)
        {
            return Some(Reason::Excluded(format!(
                "its folder {} matched publish.folder_exclude_regex: not deployed",
                item.folder
            )));
        }
        None
    }

    /// The entries of the lists that name nothing fabsh could deploy: a type it does not
    /// know, an item the repository does not hold.
    fn unmatched(&self, all: &[RepoItem]) -> Vec<PlanProblem> {
        // Said of the flag, or of config.yml naming its key.
        let said = |source: &str, code: &str, rest: String| {
            let (subject, key) = if source.starts_with("--") {
                (source, String::new())
            } else {
                ("config.yml", format!("{source} "))
            };
            warning(Some(subject.into()), code, format!("{key}{rest}"))
        };
        let mut problems = Vec::new();
        if let Some((types, source)) = self.types {
            for name in types.iter().filter(|t| item_types::find(t).is_none()) {
                let rest = format!("names {name:?}, which is not an item type fabsh knows");
                problems.push(said(source, "UnknownItemType", rest));
            }
        }
        if let Some((items, source)) = self.items {
            for entry in items.iter().filter(|e| !all.iter().any(|i| names(e, i))) {
                let rest = format!("names {entry:?}, which is no item of the repository");
                problems.push(said(source, "UnmatchedItemFilter", rest));
            }
        }
        problems
    }
}

/// Splits `all` (in order) into the items deployed and the items left out, after putting in
/// `settings` the item types in scope the flags give (orphans are looked for among those);
/// notes what is worth hearing into `notes`. A pattern that does not parse is refused.
pub(crate) fn partition(
    all: Vec<RepoItem>,
    selection: &Selection,
    settings: &mut Settings,
    notes: &mut Vec<PlanProblem>,
) -> Result<(Vec<RepoItem>, Vec<LeftOut>)> {
    let exclude = match &selection.exclude {
        Some(text) => Some(
            Regex::new(text)
                .map_err(|err| Error::invalid(Input::Scope, "--exclude", err.to_string()))?,
        ),
        None => None,
    };
    let types_source = if selection.types.is_some() {
        "--types"
    } else {
        "core.item_types_in_scope"
    };
    if selection.types.is_some() {
        settings.item_types_in_scope.clone_from(&selection.types);
    }
    let settings = &*settings;
    let (items, items_source) = match &selection.items {
        Some(items) => (Some(items), "--items"),
        None => (settings.publish_items.as_ref(), "publish.items_to_include"),
    };
    let scope = Scope {
        types: settings
            .item_types_in_scope
            .as_deref()
            .map(|t| (t, types_source)),
        items: items.map(|i| (i.as_slice(), items_source)),
        exclude,
        settings,
    };
    notes.extend(scope.unmatched(&all));
    let mut deployed = Vec::new();
    let mut outside = Vec::new();
    for item in all {
        let by_type = match scope.leaves_out(&item) {
            None => {
                deployed.push(item);
                continue;
            }
            Some(Reason::Excluded(message)) => {
                notes.push(warning(Some(item.key()), "Excluded", message));
                false
            }
            Some(Reason::Unlisted) => false,
            Some(Reason::Type) => true,
        };
        outside.push(LeftOut { item, by_type });
    }
    Ok((deployed, outside))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_pattern_excludes_the_folder_and_everything_below_it() {
        let pattern = Regex::new("^/legacy$").expect("regex");
        assert!(folder_excluded(&pattern, "/legacy"));
        assert!(folder_excluded(&pattern, "/legacy/old/older"));
        assert!(!folder_excluded(&pattern, "/legacy2"));
        assert!(!folder_excluded(&pattern, ""));
    }
}
