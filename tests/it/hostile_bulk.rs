//! Bulk create when local Fabric dies mid-way (issue 26): a create that was sent and never
//! answered to the end (its operation accepted, then lost track of) is `unknown`, never
//! `failed`, since the item may exist; a re-run with `--skip-existing` settles those rows by
//! name, and no item is made twice.

use crate::bulk_resume::{bulk_create_content, outcomes};
use crate::support::Server;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Notebooks with a definition each, so that every create is a long-running operation.
fn notebooks_with_definitions(names: &[&str]) -> String {
    let items: Vec<Value> = names
        .iter()
        .map(|name| {
            json!({
                "displayName": name,
                "type": "Notebook",
                "definition": {"parts": [{
                    "path": "notebook-content.py",
                    "payload": "IyBoaQ==",
                    "payloadType": "InlineBase64",
                }]},
            })
        })
        .collect();
    Value::Array(items).to_string()
}

fn bulk_create(server: &Server, names: &[&str], extra: &[&str]) -> crate::support::Run {
    bulk_create_content(server, &notebooks_with_definitions(names), extra)
}

/// The Demo workspace's notebooks whose names start with `prefix`, with how often each is
/// listed.
fn listed(server: &Server, prefix: &str) -> BTreeMap<String, usize> {
    let query = format!("[?starts_with(displayName, '{prefix}')].displayName");
    let names: Vec<String> = serde_json::from_value(
        server
            .fabsh(&[
                "item",
                "list",
                "-w",
                server.demo.as_str(),
                "--all",
                "-q",
                &query,
            ])
            .ok_json(),
    )
    .expect("names");
    let mut counts = BTreeMap::new();
    for name in names {
        *counts.entry(name).or_insert(0) += 1;
    }
    counts
}

/// `POST …/items` requests the server has answered so far.
fn creates_answered(server: &Server) -> usize {
    server.requests()["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .filter(|r| {
            r["method"] == "POST" && r["path"].as_str().is_some_and(|p| p.ends_with("/items"))
        })
        .count()
}

#[test]
fn creates_accepted_before_the_server_died_are_unknown_and_a_rerun_settles_them() {
    // Every create is accepted (202) and its operation takes a minute: the server is killed
    // while all three are being followed.
    let server = Server::with(&[("async-ratio", "1"), ("lro-ms", "60000")]);
    let names = ["accepted-1", "accepted-2", "accepted-3"];
    let content = notebooks_with_definitions(&names);
    let child = server
        .command(&[
            "item",
            "bulk-create",
            "-w",
            "Demo",
            "--content",
            &content,
            "--concurrency",
            "3",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start bulk-create");
    let started = std::time::Instant::now();
    while creates_answered(&server) < names.len() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "the creates were never answered"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let (home, data_dir) = server.stop();
    let output = child.wait_with_output().expect("bulk-create ends");
    let out: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(&output.stderr)));
    let expected: BTreeMap<String, String> = names
        .iter()
        .map(|name| (name.to_string(), "unknown".to_string()))
        .collect();
    assert_eq!(outcomes::<BTreeMap<_, _>>(&out), expected, "{out}");
    assert_eq!(out["summary"]["failed"], json!(0), "{out}");

    let server = Server::on_data_dir(home, data_dir, &[]);
    let again = bulk_create(&server, &names, &["--skip-existing"]);
    let again = again.ok_json();
    for (name, outcome) in outcomes::<BTreeMap<_, _>>(&again) {
        assert!(
            outcome == "existing" || outcome == "created",
            "{name}: {outcome} on the re-run: {again}"
        );
    }
    let held = listed(&server, "accepted-");
    assert_eq!(
        held,
        names
            .iter()
            .map(|name| (name.to_string(), 1))
            .collect::<BTreeMap<_, _>>(),
        "each item once"
    );
}
