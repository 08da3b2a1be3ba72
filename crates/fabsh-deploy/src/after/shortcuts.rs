//! A lakehouse's shortcuts: which of its file's it lacks, and how one is created.

use fabsh_model::deploy::{Change, Shortcut};
use serde_json::{Value, json};

/// Where a shortcut is: its name and its path (without edge slashes, in any case).
fn place(shortcut: &Shortcut) -> (String, String) {
    (
        shortcut.name.clone(),
        shortcut.path.trim_matches('/').to_lowercase(),
    )
}

/// The same shortcut: name and place, and every field of the repository's target that the
/// service reports back (ids compared without case, paths without edge slashes). The
/// service adds fields of its own (`type`, a connection's), which do not count.
fn same_shortcut(wanted: &Shortcut, existing: &Shortcut) -> bool {
    if place(wanted) != place(existing) {
        return false;
    }
    let Some(kinds) = wanted.target.as_object() else {
        return wanted.target == existing.target;
    };
    kinds
        .iter()
        .filter(|(kind, _)| kind.as_str() != "type")
        .all(|(kind, fields)| {
            let Some(fields) = fields.as_object() else {
                return existing.target[kind] == *fields;
            };
            fields.iter().all(
                |(field, value)| match (value, existing.target[kind].get(field)) {
                    (_, None) => true,
                    (Value::String(a), Some(Value::String(b))) => a
                        .trim_matches('/')
                        .eq_ignore_ascii_case(b.trim_matches('/')),
                    (a, Some(b)) => a == b,
                },
            )
        })
}

/// The shortcuts of `wanted` the lakehouse (holding `existing`) does not have the same:
/// those apply creates. Shortcuts it has beyond the file's are left in place.
pub fn missing_shortcuts<'a>(wanted: &'a [Shortcut], existing: &[Shortcut]) -> Vec<&'a Shortcut> {
    wanted
        .iter()
        .filter(|w| !existing.iter().any(|e| same_shortcut(w, e)))
        .collect()
}

/// The changes a plan shows for the shortcuts apply would create: one the lakehouse has
/// at its place differs, else it is missing.
pub fn shortcut_drift(wanted: &[Shortcut], existing: &[Shortcut]) -> Vec<Change> {
    missing_shortcuts(wanted, existing)
        .into_iter()
        .map(|w| {
            if existing.iter().any(|e| place(e) == place(w)) {
                Change::ShortcutDiffers(w.name.clone())
            } else {
                Change::ShortcutMissing(w.name.clone())
            }
        })
        .collect()
}

/// The body that creates `shortcut`: its target without `type`, which is what the service
/// reports, not part of a creatable target.
pub fn shortcut_body(shortcut: &Shortcut) -> Value {
    let mut target = shortcut.target.clone();
    if let Some(object) = target.as_object_mut() {
        object.remove("type");
    }
    json!({"path": shortcut.path, "name": shortcut.name, "target": target})
}
