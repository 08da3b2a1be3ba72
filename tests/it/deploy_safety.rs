//! `deploy` deletes nothing by accident: a folder that is not a repository is refused before
//! any request; types that hold data are deleted as orphans only when opted in; a plan that
//! deletes every item (or too many) needs an extra flag; the prompt names what it deletes;
//! apply ends with a summary line.

use crate::deploy::{new_workspace, rows_with};
use crate::deploy_boundaries::notebook;
use crate::support::{Run, Server, bin, shared};
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

/// A repository of one notebook, `Nb`.
pub(crate) fn one_notebook() -> tempfile::TempDir {
    let root = tempfile::tempdir().expect("temp dir");
    notebook(&root.path().join("repo"), "Nb", "print(1)");
    root
}

/// Creates an item of `item_type` named `name` in `workspace`.
pub(crate) fn create(server: &Server, workspace: &str, name: &str, item_type: &str) {
    let args = [
        "item", "create", "-w", workspace, "--name", name, "--type", item_type,
    ];
    server.fabsh(&args).ok_json();
}

/// The workspace's items as `Name.Type`, SQL endpoints left out (they come with a lakehouse).
pub(crate) fn names(server: &Server, workspace: &str) -> Vec<String> {
    let listed = server
        .fabsh(&["item", "list", "-w", workspace, "--all", "-o", "json"])
        .ok_json();
    let mut names: Vec<String> = listed
        .as_array()
        .expect("items")
        .iter()
        .filter(|i| i["type"] != "SQLEndpoint")
        .map(|i| {
            format!(
                "{}.{}",
                i["displayName"].as_str().expect("name"),
                i["type"].as_str().expect("type")
            )
        })
        .collect();
    names.sort();
    names
}

/// `deploy <command> DIR -w WORKSPACE -o json` plus `extra`.
pub(crate) fn deploy(
    server: &Server,
    command: &str,
    dir: &Path,
    workspace: &str,
    extra: &[&str],
) -> Run {
    let dir = dir.display().to_string();
    let mut args = vec!["deploy", command, &dir, "-w", workspace, "-o", "json"];
    args.extend_from_slice(extra);
    server.fabsh(&args)
}

#[test]
fn a_folder_that_is_not_a_repository_is_refused_before_any_request() {
    // A server of its own: its request count is this test's alone.
    let server = Server::session(module_path!());
    new_workspace(&server, "Throwaway");
    create(&server, "Throwaway", "Keep", "Lakehouse");
    create(&server, "Throwaway", "Also", "Notebook");
    let root = tempfile::tempdir().expect("temp dir");
    let readme = root.path().join("notarepo");
    std::fs::create_dir_all(&readme).expect("folder");
    std::fs::write(readme.join("README.md"), "# not a repository\n").expect("readme");
    // A home directory: dotfiles, documents, a cache; no item folder anywhere.
    let home = root.path().join("home");
    for dir in [".config/app", "Documents/2024", "Downloads", ".cache/x"] {
        std::fs::create_dir_all(home.join(dir)).expect("folder");
    }
    std::fs::write(home.join(".bashrc"), "export A=1\n").expect("dotfile");
    std::fs::write(home.join("Documents/notes.txt"), "notes\n").expect("file");
    let item = notebook(&root.path().join("demo-repo"), "Welcome", "print(1)");
    std::fs::write(
        root.path().join("config.yml"),
        "core:\n  repository_directory: no-such-folder\n",
    )
    .expect("config");
    let config = root.path().join("config.yml").display().to_string();
    let sources: [(Vec<String>, &str); 4] = [
        (vec![readme.display().to_string()], "not a repository"),
        (vec![home.display().to_string()], "not a repository"),
        (vec![item.display().to_string()], "one item's folder"),
        (vec!["--config".into(), config], "no-such-folder"),
    ];
    for (source, refused) in &sources {
        for command in [
            vec!["apply", "-w", "Throwaway", "--delete-orphans", "--yes"],
            vec!["plan", "-w", "Throwaway", "--delete-orphans"],
        ] {
            let mut args = vec!["deploy", command[0]];
            args.extend(source.iter().map(String::as_str));
            args.extend(&command[1..]);
            let before = server.request_count();
            let run = server.fabsh(&args);
            assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
            assert!(
                run.stderr.contains(refused)
                    && run.stderr.contains("one <name>.<Type> folder per item")
                    && run.stderr.contains("nothing was sent"),
                "{args:?}: {}",
                run.stderr
            );
            assert_eq!(server.request_count(), before, "{args:?} sent a request");
        }
    }
    assert_eq!(
        names(&server, "Throwaway"),
        ["Also.Notebook", "Keep.Lakehouse"]
    );
}

