//! The HTTP core against local Fabric's fault knobs: LROs, 429s, 5xx retries, creates that
//! never duplicate, dry runs, auth failures, and traces without tokens.

use crate::support::{Server, principal_token};
use serde_json::Value;

fn log_entries(server: &Server) -> Vec<Value> {
    server.requests()["requests"]
        .as_array()
        .expect("log")
        .clone()
}

fn count_named(server: &Server, name: &str) -> usize {
    let items = server
        .fabsh(&["item", "list", "-w", server.demo.as_str(), "--all"])
        .ok_json();
    items
        .as_array()
        .expect("array")
        .iter()
        .filter(|i| i["displayName"] == name)
        .count()
}

#[test]
fn a_202_create_is_polled_to_its_result() {
    let server = Server::with(&[("async-ratio", "1"), ("lro-ms", "150")]);
    let created = server
        .fabsh(&[
            "item", "create", "-w", "Demo", "--name", "Slow", "--type", "Notebook",
        ])
        .ok_json();
    assert_eq!(created["displayName"], "Slow");
    let log = log_entries(&server);
    let create = log
        .iter()
        .find(|r| {
            r["method"] == "POST" && r["path"].as_str().is_some_and(|p| p.ends_with("/items"))
        })
        .expect("create");
    assert_eq!(create["status"], 202);
    assert!(log.iter().any(|r| {
        r["path"]
            .as_str()
            .is_some_and(|p| p.starts_with("/v1/operations/") && !p.ends_with("/result"))
    }));
    assert!(
        log.iter().any(
            |r| r["path"].as_str().is_some_and(|p| p.ends_with("/result")) && r["status"] == 200
        )
    );
}

