//! `deploy plan | apply | export` on fabric-cicd's sample repository (tests/fixtures, as it
//! is), against local Fabric. The expected values come from the sample's parameter.yml and
//! from the workspace's own listing, never from what deploy printed.
//!
//! Scope for now: a pipeline's schedules are not deployed by apply
//! yet.

use crate::support::{Server, shared};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The sample repository as the project keeps it.
pub(crate) fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fabric-cicd-sample/workspace")
}

pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A writable copy of the sample, with a config.yml beside it; settings as in fabric-cicd's
/// docs.
struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new() -> Repo {
        let dir = tempfile::tempdir().expect("temp dir");
        copy_dir(&sample(), &dir.path().join("workspace"));
        let config =
            "core:\n  repository_directory: workspace\n  parameter: workspace/parameter.yml\n";
        std::fs::write(dir.path().join("deploy.yml"), config).expect("write config");
        Repo { dir }
    }

    fn config(&self) -> String {
        self.dir.path().join("deploy.yml").display().to_string()
    }

    fn items(&self) -> PathBuf {
        self.dir.path().join("workspace")
    }
}

/// Items deployed from the sample: all 40.
const IN_SCOPE: usize = 40;

pub(crate) fn new_workspace(server: &Server, name: &str) -> String {
    server
        .fabsh(&["workspace", "create", "--name", name])
        .ok_json()["id"]
        .as_str()
        .expect("workspace id")
        .to_string()
}

/// The lakehouses [`seed_shortcut_targets`] makes before a deploy, which the deploy then
/// pairs with the sample's by type and name instead of creating them.
pub(crate) const SEEDED: usize = 2;

/// The data the sample's shortcuts point at (the `shortcuts.metadata.json` of
/// TargetForShortcutLH and WithSchema): the lakehouses SourceForShortcutLH and WithoutSchema
/// with those folders in OneLake, made in `workspace` before the sample is deployed there.
/// The service refuses a shortcut whose target path does not exist, and a lakehouse the
/// deploy itself creates is empty; so, as a real workspace would, this one holds its data
/// lakehouses first.
pub(crate) fn seed_shortcut_targets(server: &Server, workspace: &str) {
    let targets = [
        (
            "SourceForShortcutLH",
            &[
                "Files/sample_datasets/README.txt",
                "Files/images/README.txt",
                "Tables/dbo/publicholidays/_delta_log/00000000000000000000.json",
            ][..],
        ),
        ("WithoutSchema", &["Files/Testing/README.txt"][..]),
    ];
    let auth = format!("Bearer {}", server.storage_token);
    for (lakehouse, files) in targets {
        let made = server.fabsh(&[
            "item",
            "create",
            "-w",
            workspace,
            "--name",
            lakehouse,
            "--type",
            "Lakehouse",
        ]);
        assert_eq!(made.code, 0, "{}", made.stderr);
        for file in files {
            let path = format!("/onelake/{workspace}/{lakehouse}.Lakehouse/{file}");
            let (status, body) = crate::support::http(
                &server.origin(),
                "PUT",
                &path,
                Some("{}"),
                &[
                    ("Authorization", auth.as_str()),
                    ("x-ms-blob-type", "BlockBlob"),
                ],
            );
            assert_eq!(status, 201, "{path}: {body}");
        }
    }
}

/// `deploy <command>` of the repository to `workspace` as PROD, as JSON.
fn deploy(
    server: &Server,
    command: &str,
    repo: &Repo,
    workspace: &str,
    extra: &[&str],
) -> crate::support::Run {
    let config = repo.config();
    let mut args = vec![
        "deploy",
        command,
        "--config",
        &config,
        "-w",
        workspace,
        "--environment",
        "PROD",
        "-o",
        "json",
    ];
    args.extend_from_slice(extra);
    server.fabsh(&args)
}

fn apply(server: &Server, repo: &Repo, workspace: &str, extra: &[&str]) -> crate::support::Run {
    deploy(server, "apply", repo, workspace, extra)
}

fn plan(server: &Server, repo: &Repo, workspace: &str, extra: &[&str]) -> crate::support::Run {
    deploy(server, "plan", repo, workspace, extra)
}

/// The sample deployed to a new workspace named `name` on the file's shared server: the
/// server, the repository and the workspace id.
fn deployed(name: &str) -> (&'static Server, Repo, String) {
    let server = shared(module_path!());
    let repo = Repo::new();
    let workspace = new_workspace(server, name);
    seed_shortcut_targets(server, &workspace);
    let run = apply(server, &repo, &workspace, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.stdout);
    (server, repo, workspace)
}