#[test]
fn a_lakehouse_orphan_is_deleted_only_when_its_type_is_opted_in() {
    let server = shared(module_path!());
    let root = one_notebook();
    let repo = root.path().join("repo");
    let workspace = new_workspace(server, "deploy-protected");
    for (name, item_type) in [
        ("SalesLakehouse", "Lakehouse"),
        ("OtherLakehouse", "Lakehouse"),
        ("Old", "Notebook"),
    ] {
        create(server, &workspace, name, item_type);
    }

    let run = deploy(server, "plan", &repo, &workspace, &["--delete-orphans"]);
    assert_eq!(run.code, 8, "{}", run.stderr);
    let plan = run.json();
    assert_eq!(rows_with(&plan, "action", "delete"), ["Old.Notebook"]);
    assert_eq!(
        rows_with(&plan, "action", "orphan"),
        ["OtherLakehouse.Lakehouse", "SalesLakehouse.Lakehouse"]
    );
    let kept = plan["items"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["displayName"] == "SalesLakehouse")
        .expect("row");
    assert_eq!(
        kept["changes"],
        json!([
            "kept: a Lakehouse holds data, deleted only with --delete-type Lakehouse or config.yml's features enable_lakehouse_unpublish"
        ])
    );

    let applied = deploy(
        server,
        "apply",
        &repo,
        &workspace,
        &["--delete-orphans", "--yes"],
    )
    .ok_json();
    assert_eq!(rows_with(&applied, "outcome", "deleted"), ["Old.Notebook"]);
    assert_eq!(
        names(server, &workspace),
        [
            "Nb.Notebook",
            "OtherLakehouse.Lakehouse",
            "SalesLakehouse.Lakehouse"
        ]
    );

    // The type opted in by its fabric-cicd feature flag, for this environment only.
    let config = root.path().join("deploy.yml");
    std::fs::write(
        &config,
        "core:\n  repository_directory: repo\nfeatures:\n  PROD:\n    - enable_lakehouse_unpublish\n",
    )
    .expect("config");
    let config = config.display().to_string();
    let by_feature = server.fabsh(&[
        "deploy",
        "apply",
        "--config",
        &config,
        "-w",
        &workspace,
        "--environment",
        "PROD",
        "--delete-orphans",
        "--yes",
        "-o",
        "json",
    ]);
    assert_eq!(
        rows_with(&by_feature.ok_json(), "outcome", "deleted"),
        ["OtherLakehouse.Lakehouse", "SalesLakehouse.Lakehouse"]
    );
    assert_eq!(names(server, &workspace), ["Nb.Notebook"]);

    // And by --delete-type, which names protected types only.
    create(server, &workspace, "ThirdLakehouse", "Lakehouse");
    let typo = deploy(
        server,
        "apply",
        &repo,
        &workspace,
        &["--delete-orphans", "--delete-type", "Lakehous", "--yes"],
    );
    assert_eq!(typo.code, 2, "{}", typo.stderr);
    assert!(
        typo.stderr.contains("not a protected type"),
        "{}",
        typo.stderr
    );
    let by_flag = deploy(
        server,
        "apply",
        &repo,
        &workspace,
        &["--delete-orphans", "--delete-type", "lakehouse", "--yes"],
    );
    assert_eq!(
        rows_with(&by_flag.ok_json(), "outcome", "deleted"),
        ["ThirdLakehouse.Lakehouse"]
    );
}

