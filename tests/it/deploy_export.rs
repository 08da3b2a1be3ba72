//! `deploy export` of a workspace applied to another: nothing of the copy refers back to
//! the source, scanned in the definitions local Fabric answers for the copy.

use crate::deploy::{id_of, listed, new_workspace};
use crate::deploy_fidelity::{applied, deploy};
use crate::deploy_scope::sample_copy;
use crate::support::{Server, shared};
use serde_json::{Value, json};

/// Every file of every definition of the workspace's items, as local Fabric answers them.
fn definitions(server: &Server, workspace: &str) -> Vec<(String, String)> {
    let out = tempfile::tempdir().expect("temp dir");
    let mut files = Vec::new();
    for (name, item_type, id) in listed(server, workspace) {
        let dir = out.path().join(&id);
        let dir_text = dir.display().to_string();
        let run = server.fabsh(&[
            "item",
            "get-definition",
            "-w",
            workspace,
            "--id",
            &id,
            "--dir",
            &dir_text,
        ]);
        if run.code != 0 {
            // A type without a definition (a lakehouse, a warehouse).
            continue;
        }
        let mut stack = vec![dir];
        while let Some(at) = stack.pop() {
            for entry in std::fs::read_dir(&at).expect("read dir").flatten() {
                if entry.path().is_dir() {
                    stack.push(entry.path());
                } else {
                    let bytes = std::fs::read(entry.path()).expect("read");
                    files.push((
                        format!("{name}.{item_type}/{}", entry.file_name().to_string_lossy()),
                        String::from_utf8_lossy(&bytes).into_owned(),
                    ));
                }
            }
        }
    }
    files
}

#[test]
fn an_export_applied_to_another_workspace_refers_to_nothing_of_its_source() {
    let server = shared(module_path!());
    let source_name = "fidelity-export-origin";
    let source = new_workspace(server, source_name);
    crate::deploy::seed_shortcut_targets(server, &source);
    let (_dir, repo) = sample_copy();
    applied(server, &repo, &source, &[]);
    // A data agent over a lakehouse of the workspace, and a report whose connection string
    // names the workspace by name, as the service writes them.
    let item = |args: &[&str]| {
        server.fabsh(args).ok_json()["id"]
            .as_str()
            .expect("id")
            .to_string()
    };
    item(&[
        "item",
        "create",
        "-w",
        &source,
        "--name",
        "Landing",
        "--type",
        "Lakehouse",
    ]);
    let agent = item(&["data-agent", "create", "-w", &source, "--name", "Helper"]);
    server
        .fabsh(&[
            "data-agent",
            "add-datasource",
            "-w",
            &source,
            "--id",
            &agent,
            "--artifact",
            "Landing",
        ])
        .ok_json();
    let parts = tempfile::tempdir().expect("temp dir");
    let model_dir = parts.path().join("model");
    let demo_model = server.demo_item_id("SemanticModel");
    let model_text = model_dir.display().to_string();
    let fetched = server.fabsh(&[
        "item",
        "get-definition",
        "-w",
        "Demo",
        "--id",
        &demo_model,
        "--dir",
        &model_text,
    ]);
    assert_eq!(fetched.code, 0, "{}", fetched.stderr);
    std::fs::remove_file(model_dir.join(".platform")).expect("no .platform");
    let model = item(&[
        "item",
        "create",
        "-w",
        &source,
        "--name",
        "Orders",
        "--type",
        "SemanticModel",
        "--dir",
        &model_text,
    ]);
    let pbir = json!({
        "version": "4.0",
        "datasetReference": {"byConnection": {
            "connectionString": format!("Data Source=powerbi://api.powerbi.com/v1.0/myorg/{source_name};Initial Catalog=Orders;Integrated Security=ClaimsToken"),
            "pbiServiceModelId": null,
            "pbiModelVirtualServerName": "sobe_wowvirtualserver",
            "pbiModelDatabaseName": model,
            "name": "EntityDataSource",
            "connectionType": "pbiServiceXmlaStyleLive",
        }},
    });
    let definition = json!({"parts": [
        {"path": "definition.pbir", "payload": b64(&pbir.to_string()), "payloadType": "InlineBase64"},
        {"path": "report.json", "payload": b64("{\"sections\": []}"), "payloadType": "InlineBase64"},
    ]});
    item(&[
        "item",
        "create",
        "-w",
        &source,
        "--name",
        "Orders",
        "--type",
        "Report",
        "--definition",
        &definition.to_string(),
    ]);

    let out = tempfile::tempdir().expect("temp dir");
    let exported = out.path().join("repo");
    let exported_text = exported.display().to_string();
    let run = server.fabsh(&["deploy", "export", "-w", &source, &exported_text]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let target = new_workspace(server, "fidelity-export-copy");
    crate::deploy::seed_shortcut_targets(server, &target);
    for command in ["apply", "plan"] {
        let run = deploy(server, command, &exported, &target, &[]);
        assert_eq!(run.code, 0, "{command}: {}\n{}", run.stderr, run.stdout);
    }

    let files = definitions(server, &target);
    for kind in [
        "Helper.DataAgent/datasource.json",
        "Orders.Report/definition.pbir",
        "ByConnection.Report/definition.pbir",
    ] {
        assert!(
            files.iter().any(|(path, _)| path == kind),
            "{kind} was read back"
        );
    }
    for (path, text) in &files {
        let lower = text.to_lowercase();
        assert!(
            !lower.contains(&source.to_lowercase()),
            "{path} holds the source's id:\n{text}"
        );
        assert!(
            !text.contains(source_name),
            "{path} holds the source's name:\n{text}"
        );
    }
    // And what they refer to is the copy's.
    let (_, datasource) = files
        .iter()
        .find(|(p, _)| p == "Helper.DataAgent/datasource.json")
        .expect("datasource");
    let datasource: Value = serde_json::from_str(datasource).expect("json");
    assert_eq!(datasource["workspaceId"], target.as_str());
    assert_eq!(
        datasource["artifactId"],
        id_of(server, &target, "Landing", "Lakehouse").as_str()
    );
}

fn b64(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(text)
}
