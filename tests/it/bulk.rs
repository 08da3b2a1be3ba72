//! Bulk definition transfer and bulk move end to end against local Fabric: export to files,
//! wipe, import and compare byte for byte; pairing by logical id and by name; the request-size
//! and item-count limits refused before sending.

use crate::bad_input::assert_rejected;
use crate::support::Server;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

const GUID: &str = "6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

fn id_of(value: &Value) -> String {
    value["id"].as_str().expect("id").to_string()
}

/// Every file under `dir`, by path relative to it.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let relative = path.strip_prefix(root).expect("inside").to_string_lossy();
                out.insert(relative.into_owned(), std::fs::read(&path).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn export_to(server: &Server, workspace: &str, dir: &Path, extra: &[&str]) -> Value {
    let dir = dir.to_string_lossy();
    let mut args = vec![
        "item",
        "bulk-export-definitions",
        "-w",
        workspace,
        "--dir",
        &dir,
    ];
    args.extend_from_slice(extra);
    server.fabsh(&args).ok_json()
}

fn import_from(
    server: &Server,
    workspace: &str,
    dir: &Path,
    extra: &[&str],
) -> crate::support::Run {
    let dir = dir.to_string_lossy();
    let mut args = vec![
        "item",
        "bulk-import-definitions",
        "-w",
        workspace,
        "--dir",
        &dir,
    ];
    args.extend_from_slice(extra);
    server.fabsh(&args)
}

/// `[(operationType, operationStatus)]` of an import's answer.
fn operations(answer: &Value) -> Vec<(String, String)> {
    answer["importItemDefinitionsDetails"]
        .as_array()
        .expect("details")
        .iter()
        .map(|d| {
            (
                d["operationType"].as_str().expect("type").to_string(),
                d["operationStatus"].as_str().expect("status").to_string(),
            )
        })
        .collect()
}

#[test]
fn export_wipe_import_restores_every_part_byte_for_byte() {
    let server = Server::session(module_path!());
    let folder = server
        .fabsh(&[
            "folder",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "Team",
        ])
        .ok_json();
    server
        .fabsh(&[
            "item",
            "move-to-folder",
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
            "--folder-id",
            &id_of(&folder),
        ])
        .ok_json();
    let work = tempfile::tempdir().expect("dir");
    let first = work.path().join("first");
    let exported = export_to(&server, server.demo.as_str(), &first, &[]);
    let index = exported["items"].as_array().expect("index").clone();
    let names: Vec<&str> = index
        .iter()
        .map(|item| item["rootPath"].as_str().expect("rootPath"))
        .collect();
    for expected in [
        "/Team/Welcome.Notebook",
        "/Sales Model.SemanticModel",
        "/SalesLakehouse.Lakehouse",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    assert!(
        first
            .join("Team/Welcome.Notebook/notebook-content.py")
            .is_file()
    );
    assert!(
        first
            .join("Sales Model.SemanticModel/definition/model.tmdl")
            .is_file()
    );
    let log = server.requests();
    let export_call = log["requests"]
        .as_array()
        .expect("log")
        .iter()
        .find(|r| {
            r["path"]
                .as_str()
                .is_some_and(|p| p.ends_with("/bulkExportDefinitions"))
        })
        .expect("export request");
    assert_eq!(export_call["query"], "beta=true");

    for item in &index {
        let run = server.fabsh(&[
            "item",
            "delete",
            "-w",
            server.demo.as_str(),
            "--id",
            &id_of(item),
            "--yes",
        ]);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let run = server.fabsh(&[
        "folder",
        "delete",
        "-w",
        server.demo.as_str(),
        "--id",
        &id_of(&folder),
        "--yes",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let left = server
        .fabsh(&["item", "list", "-w", server.demo.as_str(), "-q", "[].id"])
        .ok_json();
    assert!(
        index
            .iter()
            .all(|item| !left.as_array().expect("ids").contains(&item["id"])),
        "every exported item is gone"
    );

    let run = import_from(&server, server.demo.as_str(), &first, &[]);
    let imported = run.ok_json();
    let created = vec![("Create".to_string(), "Succeeded".to_string()); index.len()];
    assert_eq!(operations(&imported), created);
    let second = work.path().join("second");
    export_to(&server, server.demo.as_str(), &second, &[]);
    let (before, after) = (tree(&first), tree(&second));
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &before {
        assert!(after[path] == *bytes, "{path} differs after the round trip");
    }
    let again = import_from(&server, server.demo.as_str(), &first, &[]).ok_json();
    let updated = vec![("Update".to_string(), "Succeeded".to_string()); index.len()];
    assert_eq!(
        operations(&again),
        updated,
        "a second import pairs by logical id"
    );
}

#[test]
fn import_pairs_by_logical_id_or_by_name() {
    let server = Server::session(module_path!());
    let welcome = server
        .fabsh(&[
            "item",
            "show",
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
        ])
        .ok_json();
    let work = tempfile::tempdir().expect("dir");
    let selective = json!({"mode": "Selective", "items": [{"id": id_of(&welcome)}]}).to_string();
    export_to(
        &server,
        server.demo.as_str(),
        work.path(),
        &["--content", &selective],
    );
    let platform_path = work.path().join("Welcome.Notebook/.platform");
    let platform: Value =
        serde_json::from_slice(&std::fs::read(&platform_path).expect("read")).expect("json");
    let logical_id = platform["config"]["logicalId"]
        .as_str()
        .expect("id")
        .to_string();

    server
        .fabsh(&["workspace", "create", "--name", "Stage"])
        .ok_json();
    let existing = server
        .fabsh(&[
            "item", "create", "-w", "Stage", "--name", "Welcome", "--type", "Notebook",
        ])
        .ok_json();
    let clash = import_from(&server, "Stage", work.path(), &[]);
    assert_eq!(clash.code, 1, "{}", clash.stderr);
    assert!(
        clash.stderr.contains("DuplicateDisplayNameAndType"),
        "{}",
        clash.stderr
    );

    let by_name =
        import_from(&server, "Stage", work.path(), &["--allow-pairing-by-name"]).ok_json();
    let detail = &by_name["importItemDefinitionsDetails"][0];
    assert_eq!(detail["operationType"], "Update");
    assert_eq!(
        detail["itemId"], existing["id"],
        "paired with the item of the same name"
    );
    // getDefinition gives the all-zero logical id, as the service's does; bulk export gives
    // the item's own (recordings/fabric-cli/bulk_export__test_bulk_export_and_deploy_round_trip).
    let again = tempfile::tempdir().expect("dir");
    let selected = json!({"mode": "Selective", "items": [{"id": id_of(&existing)}]}).to_string();
    export_to(&server, "Stage", again.path(), &["--content", &selected]);
    let platform_text =
        std::fs::read_to_string(again.path().join("Welcome.Notebook/.platform")).expect("read");
    assert!(
        platform_text.contains(&logical_id),
        "it took the logical id: {platform_text}"
    );

    let mut renamed = platform.clone();
    renamed["metadata"]["displayName"] = json!("Welcome v2");
    std::fs::write(&platform_path, renamed.to_string()).expect("write");
    let by_id = import_from(&server, "Stage", work.path(), &[]).ok_json();
    let detail = &by_id["importItemDefinitionsDetails"][0];
    assert_eq!(detail["operationType"], "Update");
    assert_eq!(
        detail["itemId"], existing["id"],
        "paired by logical id despite the new name"
    );
    let shown = server
        .fabsh(&["item", "show", "-w", "Stage", "--id", &id_of(&existing)])
        .ok_json();
    assert_eq!(shown["displayName"], "Welcome v2");
}

#[test]
fn a_129_mib_import_is_refused_before_sending() {
    let server = Server::session(module_path!());
    let dir = tempfile::tempdir().expect("dir");
    let item = dir.path().join("Big.Notebook");
    std::fs::create_dir(&item).expect("dir");
    let platform = json!({
        "$schema": "https://developer.microsoft.com/json-schemas/fabric/gitIntegration/platformProperties/2.0.0/schema.json",
        "metadata": {"type": "Notebook", "displayName": "Big"},
        "config": {"version": "2.0", "logicalId": GUID},
    });
    std::fs::write(item.join(".platform"), platform.to_string()).expect("write");
    // Sparse: its size is all the check looks at, so nothing of it is ever read.
    let big = std::fs::File::create(item.join("big.bin")).expect("file");
    big.set_len(129 * 1024 * 1024 / 4 * 3).expect("size");
    let path = dir.path().to_string_lossy().into_owned();
    assert_rejected(
        &server,
        &[
            "item",
            "bulk-import-definitions",
            "-w",
            server.demo.as_str(),
            "--dir",
            &path,
        ],
        "(129.0 MiB); the service takes at most 128 MiB",
    );
}

#[test]
fn a_bulk_move_of_51_items_is_refused_and_50_or_fewer_move() {
    let server = Server::session(module_path!());
    let ids: Vec<String> = (0..51)
        .map(|i| format!("6a1b2c3d-4e5f-4a6b-8c7d-{i:012}"))
        .collect();
    let body = json!({"items": ids}).to_string();
    assert_rejected(
        &server,
        &[
            "item",
            "bulk-move",
            "-w",
            server.demo.as_str(),
            "--content",
            &body,
        ],
        "51 items given; a bulk move takes at most 50",
    );
    let folder = server
        .fabsh(&[
            "folder",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "Moved",
        ])
        .ok_json();
    let lakehouse = &server.demo_lakehouse()["id"];
    let notebook = server
        .fabsh(&[
            "item",
            "show",
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
        ])
        .ok_json();
    let body = json!({"items": [lakehouse, notebook["id"]], "targetFolderId": id_of(&folder)});
    let moved = server
        .fabsh(&[
            "item",
            "bulk-move",
            "-w",
            server.demo.as_str(),
            "--content",
            &body.to_string(),
        ])
        .ok_json();
    let moved = moved["value"].as_array().expect("value");
    assert_eq!(
        moved.len(),
        3,
        "the lakehouse's SQL endpoint moves with it: {moved:?}"
    );
    assert!(moved.iter().all(|item| item["folderId"] == folder["id"]));
}
