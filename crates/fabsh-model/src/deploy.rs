//! What `deploy plan` and `deploy apply` report: one row per item of the repository or the
//! workspace, typed so the client, scripts and tests read the same shape.

use serde::{Deserialize, Serialize};

/// What apply would do to one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanAction {
    /// In the repository, not in the workspace.
    Create,
    /// In both; the definition or the description differs after parameterisation.
    Update,
    /// In both, the same content, but in another workspace folder.
    Move,
    /// In both and the same.
    Unchanged,
    /// In the workspace only; deleted only with `--delete-orphans`.
    Orphan,
}

/// One unified diff of a changed part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartDiff {
    /// The part's path inside the item (`notebook-content.py`).
    pub path: String,
    /// `---`/`+++` unified diff, deployed first; empty for binary parts.
    pub diff: String,
}

/// One row of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanRow {
    pub action: PlanAction,
    #[serde(rename = "type")]
    pub item_type: String,
    pub display_name: String,
    /// The workspace folder (`/a/b`; empty for the root) the item goes to (or is in, for an
    /// orphan).
    pub folder: String,
    /// The deployed item's id, when there is one.
    pub id: Option<String>,
    /// The dependency level: items of one level are deployed together, after the levels
    /// before. None for orphans.
    pub level: Option<u32>,
    /// What differs, in words (`part notebook-content.py`, `description`, `folder / -> /a`).
    pub changes: Vec<String>,
    /// For an orphan: whether apply deletes it (`--delete-orphans`, not matched by the
    /// unpublish exclude_regex, unpublish not skipped).
    pub delete: bool,
    /// The repository items (`Name.Type`) this one refers to: deployed before it, and its
    /// apply is not started when one of them fails.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refers_to: Vec<String>,
    /// With `--diff`: the unified diffs of the changed parts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diffs: Vec<PartDiff>,
}

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The deployment would fail or deploy something wrong: apply refuses to start.
    Error,
    /// Worth a look (a parameter rule that matches nothing), not fatal.
    Warning,
}

/// A problem found in the repository or its parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanProblem {
    /// The item (`Name.Type`) or file it concerns, when one.
    pub subject: Option<String>,
    pub severity: Severity,
    /// A stable name for the rule (`UnmatchedRule`, `UnknownItemReference`, ...).
    pub code: String,
    pub message: String,
}

/// How many rows of each action.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanSummary {
    pub create: usize,
    pub update: usize,
    #[serde(rename = "move")]
    pub moves: usize,
    pub unchanged: usize,
    pub orphan: usize,
    /// Orphans apply would delete.
    pub delete: usize,
}

/// A whole plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// The target workspace's id; None for an offline validation.
    pub workspace_id: Option<String>,
    pub environment: Option<String>,
    /// Folders apply creates (`/a/b`), parents first.
    pub create_folders: Vec<String>,
    pub items: Vec<PlanRow>,
    pub problems: Vec<PlanProblem>,
    pub summary: PlanSummary,
    /// Whether apply would change anything.
    pub pending: bool,
}

/// What apply did to one item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApplyOutcome {
    Created,
    Updated,
    Moved,
    Unchanged,
    Deleted,
    /// An orphan left in place (no `--delete-orphans`, or excluded).
    Kept,
    Failed,
    /// Not tried: an earlier level failed or the run was cancelled.
    NotStarted,
}

/// One row of apply's report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyRow {
    #[serde(rename = "type")]
    pub item_type: String,
    pub display_name: String,
    pub outcome: ApplyOutcome,
    pub id: Option<String>,
    pub level: Option<u32>,
    pub error: Option<String>,
    /// What was done after deploying it (an environment published, a semantic model bound)
    /// or left undone with a reason, as fabric-cicd logs it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The details of a connection, as `GET /connections` and an item's connections list them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConnectionDetails {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub path: Option<String>,
}

/// A connection as `GET /connections` (and an item's connections) answer it; only what a
/// binding needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Connection {
    /// Absent for a connection the item makes itself (`Automatic`).
    pub id: Option<String>,
    pub connectivity_type: Option<String>,
    pub connection_details: Option<ConnectionDetails>,
}

/// The body of a semantic model's `bindConnection`: the connection's id, connectivity type
/// and details, as the service lists the connection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BindConnection {
    pub connection_binding: Connection,
}

/// A lakehouse shortcut as `shortcuts.metadata.json` holds it and the shortcuts routes list
/// and create it. The target is kept as the repository writes it: it has one of eight kinds
/// (oneLake, adlsGen2, amazonS3, ...), each with fields of its own, and deploy passes it on
/// after parameterisation without reading more than a OneLake target's ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Shortcut {
    pub name: String,
    pub path: String,
    pub target: serde_json::Value,
}
