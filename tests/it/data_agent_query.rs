//! Asking a published agent: over MCP, in threads kept by fabsh (a follow-up sees the earlier
//! turn), with the steps and files of the Assistants-compatible surface, from stdin.

use crate::data_agents::AgentFixture;
use crate::stub::Stub;
use crate::support::Server;
use serde_json::Value;
use std::io::Write;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

/// Few-shots over the demo lakehouse that tests ask about.
pub(crate) const EXAMPLES: &[(&str, &str)] = &[
    (
        "How many orders are there?",
        "SELECT COUNT(*) FROM dbo.orders",
    ),
    (
        "How many customers are there?",
        "SELECT COUNT(*) FROM customers",
    ),
    (
        "How many customers live in Germany?",
        "SELECT COUNT(*) FROM customers WHERE country = 'Germany'",
    ),
    (
        "Top 3 customers by name",
        "SELECT TOP 3 name, country FROM customers ORDER BY name",
    ),
];

/// An agent over the demo lakehouse with `examples`, published, in a session on the server of
/// the test file `key` names (`module_path!()`).
pub(crate) fn published(key: &'static str, examples: &[(&str, &str)]) -> AgentFixture {
    published_on(Server::session(key), examples)
}

/// The same on `server`.
pub(crate) fn published_on(server: Server, examples: &[(&str, &str)]) -> AgentFixture {
    let fx = AgentFixture::on(server);
    fx.add_lakehouse();
    fx.ok(
        "select-tables",
        &[
            "--datasource",
            "SalesLakehouse",
            "--tables",
            "orders,customers",
        ],
    );
    for (question, sql) in examples {
        fx.ok(
            "add-fewshot",
            &[
                "--datasource",
                "SalesLakehouse",
                "--question",
                question,
                "--sql",
                sql,
            ],
        );
    }
    fx.ok("publish", &["--description", "Sales questions"]);
    fx
}

fn answer(out: &Value) -> &str {
    out["answer"].as_str().expect("answer")
}

/// The number in an answer like "The answer is 3000.".
fn number(out: &Value) -> u64 {
    let digits: String = answer(out).chars().filter(char::is_ascii_digit).collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number in {out}"))
}

#[test]
fn a_published_agent_answers_over_mcp_and_its_url_is_shown() {
    let fx = published(module_path!(), EXAMPLES);
    let out = fx.ok("query", &["--prompt", "how many orders?"]);
    assert_eq!(out["tool"], "DataAgent_Sales_agent");
    assert!(answer(&out).starts_with("The answer is "), "{out}");
    assert!(number(&out) > 0);
    assert!(out.get("threadId").is_none() && out.get("raw").is_none());
    let log = fx.server.requests();
    let mcp: Vec<&Value> = log["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .filter(|r| {
            r["path"]
                .as_str()
                .is_some_and(|p| p.starts_with("/v1/mcp/workspaces/"))
        })
        .collect();
    // initialize, notifications/initialized, tools/list, tools/call
    assert_eq!(mcp.len(), 4, "{mcp:?}");
    let raw = fx.ok("query", &["--prompt", "how many orders?", "--raw"]);
    assert_eq!(raw["raw"]["content"][0]["type"], "text");
    let url = fx.ok("mcp-url", &[]);
    assert_eq!(url["published"], true);
    assert!(url["mcpUrl"].as_str().expect("url").ends_with(&format!(
        "/v1/mcp/workspaces/{}/dataagents/{}/agent",
        fx.workspace, fx.agent
    )));
    // The same server asked directly, by URL.
    let direct = fx.ok(
        "query",
        &[
            "--prompt",
            "how many orders?",
            "--published-url",
            url["mcpUrl"].as_str().expect("url"),
        ],
    );
    assert_eq!(direct["answer"], out["answer"]);
    // A question no example is close to is answered plainly as such.
    let unknown = fx.ok("query", &["--prompt", "What is the weather tomorrow?"]);
    assert!(
        answer(&unknown).starts_with("I can't answer that"),
        "{unknown}"
    );
}

#[test]
fn an_unpublished_agent_has_no_endpoint() {
    let fx = AgentFixture::new(module_path!());
    let url = fx.run("mcp-url", &[]);
    assert_eq!(url.code, 4, "{}", url.stderr);
    assert!(url.stderr.contains("not published"), "{}", url.stderr);
    let asked = fx.run("query", &["--prompt", "how many orders?"]);
    assert_eq!(asked.code, 4, "{}", asked.stderr);
}

