//! The evaluation records against JSON written here, as the stdlib, `evaluate` and the store
//! write it: every key read where it is, unknown keys kept, absent and null told apart, and
//! the order of the keys as printed.

use super::*;
use crate::agent::grade::Verdict;
use serde_json::{Value, json};

/// The compact text of a JSON document written with whitespace.
fn compact(text: &str) -> String {
    serde_json::from_str::<Value>(text)
        .expect("the test's JSON")
        .to_string()
}

/// `value` written back, compact, in the order its type writes it.
fn written<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("serialize")
}

/// What `evaluate::grade_runs` returns for one question asked twice, the second run failed,
/// as Rhai gives a map back (keys sorted), with a key of a newer stdlib.
const GRADED: &str = r#"{
  "questions": [
    {"consistent": false, "distinctAnswers": 2, "errors": 1, "expected": "3000",
     "failed": 1, "passRate": 0.5, "passed": 1, "question": "How many orders?", "runs": 2,
     "unclear": 0, "weight": 2}
  ],
  "rows": [
    {"actual": "There are 3,000 orders.", "error": null, "expected": "3000", "index": 0,
     "latencyMs": 812, "question": "How many orders?", "rationale": "every expected number is in the answer",
     "repeat": 1, "rule": "numbers", "verdict": "yes"},
    {"actual": null, "error": "the agent did not answer within 300 s", "expected": "3000",
     "index": 0, "latencyMs": 300004, "question": "How many orders?",
     "rationale": "the run failed", "repeat": 2, "rule": "run_failed", "verdict": "no",
     "shard": "b"}
  ],
  "summary": {"errors": 1, "failed": 1, "latencyP50Ms": 812, "latencyP95Ms": 300004,
              "passRate": 0.5, "passed": 1, "runs": 2, "unclear": 0}
}"#;

#[test]
fn the_stdlibs_graded_runs_are_read_with_what_a_newer_stdlib_adds_kept() {
    let graded: GradedRuns = serde_json::from_str(GRADED).expect("graded runs");
    assert_eq!(graded.summary.runs, 2);
    assert_eq!(graded.summary.pass_rate, 0.5);
    assert_eq!(graded.summary.latency_p95_ms, Some(300_004));
    let [first, second] = graded.rows.as_slice() else {
        panic!("two rows: {graded:?}");
    };
    assert_eq!((first.index, first.repeat), (0, 1));
    assert_eq!(first.verdict, Some(Verdict::Yes));
    assert_eq!(second.actual, None);
    assert_eq!(second.verdict, Some(Verdict::No));
    assert_eq!(second.extra.get("shard"), Some(&json!("b")));
    // Not asked for: absent, and so not written back.
    assert_eq!(second.steps, None);
    assert_eq!(graded.questions[0].extra.get("weight"), Some(&json!(2)));
    assert_eq!(graded.questions[0].failed_answer, None);
    let again = serde_json::to_value(&graded).expect("serialize");
    let original: Value = serde_json::from_str(GRADED).expect("json");
    assert_eq!(again, original, "the round trip lost or changed a key");
}

/// A run as `evaluations show` prints it: every key, in this order, an unknown one last.
const SHOWN: &str = r#"{
  "runId": "0b6f3c52-9d1e-4a57-8a4e-6a0f1c2d3e4f",
  "time": "2026-11-25T20:18:07+01:00",
  "workspace": {"id": "5f0c9a7e-1b2d-4c3e-8f4a-5b6c7d8e9f00", "name": "Demo"},
  "agent": {"id": "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d", "name": null},
  "agentLogicalId": "7d1e0b5a-3c4f-4e2d-9a8b-1c2d3e4f5a6b",
  "grading": "judge gpt-4o",
  "questionsFile": "questions.json",
  "questionsSha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  "repeats": 2,
  "concurrency": 4,
  "configurationFingerprint": null,
  "summary": {"runs": 2, "passed": 1, "failed": 0, "unclear": 1, "errors": 0,
              "passRate": 0.5, "latencyP50Ms": 640, "latencyP95Ms": 915, "judgeTokens": 1200},
  "configurationParts": {"stage_config.json": "11", "SalesLakehouse/fewshots.json": "22",
                         "publishedDescription": "33"},
  "rows": [
    {"question": "How many orders?", "expected": "3000", "actual": "3,000", "verdict": "yes",
     "rule": "judge", "rationale": "same number", "latencyMs": 640, "error": null,
     "expectedSql": "SELECT COUNT(*) FROM orders"},
    {"question": "Top region?", "expected": null, "actual": "West", "verdict": "unclear",
     "rule": "no_expected", "rationale": "nothing to compare with", "latencyMs": 915,
     "error": null}
  ],
  "labels": ["nightly"]
}"#;

