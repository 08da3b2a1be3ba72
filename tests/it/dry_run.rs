//! `--dry-run` prints the whole plan of a command, every request that would change something,
//! in order, and the server is left as it was: checked against what local Fabric saw and holds.

use crate::data_agents::AgentFixture;
use crate::support::Server;
use serde_json::Value;

/// The requests the server saw since it had seen `before`.
fn seen_since(server: &Server, before: u64) -> Vec<Value> {
    let log = server.requests();
    let all = log["requests"].as_array().expect("requests").clone();
    let new = (server.request_count() - before) as usize;
    all[all.len() - new..].to_vec()
}

/// True for the requests a dry run may send: reads (a getDefinition is a POST that reads).
fn only_reads(requests: &[Value]) -> bool {
    requests.iter().all(|r| {
        r["method"] == "GET"
            || r["path"]
                .as_str()
                .is_some_and(|p| p.ends_with("/getDefinition"))
    })
}

fn ids_of(server: &Server, workspace: &str) -> Vec<String> {
    let items = server
        .fabsh(&["item", "list", "-w", workspace, "--all", "-q", "[].id"])
        .ok_json();
    items
        .as_array()
        .expect("ids")
        .iter()
        .map(|id| id.as_str().expect("id").to_string())
        .collect()
}

fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not text: {value}"))
}

#[test]
fn a_move_plans_the_copy_then_the_delete_and_changes_nothing() {
    let server = Server::session(module_path!());
    let target = server
        .fabsh(&["workspace", "create", "--name", "Target"])
        .ok_json();
    let target = text(&target["id"]).to_string();
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
    let source_id = text(&source["id"]).to_string();
    let demo_before = ids_of(&server, server.demo.as_str());
    let before = server.request_count();
    let plan = server
        .fabsh(&[
            "item",
            "move",
            "--source-workspace",
            server.demo.as_str(),
            "--id",
            "Welcome",
            "--dest-workspace",
            "Target",
            "--dry-run",
        ])
        .ok_json();
    let sent = seen_since(&server, before);
    assert!(only_reads(&sent), "a dry run only reads: {sent:?}");

    assert_eq!(plan["dryRun"], true);
    let requests = plan["requests"].as_array().expect("requests");
    assert_eq!(requests.len(), 2, "the copy and the delete: {plan}");
    let (copy, delete) = (&requests[0], &requests[1]);
    assert_eq!(copy["method"], "POST");
    assert!(
        text(&copy["url"]).ends_with(&format!("/workspaces/{target}/items")),
        "{copy}"
    );
    assert_eq!(copy["body"]["displayName"], "Welcome");
    assert!(
        copy["body"]["definition"]["parts"].is_array(),
        "the copy carries the definition: {copy}"
    );
    assert!(
        text(&copy["plannedId"]).starts_with("planned-id-"),
        "{copy}"
    );
    assert_eq!(delete["method"], "DELETE");
    assert!(
        text(&delete["url"]).ends_with(&format!("/items/{source_id}")),
        "{delete}"
    );

    assert_eq!(
        ids_of(&server, server.demo.as_str()),
        demo_before,
        "the source stays"
    );
    assert!(ids_of(&server, "Target").is_empty(), "nothing was copied");
}

#[test]
fn a_bulk_create_plans_one_post_per_item_and_creates_nothing() {
    let server = Server::session(module_path!());
    let demo = server
        .fabsh(&["workspace", "show", "-w", server.demo.as_str(), "-q", "id"])
        .ok_json();
    let demo_before = ids_of(&server, server.demo.as_str());
    let before = server.request_count();
    let content = r#"[{"displayName":"d1","type":"Notebook"},{"displayName":"d2","type":"Notebook"},{"displayName":"d3","type":"Lakehouse"}]"#;
    let plan = server
        .fabsh(&[
            "item",
            "bulk-create",
            "-w",
            server.demo.as_str(),
            "--content",
            content,
            "--dry-run",
        ])
        .ok_json();
    let sent = seen_since(&server, before);
    assert!(only_reads(&sent), "a dry run only reads: {sent:?}");

    let requests = plan["requests"].as_array().expect("requests");
    let mut names: Vec<&str> = requests
        .iter()
        .map(|r| {
            assert_eq!(r["method"], "POST");
            assert!(
                text(&r["url"]).ends_with(&format!("/workspaces/{}/items", text(&demo))),
                "{r}"
            );
            text(&r["body"]["displayName"])
        })
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["d1", "d2", "d3"]);
    let mut planned: Vec<&str> = requests.iter().map(|r| text(&r["plannedId"])).collect();
    planned.sort_unstable();
    planned.dedup();
    assert_eq!(planned.len(), 3, "each create gets its own planned id");
    assert_eq!(
        ids_of(&server, server.demo.as_str()),
        demo_before,
        "nothing was created"
    );
}

#[test]
fn a_create_with_a_definition_is_not_polled() {
    // Every create would be a 202 here: a dry run must not wait for an operation.
    let server = Server::with(&[("async-ratio", "1"), ("lro-ms", "150")]);
    let demo_before = ids_of(&server, "Demo");
    let before = server.request_count();
    let definition = r#"{"parts":[{"path":"notebook-content.py","payload":"IyBoZWxsbwo=","payloadType":"InlineBase64"}]}"#;
    let plan = server
        .fabsh(&[
            "item",
            "create",
            "-w",
            "Demo",
            "--name",
            "Planned",
            "--type",
            "Notebook",
            "--definition",
            definition,
            "--dry-run",
        ])
        .ok_json();
    let sent = seen_since(&server, before);
    assert!(
        sent.iter().all(|r| r["method"] == "GET"
            && !r["path"]
                .as_str()
                .unwrap_or_default()
                .contains("/operations")),
        "only name lookups, no polling: {sent:?}"
    );
    let requests = plan["requests"].as_array().expect("requests");
    assert_eq!(requests.len(), 1, "{plan}");
    assert_eq!(requests[0]["method"], "POST");
    assert_eq!(
        requests[0]["body"]["definition"]["parts"][0]["path"],
        "notebook-content.py"
    );
    assert_eq!(ids_of(&server, "Demo"), demo_before, "nothing was created");
}

#[test]
fn later_steps_on_a_planned_datasource_are_planned_too() {
    let fx = AgentFixture::new(module_path!());
    let before = fx.server.request_count();
    let plan = fx.ok(
        "add-datasource",
        &[
            "--artifact",
            "SalesLakehouse",
            "--instructions",
            "Use the sales tables",
            "--dry-run",
        ],
    );
    let sent = seen_since(&fx.server, before);
    assert!(only_reads(&sent), "a dry run only reads: {sent:?}");
    let requests = plan["requests"].as_array().expect("requests");
    assert_eq!(requests.len(), 2, "the add and the instructions: {plan}");
    let planned = text(&requests[0]["plannedId"]);
    assert_eq!(requests[0]["method"], "POST");
    assert_eq!(requests[1]["method"], "PATCH");
    assert!(
        text(&requests[1]["url"]).ends_with(&format!("/staging/datasources/{planned}")),
        "the instructions go to the planned datasource: {plan}"
    );
    assert_eq!(requests[1]["body"]["instructions"], "Use the sales tables");
    let sources = fx.ok("list-datasources", &[]);
    assert_eq!(sources, Value::Array(Vec::new()), "nothing was added");
}
