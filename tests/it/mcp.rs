//! `fabsh mcp serve` through rmcp's own client over stdio (and streamable HTTP), against the
//! real binary and local Fabric: the tools against the registry's declarations, answers
//! against the service's own API, and every refusal against the request log (nothing sent).

use crate::data_agent_query::{EXAMPLES, published};
use crate::judge_stub::{self, Judge};
use crate::support::Server;
use fabsh::commands::REGISTRY;
use fabsh_client::commands::common::effective_args;
use fabsh_client::commands::{ArgKind, CommandSpec, Needs};
use rmcp::model::{CallToolRequestParams, CallToolResult, ProgressNotificationParam, Tool};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Map, Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A client that keeps the progress notifications it receives.
#[derive(Clone, Default)]
pub(crate) struct Recorder {
    pub progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Recorder {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().expect("progress").push(params);
    }
}

pub(crate) type Client = RunningService<RoleClient, Recorder>;

/// `fabsh mcp serve FLAGS` over stdio against `server`, connected and initialised.
pub(crate) async fn connect(server: &Server, flags: &[&str]) -> (Client, Recorder) {
    connect_env(server, flags, &[]).await
}

/// [`connect`] with extra environment variables for the server.
pub(crate) async fn connect_env(
    server: &Server,
    flags: &[&str],
    env: &[(&str, &str)],
) -> (Client, Recorder) {
    let mut args = vec!["mcp", "serve"];
    args.extend_from_slice(flags);
    let mut command = server.command(&args);
    command.envs(env.iter().copied());
    let transport = TokioChildProcess::new(tokio::process::Command::from(command))
        .expect("start fabsh mcp serve");
    let recorder = Recorder::default();
    let client = recorder.clone().serve(transport).await.expect("initialize");
    (client, recorder)
}

pub(crate) async fn call(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(arguments))
        .await
        .expect("a tools/call answer (tool errors are answers too)")
}

pub(crate) fn structured(result: &CallToolResult) -> &Value {
    result
        .structured_content
        .as_ref()
        .expect("structuredContent")
}

/// The error map of a tool error.
pub(crate) fn error_map(result: &CallToolResult) -> &Value {
    assert_eq!(
        result.is_error,
        Some(true),
        "expected a tool error: {result:?}"
    );
    structured(result)
}

pub(crate) fn names(tools: &[Tool]) -> Vec<String> {
    tools.iter().map(|tool| tool.name.to_string()).collect()
}

pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// The file flags a call gives inline, as a JSON array, when the server reaches no files.
fn inline(tool: &str, flag: &str) -> bool {
    matches!(
        (tool, flag),
        ("data_agent_evaluate", "questions") | ("data_agent_upload_fewshots", "file")
    )
}

/// The command a tool stands for, by the naming rule the README gives (words joined by `_`).
fn command_of(tool: &str) -> &'static CommandSpec {
    REGISTRY
        .all()
        .find(|spec| spec.path().replace([' ', '-'], "_") == tool)
        .unwrap_or_else(|| panic!("tool {tool} names no registry command"))
}