#[test]
fn no_wait_returns_the_operation() {
    let server = Server::with(&[("async-ratio", "1"), ("lro-ms", "100")]);
    let pending = server
        .fabsh(&[
            "item",
            "create",
            "-w",
            "Demo",
            "--name",
            "Later",
            "--type",
            "Notebook",
            "--no-wait",
        ])
        .ok_json();
    assert_eq!(pending["status"], "Running");
    let operation = pending["operationId"].as_str().expect("operationId");
    // The operation finishes on its own; its result is the item.
    let state_path = format!("/operations/{operation}");
    for _ in 0..200 {
        let state = server.fabsh(&["api", "GET", &state_path]).ok_json();
        if state["status"] == "Succeeded" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let result = server
        .fabsh(&["api", "GET", &format!("/operations/{operation}/result")])
        .ok_json();
    assert_eq!(result["displayName"], "Later");
}

#[test]
fn throttled_requests_wait_and_succeed() {
    let server = Server::with(&[("quota-rps", "5"), ("page-size", "1")]);
    let items = server
        .fabsh(&["item", "list", "-w", "Demo", "--all"])
        .ok_json();
    assert!(items.as_array().expect("array").len() >= 5);
    let log = log_entries(&server);
    assert!(
        log.iter().any(|r| r["status"] == 429),
        "the quota answered 429 at least once"
    );
}

#[test]
fn failed_reads_are_retried() {
    let server = Server::with(&[("error-rate", "0.5")]);
    let shown = server.fabsh(&["workspace", "show", "-w", "Demo"]).ok_json();
    assert_eq!(shown["displayName"], "Demo");
    let log = log_entries(&server);
    assert!(
        log.iter()
            .any(|r| r["status"].as_u64().is_some_and(|s| s >= 500)),
        "some requests failed and were retried"
    );
}

#[test]
fn a_create_whose_answer_is_lost_is_not_duplicated() {
    let server = Server::with(&[("lost-response-rate", "1"), ("async-ratio", "0")]);
    let run = server.fabsh(&[
        "item", "create", "-w", "Demo", "--name", "Once", "--type", "Notebook",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("found the new item by name"),
        "{}",
        run.stderr
    );
    assert_eq!(run.json()["displayName"], "Once");
    let posts = log_entries(&server)
        .iter()
        .filter(|r| r["method"] == "POST")
        .count();
    assert_eq!(posts, 1, "the create was sent once");
    assert_eq!(count_named(&server, "Once"), 1);
}

#[test]
fn a_lost_create_of_a_type_whose_names_repeat_finds_the_new_item_not_the_old_one() {
    // The service lets two eventhouses share a name (fabsh-model's `names_unique`), so the
    // one already there is not the one the lost create made.
    let server = Server::with(&[("lost-response-rate", "1"), ("async-ratio", "0")]);
    let create = || {
        let run = server.fabsh(&[
            "item",
            "create",
            "-w",
            "Demo",
            "--name",
            "Twice",
            "--type",
            "Eventhouse",
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.json()["id"].as_str().expect("id").to_string()
    };
    let first = create();
    let second = create();
    assert_ne!(first, second, "the second create answers its own item");
    assert_eq!(count_named(&server, "Twice"), 2);
    let posts = log_entries(&server)
        .iter()
        .filter(|r| r["method"] == "POST")
        .count();
    assert_eq!(posts, 2, "each create was sent once");
}

#[test]
fn a_create_that_failed_before_any_change_is_checked_then_sent_again() {
    // Every second request fails with 500/503 before the server changes anything.
    let server = Server::with(&[("error-rate", "0.5"), ("async-ratio", "0")]);
    for n in 0..4 {
        let name = format!("Retry{n}");
        let run = server.fabsh(&[
            "item", "create", "-w", "Demo", "--name", &name, "--type", "Notebook",
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(run.json()["displayName"], name.as_str());
    }
    let log = log_entries(&server);
    let failed_creates = log
        .iter()
        .filter(|r| r["method"] == "POST" && r["status"].as_u64().is_some_and(|s| s >= 500))
        .count();
    assert!(
        failed_creates > 0,
        "some creates failed and were sent again"
    );
    for n in 0..4 {
        assert_eq!(
            count_named(&server, &format!("Retry{n}")),
            1,
            "Retry{n} exists once"
        );
    }
}

#[test]
fn dry_run_sends_nothing() {
    let server = Server::session(module_path!());
    let workspace = server
        .fabsh(&["workspace", "show", "-w", server.demo.as_str(), "-q", "id"])
        .ok_json();
    let workspace = workspace.as_str().expect("id");
    let before = server.request_count();
    let run = server
        .fabsh(&[
            "item",
            "create",
            "-w",
            workspace,
            "--name",
            "Dry",
            "--type",
            "Notebook",
            "--dry-run",
        ])
        .ok_json();
    assert_eq!(server.request_count(), before, "nothing reached the server");
    assert_eq!(run["dryRun"], true);
    let request = &run["requests"][0];
    assert_eq!(request["method"], "POST");
    assert_eq!(request["body"]["displayName"], "Dry");
    let by_name = server
        .fabsh(&[
            "item",
            "delete",
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
            "--dry-run",
        ])
        .ok_json();
    assert_eq!(by_name["requests"][0]["method"], "DELETE");
    let mutating = log_entries(&server)
        .iter()
        .filter(|r| r["method"] != "GET")
        .count();
    assert_eq!(
        mutating, 0,
        "name lookups are the only requests a dry run sends"
    );
    assert_eq!(
        server
            .fabsh(&[
                "item",
                "exists",
                "-w",
                server.demo.as_str(),
                "--id",
                "Welcome",
                "-q",
                "exists"
            ])
            .ok_json(),
        true
    );
}

#[test]
fn bad_tokens_are_auth_errors() {
    let server = Server::session(module_path!());
    let run = server.fabsh_as("not-a-token", &["workspace", "list"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("HTTP 401"), "{}", run.stderr);
    let none = server.home.run_env(
        &["workspace", "list"],
        &[("FABSH_ENDPOINT", server.endpoint.as_str())],
    );
    assert_eq!(none.code, 3, "{}", none.stderr);
    assert!(none.stderr.contains("FABSH_TOKEN"), "{}", none.stderr);
}

#[test]
fn roles_limit_what_a_principal_may_do() {
    let server = Server::session(module_path!());
    let viewer = principal_token(&server, "viewer", server.demo.as_str(), "Viewer");
    let items = server.fabsh_as(&viewer, &["item", "list", "-w", server.demo.as_str()]);
    assert_eq!(items.code, 0, "a viewer reads: {}", items.stderr);
    let create = server.fabsh_as(
        &viewer,
        &[
            "item",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "No",
            "--type",
            "Notebook",
        ],
    );
    assert_eq!(create.code, 3, "{}", create.stderr);
    assert!(create.stderr.contains("HTTP 403"), "{}", create.stderr);

    let contributor = principal_token(&server, "contributor", server.demo.as_str(), "Contributor");
    let made = server
        .fabsh_as(
            &contributor,
            &[
                "item",
                "create",
                "-w",
                server.demo.as_str(),
                "--name",
                "Mine",
                "--type",
                "Notebook",
            ],
        )
        .ok_json();
    let id = made["id"].as_str().expect("id");
    let hard = server.fabsh_as(
        &contributor,
        &[
            "item",
            "delete",
            "-w",
            server.demo.as_str(),
            "--id",
            id,
            "--hard-delete",
            "true",
            "--yes",
        ],
    );
    assert_eq!(hard.code, 3, "only Admin hard-deletes: {}", hard.stderr);
    let soft = server.fabsh_as(
        &contributor,
        &[
            "item",
            "delete",
            "-w",
            server.demo.as_str(),
            "--id",
            id,
            "--yes",
        ],
    );
    assert_eq!(soft.code, 0, "{}", soft.stderr);
}

#[test]
fn verbose_traces_never_show_the_token() {
    let server = Server::session(module_path!());
    let run = server.fabsh(&[
        "-v",
        "item",
        "create",
        "-w",
        server.demo.as_str(),
        "--name",
        "Traced",
        "--type",
        "Notebook",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("> POST"), "{}", run.stderr);
    assert!(run.stderr.contains("Bearer (redacted)"));
    assert!(!run.stderr.contains(&server.token) && !run.stdout.contains(&server.token));
}

#[test]
fn api_sends_any_request_with_paging_and_lros() {
    let server = Server::with(&[("page-size", "2")]);
    let page = server.fabsh(&["api", "GET", "/workspaces"]).ok_json();
    assert!(
        page["value"].is_array(),
        "without --all the plain API page: {page}"
    );
    let workspace = page["value"][0]["id"].as_str().expect("id").to_string();
    let all = server
        .fabsh(&[
            "api",
            "GET",
            &format!("/workspaces/{workspace}/items"),
            "--all",
        ])
        .ok_json();
    assert!(
        all.as_array().expect("array").len() > 2,
        "every page: {all}"
    );
    let created = server
        .fabsh(&[
            "api",
            "POST",
            &format!("/workspaces/{workspace}/items"),
            "--body",
            r#"{"displayName":"ViaApi","type":"Notebook"}"#,
        ])
        .ok_json();
    assert_eq!(
        created["displayName"], "ViaApi",
        "the LRO was followed to the item"
    );
    let filtered = server
        .fabsh(&[
            "api",
            "GET",
            &format!("/workspaces/{workspace}/items?type=Notebook"),
            "--all",
            "-q",
            "[].displayName",
        ])
        .ok_json();
    assert!(
        filtered
            .as_array()
            .expect("array")
            .contains(&Value::from("ViaApi"))
    );
}