#[test]
fn a_recorded_run_round_trips_in_its_order_with_unknown_keys_kept() {
    let run: EvaluationRun = serde_json::from_str(SHOWN).expect("run");
    assert_eq!(run.agent.name, None);
    assert_eq!(
        run.agent.name_or_id(),
        "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
    );
    assert_eq!(run.workspace.name_or_id(), "Demo");
    assert_eq!(
        run.agent_logical_id.as_deref(),
        Some("7d1e0b5a-3c4f-4e2d-9a8b-1c2d3e4f5a6b")
    );
    assert_eq!(run.repeats, 2);
    assert_eq!(run.configuration_fingerprint, None);
    let summary = run.summary.as_ref().expect("summary");
    assert_eq!(summary.latency_p50_ms, Some(640));
    assert_eq!(summary.extra.get("judgeTokens"), Some(&json!(1200)));
    let parts = run.configuration_parts.as_ref().expect("parts");
    // In the order recorded, not sorted.
    assert_eq!(
        parts.parts().collect::<Vec<_>>(),
        [
            "stage_config.json",
            "SalesLakehouse/fewshots.json",
            "publishedDescription"
        ]
    );
    assert_eq!(parts.get("publishedDescription"), Some("33"));
    assert_eq!(
        run.rows[0].reference_query(),
        Some("SELECT COUNT(*) FROM orders")
    );
    assert_eq!(run.rows[1].reference_query(), None);
    assert!(run.rows[0].passed() && !run.rows[1].passed());
    assert_eq!(run.extra.get("labels"), Some(&json!(["nightly"])));
    assert_eq!(written(&run), compact(SHOWN));
}

#[test]
fn a_key_absent_and_a_key_null_are_written_back_as_they_were() {
    // `evaluate`'s rows when another question has a reference query and steps were asked
    // for: this row's are null; the store's rows leave them out.
    let with_nulls = r#"{"question": "q", "expected": null, "actual": null, "verdict": "error",
        "rule": "judge_failed", "rationale": "unreachable", "latencyMs": 12, "error": "unreachable",
        "expectedSql": null, "expectedResult": null, "steps": null, "threadId": null, "files": null}"#;
    let row: EvaluationRow = serde_json::from_str(with_nulls).expect("row");
    assert_eq!(row.expected_sql, Some(None));
    assert_eq!(row.steps, Some(None));
    assert!(row.ungraded());
    assert_eq!(written(&row), compact(with_nulls));
    let without = r#"{"question": "q", "expected": null, "actual": null, "verdict": null,
        "rule": null, "rationale": null, "latencyMs": null, "error": null}"#;
    let row: EvaluationRow = serde_json::from_str(without).expect("row");
    assert_eq!((row.expected_sql.clone(), row.steps.clone()), (None, None));
    assert_eq!(written(&row), compact(without));
    // With a result set and the service's own steps.
    let full = r#"{"question": "q", "expected": "3000", "actual": "3000", "verdict": "yes",
        "rule": "result_value", "rationale": "r", "latencyMs": 5, "error": null,
        "expectedSql": "SELECT 3000", "expectedResult": {"columns": ["n"], "rows": [[3000]], "truncated": false},
        "steps": [{"type": "tool_calls", "id": "s1"}], "threadId": "t-1", "files": []}"#;
    let row: EvaluationRow = serde_json::from_str(full).expect("row");
    let result = row.expected_result.clone().flatten().expect("result set");
    assert_eq!(result.rows, [[json!(3000)]]);
    assert_eq!(row.thread_id, Some(Some("t-1".to_string())));
    assert_eq!(written(&row), compact(full));
}

#[test]
fn evaluates_summary_puts_the_run_id_after_the_counts_null_when_not_recorded() {
    let text = r#"{"runs": 4, "passed": 2, "failed": 1, "unclear": 1, "errors": 0,
        "passRate": 0.5, "latencyP50Ms": null, "latencyP95Ms": null, "runId": null}"#;
    let summary: RecordedSummary = serde_json::from_str(text).expect("summary");
    assert_eq!(summary.run_id, None);
    assert_eq!(summary.summary.latency_p50_ms, None);
    assert!(summary.summary.extra.is_empty(), "{summary:?}");
    assert_eq!(written(&summary), compact(text));
    // A whole-number rate stays a float.
    let all: EvaluationSummary = serde_json::from_str(
        r#"{"runs": 1, "passed": 1, "failed": 0, "unclear": 0, "errors": 0, "passRate": 1.0,
            "latencyP50Ms": 3, "latencyP95Ms": 3}"#,
    )
    .expect("summary");
    assert!(
        written(&all).contains(r#""passRate":1.0"#),
        "{}",
        written(&all)
    );
}

