//! Two recorded evaluation runs side by side, question by question: what newly fails, what
//! newly passes, what is flaky (different verdicts across the repeats of a run) and what is
//! unchanged, with the pass-rate and p50 latency deltas and whether the agent's published
//! configuration changed in between. `evaluate --fail-on-regression` uses the same verdicts.

use serde_json::{Value, json};
use std::collections::BTreeMap;

/// How a question fared in one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every repeat graded yes.
    Pass,
    /// No repeat graded yes.
    Fail,
    /// Some repeats yes, some not.
    Flaky,
    /// No repeat could be graded either way (verdict unclear: no expected answer, or a judge
    /// that could not tell; verdict error: the judge or the reference query failed): neither
    /// a pass nor a failure.
    Unclear,
}

/// The outcome of each question of a run's rows, in the order first asked.
pub fn outcomes(run: &Value) -> Vec<(String, Outcome)> {
    let mut order: Vec<String> = Vec::new();
    let mut verdicts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for row in run["rows"].as_array().into_iter().flatten() {
        let question = row["question"].as_str().unwrap_or_default().to_string();
        let entry = verdicts.entry(question.clone()).or_insert_with(|| {
            order.push(question);
            (0, 0)
        });
        // A repeat left ungraded says nothing of the agent: a judge that failed, or a
        // reference query that gave no expected answer, is not a failure (nor a regression).
        if !matches!(row["verdict"].as_str(), Some("unclear" | "error")) {
            entry.0 += 1;
        }
        entry.1 += usize::from(row["verdict"] == "yes");
    }
    order
        .into_iter()
        .map(|question| {
            // Repeats left ungraded are left out; all of them ungraded is its own outcome.
            let (graded, yes) = verdicts[&question];
            let runs = graded;
            let outcome = match yes {
                _ if graded == 0 => Outcome::Unclear,
                0 => Outcome::Fail,
                n if n == runs => Outcome::Pass,
                _ => Outcome::Flaky,
            };
            (question, outcome)
        })
        .collect()
}

impl Outcome {
    /// Its name in `evaluations compare`'s output.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Flaky => "flaky",
            Outcome::Unclear => "unclear",
        }
    }
}

fn name(outcome: Option<Outcome>) -> Value {
    outcome.map_or(Value::Null, |o| json!(o.name()))
}

/// The change of one question from `base` to `head`.
fn status(base: Option<Outcome>, head: Option<Outcome>) -> &'static str {
    match (base, head) {
        (None, Some(_)) => "added",
        (Some(_), None) => "removed",
        (Some(Outcome::Unclear), _) | (_, Some(Outcome::Unclear)) => "unclear",
        (Some(Outcome::Flaky), _) | (_, Some(Outcome::Flaky)) => "flaky",
        (Some(Outcome::Pass), Some(Outcome::Fail)) => "newly_failing",
        (Some(Outcome::Fail), Some(Outcome::Pass)) => "newly_passing",
        _ => "unchanged",
    }
}

/// A run's headline for the comparison.
fn headline(run: &Value) -> Value {
    json!({
        "runId": run["runId"],
        "time": run["time"],
        "passRate": run["summary"]["passRate"],
        "latencyP50Ms": run["summary"]["latencyP50Ms"],
        "configurationFingerprint": run["configurationFingerprint"],
    })
}

/// What changed in the agent's published configuration between two runs: one entry per
/// part added, removed or changed (`part` as under `published/`, e.g. `stage_config.json`
/// for the instructions, `<datasource>/fewshots.json`; `publishedDescription`), with `what`
/// saying in words what that part holds. Null when a run predates per-part records.
fn configuration_changes(base: &Value, head: &Value) -> Value {
    let (Some(was), Some(now)) = (
        base["configurationParts"].as_object(),
        head["configurationParts"].as_object(),
    ) else {
        return Value::Null;
    };
    let mut names: Vec<&String> = was.keys().chain(now.keys()).collect();
    names.sort();
    names.dedup();
    let changes: Vec<Value> = names
        .into_iter()
        .filter_map(|part| {
            let change = match (was.get(part), now.get(part)) {
                (None, Some(_)) => "added",
                (Some(_), None) => "removed",
                (Some(a), Some(b)) if a != b => "changed",
                _ => return None,
            };
            Some(json!({"part": part, "what": part_meaning(part), "change": change}))
        })
        .collect();
    json!(changes)
}

/// In words, what a published part holds.
fn part_meaning(part: &str) -> String {
    let (folder, file) = part.rsplit_once('/').unwrap_or(("", part));
    match file {
        "stage_config.json" => "instructions and settings".into(),
        "publishedDescription" => "published description".into(),
        "fewshots.json" => format!("few-shots of {folder}"),
        "datasource.json" => format!("datasource {folder}"),
        _ => part.into(),
    }
}

