//! The workspace's items the repository does not hold: which are deleted, which are kept and
//! why, and the refusal of a plan that deletes too much at once.

use super::{Deployed, Options, Repository, error};
use crate::protected;
use fabsh_model::deploy::{Change, Kept, PlanAction, PlanProblem, PlanRow};
use fabsh_model::item_types;

/// Whether the service lets this type be created (and so a repository hold it): the others
/// (a lakehouse's SQL endpoint, dashboards) are never orphans.
fn creatable(item_type: &str) -> bool {
    item_types::find(item_type).is_none_or(|t| t.creatable)
}

impl Repository {
    /// A row for each deployed item of a type in scope that the repository does not hold (nor
    /// left out by the scope filters):
    /// deleted under `--delete-orphans` unless something keeps it (unpublish's
    /// exclude_regex or skip, a protected type not opted in), which the row then says.
    pub(super) fn orphans(&self, deployed: &[Deployed], options: &Options) -> Vec<PlanRow> {
        let in_scope = |t: &str| {
            self.settings
                .item_types_in_scope
                .as_ref()
                .is_none_or(|s| s.iter().any(|x| x == t))
        };
        let mut rows = Vec::new();
        for d in deployed {
            // Items the scope filters left out are the repository's too: never orphans.
            let ours = self
                .items
                .iter()
                .chain(self.outside.iter().map(|l| &l.item))
                .any(|i| i.item_type == d.item_type && i.display_name == d.display_name);
            if ours || !creatable(&d.item_type) || !in_scope(&d.item_type) {
                continue;
            }
            let excluded = self
                .settings
                .unpublish_exclude
                .as_ref()
                .is_some_and(|re| re.is_match(&d.display_name));
            let kept = if excluded {
                Some(Kept::ExcludeRegex)
            } else if !options.delete_orphans {
                None
            } else if self.settings.unpublish_skip {
                Some(Kept::UnpublishSkip)
            } else {
                protected::kept_because(
                    &d.item_type,
                    &options.delete_types,
                    &self.settings.features,
                )
            };
            let deleted = options.delete_orphans && kept.is_none();
            rows.push(PlanRow {
                action: if deleted {
                    PlanAction::Delete
                } else {
                    PlanAction::Orphan
                },
                item_type: d.item_type.clone(),
                display_name: d.display_name.clone(),
                folder: d.folder.clone(),
                id: Some(d.id.clone()),
                level: None,
                changes: kept.into_iter().map(Change::Kept).collect(),
                refers_to: Vec::new(),
                diffs: Vec::new(),
            });
        }
        rows
    }
}

