//! `fabsh mcp serve` is safe to hand to an assistant: no tool argument reaches a local file
//! unless the person starting it named a folder, the judge is theirs to name, and nothing
//! leaves for a host they did not name. A listener on loopback that tool calls point at
//! proves nothing was sent: it must receive no connection.

use crate::data_agent_query::{EXAMPLES, published};
use crate::mcp::{call, connect, error_map, runtime, structured};
use crate::stub::Stub;
use crate::support::{self, Server, Trap};
use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use fabsh::commands::REGISTRY;
use fabsh_client::commands::common::effective_args;
use serde_json::json;
use std::path::Path;

fn message(result: &rmcp::model::CallToolResult) -> String {
    error_map(result)["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A folder with a Notebook definition's one part.
fn notebook_dir(dir: &Path) {
    std::fs::create_dir_all(dir).expect("dir");
    std::fs::write(
        dir.join("notebook-content.py"),
        "# Fabric notebook source\n\n# CELL ********************\n\nprint(1)\n",
    )
    .expect("part");
}

/// A definition a file holds, valid JSON, that an `@file` argument would read.
const DEFINITION_FILE: &str = r#"{"parts":[{"path":"notebook-content.py","payload":"IyBGYWJyaWMgbm90ZWJvb2sgc291cmNl","payloadType":"InlineBase64"}]}"#;

#[test]
fn without_files_no_argument_names_a_local_file() {
    let server = support::shared(module_path!());
    let scratch = tempfile::tempdir().expect("scratch");
    let precious = scratch.path().join("precious.txt");
    std::fs::write(&precious, "keep me").expect("precious");
    let secret = scratch.path().join("definition.json");
    std::fs::write(&secret, DEFINITION_FILE).expect("secret");
    let out = scratch.path().join("out");
    runtime().block_on(async {
        let (client, _) = connect(server, &[]).await;
        // The schemas name no flag that reads or writes a file, but for those given inline.
        for tool in client.list_all_tools().await.expect("tools/list") {
            let spec = REGISTRY
                .all()
                .find(|spec| spec.path().replace([' ', '-'], "_") == tool.name)
                .expect("a registry command");
            let properties = tool.input_schema["properties"]
                .as_object()
                .expect("properties");
            for arg in effective_args(spec) {
                let key = arg.long.replace('-', "_");
                let inline = properties
                    .get(&key)
                    .is_some_and(|p| p["type"] == "array" && arg.local_path().is_some());
                assert!(
                    arg.local_path().is_none() || !properties.contains_key(&key) || inline,
                    "{} offers {key}",
                    tool.name
                );
            }
        }
        // A file argument is refused by name, and nothing is written.
        let written = call(
            &client,
            "item_get_definition",
            json!({"workspace": "Demo", "id": "SalesLakehouse", "dir": out.to_string_lossy()}),
        )
        .await;
        assert!(message(&written).contains("unknown argument `dir`"));
        assert!(!out.exists());
        let junit = call(
            &client,
            "data_agent_evaluate",
            json!({"workspace": "Demo", "id": "Nobody", "questions": ["q"],
                   "junit": precious.to_string_lossy()}),
        )
        .await;
        assert!(message(&junit).contains("unknown argument `junit`"));
        assert_eq!(std::fs::read_to_string(&precious).expect("read"), "keep me");
        // `@file` is text, never a file's content.
        let at_file = call(
            &client,
            "item_validate_definition",
            json!({"type": "Notebook", "definition": format!("@{}", secret.display())}),
        )
        .await;
        assert!(
            message(&at_file).contains("is not valid JSON"),
            "{at_file:?}"
        );
        client.cancel().await.expect("close");
    });
}

#[test]
fn files_resolve_under_the_roots_only() {
    let server = support::shared(module_path!());
    let root = tempfile::tempdir().expect("root");
    let outside = tempfile::tempdir().expect("outside");
    notebook_dir(&root.path().join("def"));
    notebook_dir(&outside.path().join("def"));
    std::fs::create_dir(root.path().join("full")).expect("full");
    std::fs::write(root.path().join("full/keep.txt"), "keep").expect("keep");
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path(), root.path().join("link")).expect("symlink");
    let root_arg = root.path().to_string_lossy().to_string();
    let notebook = server.create_demo_item("Files boundary notebook", "Notebook");
    runtime().block_on(async {
        let (client, _) = connect(server, &["--files", &root_arg]).await;
        let validate = |dir: String| {
            let client = &client;
            async move {
                call(
                    client,
                    "item_validate_definition",
                    json!({"type": "Notebook", "dir": dir}),
                )
                .await
            }
        };
        // Relative paths start at the root.
        let inside = validate("def".into()).await;
        assert_eq!(structured(&inside)["valid"], true, "{inside:?}");
        let outside_def = outside.path().join("def").to_string_lossy().to_string();
        for refused in [
            "../def".to_string(),
            "def/../def".to_string(),
            outside_def,
            "link/def".to_string(),
        ] {
            let result = validate(refused.clone()).await;
            assert!(
                message(&result).contains("is refused"),
                "{refused}: {result:?}"
            );
        }
        // A write goes to a new folder under the root, never over what is there.
        let full = call(
            &client,
            "item_get_definition",
            json!({"workspace": "Demo", "id": notebook, "dir": "full"}),
        )
        .await;
        assert!(message(&full).contains("exists"), "{full:?}");
        let replaced = call(
            &client,
            "item_get_definition",
            json!({"workspace": "Demo", "id": notebook, "dir": "full", "overwrite": true}),
        )
        .await;
        assert!(message(&replaced).contains("read-only"), "{replaced:?}");
        assert_eq!(
            std::fs::read_dir(root.path().join("full"))
                .expect("full")
                .count(),
            1
        );
        let fresh = call(
            &client,
            "item_get_definition",
            json!({"workspace": "Demo", "id": notebook, "dir": "fresh"}),
        )
        .await;
        assert_eq!(fresh.is_error, Some(false), "{fresh:?}");
        assert!(root.path().join("fresh/notebook-content.py").exists());
        client.cancel().await.expect("close");
    });
}

#[test]
fn the_judge_and_its_key_are_never_tool_arguments() {
    let server = support::shared(module_path!());
    let trap = Trap::start();
    let scratch = tempfile::tempdir().expect("scratch");
    let secret = scratch.path().join("secret.txt");
    std::fs::write(&secret, "not-for-anyone").expect("secret");
    runtime().block_on(async {
        let (client, _) = connect(server, &[]).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        for tool in &tools {
            for key in [
                "llm_endpoint",
                "llm_key",
                "llm_model",
                "llm_api_version",
                "critic_prompt",
                "critic_prompt_file",
            ] {
                assert!(
                    tool.input_schema["properties"].get(key).is_none(),
                    "{} offers {key}",
                    tool.name
                );
            }
        }
        let judged = call(
            &client,
            "data_agent_validate_fewshots",
            json!({"workspace": "Demo", "id": "Any", "llm_endpoint": format!("{}/v1", trap.origin()),
                   "llm_model": "m", "llm_key": format!("@{}", secret.display())}),
        )
        .await;
        assert!(
            message(&judged).contains("unknown argument `llm_endpoint`"),
            "{judged:?}"
        );
        assert!(message(&judged).contains("the server's setting"));
        client.cancel().await.expect("close");
    });
    trap.assert_untouched();
}

#[test]
fn urls_outside_the_fabric_endpoint_are_refused_before_anything_is_sent() {
    let server = support::shared(module_path!());
    let trap = Trap::start();
    runtime().block_on(async {
        let (client, _) = connect(server, &[]).await;
        let workspace = server.demo_path("");
        let url = format!(
            "{}/v1/mcp{workspace}/dataagents/00000000-0000-0000-0000-000000000001/agent",
            trap.origin()
        );
        let asked = call(
            &client,
            "data_agent_query",
            json!({"workspace": "Demo", "id": "Any agent", "published_url": url,
                   "prompt": "How many orders?"}),
        )
        .await;
        let error = error_map(&asked);
        assert_eq!(error["kind"], "usage", "{error}");
        assert!(message(&asked).contains("published_url"), "{asked:?}");
        client.cancel().await.expect("close");
    });
    trap.assert_untouched();
}

/// A judge that refuses every request, quoting the credential it was sent, as some services'
/// "invalid key" errors do.
fn quoting_judge() -> Stub {
    Stub::start(|_| {
        Router::new().route(
            "/v1/chat/completions",
            post(|headers: HeaderMap| async move {
                let sent = headers
                    .get("authorization")
                    .and_then(|value| value.to_str().ok())
                    .unwrap_or_default()
                    .to_string();
                (
                    StatusCode::UNAUTHORIZED,
                    axum::Json(json!({"error": {"message": format!("Incorrect API key provided: {sent}")}})),
                )
            }),
        )
    })
}

#[test]
fn the_judge_key_is_redacted_from_results_output_and_the_store() {
    const KEY: &str = "sk-judge-secret-0123456789abcdef";
    let fx = published(module_path!(), EXAMPLES);
    let judge = quoting_judge();
    let questions = json!([{"question": "How many orders are there?", "expected": "1"}]);
    runtime().block_on(async {
        let (client, _) = connect(
            &fx.server,
            &[
                "--llm-endpoint",
                &judge.endpoint,
                "--llm-model",
                "m",
                "--llm-key",
                KEY,
            ],
        )
        .await;
        let result = call(
            &client,
            "data_agent_evaluate",
            json!({"workspace": fx.workspace, "id": fx.agent, "questions": questions}),
        )
        .await;
        let returned = serde_json::to_string(&result).expect("JSON");
        assert!(returned.contains("Incorrect API key"), "{returned}");
        assert!(!returned.contains(KEY), "the key came back: {returned}");
        client.cancel().await.expect("close");
    });
    // The command line too, and the run it recorded.
    let file = fx.server.home.dir.path().join("questions.json");
    std::fs::write(&file, questions.to_string()).expect("questions");
    let run = fx.server.fabsh(&[
        "data-agent",
        "evaluate",
        "-w",
        &fx.workspace,
        "--id",
        &fx.agent,
        "--questions",
        &file.to_string_lossy(),
        "--llm-endpoint",
        &judge.endpoint,
        "--llm-model",
        "m",
        "--llm-key",
        KEY,
    ]);
    assert!(run.stdout.contains("Incorrect API key"), "{run:?}");
    assert!(!run.stdout.contains(KEY) && !run.stderr.contains(KEY));
    let runs = fx.server.fabsh(&[
        "data-agent",
        "evaluations",
        "list",
        "-w",
        &fx.workspace,
        "--id",
        &fx.agent,
    ]);
    let run_id = runs.ok_json()[0]["runId"]
        .as_str()
        .expect("a recorded run")
        .to_string();
    let shown = fx
        .server
        .fabsh(&["data-agent", "evaluations", "show", &run_id]);
    assert!(shown.stdout.contains("Incorrect API key"), "{shown:?}");
    assert!(!shown.stdout.contains(KEY));
}

#[test]
fn encoded_dots_and_slashes_cannot_leave_the_confined_workspace() {
    let server = Server::session(module_path!());
    let demo = server.demo_path("");
    let demo_id = demo.trim_start_matches("/workspaces/").to_string();
    let other = server
        .fabsh(&["workspace", "create", "--name", "Other"])
        .ok_json();
    let other_id = other["id"].as_str().expect("id").to_string();
    runtime().block_on(async {
        let (client, _) = connect(&server, &["--allow-writes", "--workspace", server.demo.as_str()]).await;
        let before = server.request_count();
        let mut calls = Vec::new();
        for climb in ["%2e%2e", "%2E%2E", ".%2e", "%2e.", "..%2f.."] {
            let path = format!("/workspaces/{demo_id}/{climb}/{other_id}/items");
            calls.push(("api", json!({"method": "GET", "path": path})));
            calls.push((
                "api",
                json!({"method": "POST", "path": path, "body": {"displayName": "x", "type": "Notebook"}}),
            ));
            calls.push((
                "data_agent_query",
                json!({
                    "workspace": server.demo.as_str(), "id": "Any agent", "prompt": "How many orders?",
                    "published_url": format!(
                        "{}/mcp/workspaces/{demo_id}/{climb}/{other_id}/dataagents/00000000-0000-0000-0000-000000000001/agent",
                        server.endpoint
                    ),
                }),
            ));
        }
        calls.push((
            "api",
            json!({"method": "GET", "path": format!("/workspaces/{demo_id}%2f..%2f{other_id}/items")}),
        ));
        for (tool, arguments) in calls {
            let result = call(&client, tool, arguments.clone()).await;
            assert!(
                message(&result).contains("confined"),
                "{tool} {arguments}: {result:?}"
            );
        }
        assert_eq!(server.request_count(), before, "a refused call sent something");
        client.cancel().await.expect("close");
    });
    // The definition part rule is the client's, so the command line refuses the same path.
    let definition = json!({"parts": [{"path": "%2e%2e/notebook-content.py",
        "payload": "IyBGYWJyaWMgbm90ZWJvb2sgc291cmNl", "payloadType": "InlineBase64"}]});
    let run = server.fabsh(&[
        "item",
        "validate-definition",
        "--type",
        "Notebook",
        "--definition",
        &definition.to_string(),
    ]);
    assert_ne!(run.code, 0, "{run:?}");
    let report = run.json();
    assert!(
        report["errors"]
            .as_array()
            .expect("errors")
            .iter()
            .any(|error| error["code"] == "UnsafePath"),
        "{report}"
    );
}

#[test]
fn allow_writes_grants_no_role_and_replaces_no_definition() {
    let server = Server::session(module_path!());
    let demo = server.demo_path("");
    let notebook = server.create_demo_item("Kept definition", "Notebook");
    runtime().block_on(async {
        let (client, _) = connect(&server, &["--allow-writes"]).await;
        let before = server.request_count();
        for (method, path, body) in [
            (
                "POST",
                format!("{demo}/roleAssignments"),
                json!({"principal": {"id": "00000000-0000-0000-0000-0000000000aa", "type": "User"}, "role": "Admin"}),
            ),
            (
                "PATCH",
                format!("{demo}/roleAssignments/00000000-0000-0000-0000-0000000000aa"),
                json!({"role": "Admin"}),
            ),
            (
                "POST",
                format!("{demo}/items/{notebook}/updateDefinition"),
                json!({"definition": {"parts": []}}),
            ),
            ("DELETE", format!("{demo}/items/{notebook}"), json!(null)),
        ] {
            let result = call(
                &client,
                "api",
                json!({"method": method, "path": path, "body": body}),
            )
            .await;
            assert!(
                message(&result).contains("--allow-destructive"),
                "{method} {path}: {result:?}"
            );
        }
        assert_eq!(server.request_count(), before, "a refused call sent something");
        // A dry run shows the plan, and an ordinary write still goes through.
        let planned = call(
            &client,
            "api",
            json!({"method": "POST", "path": format!("{demo}/roleAssignments"),
                   "body": {"role": "Admin"}, "dry_run": true}),
        )
        .await;
        assert_eq!(planned.is_error, Some(false), "{planned:?}");
        client.cancel().await.expect("close");
    });
}

/// A client that can ask its person, who answers `accept` to every question.
#[derive(Clone)]
struct Asker {
    accept: bool,
    asked: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl rmcp::ClientHandler for Asker {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        rmcp::model::ClientConfig::new(
            rmcp::model::ClientCapabilities::builder()
                .enable_elicitation()
                .build(),
            rmcp::model::Implementation::new("asker", "1"),
        )
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        if let rmcp::model::ElicitRequestParams::FormElicitationParams { message, .. } = request {
            self.asked.lock().expect("asked").push(message);
        }
        Ok(rmcp::model::ElicitResult::new(if self.accept {
            rmcp::model::ElicitationAction::Accept
        } else {
            rmcp::model::ElicitationAction::Decline
        }))
    }
}

#[test]
fn destructive_calls_ask_the_person_when_the_client_can() {
    use rmcp::ServiceExt;
    let server = Server::session(module_path!());
    let doomed = server.create_demo_item("Doomed notebook", "Notebook");
    let item = |id: &str| {
        server
            .get_json(&server.demo_path(&format!("/items/{id}")))
            .0
    };
    runtime().block_on(async {
        for accept in [false, true] {
            let asker = Asker {
                accept,
                asked: Default::default(),
            };
            let transport = rmcp::transport::TokioChildProcess::new(tokio::process::Command::from(
                server.command(&["mcp", "serve", "--allow-destructive"]),
            ))
            .expect("start");
            let client = asker.clone().serve(transport).await.expect("initialize");
            let arguments = json!({"workspace": server.demo.as_str(), "id": doomed});
            let serde_json::Value::Object(arguments) = arguments else {
                unreachable!()
            };
            let result = client
                .call_tool(
                    rmcp::model::CallToolRequestParams::new("item_delete")
                        .with_arguments(arguments),
                )
                .await
                .expect("an answer");
            let asked = asker.asked.lock().expect("asked").clone();
            assert_eq!(asked.len(), 1, "{asked:?}");
            assert!(asked[0].contains("item_delete") && asked[0].contains(&doomed));
            if accept {
                assert_eq!(result.is_error, Some(false), "{result:?}");
                let out = result.structured_content.expect("structured");
                assert_eq!(out["deleted"]["id"], doomed.as_str(), "{out}");
                assert_eq!(item(&doomed), 404);
            } else {
                assert!(message(&result).contains("declined"), "{result:?}");
                assert_eq!(item(&doomed), 200, "a declined delete was sent");
            }
            client.cancel().await.expect("close");
        }
    });
}

#[test]
fn a_deploy_configs_folders_stay_under_the_roots_too() {
    let server = support::shared(module_path!());
    let root = tempfile::tempdir().expect("root");
    let outside = tempfile::tempdir().expect("outside");
    // A repository outside the roots, and one inside them.
    for repository in [outside.path(), root.path()] {
        notebook_dir(&repository.join("repo/Secret.Notebook"));
        std::fs::write(
            repository.join("repo/Secret.Notebook/.platform"),
            r#"{"metadata":{"type":"Notebook","displayName":"Secret"},"config":{"version":"2.0","logicalId":"00000000-0000-0000-0000-000000000000"}}"#,
        )
        .expect(".platform");
    }
    let outside_repo = outside.path().join("repo").display().to_string();
    let configs = [
        (
            "absolute.yml",
            format!("core:\n  repository_directory: {outside_repo}\n"),
        ),
        (
            "climbing.yml",
            format!(
                "core:\n  repository_directory: ../{}/repo\n",
                outside.path().file_name().expect("name").to_string_lossy()
            ),
        ),
        (
            "parameter.yml.cfg",
            format!("core:\n  repository_directory: repo\n  parameter: {outside_repo}/../p.yml\n"),
        ),
        (
            "inside.yml",
            "core:\n  repository_directory: repo\n".to_string(),
        ),
    ];
    std::fs::write(outside.path().join("p.yml"), "find_replace: []\n").expect("p.yml");
    for (name, text) in &configs {
        std::fs::write(root.path().join(name), text).expect("config");
    }
    let root_arg = root.path().to_string_lossy().to_string();
    runtime().block_on(async {
        let (client, _) = connect(server, &["--files", &root_arg]).await;
        for (name, _) in &configs[..3] {
            let result = call(&client, "deploy_plan", json!({"config": name})).await;
            let message = message(&result);
            assert!(
                message.contains("is refused") && message.contains("argument `config`"),
                "{name}: {result:?}"
            );
            assert!(!message.contains("Secret.Notebook"), "{name}: {message}");
        }
        // The same config naming a folder under the root is read (the offline check).
        let inside = call(&client, "deploy_plan", json!({"config": "inside.yml"})).await;
        let text = serde_json::to_string(&inside).expect("json");
        assert!(
            !text.contains("is refused") && text.contains("Secret"),
            "{inside:?}"
        );
        client.cancel().await.expect("close");
    });
}

/// `deploy apply --delete-orphans` deletes items: `deploy_plan` is offered read-only and
/// `deploy_apply` only with `--allow-writes`; there, an apply asking to delete orphans is
/// refused before anything is read or sent unless the server has `--allow-destructive`.
#[test]
fn deploy_apply_deletes_orphans_only_on_a_destructive_server() {
    let server = support::shared(module_path!());
    let root = tempfile::tempdir().expect("tempdir");
    let root_arg = root.path().to_string_lossy().to_string();
    // A repository of one notebook and an empty workspace: an apply that goes on has
    // nothing to delete.
    crate::deploy_boundaries::notebook(&root.path().join("repo"), "Nb", "print(1)");
    std::fs::write(
        root.path().join("deploy.yml"),
        "core:\n  repository_directory: repo\n",
    )
    .expect("config");
    server
        .fabsh(&["workspace", "create", "--name", "Orphan guard"])
        .ok_json();
    let offered = |tools: &[rmcp::model::Tool], name: &str| tools.iter().any(|t| t.name == name);
    let apply =
        json!({"config": "deploy.yml", "workspace": "Orphan guard", "delete_orphans": true});
    runtime().block_on(async {
        let (reader, _) = connect(server, &["--files", &root_arg]).await;
        let tools = reader.list_all_tools().await.expect("tools/list");
        assert!(offered(&tools, "deploy_plan"), "deploy_plan is read-only");
        assert!(
            !offered(&tools, "deploy_apply"),
            "apply needs --allow-writes"
        );
        reader.cancel().await.expect("close");

        let (writer, _) = connect(server, &["--allow-writes", "--files", &root_arg]).await;
        let before = server.request_count();
        let refused = message(&call(&writer, "deploy_apply", apply.clone()).await);
        assert!(refused.contains("--allow-destructive"), "{refused}");
        assert_eq!(
            server.request_count(),
            before,
            "a refused apply sent something"
        );
        writer.cancel().await.expect("close");

        // On a destructive server the same call is carried out (nothing to delete there).
        let (destroyer, _) = connect(
            server,
            &[
                "--allow-writes",
                "--allow-destructive",
                "--files",
                &root_arg,
            ],
        )
        .await;
        let applied = call(&destroyer, "deploy_apply", apply.clone()).await;
        assert_ne!(applied.is_error, Some(true), "{applied:?}");
        destroyer.cancel().await.expect("close");
    });
}

#[test]
fn onelake_paths_pass_where_a_local_path_or_a_onelake_path_is_taken() {
    // A session of its own: other tests of this file count the shared server's requests.
    let server = &Server::session(module_path!());
    let root = tempfile::tempdir().expect("root");
    std::fs::write(root.path().join("up.csv"), "id\n7\n").expect("write");
    let root_arg = root.path().to_string_lossy().to_string();
    let lake = format!("{}/SalesLakehouse/Files/mcp-both-ways/up.csv", server.demo);
    let lake = lake.as_str();
    runtime().block_on(async {
        let flags = ["--allow-writes", "--files", &root_arg, "--tools", "onelake"];
        let (client, _) = connect(server, &flags).await;
        // Up: the source resolves under the root; the destination is OneLake's.
        let up = call(&client, "onelake_cp", json!({"src": "up.csv", "dst": lake})).await;
        assert_eq!(up.is_error, Some(false), "{up:?}");
        // Down: the other way round, into a new file under the root.
        let down = call(
            &client,
            "onelake_cp",
            json!({"src": lake, "dst": "back.csv"}),
        )
        .await;
        assert_eq!(down.is_error, Some(false), "{down:?}");
        // A local path outside the root is refused all the same.
        let outside = call(
            &client,
            "onelake_cp",
            json!({"src": "../up.csv", "dst": lake}),
        )
        .await;
        assert!(message(&outside).contains("is refused"), "{outside:?}");
        client.cancel().await.expect("close");
    });
    assert_eq!(
        std::fs::read_to_string(root.path().join("back.csv")).expect("back"),
        "id\n7\n"
    );
}