/// `evaluations compare`'s answer for two runs as `evaluations show` gives them.
pub fn compare(base: &Value, head: &Value) -> Value {
    let before: BTreeMap<String, Outcome> = outcomes(base).into_iter().collect();
    let after = outcomes(head);
    let mut questions: Vec<Value> = Vec::new();
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    let mut add = |question: &str, was: Option<Outcome>, now: Option<Outcome>| {
        let status = status(was, now);
        *counts.entry(status).or_default() += 1;
        // What `--fail-on-regression` stops on: every repeat passed before and some fail now,
        // whether all (newly failing) or some (flaky).
        let regressed = was == Some(Outcome::Pass)
            && now.is_some_and(|o| matches!(o, Outcome::Fail | Outcome::Flaky));
        questions.push(json!({
            "question": question, "status": status, "base": name(was), "head": name(now),
            "regressed": regressed,
        }));
    };
    for (question, now) in &after {
        add(question, before.get(question).copied(), Some(*now));
    }
    let asked: Vec<&String> = after.iter().map(|(question, _)| question).collect();
    for (question, was) in &before {
        if !asked.contains(&question) {
            add(question, Some(*was), None);
        }
    }
    let delta = |key: &str| match (base["summary"][key].as_f64(), head["summary"][key].as_f64()) {
        (Some(was), Some(now)) => json!(now - was),
        _ => Value::Null,
    };
    let fingerprints = (
        base["configurationFingerprint"].as_str(),
        head["configurationFingerprint"].as_str(),
    );
    let configuration_changed = match fingerprints {
        (Some(was), Some(now)) => json!(was != now),
        _ => Value::Null,
    };
    let count = |status: &str| counts.get(status).copied().unwrap_or(0);
    json!({
        "configurationChanges": configuration_changes(base, head),
        "base": headline(base),
        "head": headline(head),
        "passRateDelta": delta("passRate"),
        "latencyP50DeltaMs": delta("latencyP50Ms"),
        "configurationChanged": configuration_changed,
        "newlyFailing": count("newly_failing"),
        "newlyPassing": count("newly_passing"),
        "flaky": count("flaky"),
        "unchanged": count("unchanged"),
        "unclear": count("unclear"),
        "questions": questions,
    })
}

/// A comparison in lines for a person reading a table (whose rows are the questions only):
/// the counts, the pass-rate change and the questions newly failing, then what changed in the
/// agent's configuration, one part a line so each fits 80 columns.
pub fn notes(comparison: &Value) -> Vec<String> {
    let count = |key: &str| comparison[key].as_u64().unwrap_or(0);
    let base = comparison["base"]["runId"].as_str().unwrap_or_default();
    let delta = comparison["passRateDelta"]
        .as_f64()
        .map_or_else(|| "—".to_string(), |d| format!("{:+.1} pts", d * 100.0));
    let failing: Vec<&str> = comparison["questions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|q| q["status"] == "newly_failing")
        .filter_map(|q| q["question"].as_str())
        .collect();
    let mut counts = format!(
        "compared with run {}: {} newly failing, {} newly passing, {} flaky, {} unclear, {} unchanged; pass rate {delta}",
        base.get(..8).unwrap_or(base),
        count("newlyFailing"),
        count("newlyPassing"),
        count("flaky"),
        count("unclear"),
        count("unchanged"),
    );
    if !failing.is_empty() {
        counts.push_str(&format!("; newly failing: {}", failing.join(" | ")));
    }
    let mut notes = vec![counts];
    match (
        comparison["configurationChanges"].as_array(),
        comparison["configurationChanged"].as_bool(),
    ) {
        (Some(changes), _) if !changes.is_empty() => {
            notes.extend(changes.iter().map(|change| {
                format!(
                    "configuration: {} {} ({})",
                    change["what"].as_str().unwrap_or_default(),
                    change["change"].as_str().unwrap_or_default(),
                    change["part"].as_str().unwrap_or_default(),
                )
            }));
        }
        (Some(_), _) | (None, Some(false)) => notes.push("configuration: unchanged".into()),
        (None, Some(true)) => notes.push(
            "configuration: changed (a run was recorded before fabsh kept what changed)".into(),
        ),
        (None, None) => {}
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(rows: &[(&str, &str)]) -> Value {
        let rows: Vec<Value> = rows
            .iter()
            .map(|(q, v)| json!({"question": q, "verdict": v}))
            .collect();
        json!({"rows": rows, "summary": {"passRate": 0.5, "latencyP50Ms": 10}})
    }

    #[test]
    fn statuses_follow_each_questions_verdicts() {
        let base = run(&[
            ("a", "yes"),
            ("b", "no"),
            ("c", "yes"),
            ("d", "yes"),
            ("e", "yes"),
            ("e", "no"),
            ("f", "yes"),
            ("g", "yes"),
        ]);
        let head = run(&[
            ("a", "no"),
            ("b", "yes"),
            ("c", "yes"),
            ("d", "unclear"),
            ("e", "yes"),
            // The judge or the reference query failed: ungraded, not failed.
            ("f", "error"),
            ("g", "yes"),
            ("g", "error"),
        ]);
        let out = compare(&base, &head);
        let statuses: Vec<&str> = out["questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q["status"].as_str().unwrap())
            .collect();
        assert_eq!(
            statuses,
            [
                "newly_failing",
                "newly_passing",
                "unchanged",
                // No expected answer to grade against is its own state, not a regression.
                "unclear",
                "flaky",
                "unclear",
                "unchanged"
            ]
        );
        assert_eq!(out["newlyFailing"], 1);
        let regressed: Vec<bool> = out["questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| q["regressed"] == true)
            .collect();
        assert_eq!(regressed, [true, false, false, false, false, false, false]);
        let now_flaky = compare(&run(&[("a", "yes")]), &run(&[("a", "yes"), ("a", "no")]));
        assert_eq!(now_flaky["questions"][0]["status"], "flaky");
        assert_eq!(now_flaky["questions"][0]["regressed"], true);
        assert_eq!(out["configurationChanged"], Value::Null);
    }
}