#[test]
fn tools_are_the_registry_commands_with_their_flags() {
    let server = Server::session(module_path!());
    runtime().block_on(async {
        let (client, _) = connect(&server, &[]).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        assert!(
            tools.len() > 20,
            "a read-only server still offers the reads: {:?}",
            names(&tools)
        );
        for tool in &tools {
            let spec = command_of(&tool.name);
            // MCP's tool-name rule.
            assert!(
                tool.name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
            );
            let annotations = tool.annotations.as_ref().expect("annotations");
            assert_eq!(
                annotations.read_only_hint,
                Some(true),
                "{} on a read-only server",
                tool.name
            );
            assert!(
                !spec.traits.mutates && !spec.traits.secret,
                "{} must not be offered",
                tool.name
            );
            assert!(!["auth", "config", "local"].contains(&spec.group));
            let schema = Value::Object((*tool.input_schema).clone());
            assert_eq!(schema["type"], "object");
            assert_eq!(schema["additionalProperties"], false);
            let properties = schema["properties"].as_object().expect("properties");
            // Every flag the command takes, in snake_case, typed by its kind; the command
            // line's WORKSPACE/ITEM positional is `workspace` and `id` here. Local files,
            // secrets, the judge and the variables deploy reads are not the assistant's to
            // name (no --files here).
            let flags: Vec<_> = effective_args(spec)
                .into_iter()
                .filter(|arg| {
                    arg.long != "target"
                        && arg.long != "yes"
                        && !arg.long.starts_with("llm-")
                        && !arg.long.starts_with("critic-prompt")
                        && arg.long != "env-vars"
                        && arg.kind != ArgKind::Secret
                        && (arg.local_path().is_none() || inline(&tool.name, arg.long))
                })
                .collect();
            let keys: Vec<&String> = properties.keys().collect();
            let expected: Vec<String> =
                flags.iter().map(|arg| arg.long.replace('-', "_")).collect();
            assert_eq!(keys, expected.iter().collect::<Vec<_>>(), "{}", tool.name);
            for arg in flags.iter().filter(|arg| !inline(&tool.name, arg.long)) {
                let property = &properties[&arg.long.replace('-', "_")];
                if tool.name == "data_agent_query" && arg.long == "prompt" {
                    // An assistant has no stdin: the tool's prompt is required, and says so.
                    assert_eq!(property["description"], "The question to ask (required)");
                    continue;
                }
                // Help that speaks of the terminal is reworded for an assistant
                // (mcp_schemas checks how); the rest is the help as declared.
                let terminal = ["--", "exit", "stdin", "stderr", "terminal", "command line"];
                if !terminal
                    .iter()
                    .any(|word| arg.help.to_lowercase().contains(word))
                {
                    assert_eq!(
                        property["description"], arg.help,
                        "{} {}",
                        tool.name, arg.long
                    );
                }
                let want = match arg.kind {
                    ArgKind::Int => json!("integer"),
                    ArgKind::Bool | ArgKind::Enum(["true", "false"]) => json!("boolean"),
                    ArgKind::List => json!("array"),
                    ArgKind::Json => json!(["object", "array", "string"]),
                    _ => json!("string"),
                };
                assert_eq!(property["type"], want, "{} {}", tool.name, arg.long);
                if let ArgKind::Enum(choices) = arg.kind
                    && choices != ["true", "false"]
                {
                    assert_eq!(property["enum"], json!(choices));
                }
            }
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|list| list.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for arg in &flags {
                let key = arg.long.replace('-', "_");
                // `data-agent query` reads its question from stdin without --prompt; over
                // stdio stdin is the protocol, so the tool requires it.
                let from_stdin = tool.name == "data_agent_query" && key == "prompt";
                let must =
                    from_stdin || (arg.required && arg.default.is_none() && arg.env.is_none());
                assert_eq!(
                    required.contains(&key.as_str()),
                    must,
                    "{} {key} required",
                    tool.name
                );
            }
        }
        // The reads of each kind are there.
        for name in [
            "workspace_list",
            "item_list",
            "item_show",
            "data_agent_query",
            "item_get_definition",
        ] {
            assert!(names(&tools).iter().any(|n| n == name), "{name} missing");
        }
        client.cancel().await.expect("close");
    });
}

#[test]
fn writes_and_destructive_tools_come_only_when_allowed() {
    let server = Server::session(module_path!());
    runtime().block_on(async {
        let (writer, _) = connect(&server, &["--allow-writes"]).await;
        let tools = writer.list_all_tools().await.expect("tools/list");
        assert!(names(&tools).contains(&"item_create".to_string()));
        assert!(!names(&tools).contains(&"item_delete".to_string()));
        for tool in &tools {
            let spec = command_of(&tool.name);
            assert!(!spec.traits.destructive, "{} is destructive", tool.name);
            let annotations = tool.annotations.as_ref().expect("annotations");
            assert_eq!(
                annotations.read_only_hint,
                Some(!spec.traits.mutates),
                "{}",
                tool.name
            );
            if spec.traits.mutates {
                assert_eq!(spec.traits.needs, Needs::Service);
                let properties = &tool.input_schema["properties"];
                assert_eq!(
                    properties["dry_run"]["type"], "boolean",
                    "{} takes dry_run",
                    tool.name
                );
            }
        }
        // A destructive tool is not there to call.
        let refused = writer
            .call_tool(
                CallToolRequestParams::new("item_delete").with_arguments(object(
                    json!({"workspace": server.demo.as_str(), "id": "Welcome"}),
                )),
            )
            .await;
        assert!(refused.is_err(), "item_delete answered: {refused:?}");
        writer.cancel().await.expect("close");

        let (destroyer, _) = connect(&server, &["--allow-destructive"]).await;
        let tools = destroyer.list_all_tools().await.expect("tools/list");
        let delete = tools
            .iter()
            .find(|tool| tool.name == "item_delete")
            .expect("item_delete");
        let annotations = delete.annotations.as_ref().expect("annotations");
        assert_eq!(annotations.destructive_hint, Some(true));
        assert_eq!(annotations.read_only_hint, Some(false));
        assert!(
            delete.input_schema["properties"].get("yes").is_none(),
            "consent is the server's flag"
        );
        destroyer.cancel().await.expect("close");
    });
}

