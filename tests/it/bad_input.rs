//! Bad input is rejected with exit 2 before any request is sent (DESIGN §5).

use crate::support::Server;

const WS: &str = "11111111-1111-1111-1111-111111111111";
const ITEM: &str = "22222222-2222-2222-2222-222222222222";

pub(crate) fn assert_rejected(server: &Server, args: &[&str], says: &str) {
    let before = server.request_count();
    let run = server.fabsh(args);
    assert_eq!(
        run.code, 2,
        "{args:?} should exit 2; stderr:\n{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(says),
        "{args:?}: expected {says:?} in:\n{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{args:?} printed {}", run.stdout);
    assert_eq!(server.request_count(), before, "{args:?} sent a request");
}

#[test]
fn every_bad_input_is_caught_before_sending() {
    let server = Server::session(module_path!());
    let dir = tempfile::tempdir().expect("dir");
    let long = "x".repeat(257);
    let not_json = dir.path().join("broken.json");
    std::fs::write(&not_json, "{ not json").expect("write");
    let not_json = format!("@{}", not_json.display());
    let missing = format!("@{}", dir.path().join("missing.json").display());
    let bad_base64 = r#"{"parts":[{"path":"notebook-content.py","payload":"%%%"}]}"#;
    let good_definition = r#"{"parts":[{"path":"notebook-content.py","payload":"IyBoaQ=="}]}"#;

    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["item", "list", "-w", WS, "--folder", "not-a-guid"],
            "--folder must be a GUID",
        ),
        (
            vec![
                "item",
                "create",
                "-w",
                WS,
                "--name",
                "n",
                "--type",
                "Notebook",
                "--sensitivity-label",
                "123",
            ],
            "--sensitivity-label must be a GUID",
        ),
        (
            vec![
                "item",
                "create",
                "-w",
                WS,
                "--name",
                "n",
                "--type",
                "Notebook",
                "--description",
                &long,
            ],
            "257 characters",
        ),
        (
            vec![
                "item",
                "update",
                "-w",
                WS,
                "--id",
                ITEM,
                "--description",
                &long,
            ],
            "257 characters",
        ),
        (
            vec![
                "item",
                "create",
                "-w",
                WS,
                "--name",
                "n",
                "--type",
                "Notebook",
                "--definition",
                "{",
            ],
            "--definition is not valid JSON",
        ),
        (
            vec![
                "item",
                "create",
                "-w",
                WS,
                "--name",
                "n",
                "--type",
                "Notebook",
                "--definition",
                &not_json,
            ],
            "is not valid JSON",
        ),
        (
            vec![
                "item",
                "create",
                "-w",
                WS,
                "--name",
                "n",
                "--type",
                "Notebook",
                "--definition",
                &missing,
            ],
            "cannot read",
        ),
        (
            vec![
                "item",
                "create",
                "-w",
                WS,
                "--name",
                "n",
                "--type",
                "Notebook",
                "--definition",
                bad_base64,
            ],
            "not valid base64",
        ),
        (
            vec![
                "item",
                "create",
                "-w",
                WS,
                "--name",
                "n",
                "--type",
                "Notebook",
                "--options",
                r#"{"format":"ipynb"}"#,
            ],
            "--options needs --definition",
        ),
        (
            vec![
                "item",
                "create",
                "-w",
                WS,
                "--name",
                "n",
                "--type",
                "Notebook",
                "--definition",
                good_definition,
                "--options",
                "[1]",
            ],
            "--options must be a JSON object",
        ),
        (
            vec!["item", "update", "-w", WS, "--id", ITEM],
            "nothing to update",
        ),
        (
            vec!["item", "list", "-w", WS, "--recursive", "maybe"],
            "invalid value",
        ),
        (
            vec![
                "item",
                "delete",
                "-w",
                WS,
                "--id",
                ITEM,
                "--hard-delete",
                "perhaps",
            ],
            "invalid value",
        ),
        (vec!["item", "create", "-w", WS, "--name", "n"], "--type"),
        (
            vec!["item", "list", "-w", WS, "--lro-timeout", "5"],
            "unexpected argument",
        ),
        (
            vec!["api", "GET", "/workspaces", "--body", "{"],
            "--body is not valid JSON",
        ),
        (
            vec!["workspace", "create", "--name", "w", "--capacity-id", "abc"],
            "--capacity-id must be a GUID",
        ),
    ];
    for (args, says) in cases {
        assert_rejected(&server, &args, says);
    }
}

#[test]
fn api_refuses_a_url_on_another_host_as_bad_input() {
    let server = Server::session(module_path!());
    assert_rejected(
        &server,
        &["api", "GET", "https://example.com/v1/workspaces"],
        "PATH https://example.com/v1/workspaces is not on the endpoint's host",
    );
    assert_rejected(
        &server,
        &["api", "GET", "https://example.com/v1/workspaces"],
        "hint: give a path under the endpoint",
    );
    // The endpoint's own origin is fine, written out in full.
    let own = format!("{}/workspaces", server.endpoint);
    let run = server.fabsh(&["api", "GET", &own]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}
