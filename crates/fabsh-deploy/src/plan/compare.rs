//! Comparing an item's parts with the deployed ones, and the diff a plan shows of a part.

use crate::bounded::{self, Format, PART_BYTES};
use crate::repo::RepoPart;
use crate::schedules;
use fabsh_model::definition::platform;
use fabsh_model::deploy::{PartChange, PartDiff};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// How long one part's diff may search for the smallest set of changes; past it the diff is
/// still right, only larger (two big parts with little in common would take minutes).
const DIFF_TIME: Duration = Duration::from_secs(2);

/// A part's content for comparison: JSON parsed (key order and layout do not count), text
/// with one kind of line end and no byte-order mark or trailing blank lines, else bytes.
#[derive(Debug, PartialEq)]
enum Normal {
    Json(Value),
    Text(String),
    Bytes(Vec<u8>),
}

fn normalise(bytes: &[u8]) -> Normal {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Normal::Bytes(bytes.to_vec());
    };
    let text = text.trim_start_matches('\u{feff}');
    let trimmed = text.trim_start();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && let Ok(doc) = serde_json::from_str::<Value>(text)
    {
        return Normal::Json(doc);
    }
    Normal::Text(text.replace("\r\n", "\n").trim_end().to_string())
}

/// The text a diff shows of a part: indented JSON (within a part's size, which indentation
/// of a deeply nested document could pass many times over), or the text.
fn shown(normal: &Normal) -> Option<String> {
    match normal {
        Normal::Json(doc) => Some(
            bounded::write(doc, Format::Json, PART_BYTES).unwrap_or_else(|_| {
                "(not shown: larger than a part may be once indented)".to_string()
            }),
        ),
        Normal::Text(text) => Some(text.clone()),
        Normal::Bytes(_) => None,
    }
}

/// A part as compared: schedules are listed by the service in a form of its own, so both
/// sides are compared in one form.
fn normal(path: &str, bytes: &[u8]) -> Normal {
    match path {
        schedules::PART => normalise(&schedules::canonical(bytes)),
        _ => normalise(bytes),
    }
}

/// The parts that differ, and how; `.platform` is compared as metadata, not here.
pub fn compare_parts(deployed: &[RepoPart], ours: &[RepoPart]) -> Vec<(String, PartChange)> {
    let theirs: BTreeMap<&str, &[u8]> = deployed
        .iter()
        .filter(|p| p.path != platform::PATH)
        .map(|p| (p.path.as_str(), p.bytes.as_slice()))
        .collect();
    let mine: BTreeMap<&str, &[u8]> = ours
        .iter()
        .map(|p| (p.path.as_str(), p.bytes.as_slice()))
        .collect();
    let paths: BTreeSet<&str> = theirs.keys().chain(mine.keys()).copied().collect();
    let mut out = Vec::new();
    for path in paths {
        let (old, new) = (
            theirs.get(path).map(|b| normal(path, b)),
            mine.get(path).map(|b| normal(path, b)),
        );
        let change = match (&old, &new) {
            (None, Some(_)) => PartChange::Added,
            (Some(_), None) => PartChange::Removed,
            (Some(a), Some(b)) if a != b => PartChange::Changed,
            _ => continue,
        };
        out.push((path.to_string(), change));
    }
    out
}

/// The unified diff of part `path` from its deployed bytes to ours (either may be missing);
/// empty for a binary part.
pub fn part_diff(path: &str, deployed: Option<&[u8]>, ours: Option<&[u8]>) -> PartDiff {
    let (old, new) = (
        deployed.map(|b| normal(path, b)),
        ours.map(|b| normal(path, b)),
    );
    let binary = matches!(old, Some(Normal::Bytes(_))) || matches!(new, Some(Normal::Bytes(_)));
    let diff = if binary {
        String::new()
    } else {
        // A part that is absent on one side diffs against nothing.
        let old_text = old.as_ref().and_then(shown).unwrap_or_default();
        let new_text = new.as_ref().and_then(shown).unwrap_or_default();
        similar::TextDiff::configure()
            .timeout(DIFF_TIME)
            .diff_lines(&old_text, &new_text)
            .unified_diff()
            .header(&format!("deployed/{path}"), &format!("repository/{path}"))
            .to_string()
    };
    PartDiff {
        path: path.to_string(),
        diff,
    }
}