#[test]
fn a_follow_up_in_a_thread_sees_the_earlier_turn() {
    let fx = published(module_path!(), EXAMPLES);
    let first = fx.ok(
        "query",
        &["--prompt", "How many customers are there?", "--keep-thread"],
    );
    let thread = first["threadId"].as_str().expect("threadId").to_string();
    let file = fx
        .server
        .home
        .dir
        .path()
        .join("state/fabsh/threads")
        .join(format!("{thread}.json"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file)
            .expect("thread file")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
    }
    // Alone, the follow-up matches no example closely enough.
    let alone = fx.ok("query", &["--prompt", "and in Germany?"]);
    assert!(answer(&alone).starts_with("I can't answer that"), "{alone}");
    let follow = fx.ok(
        "query",
        &["--prompt", "and in Germany?", "--thread-id", &thread],
    );
    let direct = fx.ok(
        "query",
        &["--prompt", "How many customers live in Germany?"],
    );
    assert_eq!(follow["answer"], direct["answer"], "{follow}");
    assert_ne!(follow["answer"], first["answer"]);
    assert_eq!(follow["threadId"], thread.as_str());
    let kept: Value = serde_json::from_slice(&std::fs::read(&file).expect("read")).expect("json");
    let questions: Vec<&str> = kept["turns"]
        .as_array()
        .expect("turns")
        .iter()
        .map(|t| t["question"].as_str().expect("q"))
        .collect();
    assert_eq!(
        questions,
        ["How many customers are there?", "and in Germany?"]
    );
    // A thread others may read is refused, as every file fabsh keeps.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let refused = fx.run(
            "query",
            &["--prompt", "and in France?", "--thread-id", &thread],
        );
        assert_eq!(refused.code, 2, "{}", refused.stderr);
        assert!(
            refused.stderr.contains("refusing the thread") && refused.stderr.contains("chmod 600"),
            "{}",
            refused.stderr
        );
    }
}

#[test]
fn steps_show_the_sql_and_result_files_are_downloaded() {
    // The Assistants-compatible surface, retired by the service, kept by the knob.
    // `local serve --legacy-assistants`, the bare switch.
    let fx = published_on(Server::with(&[("legacy-assistants", "")]), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let downloads = dir.path().join("files");
    let out = fx.ok(
        "query",
        &[
            "--prompt",
            "top 3 customers by name",
            "--show-steps",
            "--download-files",
            &downloads.to_string_lossy(),
        ],
    );
    let steps = out["steps"].as_array().expect("steps");
    assert!(
        steps.iter().any(|s| s["query"]
            == "SELECT TOP 3 name, country FROM customers ORDER BY name"
            && s["language"] == "SQL"),
        "{out}"
    );
    let files = out["files"].as_array().expect("files");
    assert_eq!(files.len(), 1, "{out}");
    let written = std::fs::read_to_string(downloads.join("query_result.csv")).expect("csv");
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines[0], "name,country");
    assert_eq!(lines.len(), 4, "{written}");
    assert!(answer(&out).contains(lines[1].split(',').next().expect("name")));
}

/// `data-agent query` of the fixture's agent with these flags, through `endpoint`.
fn query_with(fx: &AgentFixture, endpoint: &str, flags: &[&str]) -> crate::support::Run {
    fx.run_env("query", flags, &[("FABSH_ENDPOINT", endpoint)])
}

