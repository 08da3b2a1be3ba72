//! Workspace and item commands end to end against local Fabric.

use crate::support::{Server, shared};
use serde_json::Value;

fn demo_id(server: &Server) -> String {
    let workspace = server
        .fabsh(&["workspace", "show", "-w", server.demo.as_str()])
        .ok_json();
    workspace["id"].as_str().expect("id").to_string()
}

#[test]
fn demo_workspace_lists_its_seeded_items() {
    let server = shared(module_path!());
    let items = server.fabsh(&["item", "list", "-w", "Demo"]).ok_json();
    let types: Vec<&str> = items
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|i| i["type"].as_str())
        .collect();
    for expected in ["Lakehouse", "Notebook", "SemanticModel", "Report"] {
        assert!(
            types.contains(&expected),
            "{expected} missing from {types:?}"
        );
    }
}

#[test]
fn item_create_show_update_delete_round_trip() {
    let server = shared(module_path!());
    let created = server
        .fabsh(&[
            "item",
            "create",
            "-w",
            "Demo",
            "--name",
            "Scratch",
            "--type",
            "notebook",
            "--description",
            "first",
        ])
        .ok_json();
    assert_eq!(created["displayName"], "Scratch");
    assert_eq!(
        created["type"], "Notebook",
        "type casing is fixed before sending"
    );
    let id = created["id"].as_str().expect("id").to_string();

    let shown = server
        .fabsh(&["item", "show", "-w", "Demo", "--id", "Scratch"])
        .ok_json();
    assert_eq!(shown["id"], id.as_str());
    assert_eq!(shown["description"], "first");
    assert_eq!(shown["workspaceId"], demo_id(server).as_str());

    let updated = server
        .fabsh(&[
            "item",
            "update",
            "-w",
            "Demo",
            "--id",
            &id,
            "--name",
            "Scratch 2",
            "--description",
            "second",
        ])
        .ok_json();
    assert_eq!(updated["displayName"], "Scratch 2");
    assert_eq!(updated["description"], "second");

    let exists = server
        .fabsh(&["item", "exists", "-w", "Demo", "--id", "Scratch 2"])
        .ok_json();
    assert_eq!(exists["exists"], true);

    let deleted = server.fabsh(&["item", "delete", "-w", "Demo", "--id", &id, "--yes"]);
    assert_eq!(deleted.code, 0, "{}", deleted.stderr);
    assert_eq!(deleted.stdout, "");
    let gone = server
        .fabsh(&["item", "exists", "-w", "Demo", "--id", &id])
        .ok_json();
    assert_eq!(gone["exists"], false);
    let show_gone = server.fabsh(&["item", "show", "-w", "Demo", "--id", &id]);
    assert_eq!(show_gone.code, 4, "not found exits 4: {}", show_gone.stderr);
    assert!(
        show_gone.stderr.contains("ItemNotFound"),
        "{}",
        show_gone.stderr
    );
}

