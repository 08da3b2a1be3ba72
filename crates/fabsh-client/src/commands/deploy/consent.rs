//! Asking before apply deletes: the question names the items, which are known only once
//! the plan is made, so the command line leaves it to apply (`--yes` skips it, and off a
//! terminal the command line refuses before any request without `--yes`).

use crate::error::{Error, Result};
use crate::output;
use fabsh_model::deploy::{PlanAction, PlanRow};

/// How many of the items to delete the question lists by name; it counts the rest.
const LISTED: usize = 20;

/// The question: the items `rows` deletes (name, type, folder), the first [`LISTED`] and a
/// count of the others, from the workspace `workspace`.
pub(super) fn question(rows: &[PlanRow], workspace: &str) -> String {
    let doomed: Vec<&PlanRow> = rows
        .iter()
        .filter(|r| r.action == PlanAction::Delete)
        .collect();
    let mut text = format!(
        "deploy apply deletes {} item(s) from workspace {workspace}:",
        doomed.len()
    );
    for row in doomed.iter().take(LISTED) {
        let folder = if row.folder.is_empty() {
            "/"
        } else {
            &row.folder
        };
        text.push_str(&format!(
            "\n  - {} ({}) in {folder}",
            row.display_name, row.item_type
        ));
    }
    if doomed.len() > LISTED {
        text.push_str(&format!("\n  ... and {} more", doomed.len() - LISTED));
    }
    text.push_str("\nDelete them, and deploy the rest?");
    text
}

/// Asks the person at the terminal before deleting what `rows` deletes, when there is any;
/// anything but yes stops the run with nothing written.
pub(super) async fn ask(rows: &[PlanRow], workspace: &str) -> Result<()> {
    if !rows.iter().any(|r| r.action == PlanAction::Delete) {
        return Ok(());
    }
    let question = question(rows, workspace);
    let answer = tokio::task::spawn_blocking(move || output::ask_at_terminal(&question))
        .await
        .ok()
        .flatten();
    match answer {
        Some(true) => Ok(()),
        Some(false) => Err(Error::runtime("not confirmed").with_hint("nothing was changed")),
        None => Err(Error::usage(
            "deploy apply --delete-orphans deletes items, and nobody at a terminal can confirm it",
        )
        .with_hint("add --yes to go ahead; nothing was changed")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, action: PlanAction) -> PlanRow {
        PlanRow {
            action,
            item_type: "Notebook".into(),
            display_name: name.into(),
            folder: "/a".into(),
            id: Some("id".into()),
            level: None,
            changes: Vec::new(),
            refers_to: Vec::new(),
            diffs: Vec::new(),
        }
    }

    #[test]
    fn the_question_lists_the_first_twenty_deletions_and_counts_the_rest() {
        let mut rows: Vec<PlanRow> = (0..23)
            .map(|n| row(&format!("nb{n:02}"), PlanAction::Delete))
            .collect();
        rows.push(row("kept", PlanAction::Orphan));
        let asked = question(&rows, "\"Staging\"");
        assert!(asked.starts_with("deploy apply deletes 23 item(s) from workspace \"Staging\":"));
        assert!(asked.contains("\n  - nb00 (Notebook) in /a") && asked.contains("nb19"));
        assert!(
            !asked.contains("nb20") && !asked.contains("kept"),
            "{asked}"
        );
        assert!(asked.contains("... and 3 more"), "{asked}");
    }
}
