//! `item bulk-create` / `bulk-delete` against local Fabric: one result per item, exit 5 on
//! partial failure, and under 429s, 500s and lost answers exactly one item per name.

use crate::support::Server;
use serde_json::{Value, json};

fn names_in_demo(server: &Server, prefix: &str) -> Vec<String> {
    let query = format!("[?starts_with(displayName, '{prefix}')].displayName");
    let names = server
        .fabsh(&[
            "item",
            "list",
            "-w",
            server.demo.as_str(),
            "--all",
            "-q",
            &query,
        ])
        .ok_json();
    serde_json::from_value(names).expect("names")
}

#[test]
fn two_hundred_items_under_throttling_and_errors_are_each_created_once() {
    let server = Server::with(&[
        ("quota-rps", "100"),
        ("error-rate", "0.05"),
        ("lost-response-rate", "0.05"),
        ("async-ratio", "0.5"),
    ]);
    let items: Vec<Value> = (0..200)
        .map(|n| json!({"displayName": format!("load-{n:03}"), "type": "Notebook"}))
        .collect();
    let file = server.home.dir.path().join("items.json");
    std::fs::write(&file, serde_json::to_vec(&items).expect("JSON")).expect("items file");
    let file = file.to_string_lossy().into_owned();
    let out = server
        .fabsh(&[
            "item",
            "bulk-create",
            "-w",
            "Demo",
            "--file",
            &file,
            "--concurrency",
            "16",
        ])
        .ok_json();
    assert_eq!(
        out["summary"],
        json!({"total": 200, "succeeded": 200, "existing": 0, "failed": 0, "unknown": 0, "notStarted": 0})
    );
    let results = out["results"].as_array().expect("results");
    assert_eq!(results.len(), 200);
    for (index, row) in results.iter().enumerate() {
        assert_eq!(row["index"], json!(index));
        assert_eq!(row["displayName"], json!(format!("load-{index:03}")));
        assert_eq!(row["ok"], json!(true), "{row}");
        assert!(row["id"].is_string());
    }
    let mut names = names_in_demo(&server, "load-");
    names.sort();
    let expected: Vec<String> = (0..200).map(|n| format!("load-{n:03}")).collect();
    assert_eq!(names, expected, "exactly one item per name");

    let statuses: Vec<u64> = server.requests()["requests"]
        .as_array()
        .expect("log")
        .iter()
        .filter_map(|request| request["status"].as_u64())
        .collect();
    assert!(statuses.contains(&429), "the quota was met");
    assert!(
        statuses.iter().any(|status| *status >= 500),
        "server errors were injected"
    );
}

#[test]
fn partial_failure_exits_5_with_a_row_per_item() {
    let server = Server::session(module_path!());
    let run = server.fabsh(&[
        "item",
        "bulk-create",
        "-w",
        server.demo.as_str(),
        "--content",
        r#"[{"displayName":"fresh","type":"Notebook"},{"displayName":"Welcome","type":"Notebook"}]"#,
    ]);
    assert_eq!(run.code, 5, "{}", run.stderr);
    let out = run.json();
    assert_eq!(
        out["summary"],
        json!({"total": 2, "succeeded": 1, "existing": 0, "failed": 1, "unknown": 0, "notStarted": 0})
    );
    assert_eq!(out["results"][0]["ok"], json!(true));
    assert_eq!(out["results"][1]["ok"], json!(false));
    assert_eq!(out["results"][1]["error"]["kind"], json!("api"));
    assert!(run.stderr.contains("1 of 2 items failed"), "{}", run.stderr);

    let fresh = out["results"][0]["id"].as_str().expect("id").to_string();
    let run = server.fabsh(&[
        "item",
        "bulk-delete",
        "--yes",
        "-w",
        server.demo.as_str(),
        "--ids",
        &format!("{fresh},no-such-item"),
        "--hard-delete",
    ]);
    assert_eq!(run.code, 5, "{}", run.stderr);
    let out = run.json();
    assert_eq!(
        out["summary"],
        json!({"total": 2, "succeeded": 1, "existing": 0, "failed": 1, "unknown": 0, "notStarted": 0})
    );
    assert_eq!(out["results"][1]["id"], json!("no-such-item"));
    assert_eq!(out["results"][1]["error"]["kind"], json!("not_found"));
    assert!(names_in_demo(&server, "fresh").is_empty());
}

#[test]
fn bad_input_is_refused_before_anything_is_sent() {
    let server = Server::session(module_path!());
    let before = server.request_count();
    for content in [
        r#"[{"displayName":"a"}]"#,
        r#"{"displayName":"a","type":"Notebook"}"#,
        "[]",
    ] {
        let run = server.fabsh(&[
            "item",
            "bulk-create",
            "-w",
            server.demo.as_str(),
            "--content",
            content,
        ]);
        assert_eq!(run.code, 2, "{content}: {}", run.stderr);
    }
    let run = server.fabsh(&["item", "bulk-create", "-w", server.demo.as_str()]);
    assert_eq!(run.code, 2);
    assert_eq!(server.request_count(), before);
}

#[test]
fn tables_show_one_row_per_item_and_dry_runs_send_nothing() {
    let server = Server::session(module_path!());
    let content =
        r#"[{"displayName":"t1","type":"Notebook"},{"displayName":"t2","type":"Notebook"}]"#;
    let run = server.fabsh(&[
        "item",
        "bulk-create",
        "-w",
        server.demo.as_str(),
        "--content",
        content,
        "--dry-run",
    ]);
    let plan = run.ok_json();
    assert_eq!(plan["dryRun"], json!(true));
    assert_eq!(plan["requests"].as_array().map(Vec::len), Some(2));
    assert!(names_in_demo(&server, "t").is_empty());

    let run = server.fabsh(&[
        "item",
        "bulk-create",
        "-w",
        server.demo.as_str(),
        "--content",
        content,
        "-o",
        "tsv",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "a row per item, no header: {}", run.stdout);
    assert!(lines[0].starts_with("0\tt1\ttrue\t"), "{}", run.stdout);
}
