//! What apply does with each row, decided from the plan alone.

use super::*;
use fabsh_model::deploy::{Kept, PartChange};

fn row(name: &str, level: u32, refers_to: &[&str]) -> PlanRow {
    PlanRow {
        action: PlanAction::Create,
        item_type: "Notebook".into(),
        display_name: name.into(),
        folder: String::new(),
        id: None,
        level: Some(level),
        changes: Vec::new(),
        refers_to: refers_to
            .iter()
            .map(std::string::ToString::to_string)
            .collect(),
        diffs: Vec::new(),
    }
}

#[test]
fn an_item_waits_for_what_it_refers_to_and_a_cycle_waits_for_nothing() {
    // c refers to a and b; a and b to each other (a cycle: the levels put a first).
    let plan = vec![
        row("a", 0, &["b.Notebook"]),
        row("b", 1, &["a.Notebook"]),
        row("c", 2, &["a.Notebook", "b.Notebook", "elsewhere.Lakehouse"]),
    ];
    assert_eq!(dependencies(&plan), vec![vec![], vec![0], vec![0, 1]]);
}

#[test]
fn an_update_writes_the_item_only_for_its_definition_or_description() {
    let part = |path: &str| Change::Part {
        path: path.into(),
        change: PartChange::Changed,
    };
    let folder = Change::Folder {
        from: "/a".into(),
        to: String::new(),
    };
    // (changes, writes the item, moves it)
    let cases: Vec<(Vec<Change>, bool, bool)> = vec![
        (vec![Change::Description], true, false),
        (vec![part("notebook-content.py")], true, false),
        // Schedules go through the job scheduler, after the item.
        (vec![part(".schedules")], false, false),
        (
            vec![part(".schedules"), part("pipeline-content.json")],
            true,
            false,
        ),
        // Drift is the follow-ups' to fix.
        (vec![Change::ShortcutMissing("s".into())], false, false),
        (vec![Change::PublishPending(None)], false, false),
        (vec![Change::Binding("c".into())], false, false),
        (vec![folder.clone()], false, true),
        (vec![folder, Change::Description], true, true),
        (vec![Change::Kept(Kept::UnpublishSkip)], false, false),
        (vec![], false, false),
    ];
    for (changes, writes, moved) in cases {
        let r = PlanRow {
            action: PlanAction::Update,
            changes: changes.clone(),
            ..row("x", 0, &[])
        };
        assert_eq!((writes_item(&r), moves(&r)), (writes, moved), "{changes:?}");
    }
}

#[test]
fn a_row_starts_done_only_when_nothing_is_to_be_written() {
    let cases = [
        (PlanAction::Create, ApplyOutcome::NotStarted),
        (PlanAction::Update, ApplyOutcome::NotStarted),
        (PlanAction::Move, ApplyOutcome::NotStarted),
        (PlanAction::Delete, ApplyOutcome::NotStarted),
        (PlanAction::Unchanged, ApplyOutcome::Unchanged),
        (PlanAction::Orphan, ApplyOutcome::Kept),
    ];
    for (action, outcome) in cases {
        let r = PlanRow {
            action,
            id: Some("id".into()),
            ..row("x", 3, &[])
        };
        let first = first_row(&r);
        assert_eq!(first.outcome, outcome, "{action:?}");
        assert_eq!(
            (first.id.as_deref(), first.level, first.error),
            (Some("id"), Some(3), None)
        );
    }
}

#[test]
fn only_a_deployed_data_agent_is_published() {
    let cases = [
        ("DataAgent", ApplyOutcome::Created, true),
        ("DataAgent", ApplyOutcome::Updated, true),
        ("DataAgent", ApplyOutcome::Moved, true),
        ("DataAgent", ApplyOutcome::Unchanged, true),
        ("DataAgent", ApplyOutcome::Failed, false),
        ("DataAgent", ApplyOutcome::NotStarted, false),
        ("DataAgent", ApplyOutcome::Deleted, false),
        ("DataAgent", ApplyOutcome::Kept, false),
        ("Notebook", ApplyOutcome::Created, false),
    ];
    for (item_type, outcome, published) in cases {
        let r = ApplyRow {
            item_type: item_type.into(),
            outcome,
            ..first_row(&row("x", 0, &[]))
        };
        assert_eq!(publishes_agent(&r), published, "{item_type} {outcome:?}");
    }
}
