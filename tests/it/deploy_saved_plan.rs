//! The plan you review is the plan you apply: `deploy plan --out` saves it (privately, with
//! no token or variable's value), `deploy apply --plan` carries out exactly it and refuses it
//! once the repository or the workspace moved; plan rows come sorted, an offline plan says
//! it compared with nothing, and `--diff` shows in a table too.

use crate::deploy::{new_workspace, rows_with};
use crate::deploy_boundaries::notebook;
use crate::deploy_safety::{create, deploy, names, one_notebook};
use crate::mcp::{call, connect, error_map, runtime};
use crate::support::{http, shared};
use serde_json::{Value, json};
use std::path::Path;

/// A secret an environment variable gives a part: never in a saved plan.
const SECRET: &str = "hunter2-3c1f9e0a-not-in-any-plan";

/// The order of the actions within a level, as plans list them.
fn action_rank(action: &str) -> usize {
    ["create", "update", "move", "unchanged", "orphan", "delete"]
        .iter()
        .position(|a| *a == action)
        .unwrap_or_else(|| panic!("unknown action {action}"))
}

/// Each row's (level, action, folder, name), in the plan's order.
fn sort_keys(plan: &Value) -> Vec<(u64, usize, String, String)> {
    plan["items"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["level"].as_u64().unwrap_or(u64::MAX),
                action_rank(r["action"].as_str().expect("action")),
                r["folder"].as_str().expect("folder").to_string(),
                r["displayName"].as_str().expect("name").to_string(),
            )
        })
        .collect()
}

#[test]
fn a_saved_plan_is_applied_exactly_and_refused_once_either_side_moved() {
    let server = shared(module_path!());
    let root = one_notebook();
    let repo = root.path().join("repo");
    // Nb's part takes a variable's value.
    std::fs::write(
        repo.join("parameter.yml"),
        "find_replace:\n  - find_value: \"print(1)\"\n    replace_value:\n      _ALL_: \"print('$ENV:DEPLOY_PLAN_SECRET')\"\n",
    )
    .expect("parameters");
    let env = [("DEPLOY_PLAN_SECRET", SECRET)];
    let allow = ["--env-vars", "DEPLOY_PLAN_SECRET"];
    let workspace = new_workspace(server, "deploy-saved");
    let applied = server.fabsh_env(
        &[
            "deploy",
            "apply",
            &repo.display().to_string(),
            "-w",
            &workspace,
            allow[0],
            allow[1],
        ],
        &env,
    );
    assert_eq!(applied.code, 0, "{}", applied.stderr);
    notebook(&repo, "Second", "print(2)");
    let saved = root.path().join("release.plan");
    let saved_arg = saved.display().to_string();
    let dir = repo.display().to_string();
    let plan_args = |out: &str| {
        vec![
            "deploy".to_string(),
            "plan".into(),
            dir.clone(),
            "-w".into(),
            workspace.clone(),
            allow[0].into(),
            allow[1].into(),
            "--out".into(),
            out.to_string(),
            "-o".into(),
            "json".into(),
        ]
    };
    let save = |out: &str| {
        let args = plan_args(out);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = server.fabsh_env(&args, &env);
        assert_eq!(run.code, 8, "{}", run.stderr);
        run.json()
    };
    let apply_saved = |file: &str, extra: &[&str]| {
        let mut args = vec!["deploy", "apply", &dir, "--plan", file, allow[0], allow[1]];
        args.extend_from_slice(extra);
        args.extend(["-o", "json"]);
        server.fabsh_env(&args, &env)
    };
    let shown = save(&saved_arg);
    assert_eq!(rows_with(&shown, "action", "create"), ["Second.Notebook"]);

    // The file: private, every row, what they were computed from, no token, no value.
    let text = std::fs::read_to_string(&saved).expect("plan file");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&saved)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
    assert!(
        !text.contains(SECRET) && !text.contains(&server.token),
        "{text}"
    );
    let file: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(file["workspaceId"], workspace.as_str());
    assert_eq!(file["plan"]["items"], shown["items"]);
    assert_eq!(file["fingerprints"].as_array().expect("prints").len(), 2);
    assert!(
        file["endpoint"]
            .as_str()
            .expect("endpoint")
            .starts_with("http://127.0.0.1:")
    );

    // The repository moved: refused, naming the item, nothing written.
    let part = repo.join("Nb.Notebook/notebook-content.py");
    let original = std::fs::read_to_string(&part).expect("part");
    std::fs::write(&part, original.replace("print(1)", "print(10)")).expect("edit");
    let refused = apply_saved(&saved_arg, &[]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains(&format!(
            "--plan {saved_arg} no longer applies: Nb.Notebook changed in the repository since the plan was made"
        )),
        "{}",
        refused.stderr
    );
    assert_eq!(names(server, &workspace), ["Nb.Notebook"]);
    std::fs::write(&part, &original).expect("undo the edit");

    // The workspace moved behind fabsh's back (a raw request): refused the same way.
    let nb = server
        .fabsh(&["item", "show", "-w", &workspace, "--id", "Nb", "-q", "id"])
        .ok_json();
    let path = format!(
        "/v1/workspaces/{workspace}/items/{}",
        nb.as_str().expect("id")
    );
    let auth = server.bearer();
    let (status, body) = http(
        &server.origin(),
        "PATCH",
        &path,
        Some(r#"{"description":"changed by hand"}"#),
        &[
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ],
    );
    assert_eq!(status, 200, "{body}");
    let refused = apply_saved(&saved_arg, &[]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("Nb.Notebook changed in the workspace since the plan was made"),
        "{}",
        refused.stderr
    );
    assert_eq!(names(server, &workspace), ["Nb.Notebook"]);

    // A plan made now applies as it was shown, -w taken from the file, and only once.
    let again = root.path().join("again.plan").display().to_string();
    let shown = save(&again);
    assert_eq!(rows_with(&shown, "action", "update"), ["Nb.Notebook"]);
    let run = apply_saved(&again, &[]);
    let out = run.ok_json();
    let planned: Vec<(String, String)> = shown["items"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| (r["displayName"].to_string(), r["action"].to_string()))
        .collect();
    let done: Vec<(String, String)> = out["items"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| (r["displayName"].to_string(), r["outcome"].to_string()))
        .collect();
    assert_eq!(
        planned,
        [
            ("\"Second\"".to_string(), "\"create\"".to_string()),
            ("\"Nb\"".into(), "\"update\"".into())
        ]
    );
    assert_eq!(
        done,
        [
            ("\"Second\"".to_string(), "\"created\"".to_string()),
            ("\"Nb\"".into(), "\"updated\"".into())
        ]
    );
    assert_eq!(
        names(server, &workspace),
        ["Nb.Notebook", "Second.Notebook"]
    );
    let twice = apply_saved(&again, &[]);
    assert_eq!(twice.code, 2, "{}", twice.stderr);
    assert!(
        twice
            .stderr
            .contains("Second.Notebook was created in the workspace"),
        "{}",
        twice.stderr
    );
}

