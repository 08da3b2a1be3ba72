//! Data reaches a caller only if the caller may read it. An agent's datasources are checked
//! against their author's access whenever a definition or datasource is written or
//! published, and against the asker's when the agent answers (over MCP and on the
//! Assistants-compatible surface), as Fabric requires of whoever reads the underlying data.

use crate::support::{Run, Server, http, principal_token, principal_with_token};
use serde_json::{Value, json};

/// The question asked, and the few-shot SQL that answers it from the demo lakehouse.
const QUESTION: &str = "How many orders are there?";
const SQL: &str = "SELECT COUNT(*) FROM dbo.orders";

fn id(value: &Value) -> String {
    value["id"].as_str().expect("id").to_string()
}

/// `data-agent <command> -w <ws> --id <agent> <rest>` as the holder of `token`.
fn agent_as(
    server: &Server,
    token: &str,
    command: &str,
    ws: &str,
    agent: &str,
    rest: &[&str],
) -> Run {
    let mut args = vec!["data-agent", command, "-w", ws, "--id", agent];
    args.extend_from_slice(rest);
    server.fabsh_as(token, &args)
}

/// An agent called `name` in `ws` over the Demo lakehouse, made and published by `token`'s
/// holder, with the one few-shot that answers [`QUESTION`]; returns its id.
fn published_agent(server: &Server, token: &str, ws: &str, name: &str) -> String {
    let lakehouse = server.demo_lakehouse();
    let created = server
        .fabsh_as(token, &["data-agent", "create", "-w", ws, "--name", name])
        .ok_json();
    let agent = id(&created);
    let lakehouse_ws = lakehouse["workspaceId"].as_str().expect("workspaceId");
    let steps: [(&str, Vec<&str>); 4] = [
        (
            "add-datasource",
            vec![
                "--artifact",
                "SalesLakehouse",
                "--artifact-workspace",
                lakehouse_ws,
            ],
        ),
        (
            "select-tables",
            vec!["--datasource", "SalesLakehouse", "--tables", "orders"],
        ),
        (
            "add-fewshot",
            vec![
                "--datasource",
                "SalesLakehouse",
                "--question",
                QUESTION,
                "--sql",
                SQL,
            ],
        ),
        ("publish", vec!["--description", "Orders"]),
    ];
    for (command, rest) in steps {
        agent_as(server, token, command, ws, &agent, &rest).ok_json();
    }
    agent
}

/// A workspace made by the admin; returns its id.
fn workspace(server: &Server, name: &str) -> String {
    id(&server
        .fabsh(&["workspace", "create", "--name", &server.own_name(name)])
        .ok_json())
}

/// What the admin's agent answers: the number of orders, as the data holds it.
fn true_answer(server: &Server, ws: &str, agent: &str) -> String {
    let out = agent_as(
        server,
        &server.token,
        "query",
        ws,
        agent,
        &["--prompt", QUESTION],
    )
    .ok_json();
    let answer = out["answer"].as_str().expect("answer").to_string();
    assert!(answer.starts_with("The answer is "), "{out}");
    answer
}