#[test]
fn exists_is_an_error_when_the_workspace_is_missing() {
    let server = shared(module_path!());
    let run = server.fabsh(&[
        "item",
        "exists",
        "-w",
        "00000000-0000-0000-0000-000000000001",
        "--id",
        "00000000-0000-0000-0000-000000000002",
    ]);
    assert_ne!(
        run.code, 0,
        "a missing workspace is not `exists: false`: {}",
        run.stdout
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn workspace_create_show_delete_round_trip() {
    let server = Server::session(module_path!());
    let created = server
        .fabsh(&[
            "workspace",
            "create",
            "--name",
            "Sales",
            "--description",
            "team",
        ])
        .ok_json();
    let id = created["id"].as_str().expect("id");
    let listed = server
        .fabsh(&["workspace", "list", "-q", "[].displayName"])
        .ok_json();
    assert!(
        listed
            .as_array()
            .expect("array")
            .contains(&Value::from("Sales"))
    );
    let item = server
        .fabsh(&[
            "item", "create", "-w", "Sales", "--name", "N", "--type", "Notebook",
        ])
        .ok_json();
    assert_eq!(item["workspaceId"], id);
    let deleted = server.fabsh(&["workspace", "delete", "--id", id, "--yes"]);
    assert_eq!(deleted.code, 0, "{}", deleted.stderr);
    assert_eq!(server.fabsh(&["workspace", "show", "-w", id]).code, 4);
}

#[test]
fn list_pages_and_continues_and_streams_with_all() {
    let server = Server::with(&[("page-size", "3")]);
    for n in 0..7 {
        server
            .fabsh(&[
                "item",
                "create",
                "-w",
                "Demo",
                "--name",
                &format!("Page{n}"),
                "--type",
                "DataPipeline",
            ])
            .ok_json();
    }
    let first = server.fabsh(&["item", "list", "-w", "Demo", "--type", "DataPipeline"]);
    assert_eq!(first.json().as_array().expect("array").len(), 3);
    let token = first
        .stderr
        .split("--continuation-token ")
        .nth(1)
        .expect("a continuation token on stderr")
        .trim()
        .to_string();
    let second = server
        .fabsh(&[
            "item",
            "list",
            "-w",
            "Demo",
            "--type",
            "DataPipeline",
            "--continuation-token",
            &token,
        ])
        .ok_json();
    assert_eq!(second.as_array().expect("array").len(), 3);
    let all = server
        .fabsh(&[
            "item",
            "list",
            "-w",
            "Demo",
            "--type",
            "DataPipeline",
            "--all",
        ])
        .ok_json();
    let mut names: Vec<&str> = all
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|i| i["displayName"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "Page0", "Page1", "Page2", "Page3", "Page4", "Page5", "Page6"
        ]
    );
    let log = server.requests();
    let list_calls = log["requests"]
        .as_array()
        .expect("log")
        .iter()
        .filter(|r| {
            r["method"] == "GET"
                && r["path"].as_str().is_some_and(|p| p.ends_with("/items"))
                && r["query"]
                    .as_str()
                    .is_some_and(|q| q.contains("DataPipeline") || q.contains("continuationToken"))
        })
        .count();
    assert!(
        list_calls >= 3 + 2,
        "--all fetched every page: {list_calls}"
    );
}

#[test]
fn output_formats_and_queries() {
    let server = Server::session(module_path!());
    let tsv = server.fabsh(&["item", "list", "-w", server.demo.as_str(), "-o", "tsv"]);
    assert_eq!(tsv.code, 0, "{}", tsv.stderr);
    // Bare values, no header row, in the declared column order: id, displayName, type, ...
    let welcome = tsv
        .stdout
        .lines()
        .find(|line| line.split('\t').nth(1) == Some("Welcome"))
        .unwrap_or_else(|| panic!("a row for Welcome: {}", tsv.stdout));
    assert_eq!(welcome.split('\t').nth(2), Some("Notebook"));
    assert!(!tsv.stdout.contains("displayName"), "{}", tsv.stdout);
    let yaml = server.fabsh(&[
        "workspace",
        "show",
        "-w",
        server.demo.as_str(),
        "-o",
        "yaml",
    ]);
    assert!(
        yaml.stdout
            .contains(&format!("displayName: {}", server.demo)),
        "{}",
        yaml.stdout
    );
    let table = server.fabsh(&["item", "list", "-w", server.demo.as_str(), "-o", "table"]);
    assert!(
        table.stdout.contains("displayName") && table.stdout.contains("Welcome"),
        "{}",
        table.stdout
    );
    let names = server
        .fabsh(&[
            "item",
            "list",
            "-w",
            server.demo.as_str(),
            "--type",
            "Notebook",
            "-q",
            "[].displayName",
        ])
        .ok_json();
    assert_eq!(names, serde_json::json!(["Welcome"]));
    let bad = server.fabsh(&["item", "list", "-w", server.demo.as_str(), "-q", "[?"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

#[test]
fn ambiguous_names_list_the_candidates() {
    let server = Server::session(module_path!());
    let notebook = server
        .fabsh(&[
            "item",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "Twin",
            "--type",
            "Notebook",
        ])
        .ok_json();
    let pipeline = server
        .fabsh(&[
            "item",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "Twin",
            "--type",
            "DataPipeline",
        ])
        .ok_json();
    let run = server.fabsh(&["item", "show", "-w", server.demo.as_str(), "--id", "Twin"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    for id in [&notebook["id"], &pipeline["id"]] {
        assert!(
            run.stderr.contains(id.as_str().expect("id")),
            "{}",
            run.stderr
        );
    }
    let by_type = server
        .fabsh(&[
            "item",
            "url",
            "-w",
            server.demo.as_str(),
            "--id",
            "Twin",
            "--type",
            "Notebook",
        ])
        .ok_json();
    assert_eq!(by_type["id"], notebook["id"], "--type narrows the name");
    assert!(
        by_type["url"]
            .as_str()
            .expect("url")
            .contains("/synapsenotebooks/")
    );
}

#[test]
fn unknown_names_are_not_found_with_a_hint() {
    let server = Server::session(module_path!());
    let run = server.fabsh(&["item", "show", "-w", server.demo.as_str(), "--id", "Welcom"]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean \"Welcome\"?"),
        "{}",
        run.stderr
    );
    // The nearest name wins over one the name merely contains.
    server.create_demo_item("Welcome v3", "Notebook");
    let run = server.fabsh(&[
        "item",
        "show",
        "-w",
        server.demo.as_str(),
        "--id",
        "Welcome v2",
    ]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean \"Welcome v3\"?"),
        "{}",
        run.stderr
    );
    // Names that hold the one given, when none is a slip away.
    let run = server.fabsh(&["item", "show", "-w", server.demo.as_str(), "--id", "Sales"]);
    assert!(run.stderr.contains("similar names: "), "{}", run.stderr);
    let run = server.fabsh(&["item", "list", "-w", "Nope"]);
    assert_eq!(run.code, 4, "{}", run.stderr);
}

#[test]
fn names_are_resolved_with_one_list_call() {
    let server = Server::session(module_path!());
    let before = server.request_count();
    server
        .fabsh(&[
            "item",
            "show",
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
        ])
        .ok_json();
    // workspaces list + items list + the item itself.
    assert_eq!(server.request_count() - before, 3);
}

#[test]
fn state_survives_a_restart() {
    let server = Server::start();
    server
        .fabsh(&[
            "item", "create", "-w", "Demo", "--name", "Keeper", "--type", "Notebook",
        ])
        .ok_json();
    let (home, data_dir) = server.stop();
    let again = Server::on_data_dir(home, data_dir, &[]);
    let shown = again
        .fabsh(&["item", "show", "-w", "Demo", "--id", "Keeper"])
        .ok_json();
    assert_eq!(shown["displayName"], "Keeper");
}

#[test]
fn names_follow_writes_in_one_process_and_dry_runs_forget_nothing() {
    let server = Server::session(module_path!());
    let before = server.request_count();
    // One process: the name cache lives across these calls.
    // The session's copy of Demo, named in the script.
    let script = format!("const DEMO = {:?};", server.demo)
        + r#"
        let first = item::show(DEMO, "Welcome").id;
        item::delete(DEMO, "Welcome", #{dry_run: true});
        let again = item::show(DEMO, "Welcome").id;
        item::update(DEMO, "Welcome", #{name: "Renamed"});
        let old_name = "still found";
        try { item::show(DEMO, "Welcome"); } catch (err) { old_name = err.kind; }
        `${first == again} ${old_name}`
    "#;
    let run = server.fabsh(&["-e", &script]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout.trim(),
        "true not_found",
        "after the rename the old name is gone"
    );
    let log = server.requests();
    let requests = log["requests"].as_array().expect("requests");
    let new = (server.request_count() - before) as usize;
    let item_lists = requests[requests.len() - new..]
        .iter()
        .filter(|r| {
            r["method"] == "GET" && r["path"].as_str().is_some_and(|p| p.ends_with("/items"))
        })
        .count();
    assert_eq!(
        item_lists, 2,
        "listed once for the first lookups (the dry run forgot nothing), once after the rename"
    );
}