#[test]
fn by_default_the_retired_surface_is_gone_and_steps_are_said_to_be_unavailable() {
    // The service retired the Assistants-compatible surface on 2026-08-26 (reference
    // data-agent.md §5.3); local Fabric answers it 404 EntityNotFound like any path it does
    // not serve, and the query is answered over MCP.
    let fx = published(module_path!(), EXAMPLES);
    let auth = fx.server.bearer();
    let path = format!(
        "/v1/workspaces/{}/dataagents/{}/aiassistant/openai/assistants?api-version=2024-05-01-preview",
        fx.workspace, fx.agent
    );
    let (status, body) = crate::support::http(
        &fx.server.origin(),
        "POST",
        &path,
        Some(r#"{"model":"not used"}"#),
        &[
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ],
    );
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("EntityNotFound"), "{body}");
    let run = query_with(
        &fx,
        &fx.server.endpoint,
        &["--prompt", "How many orders are there?", "--show-steps"],
    );
    let out = run.ok_json();
    assert_eq!(number(&out), 3000, "{out}");
    assert_eq!(out["steps"], Value::Null, "{out}");
    assert!(
        run.stderr
            .contains("--show-steps: run steps are not available"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_surface_that_refuses_with_403_falls_back_to_mcp() {
    // Any 4xx from the surface means it is not offered to this caller: the question is
    // still answered over MCP, and stderr says files are not available.
    let fx = published_on(Server::with(&[("legacy-assistants", "true")]), EXAMPLES);
    let proxy = Stub::refusing_proxy(&fx.server.origin(), |_, path| {
        path.contains("/aiassistant/")
    });
    let dir = tempfile::tempdir().expect("dir");
    let run = query_with(
        &fx,
        &proxy.endpoint,
        &[
            "--prompt",
            "How many orders are there?",
            "--download-files",
            &dir.path().to_string_lossy(),
        ],
    );
    let out = run.ok_json();
    assert_eq!(number(&out), 3000, "{out}");
    assert_eq!(out["files"], Value::Null, "{out}");
    assert!(
        run.stderr
            .contains("--download-files: files are not available")
            && run.stderr.contains("Refused by the test proxy"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_question_can_come_from_stdin() {
    let fx = published(module_path!(), EXAMPLES);
    let mut child = fx
        .server
        .home
        .command(&[
            "data-agent",
            "query",
            "-w",
            &fx.workspace,
            "--id",
            &fx.agent,
        ])
        .env("FABSH_ENDPOINT", &fx.server.endpoint)
        .env("FABSH_TOKEN", &fx.server.token)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"How many orders are there?\n")
        .expect("write");
    let output = child.wait_with_output().expect("wait");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out: Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(out["question"], "How many orders are there?");
    assert!(answer(&out).starts_with("The answer is "), "{out}");
}

#[test]
fn with_a_model_local_fabric_writes_the_sql_over_the_selected_tables() {
    let prompts = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&prompts);
    let model = Stub::start(move |_| {
        axum::Router::new().route(
            "/v1/chat/completions",
            axum::routing::post(move |body: String| {
                let seen = Arc::clone(&seen);
                async move {
                    let body: Value = serde_json::from_str(&body).expect("json");
                    let prompt = body["messages"][1]["content"].as_str().unwrap_or_default().to_string();
                    seen.lock().expect("lock").push(prompt);
                    let reply = r#"{"datasource": "SalesLakehouse", "sql": "SELECT COUNT(*) FROM orders WHERE quantity > 1"}"#;
                    axum::Json(serde_json::json!({"choices": [{"message": {"content": reply}}]}))
                }
            }),
        )
    });
    let server = Server::with_env(&[
        ("FABSH_LLM_ENDPOINT", model.endpoint.as_str()),
        ("FABSH_LLM_MODEL", "stand-in"),
        ("FABSH_LOCAL_LEGACY_ASSISTANTS", "true"),
    ]);
    let fx = published_on(server, EXAMPLES);
    let out = fx.ok(
        "query",
        &[
            "--prompt",
            "How many orders have more than one item?",
            "--show-steps",
        ],
    );
    assert!(answer(&out).starts_with("The answer is "), "{out}");
    let steps = out["steps"].as_array().expect("steps");
    assert!(
        steps
            .iter()
            .any(|s| s["query"] == "SELECT COUNT(*) FROM orders WHERE quantity > 1"),
        "{out}"
    );
    let prompts = prompts.lock().expect("lock").clone();
    let prompt = prompts.last().expect("the model was asked");
    assert!(
        prompt.contains("table dbo.orders (") && prompt.contains("table dbo.customers ("),
        "{prompt}"
    );
    assert!(
        !prompt.contains("table dbo.products"),
        "unselected tables stay out: {prompt}"
    );
    assert!(
        prompt.contains("Q: How many orders are there?"),
        "the closest examples go in: {prompt}"
    );
    assert!(
        prompt.contains("Question: How many orders have more than one item?"),
        "{prompt}"
    );
}

#[test]
fn at_a_terminal_the_answer_is_text_and_in_a_pipe_it_is_json() {
    let fx = published(module_path!(), EXAMPLES);
    let piped = fx.ok("query", &["--prompt", "How many orders are there?"]);
    assert_eq!(number(&piped), 3000, "the demo lakehouse has 3,000 orders");
    // `script` gives fabsh a terminal, as a user's shell would.
    let line = format!(
        "{} data-agent query -w {} --id {} --prompt 'How many orders are there?'",
        crate::support::bin(),
        fx.workspace,
        fx.agent
    );
    let home = fx.server.home.dir.path();
    let output = std::process::Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("FABSH_ENDPOINT", &fx.server.endpoint)
        .env("FABSH_TOKEN", &fx.server.token)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("script");
    let shown = String::from_utf8_lossy(&output.stdout).replace('\r', "");
    assert_eq!(output.status.code(), Some(0), "{shown}");
    assert_eq!(
        shown.trim_end(),
        answer(&piped),
        "the answer alone, as text"
    );
}
