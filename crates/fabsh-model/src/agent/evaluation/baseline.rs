//! The run `data-agent evaluate` compares with (`--baseline`, or `latest` under
//! `--fail-on-regression`), and how it was found: an agent keeps its history across
//! workspaces and re-creations, so a baseline may be a run of the same agent elsewhere.

use super::run::Named;
use serde::{Deserialize, Serialize};

/// How the baseline run was found, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BaselineMatch {
    /// `--baseline RUN` named it.
    Given,
    /// The newest run of this agent (its item id) in this workspace.
    SameAgent,
    /// A run of an agent with this agent's logical id, the identity a deployment repository
    /// gives an item in every workspace it is deployed to (for an item that has none, its
    /// id, which `deploy export` writes as the logical id of its copies).
    LogicalId,
    /// A run of an agent with this agent's display name (and no other logical id).
    DisplayName,
    /// No recorded run is of this agent: the run is compared with nothing.
    None,
}

impl BaselineMatch {
    /// In words, for the note beside the results.
    pub fn words(self) -> &'static str {
        match self {
            BaselineMatch::Given => "as given",
            BaselineMatch::SameAgent => "this agent's latest",
            BaselineMatch::LogicalId => "same logical id",
            BaselineMatch::DisplayName => "same name",
            BaselineMatch::None => "none recorded",
        }
    }
}

/// The baseline of an evaluation: the run compared with, whose it is, and how it was found.
/// A baseline asked for but not found (`matchedBy` `none`) leaves the other keys null.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Baseline {
    /// How the run was found.
    pub matched_by: BaselineMatch,
    /// The run's id in the evaluation store.
    pub run_id: Option<String>,
    /// The workspace of the run's agent.
    pub workspace: Option<Named>,
    /// The run's agent.
    pub agent: Option<Named>,
}

impl Baseline {
    /// No recorded run to compare with.
    pub fn none() -> Baseline {
        Baseline {
            matched_by: BaselineMatch::None,
            run_id: None,
            workspace: None,
            agent: None,
        }
    }
}