#[test]
fn a_saved_plan_that_deletes_needs_delete_orphans_and_takes_no_plan_shaping_flag() {
    let server = shared(module_path!());
    let root = one_notebook();
    let repo = root.path().join("repo");
    let workspace = new_workspace(server, "deploy-saved-delete");
    deploy(server, "apply", &repo, &workspace, &[]).ok_json();
    create(server, &workspace, "Old", "Notebook");
    let saved = root.path().join("delete.plan").display().to_string();
    let planned = deploy(
        server,
        "plan",
        &repo,
        &workspace,
        &["--delete-orphans", "--out", &saved],
    );
    assert_eq!(planned.code, 8, "{}", planned.stderr);
    let dir = repo.display().to_string();
    let apply = |extra: &[&str]| {
        let mut args = vec!["deploy", "apply", &dir, "--plan", &saved, "-o", "json"];
        args.extend_from_slice(extra);
        server.fabsh(&args)
    };
    for (extra, refused) in [
        (&[][..], "deletes 1 item(s): apply it with --delete-orphans"),
        (
            &["--delete-orphans", "--yes", "--max-deletes", "5"][..],
            "--max-deletes shapes a plan",
        ),
        (&["--delete-orphans"][..], "off a terminal it needs --yes"),
    ] {
        let run = apply(extra);
        assert_eq!(run.code, 2, "{extra:?}: {}", run.stderr);
        assert!(run.stderr.contains(refused), "{extra:?}: {}", run.stderr);
    }
    assert_eq!(names(server, &workspace), ["Nb.Notebook", "Old.Notebook"]);
    let run = apply(&["--delete-orphans", "--yes"]);
    assert_eq!(
        rows_with(&run.ok_json(), "outcome", "deleted"),
        ["Old.Notebook"]
    );
    assert_eq!(names(server, &workspace), ["Nb.Notebook"]);
}

