//! `deploy` where users rely on fabric-cicd's behaviour: `$items` names the target
//! workspace's own items too, an environment the files do not know is warned of, and local
//! Fabric's eventhouse URIs survive a restart (scope filters: `deploy_scope`; export:
//! `deploy_export`). Expected values come from the workspace's own listing, raw reads of
//! local Fabric and the files the tests write.

use crate::deploy::{deployed_part, id_of, listed, new_workspace};
use crate::support::{Run, Server, shared};
use serde_json::json;
use std::path::Path;

/// The logical id of an item made by hand: none.
const NO_LOGICAL_ID: &str = "00000000-0000-0000-0000-000000000000";

/// Writes the item folder `<name>.<type>` under `repo` with a `.platform` and `parts`.
fn item(repo: &Path, name: &str, item_type: &str, parts: &[(&str, &str)]) {
    let dir = repo.join(format!("{name}.{item_type}"));
    std::fs::create_dir_all(&dir).expect("item folder");
    let platform = json!({
        "metadata": {"type": item_type, "displayName": name},
        "config": {"version": "2.0", "logicalId": NO_LOGICAL_ID},
    });
    std::fs::write(dir.join(".platform"), platform.to_string()).expect(".platform");
    for (path, text) in parts {
        std::fs::write(dir.join(path), text).expect("part");
    }
}

/// A notebook part whose one cell is `code`.
fn notebook_source(code: &str) -> String {
    format!("# Fabric notebook source\n\n# CELL ********************\n\n{code}\n")
}

/// A repository in a temp dir (`<dir>/repo`) with one notebook, `Reader`, whose code is
/// `code`, and `parameters` as its parameter.yml.
fn reader_repo(code: &str, parameters: &str) -> tempfile::TempDir {
    let root = tempfile::tempdir().expect("temp dir");
    let repo = root.path().join("repo");
    item(
        &repo,
        "Reader",
        "Notebook",
        &[("notebook-content.py", &notebook_source(code))],
    );
    std::fs::write(repo.join("parameter.yml"), parameters).expect("parameter.yml");
    root
}

/// `deploy <command> <dir> -w <workspace> -o json --environment PROD <extra>`.
pub(crate) fn deploy(
    server: &Server,
    command: &str,
    dir: &Path,
    workspace: &str,
    extra: &[&str],
) -> Run {
    let extra = [&["--environment", "PROD"][..], extra].concat();
    crate::deploy_safety::deploy(server, command, dir, workspace, &extra)
}

/// Applies `dir` to `workspace` as [`deploy`] does, which must succeed.
pub(crate) fn applied(server: &Server, dir: &Path, workspace: &str, extra: &[&str]) {
    let run = deploy(server, "apply", dir, workspace, extra);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.stdout);
}

/// Asserts `run` was refused before anything was written to `workspace`, saying `why`.
pub(crate) fn assert_refused(run: &Run, server: &Server, workspace: &str, why: &str) {
    assert_eq!(run.code, 2, "{}\n{}", run.stderr, run.stdout);
    assert!(run.stderr.contains(why), "{why}\n{}", run.stderr);
    assert!(listed(server, workspace).is_empty());
}

/// The names of a workspace's items, sorted.
pub(crate) fn names(server: &Server, workspace: &str) -> Vec<String> {
    let mut names: Vec<String> = listed(server, workspace)
        .into_iter()
        .map(|(name, _, _)| name)
        .collect();
    names.sort();
    names
}

#[test]
fn items_variables_name_the_target_workspaces_items_and_fail_when_in_neither() {
    let server = shared(module_path!());
    let parameters = "find_replace:\n  - find_value: \"LAKEHOUSE_ID\"\n    replace_value:\n      PROD: \"$items.Lakehouse.Landing.id\"\n";
    let root = reader_repo("lakehouse = \"LAKEHOUSE_ID\"", parameters);
    let repo = root.path().join("repo");
    // The lakehouse is the workspace's own, not the repository's.
    let workspace = new_workspace(server, "fidelity-items");
    server
        .fabsh(&[
            "item",
            "create",
            "-w",
            &workspace,
            "--name",
            "Landing",
            "--type",
            "Lakehouse",
        ])
        .ok_json();
    let landing = id_of(server, &workspace, "Landing", "Lakehouse");
    applied(server, &repo, &workspace, &[]);
    let reader = id_of(server, &workspace, "Reader", "Notebook");
    let content = deployed_part(server, &workspace, &reader, "notebook-content.py");
    assert!(
        content.contains(&format!("lakehouse = \"{landing}\"")),
        "{content}"
    );
    let again = deploy(server, "plan", &repo, &workspace, &[]);
    assert_eq!(again.code, 0, "{}\n{}", again.stderr, again.stdout);

    // In neither the repository nor the workspace: refused, nothing sent.
    let empty = new_workspace(server, "fidelity-items-none");
    let refused = deploy(server, "apply", &repo, &empty, &[]);
    assert_refused(
        &refused,
        server,
        &empty,
        "\"$items.Lakehouse.Landing.id\": no Lakehouse named \"Landing\" in the repository (in scope) or the target workspace",
    );
}

