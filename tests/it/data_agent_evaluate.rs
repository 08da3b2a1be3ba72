//! `data-agent evaluate` and `validate-fewshots` against local Fabric: graded by the rules
//! and by a stand-in judge, with counts that match the planted right and wrong answers,
//! every run of repeats × concurrency present, and the critic prompt filled.

use crate::data_agent_query::{EXAMPLES, published};
use crate::data_agents::AgentFixture;
use crate::judge_stub::{self, Judge};
use serde_json::Value;
use std::path::PathBuf;

/// The true answers, as the agent gives them.
pub(crate) fn truth(fx: &AgentFixture, question: &str) -> String {
    let out = fx.ok("query", &["--prompt", question]);
    out["answer"]
        .as_str()
        .expect("answer")
        .chars()
        .filter(char::is_ascii_digit)
        .collect()
}

/// A question file: two right expectations, one wrong, one without an expectation.
pub(crate) fn questions(fx: &AgentFixture, dir: &tempfile::TempDir) -> PathBuf {
    let orders = truth(fx, "How many orders are there?");
    let customers = truth(fx, "How many customers are there?");
    // Twice the truth: wrong by far more than the number tolerance.
    let wrong: u64 = customers.parse::<u64>().expect("number") * 2;
    let path = dir.path().join("questions.json");
    let text = format!(
        r#"[{{"question": "How many orders are there?", "expected": "{orders}"}},
            {{"question": "How many customers are there?", "expected": "{wrong}"}},
            {{"question": "How many customers live in Germany?", "expected": "{germany}"}},
            "Top 3 customers by name"]"#,
        germany = truth(fx, "How many customers live in Germany?"),
    );
    std::fs::write(&path, text).expect("write");
    path
}

fn count(out: &Value, key: &str) -> u64 {
    out["summary"][key]
        .as_u64()
        .unwrap_or_else(|| panic!("no {key} in {}", out["summary"]))
}

#[test]
fn rules_grade_right_and_wrong_answers_and_every_run_is_a_row() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(&fx, &dir);
    let csv = dir.path().join("results.csv");
    let run = fx.run(
        "evaluate",
        &[
            "--questions",
            &file.to_string_lossy(),
            "--repeats",
            "3",
            "--concurrency",
            "4",
            "--output-file",
            &csv.to_string_lossy(),
        ],
    );
    let out = run.ok_json();
    assert_eq!(count(&out, "runs"), 12);
    assert_eq!(
        (
            count(&out, "passed"),
            count(&out, "failed"),
            count(&out, "unclear")
        ),
        (6, 3, 3),
        "{}",
        out["summary"]
    );
    assert_eq!(count(&out, "errors"), 0);
    let rows = out["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 12);
    for question in out["questions"].as_array().expect("questions") {
        assert_eq!(question["runs"], 3, "{question}");
        assert_eq!(question["consistent"], true);
    }
    let wrong: Vec<&Value> = rows.iter().filter(|r| r["verdict"] == "no").collect();
    assert!(
        wrong
            .iter()
            .all(|r| r["question"] == "How many customers are there?" && r["rule"] == "numbers")
    );
    let unclear: Vec<&Value> = rows.iter().filter(|r| r["verdict"] == "unclear").collect();
    assert!(unclear.iter().all(|r| r["rule"] == "no_expected"));
    let keys: Vec<&String> = rows[0].as_object().expect("row").keys().collect();
    assert_eq!(
        keys,
        [
            "question",
            "expected",
            "actual",
            "verdict",
            "rule",
            "rationale",
            "latencyMs",
            "error"
        ]
    );
    let written = std::fs::read_to_string(&csv).expect("csv");
    let records = csv::Reader::from_reader(written.as_bytes())
        .records()
        .count();
    assert_eq!(records, 12);
    assert!(
        written.starts_with("question,expected,actual,verdict,rule,rationale,latencyMs,error\n")
    );
    assert!(
        run.stderr.contains("12 runs graded by the rules"),
        "{}",
        run.stderr
    );
    // Below the bar, the exit code says so: 6, not 1 (which means the service failed).
    let strict = fx.run(
        "evaluate",
        &[
            "--questions",
            &file.to_string_lossy(),
            "--min-pass-rate",
            "0.9",
        ],
    );
    assert_eq!(strict.code, 6, "{}", strict.stderr);
    assert!(
        strict.stderr.contains("below --min-pass-rate"),
        "{}",
        strict.stderr
    );
}