pub(crate) fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => panic!("not an object"),
    }
}

#[test]
fn a_read_tool_answers_what_the_service_holds() {
    let server = Server::session(module_path!());
    let (_, workspaces) = server.get_json("/v1/workspaces");
    let demo = workspaces["value"]
        .as_array()
        .expect("workspaces")
        .iter()
        .find(|w| w["displayName"] == server.demo.as_str())
        .expect("the Demo workspace")
        .clone();
    let demo_id = demo["id"].as_str().expect("id").to_string();
    let (_, items) = server.get_json(&format!("/v1/workspaces/{demo_id}/items"));
    runtime().block_on(async {
        let (client, _) = connect(&server, &[]).await;
        let result = call(
            &client,
            "item_list",
            json!({"workspace": server.demo.as_str()}),
        )
        .await;
        assert_eq!(result.is_error, Some(false));
        let listed = structured(&result);
        assert_eq!(
            listed["value"], items["value"],
            "the page the service answers"
        );
        // The text rendering carries the same data for clients that read only text.
        let text = result.content[0].as_text().expect("text").text.clone();
        let first_line: Value =
            serde_json::from_str(text.lines().next().expect("a line")).expect("JSON");
        assert_eq!(&first_line, listed);

        let lakehouse = items["value"]
            .as_array()
            .expect("items")
            .iter()
            .find(|item| item["type"] == "Lakehouse")
            .expect("the demo lakehouse")
            .clone();
        let id = lakehouse["id"].as_str().expect("id");
        let (_, held) = server.get_json(&format!("/v1/workspaces/{demo_id}/items/{id}"));
        let shown = call(
            &client,
            "item_show",
            json!({"workspace": demo_id, "id": id}),
        )
        .await;
        assert_eq!(structured(&shown), &held);
        client.cancel().await.expect("close");
    });
}

#[test]
fn not_found_and_bad_arguments_are_tool_errors_and_send_nothing() {
    let server = Server::session(module_path!());
    runtime().block_on(async {
        let (client, _) = connect(&server, &["--allow-writes"]).await;
        let missing = call(&client, "item_show", json!({"workspace": server.demo.as_str(), "id": "No such item"})).await;
        let map = error_map(&missing);
        assert_eq!(map["kind"], "not_found");
        assert!(map["message"].as_str().expect("message").contains("No such item"));
        let unknown_ws = call(
            &client,
            "item_show",
            json!({"workspace": "00000000-0000-0000-0000-00000000abcd", "id": "00000000-0000-0000-0000-00000000abcd"}),
        )
        .await;
        let map = error_map(&unknown_ws);
        assert_eq!(map["kind"], "not_found");
        assert_eq!(map["status"], 404, "the service's own answer");

        let before = server.request_count();
        let cases = [
            ("item_create", json!({"workspace": server.demo.as_str(), "name": "x", "type": "Notebook", "colour": "red"}), "colour"),
            ("item_list", json!({"workspace": server.demo.as_str(), "limit": "ten"}), "limit"),
            ("item_create", json!({"workspace": server.demo.as_str(), "name": "x", "type": "Notebook", "dry_run": "yes"}), "dry_run"),
            ("item_create", json!({"workspace": server.demo.as_str(), "type": "Notebook"}), "name"),
            ("item_show", json!({"id": "Welcome"}), "workspace"),
            ("data_agent_query", json!({"workspace": server.demo.as_str(), "id": "Sales agent"}), "prompt"),
            ("item_create", json!({"workspace": server.demo.as_str(), "name": "x", "type": "Notebook", "definition": 5}), "definition"),
        ];
        for (tool, arguments, named) in cases {
            let result = call(&client, tool, arguments.clone()).await;
            let map = error_map(&result);
            assert_eq!(map["kind"], "usage", "{tool} {arguments}");
            let message = map["message"].as_str().expect("message");
            assert!(message.contains(&format!("`{named}`")), "{tool} {arguments}: {message}");
        }
        assert_eq!(server.request_count(), before, "bad arguments sent requests");
        client.cancel().await.expect("close");
    });
}

