//! Follow-ups and drift, each case written from fabric-cicd's documented behaviour (what it
//! publishes, creates, binds) and the sample repository.

use super::*;
use crate::plan::{Deployed, Options, open};
use crate::repo::tests::sample_dir;
use fabsh_model::deploy::{BindConnection, Connection, ConnectionDetails, PlanRow};
use serde_json::json;
use std::collections::BTreeSet;

fn item(item_type: &str, parts: &[&str]) -> RepoItem {
    RepoItem {
        item_type: item_type.into(),
        display_name: "X".into(),
        description: None,
        logical_id: String::new(),
        folder: String::new(),
        dir: format!("X.{item_type}"),
        parts: parts
            .iter()
            .map(|p| RepoPart {
                path: p.to_string(),
                bytes: Vec::new(),
            })
            .collect(),
        platform: json!({}),
        parent_logical_id: None,
    }
}

#[test]
fn each_type_gets_the_follow_ups_fabric_cicd_runs_after_deploying_it() {
    use ApplyOutcome::{Created, Moved, Unchanged, Updated};
    use FollowUp::{Bind, Publish, Schedules, Shortcuts};
    let cases: &[(&str, &[&str], ApplyOutcome, &[FollowUp])] = &[
        // An environment is published when written, not when left as it was.
        ("Environment", &[], Created, &[Publish]),
        ("Environment", &[], Updated, &[Publish]),
        ("Environment", &[], Unchanged, &[]),
        ("Environment", &[], Moved, &[]),
        // Shortcuts and bindings are made whenever missing, written or not.
        ("Lakehouse", &[], Unchanged, &[Shortcuts]),
        ("Lakehouse", &[], Created, &[Shortcuts]),
        ("SemanticModel", &[], Unchanged, &[Bind]),
        (
            "DataPipeline",
            &[".schedules", "pipeline-content.json"],
            Created,
            &[Schedules],
        ),
        ("Notebook", &[".schedules"], Unchanged, &[Schedules]),
        ("Notebook", &["notebook-content.py"], Created, &[]),
        ("Report", &[], Updated, &[]),
    ];
    for (item_type, parts, outcome, expected) in cases {
        assert_eq!(
            follow_ups(&item(item_type, parts), *outcome),
            *expected,
            "{item_type} {parts:?} {outcome:?}"
        );
    }
}

#[test]
fn an_environment_is_pending_until_its_last_publish_succeeded() {
    let pending = |state: Option<&str>| Some(Change::PublishPending(state.map(str::to_string)));
    let cases = [
        (None, pending(None)),
        (Some(""), pending(None)),
        (Some("Success"), None),
        (Some("success"), None),
        (Some("Running"), None),
        (Some("Failed"), pending(Some("Failed"))),
        (Some("Cancelled"), pending(Some("Cancelled"))),
    ];
    for (state, expected) in cases {
        assert_eq!(publish_drift(state), expected, "{state:?}");
    }
}

fn shortcut(name: &str, path: &str, target: serde_json::Value) -> Shortcut {
    Shortcut {
        name: name.into(),
        path: path.into(),
        target,
    }
}

#[test]
fn a_shortcut_is_missing_differs_or_is_there_as_the_service_reports_it() {
    let one_lake = |path: &str, item: &str| json!({"type": "OneLake", "oneLake": {"path": path, "itemId": item, "workspaceId": "W"}});
    let wanted = [shortcut("s", "/Files", one_lake("Files/a", "ITEM"))];
    let cases = [
        (vec![], vec![Change::ShortcutMissing("s".into())]),
        // Ids in any case, paths without edge slashes, fields the service adds: the same.
        (
            vec![shortcut(
                "s",
                "Files/",
                json!({"type": "OneLake", "oneLake": {"path": "/Files/a/", "itemId": "item",
                    "workspaceId": "w", "connectionId": "c"}}),
            )],
            vec![],
        ),
        // At its place but pointing elsewhere: differs.
        (
            vec![shortcut("s", "/Files", one_lake("Files/b", "ITEM"))],
            vec![Change::ShortcutDiffers("s".into())],
        ),
        // Its name elsewhere is not it.
        (
            vec![shortcut("s", "/Tables", one_lake("Files/a", "ITEM"))],
            vec![Change::ShortcutMissing("s".into())],
        ),
        // Another shortcut beside it is left alone and changes nothing.
        (
            vec![
                shortcut("s", "/Files", one_lake("Files/a", "ITEM")),
                shortcut("t", "/Files", one_lake("Files/t", "ITEM")),
            ],
            vec![],
        ),
    ];
    for (existing, expected) in cases {
        assert_eq!(shortcut_drift(&wanted, &existing), expected, "{existing:?}");
        let missing: Vec<&str> = missing_shortcuts(&wanted, &existing)
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(missing.len(), expected.len(), "{existing:?}");
    }
}