#[test]
fn plan_rows_are_sorted_and_an_offline_plan_says_it_compared_with_nothing() {
    let server = shared(module_path!());
    let sample =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fabric-cicd-sample/workspace");
    let sample_arg = sample.display().to_string();
    let offline = server.fabsh(&["deploy", "plan", &sample_arg, "-o", "json"]);
    let plan = offline.ok_json();
    let keys = sort_keys(&plan);
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert!(keys.iter().any(|k| k.0 > 0), "levels beyond the first");
    assert!(
        offline.stderr.contains("compared with nothing"),
        "{}",
        offline.stderr
    );

    let root = one_notebook();
    let repo = root.path().join("repo");
    notebook(&repo.join("b"), "Deep", "print(3)");
    notebook(&repo, "Alpha", "print(2)");
    let workspace = new_workspace(server, "deploy-sorted");
    deploy(server, "apply", &repo, &workspace, &[]).ok_json();
    create(server, &workspace, "Zulu", "Notebook");
    create(server, &workspace, "Omega", "Notebook");
    std::fs::remove_dir_all(repo.join("Alpha.Notebook")).expect("remove");
    notebook(&repo, "Beta", "print(4)");
    let run = deploy(server, "plan", &repo, &workspace, &["--delete-orphans"]);
    assert_eq!(run.code, 8, "{}", run.stderr);
    assert!(
        !run.stderr.contains("compared with nothing"),
        "{}",
        run.stderr
    );
    let plan = run.json();
    let order: Vec<(String, String)> = plan["items"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["action"].as_str().expect("action").to_string(),
                r["displayName"].as_str().expect("name").to_string(),
            )
        })
        .collect();
    let expected = [
        ("create", "Beta"),
        ("unchanged", "Nb"),
        ("unchanged", "Deep"),
        ("delete", "Alpha"),
        ("delete", "Omega"),
        ("delete", "Zulu"),
    ]
    .map(|(a, n)| (a.to_string(), n.to_string()));
    assert_eq!(order, expected);
}

#[test]
fn diff_shows_each_changed_part_whole_in_a_table() {
    let server = shared(module_path!());
    let root = one_notebook();
    let repo = root.path().join("repo");
    let workspace = new_workspace(server, "deploy-diff-table");
    deploy(server, "apply", &repo, &workspace, &[]).ok_json();
    let long = format!("print('{}')", "wide ".repeat(60));
    let part = repo.join("Nb.Notebook/notebook-content.py");
    let text = std::fs::read_to_string(&part).expect("part");
    std::fs::write(&part, format!("{text}{long}\n")).expect("edit");
    let dir = repo.display().to_string();
    let table = |extra: &[&str]| {
        let mut args = vec!["deploy", "plan", &dir, "-w", &workspace, "-o", "table"];
        args.extend_from_slice(extra);
        let run = server.fabsh(&args);
        assert_eq!(run.code, 8, "{}", run.stderr);
        run.stdout
    };
    let with = table(&["--diff"]);
    assert!(
        with.contains("Nb.Notebook: notebook-content.py\n--- deployed/notebook-content.py\n+++ repository/notebook-content.py\n"),
        "{with}"
    );
    assert!(with.contains(&format!("\n+{long}\n")), "cut: {with}");
    let without = table(&[]);
    assert!(!without.contains("+++ repository/"), "{without}");
    assert!(
        without.lines().any(|l| l.starts_with("update")),
        "{without}"
    );

    // At a terminal with colour on (`script` gives fabsh one; NO_COLOR unset), an added line
    // is green.
    let line = format!(
        "{} deploy plan '{dir}' -w {workspace} --diff",
        crate::support::bin()
    );
    let output = server
        .at_terminal(&line)
        .env_remove("NO_COLOR")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script");
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(
        shown.contains(&format!("\x1b[32m+{long}\x1b[0m")),
        "{shown}"
    );
}

#[test]
fn mcp_saved_plans_are_read_and_written_only_under_files() {
    let server = shared(module_path!());
    let root = one_notebook();
    let outside = tempfile::tempdir().expect("temp dir");
    let root_arg = root.path().display().to_string();
    let workspace = new_workspace(server, "deploy-saved-mcp");
    runtime().block_on(async {
        let (client, _) = connect(server, &["--allow-writes", "--files", &root_arg]).await;
        let outside_plan = outside.path().join("x.plan").display().to_string();
        let refused = call(
            &client,
            "deploy_plan",
            json!({"dir": "repo", "workspace": workspace, "out": outside_plan}),
        )
        .await;
        assert_eq!(refused.is_error, Some(true));
        let message = error_map(&refused)["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert!(message.contains("is refused"), "{message}");
        assert!(!outside.path().join("x.plan").exists());

        let planned = call(
            &client,
            "deploy_plan",
            json!({"dir": "repo", "workspace": workspace, "out": "mine.plan"}),
        )
        .await;
        assert_ne!(planned.is_error, Some(true), "{planned:?}");
        assert!(root.path().join("mine.plan").exists());
        std::fs::copy(root.path().join("mine.plan"), outside.path().join("x.plan")).expect("copy");
        let refused = call(
            &client,
            "deploy_apply",
            json!({"dir": "repo", "plan": outside_plan}),
        )
        .await;
        assert_eq!(refused.is_error, Some(true));
        assert_eq!(names(server, &workspace), Vec::<String>::new());
        let applied = call(
            &client,
            "deploy_apply",
            json!({"dir": "repo", "workspace": workspace, "plan": "mine.plan"}),
        )
        .await;
        assert_ne!(applied.is_error, Some(true), "{applied:?}");
        client.cancel().await.expect("close");
    });
    assert_eq!(names(server, &workspace), ["Nb.Notebook"]);
}