/// Asserts a refusal for want of access to the Demo workspace (a 403: exit code 3).
fn assert_refused(run: &Run) {
    assert_eq!(
        run.code, 3,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert!(
        run.stderr.contains("InsufficientPrivileges"),
        "{}",
        run.stderr
    );
}

/// The agent's definition as its workspace's caller reads it back from the server.
fn stored_paths(server: &Server, token: &str, ws: &str, agent: &str) -> Vec<String> {
    let definition = agent_as(server, token, "get-definition", ws, agent, &[]).ok_json();
    definition["definition"]["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .map(|part| part["path"].as_str().expect("path").to_string())
        .collect()
}

#[test]
fn a_definition_cannot_name_a_lakehouse_its_author_cannot_read() {
    let server = Server::session(module_path!());
    let demo = server.demo_lakehouse()["workspaceId"]
        .as_str()
        .expect("workspaceId")
        .to_string();
    let template = published_agent(&server, &server.token, &demo, "Sales agent");
    let answer = true_answer(&server, &demo, &template);
    // The admin's published agent, as parts: a lakehouse of Demo, draft and published.
    let parts = server
        .fabsh(&[
            "data-agent",
            "get-definition",
            "-w",
            &demo,
            "--id",
            &template,
        ])
        .ok_json()["definition"]["parts"]
        .clone();
    let definition = json!({"parts": parts}).to_string();

    let elsewhere = workspace(&server, "Elsewhere");
    let intruder = principal_token(
        &server,
        "intruder",
        &server.own_name("Elsewhere"),
        "Contributor",
    );
    let spy = id(&server
        .fabsh_as(
            &intruder,
            &["data-agent", "create", "-w", &elsewhere, "--name", "Spy"],
        )
        .ok_json());
    let lakehouse = id(&server.demo_lakehouse());
    let added = agent_as(
        &server,
        &intruder,
        "add-datasource",
        &elsewhere,
        &spy,
        &["--artifact", &lakehouse, "--artifact-workspace", &demo],
    );
    assert_refused(&added);

    // The same lakehouse through the definition is refused too, and nothing of it is stored.
    let updated = agent_as(
        &server,
        &intruder,
        "update-definition",
        &elsewhere,
        &spy,
        &["--content", &definition],
    );
    let asked = agent_as(
        &server,
        &intruder,
        "query",
        &elsewhere,
        &spy,
        &["--prompt", QUESTION],
    );
    assert!(
        !asked.stdout.contains(&answer),
        "the intruder read Demo's rows: {}",
        asked.stdout
    );
    assert_refused(&updated);
    let stored = stored_paths(&server, &intruder, &elsewhere, &spy);
    assert!(
        !stored.iter().any(|path| path.ends_with("datasource.json")),
        "{stored:?}"
    );

    // Nor can an agent be created with it, one by one or in bulk.
    let created = server.fabsh_as(
        &intruder,
        &[
            "item",
            "create",
            "-w",
            &elsewhere,
            "--name",
            "Spy 2",
            "--type",
            "DataAgent",
            "--definition",
            &definition,
        ],
    );
    assert_refused(&created);
    let body = json!({"mode": "Selective", "items": [{"id": template}]}).to_string();
    let exported = server
        .fabsh(&[
            "item",
            "bulk-export-definitions",
            "-w",
            &demo,
            "--content",
            &body,
        ])
        .ok_json();
    let import = json!({"definitionParts": exported["definitionParts"]}).to_string();
    let imported = server.fabsh_as(
        &intruder,
        &[
            "item",
            "bulk-import-definitions",
            "-w",
            &elsewhere,
            "--content",
            &import,
        ],
    );
    assert_refused(&imported);
    let agents = server
        .fabsh_as(
            &intruder,
            &[
                "data-agent",
                "list",
                "-w",
                &elsewhere,
                "-q",
                "[].displayName",
            ],
        )
        .ok_json();
    assert_eq!(agents, json!(["Spy"]));
}

#[test]
fn publishing_and_changing_a_datasource_recheck_the_authors_access() {
    let server = Server::session(module_path!());
    let agents = workspace(&server, "Agents");
    let (author, token) = principal_with_token(
        &server,
        "author",
        &[
            "--workspace",
            &server.own_name("Agents"),
            "--role",
            "Contributor",
        ],
    );
    let lakehouse = server.demo_lakehouse();
    let demo = lakehouse["workspaceId"]
        .as_str()
        .expect("workspaceId")
        .to_string();
    let object_id = author["objectId"].as_str().expect("objectId");
    let grant =
        json!({"principal": {"id": object_id, "type": "ServicePrincipal"}, "role": "Viewer"});
    let admin = server.bearer();
    let headers = [
        ("Authorization", admin.as_str()),
        ("Content-Type", "application/json"),
    ];
    let assignments = format!("/v1/workspaces/{demo}/roleAssignments");
    let (status, body) = http(
        &server.origin(),
        "POST",
        &assignments,
        Some(&grant.to_string()),
        &headers,
    );
    assert_eq!(status, 201, "{body}");
    // While a Viewer of Demo, the author builds and publishes an agent over its lakehouse.
    let agent = published_agent(&server, &token, &agents, "Orders agent");
    agent_as(
        &server,
        &token,
        "update-config",
        &agents,
        &agent,
        &["--instructions", "Be brief"],
    )
    .ok_json();

    let (status, body) = http(
        &server.origin(),
        "DELETE",
        &format!("{assignments}/{object_id}"),
        None,
        &headers,
    );
    assert_eq!(status, 200, "{body}");
    let published = agent_as(&server, &token, "publish", &agents, &agent, &[]);
    assert_refused(&published);
    // The published configuration is still the one published before.
    let config = server
        .fabsh(&[
            "data-agent",
            "get-config",
            "-w",
            &agents,
            "--id",
            &agent,
            "--stage",
            "published",
        ])
        .ok_json();
    assert!(!config.to_string().contains("Be brief"), "{config}");
    let changed = agent_as(
        &server,
        &token,
        "update-datasource",
        &agents,
        &agent,
        &[
            "--datasource",
            "SalesLakehouse",
            "--instructions",
            "Orders only",
        ],
    );
    assert_refused(&changed);
}

/// `tools/call` on the agent's MCP server, straight over HTTP: the answer text.
fn mcp_answer(server: &Server, token: &str, ws: &str, agent: &str) -> String {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "DataAgent_Orders_agent", "arguments": {"userQuestion": QUESTION}}});
    let auth = format!("Bearer {token}");
    let (status, body) = http(
        &server.origin(),
        "POST",
        &format!("/v1/mcp/workspaces/{ws}/dataagents/{agent}/agent"),
        Some(&call.to_string()),
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
    );
    assert_eq!(status, 200, "{body}");
    let data = body
        .lines()
        .find_map(|line| line.strip_prefix("data: "))
        .expect("an event");
    let message: Value = serde_json::from_str(data).expect("JSON-RPC");
    message["result"]["content"][0]["text"]
        .as_str()
        .expect("text")
        .to_string()
}