/// The refusal of a plan that deletes every item of the workspace, or more than
/// `options.max_deletes`, unless `options.allow_mass_delete`: a repository pointed at the
/// wrong workspace, or a folder that lost most of its items, deletes nothing by accident.
pub(super) fn mass_delete(
    rows: &[PlanRow],
    deployed: &[Deployed],
    options: &Options,
) -> Option<PlanProblem> {
    let deletes = rows
        .iter()
        .filter(|r| r.action == PlanAction::Delete)
        .count();
    if deletes == 0 || options.allow_mass_delete {
        return None;
    }
    let items = deployed.iter().filter(|d| creatable(&d.item_type)).count();
    let why = if deletes >= items {
        format!("every item of the workspace ({items})")
    } else if deletes > options.max_deletes {
        format!("more than --max-deletes {}", options.max_deletes)
    } else {
        return None;
    };
    Some(error(
        Some("workspace".into()),
        "TooManyDeletes",
        format!(
            "the plan deletes {deletes} item(s), {why}: add --allow-mass-delete if that is meant"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::open;
    use crate::repo::tests::{notebook, sample_dir};
    use std::collections::BTreeSet;

    fn live(item_type: &str, name: &str) -> Deployed {
        Deployed {
            id: format!("id-of-{name}"),
            item_type: item_type.into(),
            display_name: name.into(),
            description: None,
            folder: String::new(),
            parts: None,
        }
    }

    fn row<'a>(plan: &'a fabsh_model::deploy::Plan, name: &str) -> &'a PlanRow {
        plan.items
            .iter()
            .find(|r| r.display_name == name)
            .unwrap_or_else(|| panic!("no row {name}"))
    }

    fn deleting() -> Options {
        Options {
            delete_orphans: true,
            ..Options::default()
        }
    }

    #[test]
    fn a_lakehouse_orphan_is_kept_unless_its_type_is_opted_in() {
        // The config: item_types_in_scope [Notebook, Lakehouse].
        let mut repo = open(Some(&sample_dir()), None, None).expect("sample");
        repo.settings.item_types_in_scope = Some(vec!["Notebook".into(), "Lakehouse".into()]);
        let mut target = repo.target();
        target.workspace_id = Some("ws".into());
        let deployed = [live("Lakehouse", "SalesLakehouse"), live("Notebook", "Old")];
        let folders = BTreeSet::new();
        let plan = repo.plan(&target, &deployed, &folders, &deleting());
        let kept = row(&plan, "SalesLakehouse");
        assert_eq!(kept.action, PlanAction::Orphan);
        assert_eq!(
            kept.changes,
            [Change::Kept(Kept::Protected {
                item_type: "Lakehouse".into(),
                feature: Some("enable_lakehouse_unpublish".into()),
            })]
        );
        assert_eq!(row(&plan, "Old").action, PlanAction::Delete);
        assert_eq!((plan.summary.orphan, plan.summary.delete), (1, 1));

        let by_flag = Options {
            delete_types: vec!["Lakehouse".into()],
            ..deleting()
        };
        let plan = repo.plan(&target, &deployed, &folders, &by_flag);
        assert_eq!(row(&plan, "SalesLakehouse").action, PlanAction::Delete);

        repo.settings.features = vec!["enable_lakehouse_unpublish".into()];
        let plan = repo.plan(&target, &deployed, &folders, &deleting());
        assert_eq!(row(&plan, "SalesLakehouse").action, PlanAction::Delete);

        // Without --delete-orphans nothing is deleted, and no reason is needed.
        let plan = repo.plan(&target, &deployed, &folders, &Options::default());
        assert!(plan.items.iter().all(|r| r.action != PlanAction::Delete));
        assert!(row(&plan, "Old").changes.is_empty());
    }

    #[test]
    fn deleting_every_item_or_more_than_the_threshold_needs_the_extra_flag() {
        let root = tempfile::tempdir().expect("temp dir");
        notebook(root.path(), "print(1)\n");
        let repo = open(Some(root.path()), None, None).expect("opens");
        let mut target = repo.target();
        target.workspace_id = Some("ws".into());
        let folders = BTreeSet::new();
        let refusal = |plan: &fabsh_model::deploy::Plan| {
            plan.problems
                .iter()
                .find(|p| p.code == "TooManyDeletes")
                .map(|p| p.message.clone())
        };
        // Two items, neither the repository's: every item.
        let strangers = [live("Notebook", "A"), live("Notebook", "B")];
        let plan = repo.plan(&target, &strangers, &folders, &deleting());
        let message = refusal(&plan).expect("refused");
        assert!(
            message.contains("deletes 2 item(s), every item of the workspace"),
            "{message}"
        );
        let allowed = Options {
            allow_mass_delete: true,
            ..deleting()
        };
        assert_eq!(
            refusal(&repo.plan(&target, &strangers, &folders, &allowed)),
            None
        );

        // Twelve orphans beside the repository's notebook: past the threshold of 10.
        let mut many: Vec<Deployed> = (0..12)
            .map(|n| live("Notebook", &format!("x{n}")))
            .collect();
        many.push(live("Notebook", "Nb"));
        let plan = repo.plan(&target, &many, &folders, &deleting());
        let message = refusal(&plan).expect("refused");
        assert!(
            message.contains("deletes 12 item(s), more than --max-deletes 10"),
            "{message}"
        );
        let raised = Options {
            max_deletes: 12,
            ..deleting()
        };
        assert_eq!(refusal(&repo.plan(&target, &many, &folders, &raised)), None);
    }

    #[test]
    fn rows_come_by_level_then_action_then_folder_and_name() {
        let repo = open(Some(&sample_dir()), None, None).expect("sample");
        let mut target = repo.target();
        target.workspace_id = Some("ws".into());
        let deployed = [live("Notebook", "Zed"), live("Notebook", "Abe")];
        let plan = repo.plan(&target, &deployed, &BTreeSet::new(), &deleting());
        let keys: Vec<_> = plan
            .items
            .iter()
            .map(|r| {
                (
                    r.level.unwrap_or(u32::MAX),
                    r.action,
                    r.folder.clone(),
                    r.display_name.clone(),
                )
            })
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        let last: Vec<&str> = plan.items[plan.items.len() - 2..]
            .iter()
            .map(|r| r.display_name.as_str())
            .collect();
        assert_eq!(last, ["Abe", "Zed"]);
    }
}
