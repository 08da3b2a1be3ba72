//! What `data-agent evaluate` hands the stdlib's `evaluate::ask` and `evaluate::grade_runs`
//! (stdlib/evaluate.rhai), and what `grade_runs` gives back.

use super::present;
use super::run::EvaluationSummary;
use crate::agent::grade::Verdict;
use crate::agent::questions::Question;
use crate::sql::ResultSet;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The options of `evaluate::ask` and `evaluate::grade_runs` (snake_case, as Rhai reads them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AskOptions {
    /// Times each question is asked.
    pub repeats: u64,
    /// Runs at once.
    pub concurrency: u64,
    /// Seconds each run may take.
    pub timeout: u64,
    /// Asks each run's steps.
    pub show_steps: bool,
    /// Keeps each run's conversation thread.
    pub keep_thread: bool,
    /// The progress line's label.
    pub progress: String,
    /// The relative tolerance of numbers, for the rules.
    pub tolerance: f64,
    /// The agent's published URL, when asked through it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_url: Option<String>,
    /// Where each run's files go.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download_files: Option<String>,
}

/// A question as the stdlib takes it: `{question, expected}`, and with a reference query
/// `expectedSql` and either its result (`expectedResult`, `ordered`) or why it gave none
/// (`referenceError`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StdlibQuestion {
    /// The question.
    pub question: String,
    /// The expected answer (the text of the result set when the file gave none).
    pub expected: Option<String>,
    /// The reference query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_sql: Option<String>,
    /// Its result set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_result: Option<ResultSet>,
    /// Whether the result set's rows are in order (ORDER BY).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ordered: Option<bool>,
    /// Why the reference query gave no expected answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_error: Option<String>,
}

impl StdlibQuestion {
    /// A question of a file, before its reference query has run: `{question, expected}`.
    pub fn of(question: &Question) -> StdlibQuestion {
        StdlibQuestion {
            question: question.question.clone(),
            expected: question.expected.clone(),
            expected_sql: None,
            expected_result: None,
            ordered: None,
            reference_error: None,
        }
    }
}

/// `evaluate::grade_runs`'s answer: `{summary, questions, rows}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GradedRuns {
    /// Over every run.
    pub summary: EvaluationSummary,
    /// Per question, in file order.
    pub questions: Vec<QuestionSummary>,
    /// One per run, in question then repeat order.
    pub rows: Vec<GradedRow>,
}

/// A run as `evaluate::grade_runs` gives it: an evaluation row, with its question's place in
/// the file, its repeat and the reference query's failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GradedRow {
    /// The question's place in the file, from 0.
    pub index: usize,
    /// The repeat, from 1.
    pub repeat: u64,
    /// The question asked.
    pub question: String,
    /// Its expected answer.
    pub expected: Option<String>,
    /// The agent's answer; null when the run failed.
    pub actual: Option<String>,
    /// The grade.
    pub verdict: Option<Verdict>,
    /// The rule (or `judge`) that decided it.
    pub rule: Option<String>,
    /// Why.
    pub rationale: Option<String>,
    /// How long the agent took (0 for a question not asked).
    pub latency_ms: Option<u64>,
    /// Why the run failed or was left ungraded.
    pub error: Option<String>,
    /// The question's reference query, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_sql: Option<String>,
    /// Why the reference query gave no expected answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_error: Option<String>,
    /// Set when asked for and the run answered (and then null when the service had none).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub steps: Option<Option<Value>>,
    /// Set when asked for and the run answered.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub thread_id: Option<Option<String>>,
    /// Set when asked for and the run answered.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub files: Option<Option<Value>>,
    /// Keys this version does not know, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One question's runs: their counts, and whether the repeats agree (one verdict, one
/// answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestionSummary {
    /// The question.
    pub question: String,
    /// Its expected answer.
    pub expected: Option<String>,
    /// Its repeats.
    pub runs: u64,
    /// Its runs graded yes.
    pub passed: u64,
    /// Its runs graded no.
    pub failed: u64,
    /// Its runs graded unclear.
    pub unclear: u64,
    /// Its runs with an error.
    pub errors: u64,
    /// `passed / runs`.
    pub pass_rate: f64,
    /// Every repeat got the same verdict.
    pub consistent: bool,
    /// Different answers among the repeats.
    pub distinct_answers: u64,
    /// What the agent answered (or the error) on the first run graded no; `evaluate` adds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_answer: Option<String>,
    /// Keys this version does not know, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