#[test]
fn a_dry_run_returns_the_plan_and_changes_nothing() {
    let server = Server::session(module_path!());
    let demo_path = server.demo_path("/items");
    runtime().block_on(async {
        let (client, _) = connect(&server, &["--allow-writes"]).await;
        let before = server.request_count();
        let plan = call(
            &client,
            "item_create",
            json!({"workspace": server.demo.as_str(), "name": "Planned", "type": "Notebook", "dry_run": true}),
        )
        .await;
        let plan = structured(&plan);
        assert_eq!(plan["dryRun"], true);
        let requests = plan["requests"].as_array().expect("requests");
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0]["method"], "POST");
        assert!(
            requests[0]["url"]
                .as_str()
                .expect("url")
                .ends_with(&demo_path)
        );
        assert_eq!(
            requests[0]["body"],
            json!({"displayName": "Planned", "type": "Notebook"})
        );
        let log = server.requests();
        let sent = log["requests"].as_array().expect("requests");
        let new = (server.request_count() - before) as usize;
        assert!(
            sent[sent.len() - new..]
                .iter()
                .all(|r| r["method"] == "GET"),
            "a dry run sent a write: {log}"
        );
        let (_, items) = server.get_json(&demo_path);
        assert!(
            !items["value"]
                .as_array()
                .expect("items")
                .iter()
                .any(|i| i["displayName"] == "Planned")
        );

        let created = call(
            &client,
            "item_create",
            json!({"workspace": server.demo.as_str(), "name": "Planned", "type": "Notebook"}),
        )
        .await;
        let id = structured(&created)["id"].as_str().expect("id").to_string();
        let (status, item) = server.get_json(&format!("{demo_path}/{id}"));
        assert_eq!(status, 200);
        assert_eq!(item["displayName"], "Planned");
        client.cancel().await.expect("close");
    });
}

#[test]
fn a_confined_server_acts_only_in_its_workspaces() {
    let server = Server::session(module_path!());
    let other = server
        .fabsh(&["workspace", "create", "--name", "Elsewhere"])
        .ok_json();
    let other_id = other["id"].as_str().expect("id").to_string();
    runtime().block_on(async {
        let (client, _) = connect(&server, &["--allow-writes", "--workspace", server.demo.as_str()]).await;
        let listed = call(&client, "workspace_list", json!({})).await;
        let shown: Vec<&str> = structured(&listed)["value"]
            .as_array()
            .expect("workspaces")
            .iter()
            .filter_map(|w| w["displayName"].as_str())
            .collect();
        assert_eq!(shown, [server.demo.as_str()]);
        assert!(
            call(&client, "item_list", json!({"workspace": server.demo.as_str()}))
                .await
                .is_error
                == Some(false)
        );
        // Confined to one workspace, the workspace may be left out: it is that one.
        let tools = client.list_all_tools().await.expect("tools/list");
        let item_list = tools
            .iter()
            .find(|tool| tool.name == "item_list")
            .expect("item_list");
        assert!(
            item_list.input_schema.get("required").is_none(),
            "{:?}",
            item_list.input_schema
        );
        let unnamed = call(&client, "item_list", json!({})).await;
        let (_, demo_items) = server.get_json(&server.demo_path("/items"));
        assert_eq!(structured(&unnamed)["value"], demo_items["value"]);

        let before = server.request_paths();
        for (tool, arguments) in [
            ("item_list", json!({"workspace": "Elsewhere"})),
            (
                "item_create",
                json!({"workspace": other_id, "name": "x", "type": "Notebook"}),
            ),
            ("workspace_create", json!({"name": "Third"})),
            (
                "api",
                json!({"method": "GET", "path": format!("/workspaces/{other_id}/items")}),
            ),
            (
                "api",
                json!({"method": "GET", "path": "/workspaces/../workspaces"}),
            ),
            (
                "data_agent_query",
                json!({
                    "workspace": server.demo.as_str(),
                    "id": "Any agent",
                    "prompt": "How many orders are there?",
                    "published_url": format!(
                        "{}/workspaces/{other_id}/dataagents/00000000-0000-0000-0000-000000000001/aiassistant/openai",
                        server.endpoint
                    ),
                }),
            ),
        ] {
            let result = call(&client, tool, arguments.clone()).await;
            let map = error_map(&result);
            assert_eq!(map["kind"], "usage", "{tool} {arguments}");
            assert!(
                map["message"]
                    .as_str()
                    .expect("message")
                    .contains(&format!("confined to {}", server.demo))
            );
        }
        let after = server.request_paths();
        let new: Vec<&String> = after.iter().skip(before.len()).collect();
        assert!(
            new.iter().all(|path| !path.contains(&other_id)),
            "a request reached the other workspace: {new:?}"
        );
        client.cancel().await.expect("close");
    });
}

