//! What `deploy promote` (the stdlib's `promote::run`) reports: a row per step, both deploys'
//! reports and each data agent's evaluation in the test workspace.

use crate::agent::evaluation::Evaluation;
use crate::deploy::ApplyReport;
use serde::{Deserialize, Serialize};

/// A promotion's report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Promotion {
    /// In the order they ran (or would run, in a dry run).
    pub steps: Vec<PromotionStep>,
    /// The deploy to the test workspace, when it got that far.
    pub test: Option<ApplyReport>,
    /// One per data agent of the test workspace's deploy.
    pub evaluations: Vec<AgentEvaluation>,
    /// The deploy to production, when it got that far.
    pub prod: Option<ApplyReport>,
}

/// One step: `deploy test`, `prepare`, `evaluate`, `deploy prod` or `publish`, what it was
/// about (a workspace, a table, a job, an agent), how it went and a line saying so.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromotionStep {
    pub step: String,
    pub target: String,
    pub status: StepStatus,
    pub detail: String,
}

/// How a step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Done,
    Failed,
    /// Not run, because an earlier step failed.
    Skipped,
    /// A dry run's: what would run.
    Planned,
}

/// A data agent's evaluation: what `data-agent evaluate` answered, also when it failed the
/// promotion (none when it could not run at all).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentEvaluation {
    pub agent: String,
    pub result: Option<Evaluation>,
}