#[test]
fn an_agent_answers_only_from_data_the_asker_may_read() {
    // The retired Assistants-compatible surface is checked too, so it is served here.
    let server = Server::with(&[("legacy-assistants", "true")]);
    let agents = workspace(&server, "Agents");
    let agent = published_agent(&server, &server.token, &agents, "Orders agent");
    let answer = true_answer(&server, &agents, &agent);
    let asker = principal_token(&server, "asker", "Agents", "Viewer");

    let over_mcp = mcp_answer(&server, &asker, &agents, &agent);
    assert!(!over_mcp.contains(&answer), "{over_mcp}");
    assert!(
        over_mcp.contains("SalesLakehouse") && over_mcp.contains("access"),
        "{over_mcp}"
    );
    let dir = tempfile::tempdir().expect("dir");
    let downloads = dir.path().join("files");
    let on_surface = agent_as(
        &server,
        &asker,
        "query",
        &agents,
        &agent,
        &[
            "--prompt",
            QUESTION,
            "--show-steps",
            "--download-files",
            &downloads.to_string_lossy(),
        ],
    )
    .ok_json();
    let text = on_surface["answer"].as_str().expect("answer");
    assert!(
        !text.contains(&answer) && text.contains("access"),
        "{on_surface}"
    );
    assert_eq!(on_surface["files"], json!([]), "{on_surface}");
    // The admin, who may read Demo, still gets the rows from the same agent.
    assert!(mcp_answer(&server, &server.token, &agents, &agent).contains(&answer));
}
