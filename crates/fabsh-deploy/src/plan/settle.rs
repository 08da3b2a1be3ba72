//! A plan's rows put in order and counted, and whether apply would change anything: once
//! when the plan is made, and again when drift turns rows into updates.

use fabsh_model::deploy::{Plan, PlanAction, PlanRow, PlanSummary};

/// Puts a plan's rows in order, counts them and says whether apply would change anything:
/// once when the plan is made, and again when drift turns rows into updates.
pub(crate) fn settle(plan: &mut Plan) {
    sort_rows(&mut plan.items);
    plan.summary = summarise(&plan.items);
    let s = &plan.summary;
    // An offline validation compares with nothing: there is nothing to apply it to.
    plan.pending = plan.workspace_id.is_some()
        && (s.create + s.update + s.moves + s.delete > 0 || !plan.create_folders.is_empty());
}

/// The counts of each action.
fn summarise(rows: &[PlanRow]) -> PlanSummary {
    let mut summary = PlanSummary::default();
    for row in rows {
        match row.action {
            PlanAction::Create => summary.create += 1,
            PlanAction::Update => summary.update += 1,
            PlanAction::Move => summary.moves += 1,
            PlanAction::Unchanged => summary.unchanged += 1,
            PlanAction::Orphan => summary.orphan += 1,
            PlanAction::Delete => summary.delete += 1,
        }
    }
    summary
}

/// Rows in the order a plan lists them: by level (orphans, which have none, last), then
/// action, then folder and name.
fn sort_rows(rows: &mut [PlanRow]) {
    rows.sort_by(|a, b| {
        let key = |r: &PlanRow| (r.level.unwrap_or(u32::MAX), r.action);
        key(a)
            .cmp(&key(b))
            .then_with(|| a.folder.cmp(&b.folder))
            .then_with(|| a.display_name.cmp(&b.display_name))
            .then_with(|| a.item_type.cmp(&b.item_type))
    });
}