#[test]
fn a_plan_deleting_every_item_of_the_workspace_needs_the_extra_flag() {
    let server = shared(module_path!());
    let root = one_notebook();
    let repo = root.path().join("repo");
    // The workspace holds two items, neither of them the repository's: the wrong target.
    let workspace = new_workspace(server, "deploy-wrong-target");
    create(server, &workspace, "A", "Notebook");
    create(server, &workspace, "B", "Notebook");
    for command in ["plan", "apply"] {
        let run = deploy(
            server,
            command,
            &repo,
            &workspace,
            &["--delete-orphans", "--yes"][..if command == "plan" { 1 } else { 2 }],
        );
        assert_eq!(run.code, 2, "{command}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("the plan deletes 2 item(s), every item of the workspace (2): add --allow-mass-delete"),
            "{command}: {}",
            run.stderr
        );
    }
    assert_eq!(names(server, &workspace), ["A.Notebook", "B.Notebook"]);
    // A threshold of one is passed by two deletions too.
    create(server, &workspace, "Nb", "Notebook");
    let run = deploy(
        server,
        "plan",
        &repo,
        &workspace,
        &["--delete-orphans", "--max-deletes", "1"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("deletes 2 item(s), more than --max-deletes 1"),
        "{}",
        run.stderr
    );
    let allowed = deploy(
        server,
        "apply",
        &repo,
        &workspace,
        &[
            "--delete-orphans",
            "--max-deletes",
            "1",
            "--allow-mass-delete",
            "--yes",
        ],
    );
    assert_eq!(
        rows_with(&allowed.ok_json(), "outcome", "deleted"),
        ["A.Notebook", "B.Notebook"]
    );
}

/// `fabsh deploy apply DIR -w WORKSPACE --delete-orphans` at a terminal (`script` gives it
/// one, as a user's shell would), `answer` typed at the prompt: exit code and what showed.
fn apply_at_terminal(server: &Server, dir: &Path, workspace: &str, answer: &str) -> (i32, String) {
    let line = format!(
        "{} deploy apply '{}' -w {workspace} --delete-orphans",
        bin(),
        dir.display()
    );
    let mut child = server
        .at_terminal(&line)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("script");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(answer.as_bytes())
        .expect("answer");
    let output = child.wait_with_output().expect("wait");
    let shown = String::from_utf8_lossy(&output.stdout).replace('\r', "");
    (output.status.code().unwrap_or(-1), shown)
}

#[test]
fn at_a_terminal_apply_names_what_it_deletes_before_deleting_it() {
    let server = shared(module_path!());
    let root = one_notebook();
    let repo = root.path().join("repo");
    let workspace = new_workspace(server, "deploy-prompt");
    deploy(server, "apply", &repo, &workspace, &[]).ok_json();
    create(server, &workspace, "Old report", "Notebook");
    create(server, &workspace, "Scratch", "Notebook");
    let folder = server
        .fabsh(&["folder", "create", "-w", &workspace, "--name", "archive"])
        .ok_json();
    let moved = server.fabsh(&[
        "item",
        "move-to-folder",
        "-w",
        &workspace,
        "--id",
        "Scratch",
        "--folder-id",
        folder["id"].as_str().expect("folder id"),
    ]);
    assert_eq!(moved.code, 0, "{}", moved.stderr);

    let (code, shown) = apply_at_terminal(server, &repo, &workspace, "n\n");
    assert_eq!(code, 1, "{shown}");
    assert!(
        shown.contains("deploy apply deletes 2 item(s) from workspace")
            && shown.contains("\n  - Old report (Notebook) in /\n")
            && shown.contains("\n  - Scratch (Notebook) in /archive\n")
            && shown.contains("Delete them, and deploy the rest? [y/N]")
            && shown.contains("not confirmed"),
        "{shown}"
    );
    assert_eq!(
        names(server, &workspace),
        ["Nb.Notebook", "Old report.Notebook", "Scratch.Notebook"]
    );

    let (code, shown) = apply_at_terminal(server, &repo, &workspace, "y\n");
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.contains(
            "applied: 0 created, 0 updated, 0 moved, 2 deleted, 1 unchanged, 0 follow-up(s) done, 0 failed"
        ),
        "{shown}"
    );
    assert_eq!(names(server, &workspace), ["Nb.Notebook"]);
}

#[test]
fn apply_ends_with_one_summary_line_holding_the_counts_of_its_json() {
    let server = shared(module_path!());
    let sample =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fabric-cicd-sample/workspace");
    let workspace = new_workspace(server, "deploy-summary");
    crate::deploy::seed_shortcut_targets(server, &workspace);
    let run = deploy(
        server,
        "apply",
        &sample,
        &workspace,
        &["--environment", "PROD"],
    );
    let out = run.ok_json();
    let s = &out["summary"];
    assert_eq!(s["created"], 40 - crate::deploy::SEEDED, "{s}");
    assert!(s["followUps"].as_u64().expect("followUps") > 0, "{s}");
    let line = format!(
        "note: applied: {} created, {} updated, {} moved, {} deleted, {} unchanged, {} follow-up(s) done, {} failed\n",
        s["created"],
        s["updated"],
        s["moved"],
        s["deleted"],
        s["unchanged"],
        s["followUps"],
        s["failed"]
    );
    assert_eq!(
        run.stderr.matches("note: applied: ").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains(&line), "{line}\n{}", run.stderr);
}
