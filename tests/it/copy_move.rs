//! `item copy | move` end to end against local Fabric: what is carried over, the order of
//! the steps, and what a half-done move reports.

use crate::definitions::get_definition;
use crate::stub::Stub;
use crate::support::Server;
use serde_json::Value;

fn parts_by_path(definition: &Value) -> Vec<(String, String)> {
    let mut parts: Vec<(String, String)> = definition["definition"]["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .filter(|p| p["path"] != ".platform")
        .map(|p| {
            (
                p["path"].as_str().expect("path").to_string(),
                p["payload"].as_str().expect("payload").to_string(),
            )
        })
        .collect();
    parts.sort();
    parts
}

/// The `id` of an item or folder.
pub(crate) fn id_of(value: &Value) -> String {
    value["id"].as_str().expect("id").to_string()
}

#[test]
fn copy_across_workspaces_keeps_parts_and_description() {
    let server = Server::session(module_path!());
    server
        .fabsh(&["workspace", "create", "--name", "Target"])
        .ok_json();
    let copied = server
        .fabsh(&[
            "item",
            "copy",
            "--source-workspace",
            server.demo.as_str(),
            "--id",
            "Sales Model",
            "--dest-workspace",
            "Target",
        ])
        .ok_json();
    assert_eq!(copied["displayName"], "Sales Model");
    assert_eq!(copied["description"], "Total sales by customer");
    let source = get_definition(&server, "Sales Model", &[]);
    let copy = server
        .fabsh(&[
            "item",
            "get-definition",
            "-w",
            "Target",
            "--id",
            &id_of(&copied),
        ])
        .ok_json();
    assert_eq!(parts_by_path(&source), parts_by_path(&copy));
    assert_eq!(copy["definition"]["format"], "TMDL");

    let renamed = server
        .fabsh(&[
            "item",
            "copy",
            "--source-workspace",
            server.demo.as_str(),
            "--id",
            "Welcome",
            "--dest-workspace",
            server.demo.as_str(),
            "--name",
            "Welcome copy",
        ])
        .ok_json();
    assert_eq!(renamed["displayName"], "Welcome copy");
    assert_eq!(renamed["description"], "A first look at the sales data");
}

#[test]
fn types_without_a_definition_are_not_copied() {
    let server = Server::session(module_path!());
    server
        .fabsh(&[
            "item",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "WH",
            "--type",
            "Warehouse",
        ])
        .ok_json();
    let before = server.request_count();
    let run = server.fabsh(&[
        "item",
        "copy",
        "--source-workspace",
        server.demo.as_str(),
        "--id",
        "WH",
        "--dest-workspace",
        server.demo.as_str(),
        "--name",
        "WH2",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("no definition"), "{}", run.stderr);
    let log = server.requests();
    let recent = log["requests"].as_array().expect("requests");
    let sent = &recent[recent.len() - (server.request_count() - before) as usize..];
    assert!(
        sent.iter().all(|r| r["method"] == "GET"),
        "only reads were sent: {sent:?}"
    );
}

#[test]
fn move_deletes_the_source_only_after_the_copy() {
    let server = Server::session(module_path!());
    server
        .fabsh(&["workspace", "create", "--name", "Moved here"])
        .ok_json();
    let source = server
        .fabsh(&[
            "item",
            "show",
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
        ])
        .ok_json();
    let moved = server
        .fabsh(&[
            "item",
            "move",
            "--yes",
            "--source-workspace",
            server.demo.as_str(),
            "--id",
            "Welcome",
            "--dest-workspace",
            "Moved here",
        ])
        .ok_json();
    assert_eq!(moved["source"]["deleted"], true);
    assert_eq!(moved["source"]["id"], source["id"]);
    assert_eq!(moved["item"]["displayName"], "Welcome");
    let log = server.requests();
    let requests = log["requests"].as_array().expect("requests");
    let position = |method: &str, suffix: &str| {
        requests
            .iter()
            .rposition(|r| {
                r["method"] == method && r["path"].as_str().is_some_and(|p| p.ends_with(suffix))
            })
            .unwrap_or_else(|| panic!("no {method} …{suffix}"))
    };
    let source_id = id_of(&source);
    assert!(
        position("POST", "/items") < position("DELETE", &source_id),
        "created before deleting"
    );
    assert_eq!(
        server
            .fabsh(&[
                "item",
                "exists",
                "-w",
                server.demo.as_str(),
                "--id",
                &source_id
            ])
            .ok_json()["exists"],
        false
    );

    // A copy that fails (the name is taken in the destination) leaves the source alone.
    let again = server.fabsh(&[
        "item",
        "move",
        "--yes",
        "--source-workspace",
        "Moved here",
        "--id",
        "Welcome",
        "--dest-workspace",
        "Moved here",
    ]);
    assert_eq!(again.code, 1, "{}", again.stderr);
    let kept = server
        .fabsh(&["item", "exists", "-w", "Moved here", "--id", "Welcome"])
        .ok_json();
    assert_eq!(kept["exists"], true);
}

#[test]
fn a_failed_delete_reports_both_ids_and_what_to_do() {
    let server = Server::with(&[("async-ratio", "0")]);
    let proxy = Stub::refusing_proxy(&server.origin(), |method, _| method == "DELETE");
    let source = server
        .fabsh(&["item", "show", "-w", "Demo", "--id", "Welcome"])
        .ok_json();
    let run = server.fabsh_env(
        &[
            "item",
            "move",
            "--yes",
            "--source-workspace",
            "Demo",
            "--id",
            "Welcome",
            "--dest-workspace",
            "Demo",
            "--name",
            "Moved",
        ],
        &[("FABSH_ENDPOINT", proxy.endpoint.as_str())],
    );
    assert_eq!(
        run.code, 5,
        "a half-done move is a partial failure: {}",
        run.stderr
    );
    let out = run.json();
    assert_eq!(out["source"]["deleted"], false);
    assert_eq!(out["source"]["id"], source["id"]);
    let new_id = id_of(&out["item"]);
    assert!(
        run.stderr.contains(&new_id) && run.stderr.contains(&id_of(&source)),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("fabsh item delete"), "{}", run.stderr);
    assert!(
        run.stderr.contains("InsufficientWorkspaceRole"),
        "{}",
        run.stderr
    );
}