#[test]
fn long_calls_report_progress_and_can_be_cancelled() {
    let server = Server::with(&[("lro-ms", "60000")]);
    let items: Vec<Value> = (0..4)
        .map(|i| json!({"displayName": format!("Bulk {i}"), "type": "Notebook"}))
        .collect();
    runtime().block_on(async {
        let (client, recorder) = connect(&server, &["--allow-writes"]).await;
        let bulk = call(
            &client,
            "item_bulk_create",
            json!({"workspace": "Demo", "content": items}),
        )
        .await;
        assert_eq!(structured(&bulk)["summary"]["succeeded"], 4, "{bulk:?}");
        // rmcp's client hands notifications to the handler concurrently, so they may be
        // recorded out of the order they were sent in, and after the result.
        let recorded = || recorder.progress.lock().expect("progress").clone();
        for _ in 0..50 {
            if recorded().len() >= 4 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let progress = recorded();
        let mut steps: Vec<f64> = progress
            .iter()
            .filter(|p| p.total == Some(4.0))
            .map(|p| p.progress)
            .collect();
        steps.sort_by(f64::total_cmp);
        assert_eq!(
            steps,
            [1.0, 2.0, 3.0, 4.0],
            "one report per item: {progress:?}"
        );

        // A SQL database is made through a long-running operation (as the service answers
        // its creates); local Fabric keeps it running for a minute. Dropping the call sends
        // notifications/cancelled.
        let mut long = Box::pin(call(
            &client,
            "item_create",
            json!({"workspace": "Demo", "name": "Slow", "type": "SQLDatabase"}),
        ));
        // Calls run concurrently: a quick one sent after it is answered while it waits.
        let quick = tokio::select! {
            biased;
            done = &mut long => panic!("the operation ended early: {done:?}"),
            listed = call(&client, "item_list", json!({"workspace": "Demo"})) => listed,
        };
        assert_eq!(quick.is_error, Some(false));
        let outcome = tokio::time::timeout(Duration::from_secs(1), &mut long).await;
        assert!(outcome.is_err(), "the operation ended early: {outcome:?}");
        drop(long);
        tokio::time::sleep(Duration::from_millis(500)).await;
        let polls = server.request_count();
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(
            server.request_count(),
            polls,
            "the cancelled call kept polling"
        );
        // The server goes on serving.
        let listed = call(&client, "item_list", json!({"workspace": "Demo"})).await;
        assert_eq!(listed.is_error, Some(false));
        client.cancel().await.expect("close");
    });
}

#[test]
fn http_needs_the_printed_token_and_stays_on_loopback() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let server = Server::session(module_path!());
    let remote = server.fabsh(&["mcp", "serve", "--http", "0.0.0.0:0"]);
    assert_eq!(remote.code, 2, "{}", remote.stderr);
    assert!(
        remote.stderr.contains("--allow-remote"),
        "{}",
        remote.stderr
    );

    let mut child = server
        .command(&["mcp", "serve", "--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut next = |prefix: &str| {
        let line = lines.next().expect("a line").expect("utf8");
        line.strip_prefix(prefix)
            .unwrap_or_else(|| panic!("{line}"))
            .to_string()
    };
    let url = next("FABSH_MCP_URL=");
    let token = next("FABSH_MCP_TOKEN=");
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let origin = url.trim_end_matches("/mcp").to_string();
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
    let accept = ("Accept", "application/json, text/event-stream");
    let json_type = ("Content-Type", "application/json");
    let (status, _) = crate::support::http(
        &origin,
        "POST",
        "/mcp",
        Some(initialize),
        &[accept, json_type],
    );
    assert_eq!(status, 401, "no token");
    let wrong = "Bearer not-the-token".to_string();
    let (status, _) = crate::support::http(
        &origin,
        "POST",
        "/mcp",
        Some(initialize),
        &[accept, json_type, ("Authorization", wrong.as_str())],
    );
    assert_eq!(status, 401, "a wrong token");
    let bearer = format!("Bearer {token}");
    let (status, body) = crate::support::http(
        &origin,
        "POST",
        "/mcp",
        Some(initialize),
        &[accept, json_type, ("Authorization", bearer.as_str())],
    );
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("\"serverInfo\"") && body.contains("fabsh"),
        "{body}"
    );
    // rmcp's own streamable-HTTP client, with the token, gets the same tools as over stdio.
    // reqwest is built without a default TLS provider (rustls with ring, as fabsh uses).
    let _ = rustls::crypto::ring::default_provider().install_default();
    runtime().block_on(async {
        let config =
            StreamableHttpClientTransportConfig::with_uri(url.clone()).auth_header(token.clone());
        let transport = StreamableHttpClientTransport::from_config(config);
        let client = ().serve(transport).await.expect("initialize over HTTP");
        let tools = client.list_all_tools().await.expect("tools/list");
        assert!(names(&tools).contains(&"item_list".to_string()));
        let listed = client
            .call_tool(CallToolRequestParams::new("workspace_list"))
            .await
            .expect("tools/call");
        assert!(
            structured(&listed)["value"]
                .as_array()
                .expect("workspaces")
                .iter()
                .any(|w| w["displayName"] == server.demo.as_str())
        );
        client.cancel().await.expect("close");
    });
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn an_evaluation_through_a_tool_reports_progress_and_never_shows_the_judge_key() {
    let fx = published(module_path!(), EXAMPLES);
    let judge = Judge::start();
    runtime().block_on(async {
        // The judge is the server's, named by the person starting it.
        let (client, recorder) = connect(
            &fx.server,
            &[
                "--llm-endpoint",
                judge.endpoint(),
                "--llm-model",
                "stand-in",
                "--llm-key",
                judge_stub::KEY,
            ],
        )
        .await;
        let result = call(
            &client,
            "data_agent_evaluate",
            json!({
                "workspace": fx.workspace,
                "id": fx.agent,
                "questions": [{"question": "How many orders are there?", "expected": "1"},
                              {"question": "How many customers are there?", "expected": "2"}],
                "no_save": true,
            }),
        )
        .await;
        let out = structured(&result);
        assert_eq!(out["summary"]["runs"], 2, "{out}");
        assert_eq!(out["summary"]["errors"], 0, "{out}");
        // The judge was asked with the key, and the key is nowhere in what the tool returned.
        let bearer = format!("Bearer {}", judge_stub::KEY);
        assert!(!judge.seen().is_empty());
        assert!(
            judge
                .seen()
                .iter()
                .all(|seen| seen.authorization.as_deref() == Some(bearer.as_str()))
        );
        let returned = serde_json::to_string(&result).expect("JSON");
        assert!(
            !returned.contains(judge_stub::KEY),
            "the key came back: {returned}"
        );
        // Each question asked is a step.
        for _ in 0..50 {
            if !recorder.progress.lock().expect("progress").is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let progress = recorder.progress.lock().expect("progress").clone();
        assert!(
            progress.iter().any(|p| p.total == Some(2.0)),
            "{progress:?}"
        );
        client.cancel().await.expect("close");
    });
}

#[test]
fn a_cancelled_bulk_call_stops_creating() {
    // Every request takes 300 ms, so 20 creates one at a time take 6 s.
    let server = Server::with(&[("latency-ms", "300")]);
    let items: Vec<Value> = (0..20)
        .map(|i| json!({"displayName": format!("Cancelled {i}"), "type": "Notebook"}))
        .collect();
    let created = |server: &Server| {
        let (_, listed) = server.get_json(&server.demo_path("/items"));
        listed["value"]
            .as_array()
            .expect("items")
            .iter()
            .filter(|item| {
                item["displayName"]
                    .as_str()
                    .is_some_and(|name| name.starts_with("Cancelled"))
            })
            .count()
    };
    runtime().block_on(async {
        let (client, _) = connect(&server, &["--allow-writes"]).await;
        let bulk = call(
            &client,
            "item_bulk_create",
            json!({"workspace": "Demo", "content": items, "concurrency": 1}),
        );
        let outcome = tokio::time::timeout(Duration::from_millis(1500), bulk).await;
        assert!(outcome.is_err(), "the bulk call ended early: {outcome:?}");
        // Dropped: notifications/cancelled. What was under way may still land.
        tokio::time::sleep(Duration::from_millis(700)).await;
        let after_cancel = created(&server);
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let later = created(&server);
        assert_eq!(later, after_cancel, "creates went on after the cancel");
        assert!(later < 20, "every item was created: {later}");
        client.cancel().await.expect("close");
    });
}
