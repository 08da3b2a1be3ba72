//! An item's `.schedules` (Fabric's git layout for the job scheduler: `{"schedules": [{enabled,
//! jobType, configuration}]}`). Apply deploys it through the job scheduler's routes, not as a
//! definition part, so a plan compares it with the item's listed schedules: both sides are
//! written in one canonical form first (no `$schema`, date-times without a `Z` or zero
//! fractions, which the service adds or drops), so only a real difference shows.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The part's path in an item folder.
pub const PART: &str = ".schedules";

/// One schedule as the file holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub job_type: String,
    pub enabled: bool,
    pub configuration: Value,
}

#[derive(Deserialize)]
struct File {
    #[serde(default)]
    schedules: Vec<Entry>,
}

/// The entries of a `.schedules` part, their configurations in canonical form.
pub fn entries(bytes: &[u8]) -> Result<Vec<Entry>, String> {
    let file: File = serde_json::from_slice(bytes)
        .map_err(|err| format!("{PART} is not a list of schedules: {err}"))?;
    Ok(file
        .schedules
        .into_iter()
        .map(|mut entry| {
            entry.configuration = canonical_configuration(entry.configuration);
            entry
        })
        .collect())
}

/// A `.schedules` document of `entries` (in canonical form).
pub fn document(entries: &[Entry]) -> Vec<u8> {
    let entries: Vec<Entry> = entries
        .iter()
        .cloned()
        .map(|mut entry| {
            entry.configuration = canonical_configuration(entry.configuration);
            entry
        })
        .collect();
    // A JSON value prints itself (`{:#}`: pretty, as `to_vec_pretty` writes it).
    format!("{:#}", serde_json::json!({ "schedules": entries })).into_bytes()
}

/// The part in canonical form; unparseable bytes as they are.
pub fn canonical(bytes: &[u8]) -> Vec<u8> {
    match entries(bytes) {
        Ok(entries) => document(&entries),
        Err(_) => bytes.to_vec(),
    }
}

/// Whether a deployed schedule (`enabled` and `configuration` as listed) is the entry.
pub fn same(entry: &Entry, enabled: bool, configuration: &Value) -> bool {
    entry.enabled == enabled
        && canonical_configuration(entry.configuration.clone())
            == canonical_configuration(configuration.clone())
}

/// The job types `entries` name, each once, in order.
pub fn job_types(entries: &[Entry]) -> Vec<String> {
    let mut types: Vec<String> = entries.iter().map(|e| e.job_type.clone()).collect();
    types.sort();
    types.dedup();
    types
}

/// What apply does with one schedule of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// The item has it the same: nothing.
    Same,
    /// The item's schedule of this id differs: updated to the file's.
    Update(&'a str),
    /// The item has no schedule in its place: created.
    Create,
}

/// Each wanted schedule (grouped by job type, in [`job_types`] order) and what apply does
/// with it: per job type, the file's n-th schedule is the item's n-th as the service lists
/// them (`existing`, with their ids), since a schedule has no name to pair it by; those
/// beyond the item's are created, and the item's beyond the file's are left in place.
pub fn steps<'a>(
    wanted: &'a [Entry],
    existing: &'a [(String, Entry)],
) -> Vec<(&'a Entry, Step<'a>)> {
    let mut out = Vec::new();
    for job_type in job_types(wanted) {
        let mut theirs = existing.iter().filter(|(_, e)| e.job_type == job_type);
        for entry in wanted.iter().filter(|e| e.job_type == job_type) {
            let step = match theirs.next() {
                Some((_, e)) if same(entry, e.enabled, &e.configuration) => Step::Same,
                Some((id, _)) => Step::Update(id),
                None => Step::Create,
            };
            out.push((entry, step));
        }
    }
    out
}

/// What `steps` did, as notes on the item's row (none when nothing).
pub fn notes(steps: &[(&Entry, Step<'_>)]) -> Vec<String> {
    let count = |f: fn(&Step<'_>) -> bool| steps.iter().filter(|(_, s)| f(s)).count();
    let made = count(|s| matches!(s, Step::Create));
    let changed = count(|s| matches!(s, Step::Update(_)));
    let mut notes = Vec::new();
    if made > 0 {
        notes.push(format!("{made} schedule(s) created"));
    }
    if changed > 0 {
        notes.push(format!("{changed} schedule(s) updated"));
    }
    notes
}

fn canonical_configuration(configuration: Value) -> Value {
    let Value::Object(fields) = configuration else {
        return configuration;
    };
    let fields: Map<String, Value> = fields
        .into_iter()
        .map(|(key, value)| match value {
            Value::String(text) if key.ends_with("DateTime") => {
                (key, Value::String(canonical_date_time(&text)))
            }
            other => (key, other),
        })
        .collect();
    Value::Object(fields)
}

/// `2025-07-01T12:00:00`, whether written with a `Z` or a zero fraction or not.
fn canonical_date_time(text: &str) -> String {
    let bare = text.trim().trim_end_matches('Z');
    match bare.split_once('.') {
        Some((whole, fraction)) if fraction.chars().all(|c| c == '0') => whole.to_string(),
        _ => bare.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_schedule_written_two_ways_is_the_same() {
        let file = br#"{"$schema": "x", "schedules": [{"enabled": true, "jobType": "Execute",
            "configuration": {"type": "Cron", "startDateTime": "2025-07-01T12:00:00",
            "endDateTime": "2029-07-01T12:00:00", "localTimeZoneId": "UTC", "interval": 15}}]}"#;
        let listed = serde_json::json!({"type": "Cron", "startDateTime": "2025-07-01T12:00:00.000Z",
            "endDateTime": "2029-07-01T12:00:00Z", "localTimeZoneId": "UTC", "interval": 15});
        let wanted = entries(file).expect("entries");
        assert!(same(&wanted[0], true, &listed));
        assert!(!same(&wanted[0], false, &listed));
        let mut other = listed.clone();
        other["interval"] = 30.into();
        assert!(!same(&wanted[0], true, &other));
        let deployed = vec![Entry {
            job_type: "Execute".into(),
            enabled: true,
            configuration: listed,
        }];
        assert_eq!(canonical(file), document(&deployed));
    }

    fn entry(job_type: &str, interval: u32) -> Entry {
        Entry {
            job_type: job_type.into(),
            enabled: true,
            configuration: serde_json::json!({"type": "Cron", "interval": interval}),
        }
    }

    #[test]
    fn the_nth_schedule_of_a_job_type_pairs_with_the_nth_listed() {
        let wanted = [
            entry("Execute", 15),
            entry("Execute", 30),
            entry("Other", 5),
        ];
        let existing = [
            ("e1".to_string(), entry("Execute", 15)),
            ("e2".to_string(), entry("Execute", 60)),
            // Beyond the file's: left in place, no step.
            ("e3".to_string(), entry("Execute", 90)),
        ];
        let paired = steps(&wanted, &existing);
        let got: Vec<(&str, u64, Step<'_>)> = paired
            .iter()
            .map(|(e, s)| {
                (
                    e.job_type.as_str(),
                    e.configuration["interval"].as_u64().unwrap_or(0),
                    *s,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("Execute", 15, Step::Same),
                ("Execute", 30, Step::Update("e2")),
                ("Other", 5, Step::Create),
            ]
        );
        assert_eq!(
            notes(&paired),
            ["1 schedule(s) created", "1 schedule(s) updated"]
        );
        let none: [(String, Entry); 0] = [];
        assert_eq!(notes(&steps(&[], &none)), Vec::<String>::new());
    }
}
