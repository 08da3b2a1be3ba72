//! What `deploy plan` and `deploy apply` report: one row per item of the repository or the
//! workspace, typed so the client, scripts and tests read the same shape.

use serde::{Deserialize, Serialize};

mod change;

pub use change::{Change, Kept, PartChange, UnknownChange};

/// What apply would do to one item. The order is the order a plan lists the rows of one
/// level in: what is deployed, then what is left alone, then what is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
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
    /// In the workspace only, and kept: no `--delete-orphans`, or a reason in the row's
    /// changes (`kept: ...`).
    Orphan,
    /// In the workspace only, and deleted by apply (`--delete-orphans`).
    Delete,
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
    /// What differs (written in words: `part notebook-content.py changed`, `description`,
    /// `folder / -> /a`); for an orphan kept under `--delete-orphans`, why (`kept: ...`).
    pub changes: Vec<Change>,
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
    /// Orphans kept.
    pub orphan: usize,
    /// Orphans apply deletes.
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

/// What a plan was asked for: what shapes its rows, so a saved plan is checked again with
/// the same.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanOptions {
    /// Unified diffs of the changed parts in the rows.
    pub diff: bool,
    /// Orphans are deleted (but protected types not opted in, and those the config keeps).
    pub delete_orphans: bool,
    /// Protected item types whose orphans are deleted too (`--delete-type`).
    pub delete_types: Vec<String>,
    /// The most deletions a plan makes without `allow_mass_delete`.
    pub max_deletes: usize,
    /// Deleting more than `max_deletes`, or every item of the workspace, is allowed.
    pub allow_mass_delete: bool,
}

/// How many orphans a plan deletes unless told otherwise (`--max-deletes`).
pub const DEFAULT_MAX_DELETES: usize = 10;

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            diff: false,
            delete_orphans: false,
            delete_types: Vec::new(),
            max_deletes: DEFAULT_MAX_DELETES,
            allow_mass_delete: false,
        }
    }
}

/// What one row of a plan was computed from, as SHA-256 digests (hex): the repository
/// item's content after parameterisation (with `$ENV:NAME` where a variable's value goes)
/// and the workspace item's state it was compared with. A saved plan is applied only while
/// both are still the same.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fingerprint {
    #[serde(rename = "type")]
    pub item_type: String,
    pub display_name: String,
    /// None: not in the repository (an orphan).
    pub source: Option<String>,
    /// None: not in the workspace (a create).
    pub live: Option<String>,
}

/// The name of the format `deploy plan --out` writes.
pub const SAVED_PLAN_FORMAT: &str = "fabsh-deploy-plan/1";

/// A plan as `deploy plan --out` writes it and `deploy apply --plan` reads it: the rows,
/// what they were computed from, and where they go. It holds no token and no environment
/// variable's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedPlan {
    /// [`SAVED_PLAN_FORMAT`].
    pub format: String,
    /// The API endpoint the plan was made against.
    pub endpoint: String,
    pub workspace_id: String,
    pub workspace_name: Option<String>,
    /// The repository's folder, as the plan read it.
    pub repository: String,
    pub environment: Option<String>,
    pub options: PlanOptions,
    pub plan: Plan,
    /// One per row, in the rows' order.
    pub fingerprints: Vec<Fingerprint>,
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

/// How many items apply left with each outcome, and the follow-ups it carried out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplySummary {
    pub created: usize,
    pub updated: usize,
    pub moved: usize,
    pub deleted: usize,
    pub unchanged: usize,
    /// Orphans left in place.
    pub kept: usize,
    /// Follow-ups that changed something: an environment published, shortcuts or schedules
    /// written, a semantic model bound, a data agent published.
    pub follow_ups: usize,
    pub failed: usize,
    pub not_started: usize,
}

/// What apply reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyReport {
    pub workspace_id: String,
    pub summary: ApplySummary,
    pub items: Vec<ApplyRow>,
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
