//! What apply does with each row of a plan, decided before anything is sent: where a row
//! starts, what it waits for, what an update writes, which data agents are published.

use crate::plan::Repository;
use crate::schedules;
use fabsh_model::deploy::{ApplyOutcome, ApplyRow, Change, PlanAction, PlanRow};
use fabsh_model::item_types;
use std::collections::HashMap;

/// The report's row of a plan row before apply touches it: what needs no write is already
/// done (unchanged, an orphan kept), the rest not started until it is.
pub fn first_row(row: &PlanRow) -> ApplyRow {
    ApplyRow {
        item_type: row.item_type.clone(),
        display_name: row.display_name.clone(),
        outcome: match row.action {
            PlanAction::Unchanged => ApplyOutcome::Unchanged,
            PlanAction::Orphan => ApplyOutcome::Kept,
            PlanAction::Create | PlanAction::Update | PlanAction::Move | PlanAction::Delete => {
                ApplyOutcome::NotStarted
            }
        },
        id: row.id.clone(),
        level: row.level,
        error: None,
        notes: Vec::new(),
    }
}

/// The plan's rows as apply works through them: the repository's items in its order (an
/// item is found by its index in the repository), then the orphans. An item without a row
/// (a saved plan of another repository) is an error naming it.
pub fn align(repo: &Repository, plan: &[PlanRow]) -> Result<Vec<PlanRow>, String> {
    let orphan = |r: &PlanRow| matches!(r.action, PlanAction::Orphan | PlanAction::Delete);
    let mut rows = Vec::with_capacity(plan.len());
    for item in &repo.items {
        let row = plan
            .iter()
            .find(|r| {
                !orphan(r) && r.item_type == item.item_type && r.display_name == item.display_name
            })
            .ok_or_else(|| format!("the plan has no row for {}", item.key()))?;
        rows.push(row.clone());
    }
    rows.extend(plan.iter().filter(|r| orphan(r)).cloned());
    Ok(rows)
}

/// For each repository item, the items it waits for: those it refers to at a lower level
/// (a reference within a cycle has none and is ignored, as the levels ignore it).
pub fn dependencies(plan: &[PlanRow]) -> Vec<Vec<usize>> {
    let by_key: HashMap<String, usize> = plan
        .iter()
        .enumerate()
        .map(|(n, r)| (format!("{}.{}", r.display_name, r.item_type), n))
        .collect();
    plan.iter()
        .map(|row| {
            row.refers_to
                .iter()
                .filter_map(|key| by_key.get(key).copied())
                .filter(|&d| plan[d].level < row.level)
                .collect()
        })
        .collect()
}

/// Whether an update writes the item itself (its definition, or a shell-only item's
/// description). Schedules are written after the item, through the job scheduler, and a
/// follow-up's drift by the follow-up: an update of those alone writes no definition.
pub fn writes_item(row: &PlanRow) -> bool {
    row.changes.iter().any(|c| match c {
        Change::Description => true,
        Change::Part { path, .. } => path != schedules::PART,
        _ => false,
    })
}

/// Whether the item moves to another folder.
pub fn moves(row: &PlanRow) -> bool {
    row.changes
        .iter()
        .any(|c| matches!(c, Change::Folder { .. }))
}

/// Whether `--publish-agents` publishes this row's item: a data agent that is deployed.
pub fn publishes_agent(row: &ApplyRow) -> bool {
    row.item_type == item_types::DATA_AGENT
        && matches!(
            row.outcome,
            ApplyOutcome::Created
                | ApplyOutcome::Updated
                | ApplyOutcome::Moved
                | ApplyOutcome::Unchanged
        )
}

#[cfg(test)]
mod tests;