#[test]
fn a_shortcut_is_created_without_the_type_the_service_reports() {
    let wanted = shortcut(
        "s",
        "/Files",
        json!({"type": "OneLake", "oneLake": {"path": "p"}}),
    );
    assert_eq!(
        shortcut_body(&wanted),
        json!({"path": "/Files", "name": "s", "target": {"oneLake": {"path": "p"}}})
    );
}

fn connection(id: &str, details: Option<(&str, &str)>) -> Connection {
    Connection {
        id: Some(id.into()),
        connectivity_type: Some("ShareableCloud".into()),
        connection_details: details.map(|(kind, path)| ConnectionDetails {
            kind: Some(kind.into()),
            path: Some(path.into()),
        }),
    }
}

#[test]
fn a_model_is_bound_to_each_visible_connection_it_lacks_and_told_of_the_rest() {
    let ids = ["c1", "c2", "c3", "c4"].map(String::from);
    let current = [connection("c1", None)];
    let visible = [
        connection("c1", None),
        connection("c2", Some(("SQL", "server;db"))),
        connection("c4", None),
    ];
    let body = |id: &str, details: serde_json::Value| {
        serde_json::from_value::<BindConnection>(json!({"connectionBinding": {
            "id": id, "connectivityType": "ShareableCloud", "connectionDetails": details}}))
        .expect("body")
    };
    assert_eq!(
        bindings(&ids, &current, &visible),
        [
            Binding::Bind {
                id: "c2".into(),
                body: body("c2", json!({"type": "SQL", "path": "server;db"}))
            },
            Binding::NotVisible("c3".into()),
            // Listed without details: sent with empty ones, as the service wants them.
            Binding::Bind {
                id: "c4".into(),
                body: body("c4", json!({"type": null, "path": null}))
            },
        ]
    );
    // The plan shows what apply would bind: not c1 (bound), not c3 (apply cannot).
    assert_eq!(
        binding_drift(&ids, &current, &visible),
        [Change::Binding("c2".into()), Change::Binding("c4".into())]
    );
}

/// The sample planned for PPE against a workspace that holds all its items but `absent`,
/// and one orphan environment.
fn sample_plan(absent: &str) -> (Repository, Target, Plan) {
    let repo = open(Some(&sample_dir()), None, Some("PPE")).expect("sample");
    let mut target = repo.target();
    target.workspace_id = Some("ws".into());
    let mut deployed: Vec<Deployed> = repo
        .items
        .iter()
        .filter(|i| i.display_name != absent)
        .map(|i| Deployed {
            id: format!("id-{}", i.display_name),
            item_type: i.item_type.clone(),
            display_name: i.display_name.clone(),
            description: i.description.clone(),
            folder: i.folder.clone(),
            parts: None,
        })
        .collect();
    deployed.push(Deployed {
        id: "id-Stranger".into(),
        item_type: "Environment".into(),
        display_name: "Stranger".into(),
        description: None,
        folder: String::new(),
        parts: None,
    });
    let plan = repo.plan(&target, &deployed, &BTreeSet::new(), &Options::default());
    (repo, target, plan)
}

