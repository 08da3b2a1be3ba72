//! Folders, tags, logical ids and endorsements, end to end against local Fabric.

use crate::copy_move::id_of;
use crate::definitions::{decoded, get_definition};
use crate::support::Server;
use serde_json::{Value, json};

#[test]
fn applied_tags_appear_on_item_show() {
    let server = Server::session(module_path!());
    let tags = server.fabsh(&["tag", "list"]).ok_json();
    let tag = &tags.as_array().expect("tags")[0];
    let tag_id = id_of(tag);
    let applied = server
        .fabsh(&[
            "item",
            "apply-tags",
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
            "--tag-ids",
            &tag_id,
        ])
        .ok_json();
    assert_eq!(
        applied["tags"],
        json!([{"id": tag_id, "displayName": tag["displayName"]}])
    );
    let shown = server
        .fabsh(&[
            "item",
            "show",
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
        ])
        .ok_json();
    assert_eq!(shown["tags"][0]["id"], tag_id.as_str());
    let removed = server
        .fabsh(&[
            "item",
            "unapply-tags",
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
            "--tag-ids",
            &tag_id,
        ])
        .ok_json();
    assert!(
        removed.get("tags").is_none(),
        "no tags means no key: {removed}"
    );
    let unknown = server.fabsh(&[
        "item",
        "apply-tags",
        "-w",
        server.demo.as_str(),
        "--id",
        "Welcome",
        "--tag-ids",
        "00000000-0000-0000-0000-0000000000aa",
    ]);
    assert_eq!(unknown.code, 4, "{}", unknown.stderr);
}

#[test]
fn move_to_folder_returns_the_item_and_its_children() {
    let server = Server::session(module_path!());
    let folder = server
        .fabsh(&[
            "folder",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "Data",
        ])
        .ok_json();
    let folder_id = id_of(&folder);
    let lakehouse = server.demo_lakehouse();
    let moved = server
        .fabsh(&[
            "item",
            "move-to-folder",
            "-w",
            server.demo.as_str(),
            "--id",
            &id_of(&lakehouse),
            "--folder-id",
            &folder_id,
        ])
        .ok_json();
    let types: Vec<&str> = moved
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|i| i["type"].as_str())
        .collect();
    assert_eq!(types, ["Lakehouse", "SQLEndpoint"]);
    assert!(
        moved
            .as_array()
            .expect("list")
            .iter()
            .all(|i| i["folderId"] == folder_id.as_str())
    );
    let in_folder = server
        .fabsh(&[
            "item",
            "list",
            "-w",
            server.demo.as_str(),
            "--folder",
            &folder_id,
        ])
        .ok_json();
    assert_eq!(in_folder.as_array().expect("list").len(), 2);

    let refused = server.fabsh(&[
        "folder",
        "delete",
        "-w",
        server.demo.as_str(),
        "--id",
        &folder_id,
        "--yes",
    ]);
    assert_eq!(refused.code, 1);
    assert!(
        refused.stderr.contains("FolderNotEmpty"),
        "{}",
        refused.stderr
    );
    let back = server
        .fabsh(&[
            "item",
            "move-to-folder",
            "-w",
            server.demo.as_str(),
            "--id",
            &id_of(&lakehouse),
            "--folder-id",
            "",
        ])
        .ok_json();
    assert!(
        back[0].get("folderId").is_none(),
        "empty means the root: {back}"
    );
    let sub = server
        .fabsh(&[
            "folder",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "Sub",
            "--parent-id",
            &folder_id,
        ])
        .ok_json();
    assert_eq!(sub["parentFolderId"], folder_id.as_str());
    let moved_folder = server
        .fabsh(&[
            "folder",
            "move",
            "-w",
            server.demo.as_str(),
            "--id",
            &id_of(&sub),
        ])
        .ok_json();
    assert!(moved_folder.get("parentFolderId").is_none());
    let listed = server
        .fabsh(&[
            "folder",
            "list",
            "-w",
            server.demo.as_str(),
            "-q",
            "length(@)",
        ])
        .ok_json();
    assert_eq!(listed, 2);
    for id in [id_of(&sub), folder_id] {
        let deleted = server.fabsh(&[
            "folder",
            "delete",
            "-w",
            server.demo.as_str(),
            "--id",
            &id,
            "--yes",
        ]);
        assert_eq!(deleted.code, 0, "{}", deleted.stderr);
    }
}