#[test]
fn an_environment_the_files_do_not_know_is_warned_of_with_those_they_know() {
    let server = shared(module_path!());
    let parameters = "find_replace:\n  - find_value: \"HOST\"\n    replace_value:\n      PPE: \"ppe.example\"\n      PROD: \"prod.example\"\n";
    let root = reader_repo("host = \"HOST\"", parameters);
    new_workspace(server, "fidelity-env");
    let config = root.path().join("config.yml");
    std::fs::write(
        &config,
        "core:\n  workspace:\n    PROD: fidelity-env\n  repository_directory: repo\n",
    )
    .expect("config.yml");
    let config = config.display().to_string();
    let run = |command: &str, environment: &str| {
        server.fabsh(&[
            "deploy",
            command,
            "--config",
            &config,
            "--environment",
            environment,
        ])
    };
    // `prod` is neither file's: no workspace (an offline validation) and no replacement.
    let planned = run("plan", "prod");
    assert_eq!(planned.code, 0, "{}", planned.stderr);
    for (file, known) in [("parameter.yml", "PPE, PROD"), ("config.yml", "PROD")] {
        let said = format!(
            "warning: {file}: environment \"prod\" is not one it knows ({known}; names are case-sensitive: did you mean PROD?)"
        );
        assert!(planned.stderr.contains(&said), "{said}\n{}", planned.stderr);
    }
    let applied = run("apply", "prod");
    assert_eq!(applied.code, 2, "{}", applied.stderr);
    assert!(
        applied
            .stderr
            .contains("hint: warning: config.yml: environment \"prod\" is not one it knows"),
        "{}",
        applied.stderr
    );
    let known = run("plan", "PROD");
    assert_eq!(known.code, 8, "{}", known.stderr);
    assert!(
        !known.stderr.contains("UnknownEnvironment"),
        "{}",
        known.stderr
    );

    // A workspace id config.yml gives that names no workspace: the error says where it came from.
    let missing = "5d1c7a2e-9b3f-4e8a-a6c4-2f7b9e1d3c5a";
    let config = root.path().join("by-id.yml");
    std::fs::write(
        &config,
        format!("core:\n  workspace_id:\n    PROD: {missing}\n  repository_directory: repo\n"),
    )
    .expect("by-id.yml");
    let config = config.display().to_string();
    let run = server.fabsh(&[
        "deploy",
        "plan",
        "--config",
        &config,
        "--environment",
        "PROD",
    ]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "workspace {missing}, config.yml's core.workspace_id for environment \"PROD\", was not found"
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn an_eventhouses_query_uri_survives_a_restart_so_the_plan_after_it_is_clean() {
    let server = Server::start();
    let parameters = "find_replace:\n  - find_value: \"KUSTO_URI\"\n    replace_value:\n      _ALL_: \"$items.Eventhouse.Logs.queryserviceuri\"\n";
    let root = reader_repo("uri = \"KUSTO_URI\"", parameters);
    let repo = root.path().join("repo");
    item(
        &repo,
        "Logs",
        "Eventhouse",
        &[("EventhouseProperties.json", "{}")],
    );
    let workspace = new_workspace(&server, "fidelity-restart");
    applied(&server, &repo, &workspace, &[]);
    let eventhouse = id_of(&server, &workspace, "Logs", "Eventhouse");
    let query_uri = |server: &Server| {
        let (status, house) = server.get_json(&format!(
            "/v1/workspaces/{workspace}/eventhouses/{eventhouse}"
        ));
        assert_eq!(status, 200, "{house}");
        house["properties"]["queryServiceUri"]
            .as_str()
            .expect("queryServiceUri")
            .to_string()
    };
    let before = query_uri(&server);
    let reader = id_of(&server, &workspace, "Reader", "Notebook");
    let content = deployed_part(&server, &workspace, &reader, "notebook-content.py");
    assert!(
        content.contains(&format!("uri = \"{before}\"")),
        "{content}"
    );

    let origin = server.origin();
    let (home, data_dir) = server.stop();
    let server = Server::on_data_dir(home, data_dir, &[]);
    assert_ne!(
        server.origin(),
        origin,
        "the restarted server listens elsewhere"
    );
    assert_eq!(query_uri(&server), before);
    let planned = deploy(&server, "plan", &repo, &workspace, &[]);
    assert_eq!(planned.code, 0, "{}\n{}", planned.stderr, planned.stdout);
}
