//! What fabric-cicd does once an item is deployed, decided here on the workspace's state as
//! data: an environment created or updated has its staged changes published, a lakehouse
//! gets the shortcuts of its `shortcuts.metadata.json`, a semantic model is bound to the
//! connections parameter.yml's `semantic_model_binding` gives it, an item's `.schedules`
//! goes to the job scheduler. A plan cannot see these in definitions, so it checks them
//! ([`Repository::drift_checks`]) and adds what it finds as changes ([`add_drift`]). The
//! client fetches what each check names and sends what each decision says; it decides nothing.

mod bindings;
mod shortcuts;

use crate::plan::{Repository, settle};
use crate::render::{RuleHits, Target};
use crate::repo::{RepoItem, RepoPart};
use crate::schedules;
use fabsh_model::deploy::{ApplyOutcome, Change, Plan, PlanAction, Shortcut};
use fabsh_model::item_types;

pub use bindings::{Binding, binding_drift, bindings};
pub use shortcuts::{missing_shortcuts, shortcut_body, shortcut_drift};

/// The lakehouse part that lists its shortcuts.
const SHORTCUTS_PART: &str = "shortcuts.metadata.json";

/// A follow-up of one item's deployment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowUp {
    /// Publish an environment's staged changes.
    Publish,
    /// Create the lakehouse's shortcuts it lacks.
    Shortcuts,
    /// Bind a semantic model to its connections.
    Bind,
    /// Write the item's `.schedules` through the job scheduler.
    Schedules,
}

/// The follow-ups of `item` once apply deployed it with `outcome`. An environment is
/// published only when something was written to it: publishing an unchanged one again
/// would restart its Spark sessions for nothing.
pub fn follow_ups(item: &RepoItem, outcome: ApplyOutcome) -> Vec<FollowUp> {
    let written = matches!(outcome, ApplyOutcome::Created | ApplyOutcome::Updated);
    let mut out = Vec::new();
    match item.item_type.as_str() {
        item_types::ENVIRONMENT if written => out.push(FollowUp::Publish),
        item_types::LAKEHOUSE => out.push(FollowUp::Shortcuts),
        item_types::SEMANTIC_MODEL => out.push(FollowUp::Bind),
        _ => {}
    }
    if item.parts.iter().any(|p| p.path == schedules::PART) {
        out.push(FollowUp::Schedules);
    }
    out
}

/// An environment's pending publish, from the state of its last publish as the service
/// reports it (None: never published). A publish still running will finish by itself.
pub fn publish_drift(state: Option<&str>) -> Option<Change> {
    match state.unwrap_or("") {
        "" => Some(Change::PublishPending(None)),
        s if s.eq_ignore_ascii_case("success") || s.eq_ignore_ascii_case("running") => None,
        s => Some(Change::PublishPending(Some(s.to_string()))),
    }
}

/// What a plan's row needs fetched to know its drift.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// The lakehouse's shortcuts, to compare with these (the file's, rendered).
    Shortcuts(Vec<Shortcut>),
    /// The environment's last publish state.
    Publish,
    /// The semantic model's connections, to compare with these connection ids.
    Binding(Vec<String>),
}

/// A check of the deployed item `id` on row `row` of a plan.
#[derive(Debug, Clone, PartialEq)]
pub struct DriftCheck {
    pub row: usize,
    pub id: String,
    pub check: Check,
}

impl Repository {
    /// The part at `path` of item `n` as rendered for `target`, if it has one.
    pub fn rendered_part(&self, target: &Target, n: usize, path: &str) -> Option<RepoPart> {
        let mut hits = RuleHits::new(&self.params);
        let rendered = self.renderer(target).render(n, &mut hits);
        rendered.parts.into_iter().find(|p| p.path == path)
    }

    /// The shortcuts item `n`'s `shortcuts.metadata.json` holds, rendered for `target`
    /// (logical ids and the zero workspace id become the target's); none when it has no such
    /// part or an empty one; an error when the part is not a list of shortcuts.
    pub fn wanted_shortcuts(&self, target: &Target, n: usize) -> Result<Vec<Shortcut>, String> {
        let Some(part) = self.rendered_part(target, n, SHORTCUTS_PART) else {
            return Ok(Vec::new());
        };
        serde_json::from_slice(&part.bytes)
            .map_err(|err| format!("{SHORTCUTS_PART} is not a list of shortcuts: {err}"))
    }

    /// The connection ids `semantic_model_binding` gives the semantic model `name` in this
    /// environment.
    pub fn connections_of(&self, name: &str) -> Vec<String> {
        self.params
            .connections_for(name, self.environment.as_deref())
    }

    /// Whether some semantic model has connections to bind to: only then are the
    /// connections the caller can see listed.
    pub fn binds_connections(&self) -> bool {
        self.items.iter().any(|i| {
            i.item_type == item_types::SEMANTIC_MODEL
                && !self.connections_of(&i.display_name).is_empty()
        })
    }

    /// What to fetch to find `plan`'s drift: for each row of a repository item that is
    /// deployed, a lakehouse's shortcuts (when its file lists any), an environment's publish
    /// state, a semantic model's connections (when it has some to bind to).
    pub fn drift_checks(&self, target: &Target, plan: &Plan) -> Vec<DriftCheck> {
        // The rows are in the plan's order, not the repository's.
        let index = self.index();
        let mut checks = Vec::new();
        for (row_at, row) in plan.items.iter().enumerate() {
            if matches!(row.action, PlanAction::Orphan | PlanAction::Delete) {
                continue;
            }
            let (Some(&n), Some(id)) = (
                index.get(&(row.item_type.as_str(), row.display_name.as_str())),
                &row.id,
            ) else {
                continue;
            };
            let check = match row.item_type.as_str() {
                item_types::LAKEHOUSE => match self.wanted_shortcuts(target, n) {
                    Ok(wanted) if !wanted.is_empty() => Check::Shortcuts(wanted),
                    // None wanted; or a file that does not parse, which is apply's to report,
                    // on the lakehouse's row.
                    _ => continue,
                },
                item_types::ENVIRONMENT => Check::Publish,
                item_types::SEMANTIC_MODEL => {
                    let ids = self.connections_of(&row.display_name);
                    if ids.is_empty() {
                        continue;
                    }
                    Check::Binding(ids)
                }
                _ => continue,
            };
            checks.push(DriftCheck {
                row: row_at,
                id: id.clone(),
                check,
            });
        }
        checks
    }
}

/// Adds the drift found (changes by row index) to `plan`: a row otherwise unchanged or only
/// moved becomes an update, and moves among the updates of its level.
pub fn add_drift(plan: &mut Plan, found: Vec<(usize, Vec<Change>)>) {
    for (n, changes) in found {
        if changes.is_empty() {
            continue;
        }
        let row = &mut plan.items[n];
        row.changes.extend(changes);
        if matches!(row.action, PlanAction::Unchanged | PlanAction::Move) {
            row.action = PlanAction::Update;
        }
    }
    settle(plan);
}

#[cfg(test)]
mod tests;
