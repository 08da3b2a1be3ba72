//! Data-agent evaluations: what `data-agent evaluate` prints, what the evaluation store keeps
//! and `data-agent evaluations` reads back, how two runs compare, and what the stdlib's
//! `evaluate` module takes and gives. Keys are camelCase as printed; a key that may be null
//! is an `Option`, one that may also be absent says so; keys this version does not know are
//! kept (`extra`), so a newer run loses nothing on its way through.

mod comparison;
mod present;
mod row;
mod run;
mod stdlib;
#[cfg(test)]
mod tests;

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
    /// With `--baseline` (or `--fail-on-regression`): this run compared with that one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
}