#[test]
fn a_judge_grades_with_retries_and_a_filled_critic_prompt() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(&fx, &dir);
    let judge = Judge::start();
    let judged = fx.server.fabsh_env(
        &[
            "data-agent",
            "evaluate",
            "-w",
            &fx.workspace,
            "--id",
            &fx.agent,
            "--questions",
            &file.to_string_lossy(),
            "--llm-endpoint",
            judge.endpoint(),
            "--llm-model",
            "stand-in",
            "--concurrency",
            "2",
        ],
        &[("FABSH_LLM_KEY", judge_stub::KEY)],
    );
    let out = judged.ok_json();
    // The stand-in says yes only when the expected number is in the answer.
    assert_eq!(
        (
            count(&out, "runs"),
            count(&out, "passed"),
            count(&out, "failed")
        ),
        (4, 2, 2),
        "{}",
        out["summary"]
    );
    assert!(
        out["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .all(|r| r["rule"] == "judge")
    );
    let seen = judge.seen();
    assert_eq!(
        seen.len(),
        4 + 2,
        "one request per run, plus the retried 429 and 503"
    );
    assert!(seen.iter().all(
        |s| s.authorization.as_deref() == Some(&format!("Bearer {}", judge_stub::KEY) as &str)
    ));
    assert!(!judged.stdout.contains(judge_stub::KEY) && !judged.stderr.contains(judge_stub::KEY));

    let critic = Judge::start();
    let prompted = fx.run(
        "evaluate",
        &[
            "--questions",
            &file.to_string_lossy(),
            "--llm-endpoint",
            critic.endpoint(),
            "--llm-model",
            "stand-in",
            "--critic-prompt",
            "Grade it. Q={query}|E={expected_answer}|A={actual_answer}",
        ],
    );
    let out = prompted.ok_json();
    assert_eq!(
        (count(&out, "passed"), count(&out, "failed")),
        (2, 2),
        "{}",
        out["summary"]
    );
    let prompts = critic.prompts();
    assert_eq!(prompts.len(), 4);
    for prompt in &prompts {
        assert!(
            !prompt.contains("{query}")
                && !prompt.contains("{expected_answer}")
                && !prompt.contains("{actual_answer}"),
            "{prompt}"
        );
        assert!(
            prompt.contains("|A=The answer is") || prompt.contains("|A=| name"),
            "{prompt}"
        );
    }
    assert!(
        prompts
            .iter()
            .any(|p| p.contains("Q=How many orders are there?|E="))
    );
    assert!(prompts.iter().any(|p| p.contains("E=(none given)")));
}

#[test]
fn validation_finds_a_planted_duplicate_conflict_and_unparsable_query() {
    let mut examples = EXAMPLES.to_vec();
    examples.extend([
        (
            "how many orders are there",
            "SELECT COUNT(*) FROM dbo.orders",
        ),
        (
            "How many customers are there",
            "SELECT COUNT(DISTINCT country) FROM customers",
        ),
        ("Average order amount", "SELEC AVG(amount) FROM"),
    ]);
    let fx = published(module_path!(), &examples);
    let out = fx.ok(
        "validate-fewshots",
        &["--datasource", "SalesLakehouse", "--stage", "published"],
    );
    let issues = out["issues"].as_array().expect("issues");
    let of = |kind: &str| {
        issues
            .iter()
            .filter(|i| i["type"] == kind)
            .collect::<Vec<_>>()
    };
    assert_eq!(of("duplicate").len(), 1, "{out}");
    assert_eq!(
        of("duplicate")[0]["fewshotIds"]
            .as_array()
            .expect("ids")
            .len(),
        2
    );
    assert_eq!(of("conflict").len(), 1, "{out}");
    assert_eq!(of("invalid_query").len(), 1, "{out}");
    assert_eq!(of("invalid_query")[0]["severity"], "high");
    assert_eq!(out["overallQuality"], "poor");
    assert_eq!(out["summary"]["skipped"]["checks"][0], "clarity");
}
