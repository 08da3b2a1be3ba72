//! One run of one question of an evaluation, as `data-agent evaluate` prints it and the
//! evaluation store keeps it.

use super::present;
use crate::agent::grade::Verdict;
use crate::sql::ResultSet;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A run of a question, graded. The eight keys from `question` to `error` are always there
/// (null when unknown); the others only where said.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluationRow {
    /// The question asked.
    pub question: String,
    /// The expected answer: the file's, or the text of the reference query's result.
    pub expected: Option<String>,
    /// The agent's answer; null when the run failed.
    pub actual: Option<String>,
    /// The grade.
    pub verdict: Option<Verdict>,
    /// The rule (or `judge`) that decided it.
    pub rule: Option<String>,
    /// Why.
    pub rationale: Option<String>,
    /// How long the agent took.
    pub latency_ms: Option<u64>,
    /// Why the run failed or was left ungraded.
    pub error: Option<String>,
    /// The question's reference query: in `evaluate`'s rows when any question has one (null
    /// for the others), in the store's when this one has one.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub expected_sql: Option<Option<String>>,
    /// The reference query's result set, beside `expectedSql` in `evaluate`'s rows (null
    /// when the query gave none); not stored.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub expected_result: Option<Option<ResultSet>>,
    /// The agent's run steps under `--show-steps` (the service's own shape): null when the
    /// run failed or the service had none.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub steps: Option<Option<Value>>,
    /// The conversation thread kept under `--keep-thread`; null when the run failed.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub thread_id: Option<Option<String>>,
    /// The files written under `--download-files` (as `data-agent query` lists them); null
    /// when the run failed.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "present")]
    pub files: Option<Option<Value>>,
    /// Keys this version does not know, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl EvaluationRow {
    /// The columns of a rows file written as CSV (and of the store's rows), in order.
    pub const COLUMNS: [&'static str; 8] = [
        "question",
        "expected",
        "actual",
        "verdict",
        "rule",
        "rationale",
        "latencyMs",
        "error",
    ];

    /// The row's [`COLUMNS`](Self::COLUMNS) as text, null as an empty cell.
    pub fn cells(&self) -> [String; 8] {
        // Null is an empty cell: CSV has no other way to say it.
        let text = |value: Option<&str>| value.unwrap_or("").to_string();
        [
            self.question.clone(),
            text(self.expected.as_deref()),
            text(self.actual.as_deref()),
            text(self.verdict.map(Verdict::name)),
            text(self.rule.as_deref()),
            text(self.rationale.as_deref()),
            text(self.latency_ms.map(|ms| ms.to_string()).as_deref()),
            text(self.error.as_deref()),
        ]
    }

    /// True when graded yes.
    pub fn passed(&self) -> bool {
        self.verdict == Some(Verdict::Yes)
    }

    /// True when the run could not be graded (verdict `error`: the judge or the reference
    /// query failed).
    pub fn ungraded(&self) -> bool {
        self.verdict == Some(Verdict::Error)
    }

    /// The reference query, when the row has one.
    pub fn reference_query(&self) -> Option<&str> {
        self.expected_sql.as_ref()?.as_deref()
    }
}
