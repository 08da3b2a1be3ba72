//! Two evaluation runs compared question by question, as `data-agent evaluations compare`
//! prints it (and `evaluate --baseline` under `comparison`).

use serde::{Deserialize, Serialize};

/// How a question fared in one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every graded repeat yes.
    Pass,
    /// No graded repeat yes.
    Fail,
    /// Some graded repeats yes, some not.
    Flaky,
    /// No repeat could be graded either way (verdict unclear: no expected answer, or a judge
    /// that could not tell; verdict error: the judge or the reference query failed): neither
    /// a pass nor a failure.
    Unclear,
}

/// The change of one question from the base run to the head run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionStatus {
    /// Asked in the head run only.
    Added,
    /// Asked in the base run only.
    Removed,
    /// Unclear in either run.
    Unclear,
    /// Flaky in either run.
    Flaky,
    /// Passed in the base run, fails in the head run.
    NewlyFailing,
    /// Failed in the base run, passes in the head run.
    NewlyPassing,
    /// The same outcome.
    Unchanged,
}

impl QuestionStatus {
    /// Its name, as it is written in the output (`newly_failing`).
    pub fn name(self) -> &'static str {
        match self {
            QuestionStatus::Added => "added",
            QuestionStatus::Removed => "removed",
            QuestionStatus::Unclear => "unclear",
            QuestionStatus::Flaky => "flaky",
            QuestionStatus::NewlyFailing => "newly_failing",
            QuestionStatus::NewlyPassing => "newly_passing",
            QuestionStatus::Unchanged => "unchanged",
        }
    }
}

/// One question of a comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionChange {
    /// The question.
    pub question: String,
    /// What changed.
    pub status: QuestionStatus,
    /// Its outcome in the base run; null when not asked there.
    pub base: Option<Outcome>,
    /// Its outcome in the head run; null when not asked there.
    pub head: Option<Outcome>,
    /// It passed on every repeat of the base run and fails on some of the head run: what
    /// `evaluate --fail-on-regression` stops on.
    pub regressed: bool,
}

/// A run's headline in a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Headline {
    /// The store's id of the run (null for one not recorded).
    pub run_id: Option<String>,
    /// When it was recorded.
    pub time: Option<String>,
    /// Its pass rate.
    pub pass_rate: Option<f64>,
    /// Its median latency.
    pub latency_p50_ms: Option<u64>,
    /// Its agent's configuration fingerprint.
    pub configuration_fingerprint: Option<String>,
}

/// What happened to one published part of the agent's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PartChangeKind {
    /// Only the head run's agent has it.
    Added,
    /// Only the base run's agent has it.
    Removed,
    /// Its hash differs.
    Changed,
}

impl PartChangeKind {
    /// Its name, as it is written in the output (`changed`).
    pub fn name(self) -> &'static str {
        match self {
            PartChangeKind::Added => "added",
            PartChangeKind::Removed => "removed",
            PartChangeKind::Changed => "changed",
        }
    }
}

/// One published part of the agent's configuration that differs between the runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigurationChange {
    /// Its path under `published/` (`stage_config.json`, `<datasource>/fewshots.json`), or
    /// `publishedDescription`.
    pub part: String,
    /// What it holds, in words (`instructions and settings`).
    pub what: String,
    /// What happened to it.
    pub change: PartChangeKind,
}

/// Two runs compared, base then head.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    /// Each published part added, removed or changed; null when a run predates per-part
    /// records.
    pub configuration_changes: Option<Vec<ConfigurationChange>>,
    /// The base run.
    pub base: Headline,
    /// The head run.
    pub head: Headline,
    /// Head's pass rate minus base's.
    pub pass_rate_delta: Option<f64>,
    /// Head's median latency minus base's.
    pub latency_p50_delta_ms: Option<f64>,
    /// Whether the configuration fingerprints differ; null when a run has none.
    pub configuration_changed: Option<bool>,
    /// Questions newly failing.
    pub newly_failing: u64,
    /// Questions newly passing.
    pub newly_passing: u64,
    /// Questions flaky in either run.
    pub flaky: u64,
    /// Questions unchanged.
    pub unchanged: u64,
    /// Questions unclear in either run.
    pub unclear: u64,
    /// Every question, the head run's in its order, then those only the base run asked.
    pub questions: Vec<QuestionChange>,
}

impl Comparison {
    /// The questions that regressed.
    pub fn regressed(&self) -> impl Iterator<Item = &QuestionChange> {
        self.questions.iter().filter(|question| question.regressed)
    }
}
