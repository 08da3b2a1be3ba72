//! Bad input to the data-agent commands: exit 2, and nothing sent — or, where the names must
//! be looked up first, no change sent.

use crate::bad_input::assert_rejected;
use crate::data_agents::AgentFixture;
use crate::support::Server;

const WS: &str = "11111111-1111-1111-1111-111111111111";
const AGENT: &str = "22222222-2222-2222-2222-222222222222";

#[test]
fn data_agent_input_is_checked_before_sending() {
    let server = Server::session(module_path!());
    let dir = tempfile::tempdir().expect("dir");
    let long = "x".repeat(257);
    let malformed = dir.path().join("examples.csv");
    std::fs::write(
        &malformed,
        "question,query\nHow many orders?,SELECT COUNT(*) FROM orders\nNo query here\n\"\",SELECT 1\n",
    )
    .expect("write");
    let malformed = malformed.to_string_lossy().into_owned();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "data-agent",
                "create",
                "-w",
                WS,
                "--name",
                "a",
                "--description",
                &long,
            ],
            "257 characters",
        ),
        (
            vec![
                "data-agent",
                "update",
                "-w",
                WS,
                "--id",
                AGENT,
                "--description",
                &long,
            ],
            "257 characters",
        ),
        (
            vec![
                "data-agent",
                "update-config",
                "-w",
                WS,
                "--id",
                AGENT,
                "--enable-preview-runtime",
                "--disable-preview-runtime",
            ],
            "cannot be used together",
        ),
        (
            vec![
                "data-agent",
                "upload-fewshots",
                "-w",
                WS,
                "--id",
                AGENT,
                "--datasource",
                "x",
                "--file",
                &malformed,
            ],
            "line 3",
        ),
        (
            vec!["data-agent", "reset", "-w", "", "--id", AGENT, "--yes"],
            "-w is empty",
        ),
        (
            vec![
                "data-agent",
                "get-config",
                "-w",
                WS,
                "--id",
                AGENT,
                "--stage",
                "draft",
            ],
            "invalid value",
        ),
    ];
    for (args, says) in cases {
        assert_rejected(&server, &args, says);
    }
    // Every malformed row is named, not just the first.
    let run = server.fabsh(&[
        "data-agent",
        "upload-fewshots",
        "-w",
        WS,
        "--id",
        AGENT,
        "--datasource",
        "x",
        "--file",
        &malformed,
    ]);
    assert!(
        run.stderr.contains("line 3") && run.stderr.contains("line 4"),
        "{}",
        run.stderr
    );
}

/// The mutating requests the server has seen since `from`.
fn changes_since(fx: &AgentFixture, from: usize) -> Vec<String> {
    let log = fx.server.requests();
    log["requests"].as_array().expect("requests")[from..]
        .iter()
        .filter(|r| r["method"] != "GET")
        .map(|r| format!("{} {}", r["method"], r["path"]))
        .collect()
}

/// Runs the command and checks it exits 2 saying `says`, having sent no change.
fn refused_without_changes(fx: &AgentFixture, command: &str, rest: &[&str], says: &str) {
    let from = log_length(fx);
    let run = fx.run(command, rest);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains(says), "{}", run.stderr);
    assert_eq!(changes_since(fx, from), Vec::<String>::new());
}

fn log_length(fx: &AgentFixture) -> usize {
    fx.server.requests()["requests"]
        .as_array()
        .expect("requests")
        .len()
}

#[test]
fn unknown_tables_and_semantic_model_fewshots_change_nothing() {
    let fx = AgentFixture::new(module_path!());
    fx.add_lakehouse();
    fx.ok("add-datasource", &["--artifact", "Sales Model"]);

    refused_without_changes(
        &fx,
        "select-tables",
        &[
            "--datasource",
            "SalesLakehouse",
            "--tables",
            "orders,custmers",
        ],
        "did you mean dbo.customers",
    );
    refused_without_changes(
        &fx,
        "add-fewshot",
        &[
            "--datasource",
            "Sales Model",
            "--question",
            "Total?",
            "--dax",
            "EVALUATE Orders",
        ],
        "not supported for SemanticModel",
    );
}
