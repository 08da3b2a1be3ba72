//! What apply reports: each item's outcome, the counts, and one line saying them.

use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use fabsh_model::deploy::{ApplyOutcome, ApplyReport, ApplyRow, ApplySummary, PlanRow};
use std::collections::HashMap;

/// Apply's rows in the order of the plan's (by level, action, folder and name).
pub(super) fn in_plan_order(mut rows: Vec<ApplyRow>, plan: &[PlanRow]) -> Vec<ApplyRow> {
    let position: HashMap<(&str, &str), usize> = plan
        .iter()
        .enumerate()
        .map(|(n, r)| ((r.item_type.as_str(), r.display_name.as_str()), n))
        .collect();
    rows.sort_by_key(|r| {
        position
            .get(&(r.item_type.as_str(), r.display_name.as_str()))
            .copied()
            .unwrap_or(usize::MAX)
    });
    rows
}

/// The counts of `rows`' outcomes, with the `follow_ups` carried out.
fn summarise(rows: &[ApplyRow], follow_ups: usize) -> ApplySummary {
    let mut summary = ApplySummary {
        follow_ups,
        ..ApplySummary::default()
    };
    for row in rows {
        let count = match row.outcome {
            ApplyOutcome::Created => &mut summary.created,
            ApplyOutcome::Updated => &mut summary.updated,
            ApplyOutcome::Moved => &mut summary.moved,
            ApplyOutcome::Unchanged => &mut summary.unchanged,
            ApplyOutcome::Deleted => &mut summary.deleted,
            ApplyOutcome::Kept => &mut summary.kept,
            ApplyOutcome::Failed => &mut summary.failed,
            ApplyOutcome::NotStarted => &mut summary.not_started,
        };
        *count += 1;
    }
    summary
}

/// The summary as one line: every count apply always has, and those of orphans kept and
/// items not started when there are some.
fn line(summary: &ApplySummary, dry_run: bool) -> String {
    let s = summary;
    let mut text = format!(
        "{}: {} created, {} updated, {} moved, {} deleted, {} unchanged, {} follow-up(s) done, {} failed",
        if dry_run {
            "dry run, nothing changed"
        } else {
            "applied"
        },
        s.created,
        s.updated,
        s.moved,
        s.deleted,
        s.unchanged,
        s.follow_ups,
        s.failed
    );
    if s.not_started > 0 {
        text.push_str(&format!(", {} not started", s.not_started));
    }
    if s.kept > 0 {
        text.push_str(&format!(", {} orphan(s) kept", s.kept));
    }
    text
}

/// Apply's reply: the report, its summary line, and the failure when some item was not
/// deployed or the run was cancelled.
pub(super) fn reply(
    workspace: &str,
    rows: Vec<ApplyRow>,
    follow_ups: usize,
    interrupted: bool,
    dry_run: bool,
) -> Result<Reply> {
    let summary = summarise(&rows, follow_ups);
    let unfinished = summary.failed + summary.not_started;
    let said = line(&summary, dry_run);
    let report = ApplyReport {
        workspace_id: workspace.to_string(),
        summary,
        items: rows,
    };
    let value = serde_json::to_value(&report)
        .map_err(|err| Error::runtime(format!("the report could not be written: {err}")))?;
    let mut reply = Reply::json(value.clone())
        .with_table_rows("items")
        .with_note(said);
    if dry_run {
        // Each item with what the run would do, planned ids for those it would create.
        reply = reply.with_dry_run_items(value["items"].clone());
    }
    if interrupted {
        return Ok(reply.with_failure(Error::cancelled()));
    }
    if unfinished > 0 {
        return Ok(reply.with_failure(
            Error::new(ErrorKind::Partial, format!("{unfinished} item(s) not deployed"))
                .with_hint("fix the cause and run the same deploy apply again: deployed items pair by type and name and are not made twice"),
        ));
    }
    Ok(reply)
}
