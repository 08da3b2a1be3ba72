//! A judge that fails is reported as such: `data-agent evaluate` counts the runs it could not
//! grade under `errors` (never `unclear`) and exits 1; `validate-fewshots` does not call the
//! examples good when its judge failed. The judge key may come from a file and never shows.

use crate::data_agent_query::{EXAMPLES, published};
use crate::data_agents::AgentFixture;
use crate::judge_stub::{self, Judge};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Two questions about the demo data, with expected answers.
fn two_questions(dir: &tempfile::TempDir) -> PathBuf {
    let path = dir.path().join("questions.json");
    std::fs::write(
        &path,
        r#"[{"question": "How many orders are there?", "expected": "1"},
            {"question": "How many customers are there?", "expected": "2"}]"#,
    )
    .expect("questions");
    path
}

fn evaluate_with(fx: &AgentFixture, questions: &Path, judge: &[&str]) -> crate::support::Run {
    let questions = questions.to_string_lossy();
    let mut args = vec!["--questions", &questions, "--llm-model", "stand-in"];
    args.extend_from_slice(judge);
    fx.run("evaluate", &args)
}

/// Asserts that every run is counted as an error the judge could not grade.
fn assert_ungraded(run: &crate::support::Run, runs: u64) {
    assert_eq!(run.code, 1, "stderr:\n{}", run.stderr);
    let out = run.json();
    let summary = &out["summary"];
    assert_eq!(summary["runs"], runs, "{summary}");
    assert_eq!(summary["errors"], runs, "{summary}");
    assert_eq!(summary["unclear"], 0, "{summary}");
    assert_eq!(summary["passed"], 0, "{summary}");
    for row in out["rows"].as_array().expect("rows") {
        assert_eq!(row["verdict"], "error", "{row}");
        assert_eq!(row["rule"], "judge_failed", "{row}");
        assert!(
            row["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{row}"
        );
        assert!(row["actual"].is_string(), "the agent did answer: {row}");
    }
    assert!(run.stderr.contains("could not grade"), "{}", run.stderr);
}

#[test]
fn a_judge_answering_500_is_an_error_in_evaluate_and_validate_fewshots() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let questions = two_questions(&dir);
    let judge = Judge::failing();
    let run = evaluate_with(&fx, &questions, &["--llm-endpoint", judge.endpoint()]);
    assert_ungraded(&run, 2);
    assert!(judge.seen().len() >= 2, "the judge was asked");

    let failing = Judge::failing();
    let run = fx.run(
        "validate-fewshots",
        &[
            "--datasource",
            "SalesLakehouse",
            "--stage",
            "published",
            "--llm-endpoint",
            failing.endpoint(),
            "--llm-model",
            "stand-in",
        ],
    );
    assert_eq!(run.code, 1, "stderr:\n{}", run.stderr);
    let out = run.json();
    assert!(!failing.seen().is_empty(), "the judge was asked");
    assert_ne!(out["overallQuality"], "good", "{out}");
    assert!(
        out["summary"]["judgeFailures"]
            .as_array()
            .is_some_and(|f| !f.is_empty())
    );

    // The same examples with no judge at all are good: the failure, not the examples, made
    // the difference.
    let unjudged = fx.ok(
        "validate-fewshots",
        &["--datasource", "SalesLakehouse", "--stage", "published"],
    );
    assert_eq!(unjudged["overallQuality"], "good", "{unjudged}");
}

#[test]
fn an_unreachable_judge_is_an_error_not_a_verdict() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let questions = two_questions(&dir);
    let endpoint = judge_stub::unreachable_endpoint();
    let run = evaluate_with(
        &fx,
        &questions,
        &["--llm-endpoint", &endpoint, "--concurrency", "2"],
    );
    assert_ungraded(&run, 2);
}

#[test]
fn the_judge_key_can_come_from_a_file_and_is_never_shown() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let questions = two_questions(&dir);
    let key_file = dir.path().join("judge.key");
    std::fs::write(&key_file, format!("{}\n", judge_stub::KEY)).expect("key file");
    let judge = Judge::start();
    let key = format!("@{}", key_file.display());
    let run = evaluate_with(
        &fx,
        &questions,
        &["--llm-endpoint", judge.endpoint(), "--llm-key", &key],
    );
    let out: Value = run.ok_json();
    assert_eq!(out["summary"]["errors"], 0, "{}", out["summary"]);
    let bearer = format!("Bearer {}", judge_stub::KEY);
    assert!(
        judge
            .seen()
            .iter()
            .all(|seen| seen.authorization.as_deref() == Some(bearer.as_str())),
        "the key from the file, without its line break, is what the judge gets"
    );
    assert!(!run.stdout.contains(judge_stub::KEY) && !run.stderr.contains(judge_stub::KEY));

    let missing = evaluate_with(
        &fx,
        &questions,
        &[
            "--llm-endpoint",
            judge.endpoint(),
            "--llm-key",
            "@no-such.key",
        ],
    );
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    assert!(
        missing.stderr.contains("--llm-key") && missing.stderr.contains("no-such.key"),
        "{}",
        missing.stderr
    );
}
