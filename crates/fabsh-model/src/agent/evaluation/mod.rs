//! Data-agent evaluations: what `data-agent evaluate` prints, what the evaluation store keeps
//! and `data-agent evaluations` reads back, how two runs compare, and what the stdlib's
//! `evaluate` module takes and gives. Keys are camelCase as printed; a key that may be null
//! is an `Option`, one that may also be absent says so; keys this version does not know are
//! kept (`extra`), so a newer run loses nothing on its way through.

mod baseline;
mod comparison;
mod present;
mod row;
mod run;
mod stdlib;
#[cfg(test)]
mod tests;

pub use baseline::{Baseline, BaselineMatch};
pub use comparison::{
    Comparison, ConfigurationChange, Headline, Outcome, PartChangeKind, QuestionChange,
    QuestionStatus,
};
pub use row::EvaluationRow;
pub use run::{
    ConfigurationParts, EvaluationRun, EvaluationSummary, ListedRun, Named, RecordedSummary,
};
pub use stdlib::{AskOptions, GradedRow, GradedRuns, QuestionSummary, StdlibQuestion};

use serde::{Deserialize, Serialize};

/// `data-agent evaluate`'s output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Over every run, with the run's id in the store.
    pub summary: RecordedSummary,
    /// Per question, in file order.
    pub questions: Vec<QuestionSummary>,
    /// One per run, in question then repeat order.
    pub rows: Vec<EvaluationRow>,
    /// With `--baseline` (or `--fail-on-regression`): the run compared with, and how it was
    /// found (`matchedBy` `none` when no recorded run is of this agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Baseline>,
    /// With a baseline found: this run compared with that one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
}

/// `data-agent evaluations report`'s output: the run, how many runs its chart and matrix
/// show, and the page (`report`, the file written, or `html`, the page itself).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportWritten {
    /// The run reported.
    pub run_id: Option<String>,
    /// Runs on the pass-rate chart.
    pub runs_charted: usize,
    /// Runs in the questions × runs matrix.
    pub matrix_runs: usize,
    /// The file the page was written to, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    /// The page, when no file was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
}