pub(crate) fn listed(server: &Server, workspace: &str) -> Vec<(String, String, String)> {
    let rows = server
        .fabsh(&[
            "item",
            "list",
            "-w",
            workspace,
            "--all",
            "-o",
            "json",
            "-q",
            "[].[displayName, type, id]",
        ])
        .ok_json();
    let rows: Vec<(String, String, String)> =
        serde_json::from_value(rows).expect("name, type, id rows");
    rows.into_iter()
        .filter(|(_, t, _)| t != "SQLEndpoint")
        .collect()
}

pub(crate) fn id_of(server: &Server, workspace: &str, name: &str, item_type: &str) -> String {
    listed(server, workspace)
        .into_iter()
        .find(|(n, t, _)| n == name && t == item_type)
        .map_or_else(
            || panic!("{name}.{item_type} is not listed"),
            |(_, _, id)| id,
        )
}

/// A part of an item's deployed definition, decoded.
pub(crate) fn deployed_part(server: &Server, workspace: &str, id: &str, path: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("def");
    let out_text = out.display().to_string();
    let run = server.fabsh(&[
        "item",
        "get-definition",
        "-w",
        workspace,
        "--id",
        id,
        "--dir",
        &out_text,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::fs::read_to_string(out.join(path)).expect("part written")
}

/// The `Name.Type` of the rows whose `key` is `wanted`, in the rows' order.
pub(crate) fn rows_with(value: &Value, key: &str, wanted: &str) -> Vec<String> {
    value["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|row| row[key] == wanted)
        .map(|row| {
            format!(
                "{}.{}",
                row["displayName"].as_str().unwrap_or(""),
                row["type"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// The plan's one `update` row, which must be `item`'s.
fn the_one_update(plan: &Value, item: &str) -> Value {
    assert_eq!(rows_with(plan, "action", "update"), [item], "{plan:#}");
    plan["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|r| r["action"] == "update")
        .expect("update row")
        .clone()
}

#[test]
fn offline_plan_of_the_sample_finds_no_errors() {
    let server = shared(module_path!());
    let dir = sample().display().to_string();
    let run = server.fabsh(&["deploy", "plan", &dir, "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let plan = run.json();
    assert_eq!(plan["items"].as_array().expect("items").len(), 40);
    let errors: Vec<&Value> = plan["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .filter(|p| p["severity"] == "error")
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    // parameter.yml's first rule names a GUID no notebook of the sample holds.
    assert!(
        run.stderr.contains("db52be81-c2b2-4261-84fa-840c67f4bbd0"),
        "{}",
        run.stderr
    );
}

#[test]
fn bad_config_is_refused_before_anything_is_sent() {
    let server = shared(module_path!());
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("config.yml");
    std::fs::write(
        &config,
        "core:\n  workspace_id: not-a-guid\n  repository_directory: .\n",
    )
    .expect("write");
    let config = config.display().to_string();
    let run = server.fabsh(&["deploy", "plan", "--config", &config]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("--config") && run.stderr.contains("not a GUID"),
        "{}",
        run.stderr
    );
}

#[test]
fn apply_deploys_parameterised_items_and_a_second_run_writes_nothing() {
    let server = Server::session(module_path!());
    let repo = Repo::new();
    let workspace = new_workspace(&server, "deploy-fresh");
    seed_shortcut_targets(&server, &workspace);
    let run = apply(&server, &repo, "deploy-fresh", &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.stdout);
    let out = run.json();
    assert_eq!(out["summary"]["created"], IN_SCOPE - SEEDED, "{out:#}");

    let items = listed(&server, &workspace);
    assert_eq!(items.len(), IN_SCOPE, "{items:?}");
    // The sub-folders became workspace folders.
    let folders = server
        .fabsh(&[
            "folder",
            "list",
            "-w",
            &workspace,
            "-o",
            "json",
            "-q",
            "[].displayName",
        ])
        .ok_json();
    assert_eq!(folders, serde_json::json!(["subfolder", "subfolder"]));

    // PROD values of parameter.yml, and ids of the target workspace.
    let vars = id_of(&server, &workspace, "Vars", "VariableLibrary");
    let variables: Value =
        serde_json::from_str(&deployed_part(&server, &workspace, &vars, "variables.json"))
            .expect("json");
    assert_eq!(variables["variables"][0]["value"], "PROD");
    assert_eq!(
        variables["variables"][1]["value"],
        "contoso-prod.database.windows.net"
    );
    let overrides: Value = serde_json::from_str(&deployed_part(
        &server,
        &workspace,
        &vars,
        "valueSets/PROD.json",
    ))
    .expect("json");
    assert_eq!(overrides["variableOverrides"][0]["value"], "PROD_ENV");
    let model = id_of(&server, &workspace, "ABC", "SemanticModel");
    let report = id_of(&server, &workspace, "ByConnection", "Report");
    let pbir = deployed_part(&server, &workspace, &report, "definition.pbir");
    assert!(
        pbir.contains(&format!("myorg/{workspace};initial catalog=ABC;")),
        "{pbir}"
    );
    assert!(pbir.contains(&format!("semanticmodelid={model}")), "{pbir}");
    // The pipeline's notebook reference (a logical id) is the deployed notebook's id.
    let notebook = id_of(&server, &workspace, "Hello World", "Notebook");
    let pipeline = id_of(&server, &workspace, "Run Hello World", "DataPipeline");
    let content = deployed_part(&server, &workspace, &pipeline, "pipeline-content.json");
    assert!(
        content.contains(&notebook) && content.contains(&workspace),
        "{content}"
    );

    // Example Notebook's rules: the lakehouse GUIDs, its SQL endpoint and the eventhouse's
    // query URI become what the server answers for the deployed items.
    assert_example_notebook_parameterised(&server, &workspace);

    let again = plan(&server, &repo, &workspace, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let again = again.json();
    assert_eq!(again["pending"], false);
    assert_eq!(again["summary"]["unchanged"], IN_SCOPE, "{again:#}");

    let before = server.request_count();
    let second = apply(&server, &repo, &workspace, &[]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(second.json()["summary"]["unchanged"], IN_SCOPE);
    let after = server.request_count();
    let log = server.requests();
    let recent: Vec<&Value> = log["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .rev()
        .take((after - before) as usize)
        .collect();
    let writes: Vec<String> = recent
        .iter()
        .filter(|r| {
            r["method"] != "GET" && !r["path"].as_str().unwrap_or("").ends_with("/getDefinition")
        })
        .map(|r| format!("{} {}", r["method"], r["path"]))
        .collect();
    assert!(writes.is_empty(), "the second apply wrote: {writes:?}");
}

/// The item's `properties` as the server's typed GET of `collection` answers them.
fn server_properties(server: &Server, workspace: &str, collection: &str, id: &str) -> Value {
    let (status, item) = server.get_json(&format!("/v1/workspaces/{workspace}/{collection}/{id}"));
    assert_eq!(status, 200, "{item}");
    item["properties"].clone()
}

/// parameter.yml's four rules on `/Example Notebook.Notebook/notebook-content.py`, checked
/// against the sample's original values and the server's answers for the deployed items.
fn assert_example_notebook_parameterised(server: &Server, workspace: &str) {
    let original =
        std::fs::read_to_string(sample().join("Example Notebook.Notebook/notebook-content.py"))
            .expect("sample notebook");
    let notebook = id_of(server, workspace, "Example Notebook", "Notebook");
    let content = deployed_part(server, workspace, &notebook, "notebook-content.py");

    let lakehouse = id_of(server, workspace, "WithoutSchema", "Lakehouse");
    let origin_lakehouse = "f3b9c1e2-7d4a-4b3e-9f2a-1c6e8d9a7b3c";
    let origin_workspace = "c7e4b9f1-2a3d-4e6f-9c8b-7d2f1a4e5b6d";
    assert!(original.contains(&format!("\"default_lakehouse\": \"{origin_lakehouse}\"")));
    assert!(
        content.contains(&format!("\"default_lakehouse\": \"{lakehouse}\"")),
        "{content}"
    );
    assert!(
        content.contains(&format!(
            "\"default_lakehouse_workspace_id\": \"{workspace}\""
        )),
        "{content}"
    );
    assert!(!content.contains(origin_lakehouse) && !content.contains(origin_workspace));

    let sql = server_properties(server, workspace, "lakehouses", &lakehouse);
    let endpoint = sql["sqlEndpointProperties"]["connectionString"]
        .as_str()
        .expect("the lakehouse's SQL endpoint connection string");
    assert!(
        content.contains(&format!("SQL analytics endpoint: {endpoint}\"")),
        "{content}"
    );
    assert!(!content.contains("sqlserverconnectionstringinoriginlakehouse.com"));

    let eventhouse = id_of(server, workspace, "SampleEventhouse", "Eventhouse");
    let house = server_properties(server, workspace, "eventhouses", &eventhouse);
    let query = house["queryServiceUri"].as_str().expect("queryServiceUri");
    assert!(
        content.contains(&format!("eventhouse query URI: {query}\"")),
        "{content}"
    );
    assert!(!content.contains("trd-origineventhouse"));
}

#[test]
fn a_changed_part_updates_that_item_and_a_removed_item_is_an_orphan() {
    let server = shared(module_path!());
    let repo = Repo::new();
    let workspace = new_workspace(server, "deploy-edit");
    seed_shortcut_targets(server, &workspace);
    assert_eq!(apply(server, &repo, &workspace, &[]).code, 0);

    let part = repo
        .items()
        .join("Hello World.Notebook/notebook-content.py");
    let mut text = std::fs::read_to_string(&part).expect("read");
    text.push_str("\nprint(\"one more line\")\n");
    std::fs::write(&part, text).expect("write");
    std::fs::remove_dir_all(repo.items().join("Hello Dataflow.Dataflow")).expect("remove");

    let run = plan(server, &repo, &workspace, &["--diff"]);
    assert_eq!(run.code, 8, "changes pending: {}", run.stderr);
    // Changes pending is the plan's answer, told by the exit code: a note, not an error.
    assert!(
        run.stderr
            .contains("note: changes pending: 0 to create, 1 to update")
            && !run.stderr.contains("error:"),
        "{}",
        run.stderr
    );
    let out = run.json();
    assert_eq!(
        rows_with(&out, "action", "update"),
        ["Hello World.Notebook"]
    );
    assert_eq!(
        rows_with(&out, "action", "orphan"),
        ["Hello Dataflow.Dataflow"]
    );
    assert_eq!(rows_with(&out, "action", "create"), Vec::<String>::new());
    let row = out["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|r| r["action"] == "update")
        .expect("update row");
    assert!(
        row["diffs"][0]["diff"]
            .as_str()
            .expect("diff")
            .contains("+print(\"one more line\")"),
        "{row:#}"
    );

    let kept = apply(server, &repo, &workspace, &[]).ok_json();
    assert_eq!(
        rows_with(&kept, "outcome", "updated"),
        ["Hello World.Notebook"]
    );
    assert_eq!(
        rows_with(&kept, "outcome", "kept"),
        ["Hello Dataflow.Dataflow"]
    );
    assert!(
        listed(server, &workspace)
            .iter()
            .any(|(n, _, _)| n == "Hello Dataflow")
    );
    let notebook = id_of(server, &workspace, "Hello World", "Notebook");
    assert!(
        deployed_part(server, &workspace, &notebook, "notebook-content.py")
            .contains("one more line")
    );

    // Deleting needs consent: off a terminal that is --yes, and without it nothing is sent.
    let refused = apply(server, &repo, &workspace, &["--delete-orphans"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains(&format!(
            "`fabsh deploy apply --workspace {workspace} --delete-orphans` cannot be undone"
        )) && refused.stderr.contains("needs --yes"),
        "{}",
        refused.stderr
    );
    assert!(
        listed(server, &workspace)
            .iter()
            .any(|(n, _, _)| n == "Hello Dataflow")
    );
    let deleted = apply(server, &repo, &workspace, &["--delete-orphans", "--yes"]).ok_json();
    assert_eq!(
        rows_with(&deleted, "outcome", "deleted"),
        ["Hello Dataflow.Dataflow"]
    );
    assert!(
        !listed(server, &workspace)
            .iter()
            .any(|(n, _, _)| n == "Hello Dataflow")
    );
    assert_eq!(plan(server, &repo, &workspace, &[]).code, 0);
}

#[test]
fn export_then_apply_to_a_new_workspace_plans_nothing() {
    let server = shared(module_path!());
    let repo = Repo::new();
    let source = new_workspace(server, "deploy-source");
    seed_shortcut_targets(server, &source);
    assert_eq!(apply(server, &repo, &source, &[]).code, 0);
    let out = tempfile::tempdir().expect("temp dir");
    let exported = out.path().join("repo");
    let exported_text = exported.display().to_string();
    let run = server.fabsh(&[
        "deploy",
        "export",
        "-w",
        &source,
        &exported_text,
        "-o",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        exported
            .join("subfolder/subfolder/Hello World SubfolderSubfolder.Notebook/notebook-content.py")
            .is_file()
    );

    let target = new_workspace(server, "deploy-copy");
    seed_shortcut_targets(server, &target);
    let applied = server.fabsh(&[
        "deploy",
        "apply",
        &exported_text,
        "-w",
        &target,
        "-o",
        "json",
    ]);
    assert_eq!(applied.code, 0, "{}\n{}", applied.stderr, applied.stdout);
    assert_eq!(listed(server, &target).len(), listed(server, &source).len());
    let again = server.fabsh(&[
        "deploy",
        "plan",
        &exported_text,
        "-w",
        &target,
        "-o",
        "json",
    ]);
    assert_eq!(again.code, 0, "{}\n{}", again.stderr, again.stdout);
    // The copied pipeline refers to the copied notebook, not the source's.
    let notebook = id_of(server, &target, "Hello World", "Notebook");
    let pipeline = id_of(server, &target, "Run Hello World", "DataPipeline");
    assert!(deployed_part(server, &target, &pipeline, "pipeline-content.json").contains(&notebook));
}

#[test]
fn dry_run_lists_every_item_and_its_request_and_changes_nothing() {
    let server = shared(module_path!());
    let repo = Repo::new();
    let workspace = new_workspace(server, "deploy-dry");
    let out = apply(server, &repo, &workspace, &["--dry-run"]).ok_json();
    assert_eq!(out["dryRun"], true);
    let creates: Vec<&Value> = out["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .filter(|r| r["method"] == "POST" && r["url"].as_str().unwrap_or("").ends_with("/items"))
        .collect();
    assert_eq!(creates.len(), IN_SCOPE);
    // Example Notebook needs the eventhouse's queryServiceUri, which only the server's answer
    // for the created eventhouse holds: its request is listed with a placeholder there, and
    // the lakehouse it names by parameter.yml's $items rule is the planned lakehouse.
    let notebook = creates
        .iter()
        .find(|r| r["body"]["displayName"] == "Example Notebook")
        .expect("Example Notebook's create is listed");
    let lakehouse = creates
        .iter()
        .find(|r| r["body"]["displayName"] == "WithoutSchema" && r["body"]["type"] == "Lakehouse")
        .expect("WithoutSchema's create")["plannedId"]
        .as_str()
        .expect("planned id")
        .to_string();
    let part = notebook["body"]["definition"]["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .find(|p| p["path"] == "notebook-content.py")
        .expect("notebook-content.py");
    use base64::Engine;
    let content = base64::engine::general_purpose::STANDARD
        .decode(part["payload"].as_str().expect("payload"))
        .expect("base64");
    let content = String::from_utf8(content).expect("text");
    assert!(
        content.contains("$items.Eventhouse.SampleEventhouse.queryserviceuri"),
        "{content}"
    );
    assert!(
        content.contains(&format!("\"default_lakehouse\": \"{lakehouse}\"")),
        "{content}"
    );
    // Every item is listed with what would happen to it.
    let items = out["items"].as_array().expect("items");
    assert_eq!(items.len(), IN_SCOPE, "{out:#}");
    assert!(
        items.iter().all(|i| i["outcome"] == "created"
            && i["id"].as_str().unwrap_or("").starts_with("planned-id-")),
        "{items:#?}"
    );
    assert!(listed(server, &workspace).is_empty());
}

#[test]
fn after_a_crash_mid_apply_a_rerun_deploys_everything_once() {
    // The server dies right after committing its 14th write (the workspace and the two
    // seeded lakehouses are the first three; OneLake's writes are not counted).
    let server = Server::with(&[("crash-after-writes", "14")]);
    let repo = Repo::new();
    let workspace = new_workspace(&server, "deploy-crash");
    seed_shortcut_targets(&server, &workspace);
    let run = apply(&server, &repo, &workspace, &[]);
    assert_ne!(run.code, 0, "the server crashed mid-apply: {}", run.stderr);

    let (home, data_dir) = server.stop();
    let server = Server::on_data_dir(home, data_dir, &[]);
    let done = apply(&server, &repo, &workspace, &[]);
    assert_eq!(done.code, 0, "{}\n{}", done.stderr, done.stdout);
    let items = listed(&server, &workspace);
    assert_eq!(items.len(), IN_SCOPE, "each item once: {items:?}");
    assert_eq!(plan(&server, &repo, &workspace, &[]).code, 0);
}

#[test]
fn the_promotion_script_deploys_to_test_then_to_prod() {
    let server = shared(module_path!());
    let repo = Repo::new();
    for name in ["promote-test", "promote-prod"] {
        let workspace = new_workspace(server, name);
        seed_shortcut_targets(server, &workspace);
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let questions = dir.path().join("questions.json");
    std::fs::write(
        &questions,
        r#"[{"question": "How many orders are there?", "expected": "3000"}]"#,
    )
    .expect("write");
    let script = dir.path().join("promote.rhai");
    let text = format!(
        "let out = promote::run({:?}, #{{test: \"promote-test\", prod: \"promote-prod\", questions: {:?}, config: {:?}, test_environment: \"PPE\", prod_environment: \"PROD\"}});\nprint(`${{out.test.summary.created}} ${{out.prod.summary.created}} ${{out.evaluations.len()}}`);\nlet again = deploy::plan(#{{config: {:?}, workspace: \"promote-prod\", environment: \"PROD\"}});\nprint(`pending ${{again.pending}}`);\n",
        repo.items().display().to_string(),
        questions.display().to_string(),
        repo.config(),
        repo.config(),
    );
    std::fs::write(&script, text).expect("write script");
    let script = script.display().to_string();
    let run = server.fabsh(&["run", &script]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.stdout);
    // The sample holds no data agent: nothing to evaluate; both workspaces get every item.
    assert_eq!(
        run.stdout.trim(),
        format!("{0} {0} 0\npending false", IN_SCOPE - SEEDED)
    );
    assert_eq!(listed(server, "promote-prod").len(), IN_SCOPE);
}

/// `(method, path)` of the requests the server received after the first `before`.
pub(crate) fn requests_since(server: &Server, before: u64) -> Vec<(String, String)> {
    let after = server.request_count();
    let log = server.requests();
    log["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .rev()
        .take((after - before) as usize)
        .map(|r| {
            (
                r["method"].as_str().unwrap_or("").to_string(),
                r["path"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn environments_are_published_and_models_bound_as_parameter_yml_says() {
    let server = shared(module_path!());
    // A connection the caller can see: the demo semantic model's, seeded by local Fabric.
    let (status, connections) = server.get_json("/v1/connections");
    assert_eq!(status, 200, "{connections}");
    let connection = connections["value"]
        .as_array()
        .expect("connections")
        .iter()
        .find(|c| c["connectivityType"] == "ShareableCloud")
        .expect("a shareable connection")
        .clone();
    let connection_id = connection["id"].as_str().expect("connection id");
    // The sample's default PROD connection becomes that one; ABC has no entry of its own.
    let repo = Repo::new();
    let parameters = repo.items().join("parameter.yml");
    let text = std::fs::read_to_string(&parameters).expect("parameter.yml");
    let default_prod = "c4f8e2b1-3d2a-4f5b-9c6e-7a8b9c0d1e2f";
    assert!(text.contains(&format!("PROD: \"{default_prod}\"")));

    // First deployed with the sample's own connection, which the caller cannot see: left
    // unbound, and not a change a plan shows (apply could not bind it).
    let workspace = new_workspace(server, "deploy-after");
    seed_shortcut_targets(server, &workspace);
    let before_apply = server.request_count();
    let run = apply(server, &repo, &workspace, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.stdout);
    // Its environment published (a new one answers Success before any publish, as on the
    // service, so the state alone would not tell).
    let published = requests_since(server, before_apply)
        .into_iter()
        .filter(|(method, path)| {
            method == "POST" && path.contains(&workspace) && path.ends_with("/staging/publish")
        })
        .count();
    assert_eq!(published, 1, "the environment was published once");
    assert_eq!(plan(server, &repo, &workspace, &[]).code, 0);

    // Then to the visible one: the model's binding is the plan's one change.
    std::fs::write(&parameters, text.replace(default_prod, connection_id)).expect("write");
    let drift = plan(server, &repo, &workspace, &[]);
    assert_eq!(drift.code, 8, "{}", drift.stderr);
    let out = drift.json();
    let row = the_one_update(&out, "ABC.SemanticModel");
    assert_eq!(
        row["changes"],
        serde_json::json!([format!("binding to connection {connection_id}")])
    );
    let run = apply(server, &repo, &workspace, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.stdout);

    let model = id_of(server, &workspace, "ABC", "SemanticModel");
    let (status, bound) = server.get_json(&format!(
        "/v1/workspaces/{workspace}/items/{model}/connections"
    ));
    assert_eq!(status, 200, "{bound}");
    let bound = bound["value"].as_array().expect("connections").clone();
    assert!(
        bound.iter().any(|c| c["id"] == connection_id
            && c["connectionDetails"] == connection["connectionDetails"]),
        "{bound:#?}"
    );

    let environment = id_of(server, &workspace, "World", "Environment");
    let properties = server_properties(server, &workspace, "environments", &environment);
    assert_eq!(
        properties["publishDetails"]["state"], "Success",
        "{properties:#}"
    );

    // Nothing changed: neither published nor bound again. (Other tests share the server:
    // only this workspace's requests count.)
    let before = server.request_count();
    let again = apply(server, &repo, &workspace, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let writes: Vec<(String, String)> = requests_since(server, before)
        .into_iter()
        .filter(|(method, path)| {
            path.contains(&workspace) && method != "GET" && !path.ends_with("/getDefinition")
        })
        .collect();
    assert!(writes.is_empty(), "the second apply wrote: {writes:?}");
}

/// `(name, path, oneLake target)` of a lakehouse's shortcuts, as the server lists them.
fn shortcuts_of(server: &Server, workspace: &str, lakehouse: &str) -> Vec<(String, String, Value)> {
    let (status, listed) = server.get_json(&format!(
        "/v1/workspaces/{workspace}/items/{lakehouse}/shortcuts"
    ));
    assert_eq!(status, 200, "{listed}");
    let mut rows: Vec<(String, String, Value)> = listed["value"]
        .as_array()
        .expect("shortcuts")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or("").to_string(),
                s["path"]
                    .as_str()
                    .unwrap_or("")
                    .trim_matches('/')
                    .to_string(),
                s["target"]["oneLake"].clone(),
            )
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

#[test]
fn lakehouse_shortcuts_are_created_for_the_target_and_a_missing_target_fails() {
    let (server, repo, workspace) = deployed("deploy-shortcuts");

    // The sample's shortcuts.metadata.json name their source lakehouses by logical id and
    // the zero workspace id: deployed, they point at this workspace's lakehouses.
    let source = id_of(server, &workspace, "SourceForShortcutLH", "Lakehouse");
    let holder = id_of(server, &workspace, "TargetForShortcutLH", "Lakehouse");
    let made = shortcuts_of(server, &workspace, &holder);
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(
            sample().join("TargetForShortcutLH.Lakehouse/shortcuts.metadata.json"),
        )
        .expect("sample shortcuts"),
    )
    .expect("json");
    let mut expected: Vec<(String, String, String)> = file
        .as_array()
        .expect("list")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or("").to_string(),
                s["path"]
                    .as_str()
                    .unwrap_or("")
                    .trim_matches('/')
                    .to_string(),
                s["target"]["oneLake"]["path"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect();
    expected.sort();
    assert_eq!(expected.len(), 3);
    let got: Vec<(String, String, String)> = made
        .iter()
        .map(|s| {
            (
                s.0.clone(),
                s.1.clone(),
                s.2["path"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(got, expected);
    assert!(
        made.iter()
            .all(|s| s.2["itemId"] == source.as_str() && s.2["workspaceId"] == workspace.as_str()),
        "{made:?}"
    );
    let without = id_of(server, &workspace, "WithoutSchema", "Lakehouse");
    let with = id_of(server, &workspace, "WithSchema", "Lakehouse");
    let testing = shortcuts_of(server, &workspace, &with);
    assert_eq!(testing.len(), 1, "{testing:?}");
    assert_eq!(testing[0].2["itemId"], without.as_str());

    // A target item that exists nowhere: the service refuses the shortcut (400), the
    // lakehouse is reported failed and the apply exits 5.
    let file = repo
        .items()
        .join("WithSchema.Lakehouse/shortcuts.metadata.json");
    let text = std::fs::read_to_string(&file).expect("read");
    let nowhere = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
    std::fs::write(
        &file,
        text.replace("c916eeb0-dd6a-ae32-4f4f-966d2414b239", nowhere),
    )
    .expect("write");
    let other = new_workspace(server, "deploy-shortcuts-missing");
    seed_shortcut_targets(server, &other);
    let failed = apply(server, &repo, &other, &[]);
    assert_eq!(failed.code, 5, "{}\n{}", failed.stderr, failed.stdout);
    let out = failed.json();
    assert_eq!(
        rows_with(&out, "outcome", "failed"),
        ["WithSchema.Lakehouse"]
    );
    let row = out["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|r| r["outcome"] == "failed")
        .expect("failed row");
    let error = row["error"].as_str().unwrap_or("");
    assert!(
        error.contains("shortcut Testing") && error.contains("HTTP 400"),
        "{row:#}"
    );
}

/// `(id, enabled, configuration)` of a pipeline's schedules, as the server lists them (the
/// scheduler's job type `Pipeline`; `.schedules` names it `Execute`).
fn schedules_of(server: &Server, workspace: &str, item: &str) -> Vec<(String, bool, Value)> {
    let (status, listed) = server.get_json(&format!(
        "/v1/workspaces/{workspace}/items/{item}/jobs/Pipeline/schedules"
    ));
    assert_eq!(status, 200, "{listed}");
    listed["value"]
        .as_array()
        .expect("schedules")
        .iter()
        .map(|s| {
            (
                s["id"].as_str().unwrap_or("").to_string(),
                s["enabled"].as_bool().expect("enabled"),
                s["configuration"].clone(),
            )
        })
        .collect()
}

#[test]
fn a_pipelines_schedules_are_deployed_through_the_job_scheduler_and_planned() {
    let (server, repo, workspace) = deployed("deploy-schedules");

    // The sample's .schedules: one Cron schedule every 15 minutes, which parameter.yml's
    // key_value_replace enables for PROD.
    let pipeline = id_of(server, &workspace, "Run Hello World", "DataPipeline");
    let made = schedules_of(server, &workspace, &pipeline);
    assert_eq!(made.len(), 1, "{made:?}");
    let (id, enabled, configuration) = &made[0];
    assert!(*enabled);
    assert_eq!(configuration["type"], "Cron");
    assert_eq!(configuration["interval"], 15);
    assert_eq!(configuration["localTimeZoneId"], "Pacific Standard Time");
    assert!(
        configuration["startDateTime"]
            .as_str()
            .unwrap_or("")
            .starts_with("2025-07-01T12:00:00"),
        "{configuration}"
    );
    let planned = plan(server, &repo, &workspace, &[]);
    assert_eq!(planned.code, 0, "{}\n{}", planned.stderr, planned.stdout);

    // Changed in the workspace: the plan shows the pipeline to update for its schedules, and
    // apply puts the schedule back with one PATCH and no definition write.
    let auth = server.bearer();
    let path = format!("/v1/workspaces/{workspace}/items/{pipeline}/jobs/Pipeline/schedules/{id}");
    let mut changed = configuration.clone();
    changed["interval"] = 30.into();
    let body = serde_json::json!({"enabled": true, "configuration": changed}).to_string();
    let (status, answer) = crate::support::http(
        &server.origin(),
        "PATCH",
        &path,
        Some(&body),
        &[
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ],
    );
    assert_eq!(status, 200, "{answer}");
    let drift = plan(server, &repo, &workspace, &["--diff"]);
    assert_eq!(drift.code, 8, "{}\n{}", drift.stderr, drift.stdout);
    let out = drift.json();
    assert_eq!(
        rows_with(&out, "action", "update"),
        ["Run Hello World.DataPipeline"]
    );
    let before = server.request_count();
    let run = apply(server, &repo, &workspace, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.stdout);
    // Other tests share the server: only this workspace's writes (getDefinition is a read).
    let writes: Vec<(String, String)> = requests_since(server, before)
        .into_iter()
        .filter(|(method, p)| {
            method != "GET" && p.contains(&workspace) && !p.ends_with("/getDefinition")
        })
        .collect();
    assert_eq!(writes, [("PATCH".to_string(), path.clone())]);
    let fixed = schedules_of(server, &workspace, &pipeline);
    assert_eq!(fixed.len(), 1);
    assert_eq!(fixed[0].2["interval"], 15);

    // Gone from the workspace: apply creates it again; then nothing is pending.
    let (status, answer) = crate::support::http(
        &server.origin(),
        "DELETE",
        &path,
        None,
        &[("Authorization", auth.as_str())],
    );
    assert_eq!(status, 200, "{answer}");
    assert_eq!(plan(server, &repo, &workspace, &[]).code, 8);
    let run = apply(server, &repo, &workspace, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.stdout);
    let again = schedules_of(server, &workspace, &pipeline);
    assert_eq!(again.len(), 1, "{again:?}");
    assert_eq!(again[0].2["interval"], 15);
    let planned = plan(server, &repo, &workspace, &[]);
    assert_eq!(planned.code, 0, "{}\n{}", planned.stderr, planned.stdout);
}

#[test]
fn plan_shows_a_missing_shortcut_and_a_hand_made_environment_as_changes() {
    let server = shared(module_path!());
    let repo = Repo::new();
    let workspace = new_workspace(server, "deploy-drift");
    seed_shortcut_targets(server, &workspace);
    // An environment of the repository's name made by hand: published as made (the service
    // answers a new environment's publishDetails as Success), but not with the repository's
    // settings, so it is an update.
    server
        .fabsh(&[
            "item",
            "create",
            "-w",
            &workspace,
            "--name",
            "World",
            "--type",
            "Environment",
        ])
        .ok_json();
    let planned = plan(server, &repo, &workspace, &[]);
    assert_eq!(planned.code, 8, "{}", planned.stderr);
    let out = planned.json();
    let world = out["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|r| r["displayName"] == "World" && r["type"] == "Environment")
        .expect("World row")
        .clone();
    assert_eq!(world["action"], "update", "{world:#}");
    let run = apply(server, &repo, &workspace, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.stdout);
    let planned = plan(server, &repo, &workspace, &[]);
    assert_eq!(planned.code, 0, "{}\n{}", planned.stderr, planned.stdout);

    // A shortcut of the repository's deleted from the workspace: the lakehouse is an update
    // for it alone, and apply makes it again without writing the lakehouse's definition.
    let holder = id_of(server, &workspace, "TargetForShortcutLH", "Lakehouse");
    let made = shortcuts_of(server, &workspace, &holder);
    let (name, path, _) = made[0].clone();
    let auth = server.bearer();
    let (status, answer) = crate::support::http(
        &server.origin(),
        "DELETE",
        &format!("/v1/workspaces/{workspace}/items/{holder}/shortcuts/{path}/{name}"),
        None,
        &[("Authorization", auth.as_str())],
    );
    assert_eq!(status, 200, "{answer}");
    let drift = plan(server, &repo, &workspace, &[]);
    assert_eq!(drift.code, 8, "{}", drift.stderr);
    let out = drift.json();
    let row = the_one_update(&out, "TargetForShortcutLH.Lakehouse");
    assert_eq!(
        row["changes"],
        serde_json::json!([format!("shortcut {name} missing")])
    );
    let before = server.request_count();
    let run = apply(server, &repo, &workspace, &[]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.stdout);
    let writes: Vec<String> = requests_since(server, before)
        .into_iter()
        .filter(|(method, p)| {
            method != "GET" && p.contains(&workspace) && !p.ends_with("/getDefinition")
        })
        .map(|(method, p)| format!("{method} {p}"))
        .collect();
    assert_eq!(
        writes,
        [format!(
            "POST /v1/workspaces/{workspace}/items/{holder}/shortcuts"
        )]
    );
    assert_eq!(shortcuts_of(server, &workspace, &holder).len(), made.len());
    assert_eq!(plan(server, &repo, &workspace, &[]).code, 0);
}
