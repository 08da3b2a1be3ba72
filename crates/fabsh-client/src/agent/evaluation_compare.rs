//! Two recorded evaluation runs side by side, question by question: what newly fails, what
//! newly passes, what is flaky (different verdicts across the repeats of a run) and what is
//! unchanged, with the pass-rate and p50 latency deltas and whether the agent's published
//! configuration changed in between. `evaluate --fail-on-regression` uses the same verdicts.

use fabsh_model::agent::evaluation::{
    Comparison, ConfigurationChange, EvaluationRun, Headline, Outcome, PartChangeKind,
    QuestionChange, QuestionStatus,
};
use fabsh_model::agent::grade::Verdict;
use std::collections::BTreeMap;

/// The outcome of each question of a run's rows, in the order first asked.
pub fn outcomes(run: &EvaluationRun) -> Vec<(String, Outcome)> {
    let mut order: Vec<String> = Vec::new();
    let mut verdicts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for row in &run.rows {
        let entry = verdicts.entry(row.question.clone()).or_insert_with(|| {
            order.push(row.question.clone());
            (0, 0)
        });
        // A repeat left ungraded says nothing of the agent: a judge that failed, or a
        // reference query that gave no expected answer, is not a failure (nor a regression).
        if !matches!(row.verdict, Some(Verdict::Unclear | Verdict::Error)) {
            entry.0 += 1;
        }
        entry.1 += usize::from(row.passed());
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

/// The change of one question from `base` to `head`.
fn status(base: Option<Outcome>, head: Option<Outcome>) -> QuestionStatus {
    match (base, head) {
        (None, Some(_)) => QuestionStatus::Added,
        (Some(_), None) => QuestionStatus::Removed,
        (Some(Outcome::Unclear), _) | (_, Some(Outcome::Unclear)) => QuestionStatus::Unclear,
        (Some(Outcome::Flaky), _) | (_, Some(Outcome::Flaky)) => QuestionStatus::Flaky,
        (Some(Outcome::Pass), Some(Outcome::Fail)) => QuestionStatus::NewlyFailing,
        (Some(Outcome::Fail), Some(Outcome::Pass)) => QuestionStatus::NewlyPassing,
        _ => QuestionStatus::Unchanged,
    }
}

/// A run's headline for the comparison.
fn headline(run: &EvaluationRun) -> Headline {
    Headline {
        run_id: run.run_id.clone(),
        time: run.time.clone(),
        pass_rate: run.summary.as_ref().map(|summary| summary.pass_rate),
        latency_p50_ms: run
            .summary
            .as_ref()
            .and_then(|summary| summary.latency_p50_ms),
        configuration_fingerprint: run.configuration_fingerprint.clone(),
    }
}

/// What changed in the agent's published configuration between two runs: one entry per
/// part added, removed or changed (`part` as under `published/`, e.g. `stage_config.json`
/// for the instructions, `<datasource>/fewshots.json`; `publishedDescription`), with `what`
/// saying in words what that part holds. None when a run predates per-part records.
fn configuration_changes(
    base: &EvaluationRun,
    head: &EvaluationRun,
) -> Option<Vec<ConfigurationChange>> {
    let (was, now) = (
        base.configuration_parts.as_ref()?,
        head.configuration_parts.as_ref()?,
    );
    let mut names: Vec<&str> = was.parts().chain(now.parts()).collect();
    names.sort_unstable();
    names.dedup();
    let changes = names
        .into_iter()
        .filter_map(|part| {
            let change = match (was.get(part), now.get(part)) {
                (None, Some(_)) => PartChangeKind::Added,
                (Some(_), None) => PartChangeKind::Removed,
                (Some(a), Some(b)) if a != b => PartChangeKind::Changed,
                _ => return None,
            };
            Some(ConfigurationChange {
                part: part.to_string(),
                what: part_meaning(part),
                change,
            })
        })
        .collect();
    Some(changes)
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
pub fn compare(base: &EvaluationRun, head: &EvaluationRun) -> Comparison {
    let before: BTreeMap<String, Outcome> = outcomes(base).into_iter().collect();
    let after = outcomes(head);
    let mut questions: Vec<QuestionChange> = Vec::new();
    let mut add = |question: &str, was: Option<Outcome>, now: Option<Outcome>| {
        // What `--fail-on-regression` stops on: every repeat passed before and some fail now,
        // whether all (newly failing) or some (flaky).
        let regressed = was == Some(Outcome::Pass)
            && now.is_some_and(|o| matches!(o, Outcome::Fail | Outcome::Flaky));
        questions.push(QuestionChange {
            question: question.to_string(),
            status: status(was, now),
            base: was,
            head: now,
            regressed,
        });
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
    let (was, now) = (headline(base), headline(head));
    let delta = |was: Option<f64>, now: Option<f64>| Some(now? - was?);
    let configuration_changed = match (
        &base.configuration_fingerprint,
        &head.configuration_fingerprint,
    ) {
        (Some(was), Some(now)) => Some(was != now),
        _ => None,
    };
    let count = |status: QuestionStatus| {
        questions
            .iter()
            .filter(|question| question.status == status)
            .count() as u64
    };
    Comparison {
        configuration_changes: configuration_changes(base, head),
        pass_rate_delta: delta(was.pass_rate, now.pass_rate),
        latency_p50_delta_ms: delta(
            was.latency_p50_ms.map(|ms| ms as f64),
            now.latency_p50_ms.map(|ms| ms as f64),
        ),
        configuration_changed,
        newly_failing: count(QuestionStatus::NewlyFailing),
        newly_passing: count(QuestionStatus::NewlyPassing),
        flaky: count(QuestionStatus::Flaky),
        unchanged: count(QuestionStatus::Unchanged),
        unclear: count(QuestionStatus::Unclear),
        base: was,
        head: now,
        questions,
    }
}

/// A comparison in lines for a person reading a table (whose rows are the questions only):
/// the counts, the pass-rate change and the questions newly failing, then what changed in the
/// agent's configuration, one part a line so each fits 80 columns.
pub fn notes(comparison: &Comparison) -> Vec<String> {
    // A base run that was not recorded has no id to name.
    let base = comparison.base.run_id.as_deref().unwrap_or("");
    let delta = comparison
        .pass_rate_delta
        .map_or_else(|| "—".to_string(), |d| format!("{:+.1} pts", d * 100.0));
    let failing: Vec<&str> = comparison
        .questions
        .iter()
        .filter(|q| q.status == QuestionStatus::NewlyFailing)
        .map(|q| q.question.as_str())
        .collect();
    let mut counts = format!(
        "compared with run {}: {} newly failing, {} newly passing, {} flaky, {} unclear, {} unchanged; pass rate {delta}",
        base.get(..8).unwrap_or(base),
        comparison.newly_failing,
        comparison.newly_passing,
        comparison.flaky,
        comparison.unclear,
        comparison.unchanged,
    );
    if !failing.is_empty() {
        counts.push_str(&format!("; newly failing: {}", failing.join(" | ")));
    }
    let mut notes = vec![counts];
    match (
        &comparison.configuration_changes,
        comparison.configuration_changed,
    ) {
        (Some(changes), _) if !changes.is_empty() => {
            notes.extend(changes.iter().map(|change| {
                format!(
                    "configuration: {} {} ({})",
                    change.what,
                    change.change.name(),
                    change.part,
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
    use serde_json::json;

    fn run(rows: &[(&str, &str)]) -> EvaluationRun {
        let rows: Vec<_> = rows
            .iter()
            .map(|(q, v)| {
                json!({"question": q, "expected": null, "actual": null, "verdict": v, "rule": null,
                       "rationale": null, "latencyMs": null, "error": null})
            })
            .collect();
        serde_json::from_value(json!({
            "runId": null, "time": null, "workspace": {"id": "w", "name": null},
            "agent": {"id": "a", "name": null}, "grading": "rules", "questionsFile": "q.json",
            "questionsSha256": "", "repeats": 1, "concurrency": 1,
            "configurationFingerprint": null, "configurationParts": null, "rows": rows,
            "summary": {"runs": 1, "passed": 1, "failed": 0, "unclear": 0, "errors": 0,
                        "passRate": 0.5, "latencyP50Ms": 10, "latencyP95Ms": 10},
        }))
        .expect("a run")
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
        let statuses: Vec<&str> = out.questions.iter().map(|q| q.status.name()).collect();
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
        assert_eq!(out.newly_failing, 1);
        let regressed: Vec<bool> = out.questions.iter().map(|q| q.regressed).collect();
        assert_eq!(regressed, [true, false, false, false, false, false, false]);
        let now_flaky = compare(&run(&[("a", "yes")]), &run(&[("a", "yes"), ("a", "no")]));
        assert_eq!(now_flaky.questions[0].status, QuestionStatus::Flaky);
        assert!(now_flaky.questions[0].regressed);
        assert_eq!(out.configuration_changed, None);
    }
}