#[test]
fn logical_ids_are_unique_and_match_the_platform_part() {
    let server = Server::session(module_path!());
    let logical_id = "3f2b8c1d-4e5a-4b6c-8d7e-9f0a1b2c3d4e";
    let set = server
        .fabsh(&[
            "item",
            "update-logical-id",
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
            "--logical-id",
            logical_id,
        ])
        .ok_json();
    assert_eq!(set["logicalId"], logical_id);
    // Bulk export carries the item's logical id (recordings/fabric-cli/
    // bulk_export__test_bulk_export_and_deploy_round_trip); so does getDefinition once one was
    // set (issue 27; the all-zero GUID of every recorded getDefinition is for items that
    // have none).
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
    let dir = tempfile::tempdir().expect("dir");
    let selected = json!({"mode": "Selective", "items": [{"id": id_of(&welcome)}]}).to_string();
    server
        .fabsh(&[
            "item",
            "bulk-export-definitions",
            "-w",
            server.demo.as_str(),
            "--dir",
            &dir.path().to_string_lossy(),
            "--content",
            &selected,
        ])
        .ok_json();
    let platform: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("Welcome.Notebook/.platform")).expect("read"),
    )
    .expect("JSON");
    assert_eq!(platform["config"]["logicalId"], logical_id);
    let definition = get_definition(&server, "Welcome", &[]);
    let exported: Value = serde_json::from_str(&decoded(&definition, ".platform")).expect("JSON");
    assert_eq!(exported["config"]["logicalId"], logical_id);
    let taken = server.fabsh(&[
        "item",
        "update-logical-id",
        "-w",
        server.demo.as_str(),
        "--id",
        "Sales Model",
        "--logical-id",
        logical_id,
    ]);
    assert_eq!(taken.code, 1, "{}", taken.stderr);
    assert!(
        taken.stderr.contains("LogicalIdAlreadyInUse"),
        "{}",
        taken.stderr
    );
}

#[test]
fn endorsements_are_read_through_the_power_bi_groups_route() {
    let server = Server::session(module_path!());
    let model = server
        .fabsh(&[
            "item",
            "show-endorsement",
            "-w",
            server.demo.as_str(),
            "--id",
            "Sales Model",
        ])
        .ok_json();
    assert_eq!(model["endorsement"], "Certified");
    let certified = server
        .fabsh(&[
            "item",
            "list-endorsements",
            "-w",
            server.demo.as_str(),
            "--endorsement",
            "certified",
        ])
        .ok_json();
    assert_eq!(certified.as_array().expect("list").len(), 1);
    server
        .fabsh(&[
            "item",
            "copy",
            "--source-workspace",
            server.demo.as_str(),
            "--id",
            "Sales Model",
            "--dest-workspace",
            server.demo.as_str(),
            "--name",
            "Plain",
        ])
        .ok_json();
    let plain = server
        .fabsh(&[
            "item",
            "show-endorsement",
            "-w",
            server.demo.as_str(),
            "--id",
            "Plain",
        ])
        .ok_json();
    assert_eq!(plain["endorsement"], "None");
    let reports = server
        .fabsh(&[
            "item",
            "list-endorsements",
            "-w",
            server.demo.as_str(),
            "--type",
            "report",
        ])
        .ok_json();
    assert_eq!(reports[0]["endorsement"], "Promoted");
    let log = server.requests();
    assert!(
        log["requests"]
            .as_array()
            .expect("requests")
            .iter()
            .any(|r| r["path"]
                .as_str()
                .is_some_and(|p| p.starts_with("/v1.0/myorg/groups/")))
    );
    let notebook = server.fabsh(&[
        "item",
        "show-endorsement",
        "-w",
        server.demo.as_str(),
        "--id",
        "Welcome",
    ]);
    assert_eq!(notebook.code, 2, "{}", notebook.stderr);
}