/// The checks as (row's name, id, what is checked), sorted.
fn checks_of(
    repo: &Repository,
    target: &Target,
    plan: &Plan,
) -> BTreeSet<(String, String, String)> {
    repo.drift_checks(target, plan)
        .into_iter()
        .map(|c| {
            let kind = match &c.check {
                Check::Shortcuts(wanted) => format!(
                    "shortcuts {}",
                    wanted
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                Check::Publish => "publish".into(),
                Check::Binding(ids) => format!("binding {}", ids.join(",")),
            };
            (plan.items[c.row].display_name.clone(), c.id, kind)
        })
        .collect()
}

#[test]
fn drift_is_checked_for_the_deployed_items_fabric_cicd_follows_up() {
    let (repo, target, plan) = sample_plan("");
    let expected: BTreeSet<(String, String, String)> = [
        // The two lakehouses whose shortcuts.metadata.json lists shortcuts; the four with
        // an empty list have none to check.
        (
            "TargetForShortcutLH",
            "shortcuts publicholidays,sample_datasets,images",
        ),
        ("WithSchema", "shortcuts Testing"),
        ("World", "publish"),
        // ABC is not among semantic_model_binding's models: the default's PPE connection.
        ("ABC", "binding 76e05dfe-9855-4e3d-a410-1dda048dbe99"),
    ]
    .into_iter()
    .map(|(name, kind)| (name.to_string(), format!("id-{name}"), kind.to_string()))
    .collect();
    // The orphan environment (Stranger) is not the repository's: nothing to follow up.
    assert_eq!(checks_of(&repo, &target, &plan), expected);

    // An item not deployed yet has nothing to drift from.
    let (repo, target, plan) = sample_plan("World");
    assert!(
        checks_of(&repo, &target, &plan)
            .iter()
            .all(|(name, _, _)| name != "World")
    );
}

fn row(name: &str, level: u32, action: PlanAction) -> PlanRow {
    PlanRow {
        action,
        item_type: "Lakehouse".into(),
        display_name: name.into(),
        folder: String::new(),
        id: Some(format!("id-{name}")),
        level: Some(level),
        changes: Vec::new(),
        refers_to: Vec::new(),
        diffs: Vec::new(),
    }
}

fn plan_of(rows: Vec<PlanRow>, workspace: Option<&str>) -> Plan {
    let mut plan = Plan {
        workspace_id: workspace.map(str::to_string),
        environment: None,
        create_folders: Vec::new(),
        items: rows,
        problems: Vec::new(),
        summary: Default::default(),
        pending: false,
    };
    settle(&mut plan);
    plan
}

/// Rows, the drift found by row name, the rows after (name, action) in order, pending.
type DriftCase = (
    Vec<PlanRow>,
    Vec<(&'static str, Vec<Change>)>,
    Vec<(&'static str, PlanAction)>,
    bool,
);

#[test]
fn drift_makes_a_row_an_update_that_moves_among_the_updates_of_its_level() {
    use PlanAction::{Move, Unchanged, Update};
    let missing = || vec![Change::ShortcutMissing("s".into())];
    let folder = Change::Folder {
        from: String::new(),
        to: "/a".into(),
    };
    let cases: Vec<DriftCase> = vec![
        (
            vec![
                row("A", 0, Unchanged),
                row("B", 0, Unchanged),
                row("C", 1, Unchanged),
            ],
            vec![("B", missing())],
            vec![("B", Update), ("A", Unchanged), ("C", Unchanged)],
            true,
        ),
        // No drift found: nothing changes, nothing pending.
        (
            vec![row("A", 0, Unchanged), row("B", 0, Unchanged)],
            vec![("A", vec![])],
            vec![("A", Unchanged), ("B", Unchanged)],
            false,
        ),
        // A move with drift is an update (the move is still among its changes).
        (
            vec![
                PlanRow {
                    changes: vec![folder.clone()],
                    ..row("A", 0, Move)
                },
                row("B", 0, Unchanged),
            ],
            vec![("A", missing())],
            vec![("A", Update), ("B", Unchanged)],
            true,
        ),
    ];
    for (rows, drift, expected, pending) in cases {
        let mut plan = plan_of(rows, Some("ws"));
        let found = drift
            .into_iter()
            .map(|(name, changes)| {
                let at = plan
                    .items
                    .iter()
                    .position(|r| r.display_name == name)
                    .expect("row");
                (at, changes)
            })
            .collect();
        add_drift(&mut plan, found);
        let got: Vec<(&str, PlanAction)> = plan
            .items
            .iter()
            .map(|r| (r.display_name.as_str(), r.action))
            .collect();
        assert_eq!(got, expected);
        assert_eq!(plan.pending, pending, "{expected:?}");
        let updates = expected.iter().filter(|(_, a)| *a == Update).count();
        assert_eq!(plan.summary.update, updates);
        assert_eq!(plan.summary.moves, 0);
    }
    let moved = plan_of(
        vec![PlanRow {
            changes: vec![folder],
            ..row("A", 0, Move)
        }],
        Some("ws"),
    );
    assert!(moved.pending);
    assert_eq!(moved.items[0].changes[0].to_string(), "folder / -> /a");
    // Offline (no workspace) nothing is pending, whatever the rows.
    assert!(!plan_of(vec![row("A", 0, PlanAction::Create)], None).pending);
}