#[test]
fn the_csv_cells_of_a_row_leave_null_empty() {
    let row: EvaluationRow = serde_json::from_str(
        r#"{"question": "How many, really?", "expected": null, "actual": "7", "verdict": "no",
            "rule": "numbers", "rationale": "7 is not 8", "latencyMs": 42, "error": null}"#,
    )
    .expect("row");
    assert_eq!(
        row.cells(),
        [
            "How many, really?",
            "",
            "7",
            "no",
            "numbers",
            "7 is not 8",
            "42",
            ""
        ]
    );
    assert_eq!(EvaluationRow::COLUMNS[6], "latencyMs");
}

#[test]
fn a_comparison_is_written_in_its_order_with_its_names() {
    let text = r#"{
      "configurationChanges": [{"part": "stage_config.json", "what": "instructions and settings", "change": "changed"}],
      "base": {"runId": "a", "time": "t", "passRate": 1.0, "latencyP50Ms": 10, "configurationFingerprint": "f1"},
      "head": {"runId": null, "time": null, "passRate": 0.5, "latencyP50Ms": null, "configurationFingerprint": "f2"},
      "passRateDelta": -0.5, "latencyP50DeltaMs": null, "configurationChanged": true,
      "newlyFailing": 1, "newlyPassing": 0, "flaky": 0, "unchanged": 0, "unclear": 0,
      "questions": [
        {"question": "q1", "status": "newly_failing", "base": "pass", "head": "fail", "regressed": true},
        {"question": "q2", "status": "removed", "base": "unclear", "head": null, "regressed": false}
      ]
    }"#;
    let comparison: Comparison = serde_json::from_str(text).expect("comparison");
    assert_eq!(comparison.questions[0].status, QuestionStatus::NewlyFailing);
    assert_eq!(comparison.questions[1].head, None);
    assert_eq!(
        comparison
            .regressed()
            .map(|q| q.question.as_str())
            .collect::<Vec<_>>(),
        ["q1"]
    );
    assert_eq!(
        comparison.configuration_changes.as_ref().expect("changes")[0].change,
        PartChangeKind::Changed
    );
    assert_eq!(written(&comparison), compact(text));
}

#[test]
fn the_stdlib_is_handed_only_the_keys_a_question_has() {
    let plain = StdlibQuestion {
        question: "q".into(),
        expected: None,
        expected_sql: None,
        expected_result: None,
        ordered: None,
        reference_error: None,
    };
    assert_eq!(written(&plain), r#"{"question":"q","expected":null}"#);
    let failed = StdlibQuestion {
        expected_sql: Some("SELECT 1".into()),
        reference_error: Some("it failed".into()),
        ..plain
    };
    assert_eq!(
        written(&failed),
        r#"{"question":"q","expected":null,"expectedSql":"SELECT 1","referenceError":"it failed"}"#
    );
    let options: AskOptions = serde_json::from_str(
        r#"{"repeats": 3, "concurrency": 8, "timeout": 300, "show_steps": false,
            "keep_thread": true, "progress": "evaluating", "tolerance": 0.005}"#,
    )
    .expect("options");
    assert_eq!(options.published_url, None);
    assert!(!written(&options).contains("published_url"));
}

#[test]
fn the_names_are_the_ones_written_in_the_output() {
    let name_of = |value: Value| value.as_str().expect("a name").to_string();
    for verdict in [Verdict::Yes, Verdict::No, Verdict::Unclear, Verdict::Error] {
        assert_eq!(verdict.name(), name_of(json!(verdict)));
        assert_eq!(Verdict::named(verdict.name()), Some(verdict));
    }
    assert_eq!(Verdict::named("maybe"), None);
    for status in [
        QuestionStatus::Added,
        QuestionStatus::Removed,
        QuestionStatus::Unclear,
        QuestionStatus::Flaky,
        QuestionStatus::NewlyFailing,
        QuestionStatus::NewlyPassing,
        QuestionStatus::Unchanged,
    ] {
        assert_eq!(status.name(), name_of(json!(status)));
    }
    for change in [
        PartChangeKind::Added,
        PartChangeKind::Removed,
        PartChangeKind::Changed,
    ] {
        assert_eq!(change.name(), name_of(json!(change)));
    }
}
