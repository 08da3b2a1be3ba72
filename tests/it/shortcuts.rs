//! OneLake shortcuts on local Fabric (swagger platform `OneLakeShortcuts_*`, example
//! tests/fixtures/fabric-rest-api-specs/platform/examples/platform/
//! CreateShortcutOneLakeTarget.json): create (201 with the example's body shape and Location),
//! list, get, delete, `shortcutConflictPolicy`, bulkCreate, and a target that does not exist
//! refused with 400. The service checks that a OneLake target path exists, so each test puts
//! a file under its targets (through local Fabric's OneLake) before it makes a shortcut.

use crate::data_agent_wire::swagger;
use crate::service_bodies::{call, get_json, header};
use crate::support::{Server, http, shared};
use serde_json::{Value, json};

/// Puts a small file under `folder` of an item, through OneLake, so the folder exists.
fn put_under(server: &Server, workspace_id: &str, item: &str, folder: &str) {
    let path = format!("/onelake/{workspace_id}/{item}/{folder}/data.csv");
    let auth = format!("Bearer {}", server.storage_token);
    let (status, body) = http(
        &server.origin(),
        "PUT",
        &path,
        Some("a,b\n"),
        &[
            ("Authorization", auth.as_str()),
            ("x-ms-blob-type", "BlockBlob"),
        ],
    );
    assert_eq!(status, 201, "{path}: {body}");
}

#[test]
fn shortcuts_are_created_listed_shown_and_deleted() {
    let server = shared(module_path!());
    let target = server.create_demo_item("Shortcut_target", "Lakehouse");
    let holder = server.create_demo_item("Shortcut_holder", "Lakehouse");
    let ws = server.demo_path("");
    let ws_id = ws.rsplit('/').next().expect("workspace id").to_string();
    let base = format!("{ws}/items/{holder}/shortcuts");

    let example = swagger("platform/examples/platform/CreateShortcutOneLakeTarget.json");
    let mut request = example["parameters"]["createShortcutRequest"].clone();
    request["target"]["oneLake"]["workspaceId"] = json!(ws_id);
    request["target"]["oneLake"]["itemId"] = json!(target);
    let target_path = request["target"]["oneLake"]["path"]
        .as_str()
        .expect("target path");
    put_under(server, &ws_id, &target, target_path);
    let (status, head, text) = call(server, "POST", &base, Some(&request));
    assert_eq!(status, 201, "{text}");
    let created: Value = serde_json::from_str(&text).expect("JSON");
    let mut expected = example["responses"]["201"]["body"].clone();
    expected["target"]["oneLake"] = request["target"]["oneLake"].clone();
    assert_eq!(created, expected);
    let location = header(&head, "Location").expect("Location");
    assert!(
        location.ends_with(&format!(
            "/items/{holder}/shortcuts/Files/blafolder/folder3/MyOneLakeShortcut"
        )),
        "{location}"
    );

    let one = format!("{base}/Files/blafolder/folder3/MyOneLakeShortcut");
    assert_eq!(get_json(server, &one), expected);
    let listed = get_json(server, &base);
    assert_eq!(listed["value"], json!([expected]));
    let under = get_json(server, &format!("{base}?parentPath=Tables"));
    assert_eq!(under["value"], json!([]));

    // Abort (the default) refuses a second one; GenerateUniqueName makes another name;
    // CreateOrOverwrite replaces (200).
    let (status, _, text) = call(server, "POST", &base, Some(&request));
    assert_eq!(status, 409, "{text}");
    let (status, _, text) = call(
        server,
        "POST",
        &format!("{base}?shortcutConflictPolicy=GenerateUniqueName"),
        Some(&request),
    );
    assert_eq!(status, 201, "{text}");
    let renamed: Value = serde_json::from_str(&text).expect("JSON");
    assert_ne!(renamed["name"], "MyOneLakeShortcut");
    let (status, _, text) = call(
        server,
        "POST",
        &format!("{base}?shortcutConflictPolicy=CreateOrOverwrite"),
        Some(&request),
    );
    assert_eq!(status, 200, "{text}");
    // OverwriteOnly replaces it too: 200 with its Location, as fabric-cli's recording shows.
    let recorded: Value = serde_yaml_ng::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/fabric-cli-recordings/set__test_set_onelake_shortcut_target_itemid_success__overwrite.yaml"
        ))
        .expect("the vendored recording"),
    )
    .expect("YAML");
    let response = &recorded["interactions"][0]["response"];
    let (status, head, text) = call(
        server,
        "POST",
        &format!("{base}?shortcutConflictPolicy=OverwriteOnly"),
        Some(&request),
    );
    assert_eq!(
        Some(u64::from(status)),
        response["status"]["code"].as_u64(),
        "{text}"
    );
    // Both name the shortcut answered: `…/shortcuts/{path}/{name}`.
    let names_its_shortcut = |location: &str, body: &Value| {
        let (path, name) = (body["path"].as_str(), body["name"].as_str());
        location.ends_with(&format!(
            "/shortcuts/{}/{}",
            path.unwrap_or("?"),
            name.unwrap_or("?")
        ))
    };
    let theirs: Value =
        serde_json::from_str(response["body"]["string"].as_str().expect("body")).expect("JSON");
    let recorded_location = response["headers"]["Location"][0]
        .as_str()
        .expect("recorded");
    assert!(
        names_its_shortcut(recorded_location, &theirs),
        "{recorded_location}"
    );
    let ours: Value = serde_json::from_str(&text).expect("JSON");
    let location = header(&head, "Location").expect("a Location, as recorded");
    assert!(names_its_shortcut(&location, &ours), "{location}");

    let (status, _, text) = call(server, "DELETE", &one, None);
    assert_eq!(status, 200, "{text}");
    let (status, _, _) = call(server, "GET", &one, None);
    assert_eq!(status, 404);
}

#[test]
fn a_target_that_does_not_exist_is_refused_and_bulk_creates_report_each() {
    let server = shared(module_path!());
    let holder = server.create_demo_item("Bulk_holder", "Lakehouse");
    let target = server.create_demo_item("Bulk_target", "Lakehouse");
    let ws = server.demo_path("");
    let ws_id = ws.rsplit('/').next().expect("workspace id").to_string();
    let base = format!("{ws}/items/{holder}/shortcuts");
    let shortcut = |name: &str, item: &str, path: &str| {
        json!({"path": "/Files", "name": name, "target": {"type": "OneLake", "oneLake": {
            "workspaceId": ws_id, "itemId": item, "path": path, "artifactType": "Lakehouse"}}})
    };
    let missing_item = uuid::Uuid::new_v4().to_string();
    put_under(server, &ws_id, &target, "Files/images");
    for bad in [
        shortcut("nowhere", &missing_item, "Files/x"),
        shortcut("outside", &target, "Elsewhere/x"),
        shortcut("missing", &target, "Files/not-there"),
    ] {
        let (status, _, text) = call(server, "POST", &base, Some(&bad));
        assert_eq!(status, 400, "{bad}: {text}");
    }
    // fabric-cicd's shortcuts.metadata.json shape: a leading `/` and `type` beside `oneLake`.
    let body = json!({"createShortcutRequests": [
        shortcut("images", &target, "Files/images"),
        shortcut("nowhere", &missing_item, "Files/x"),
    ]});
    let (status, _, text) = call(server, "POST", &format!("{base}/bulkCreate"), Some(&body));
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).expect("JSON");
    let statuses: Vec<&str> = answer["value"]
        .as_array()
        .expect("value")
        .iter()
        .map(|entry| entry["status"].as_str().expect("status"))
        .collect();
    assert_eq!(statuses, ["Succeeded", "Failed"], "{answer}");
    let listed = get_json(server, &base);
    assert_eq!(listed["value"][0]["path"], "Files");
    assert_eq!(listed["value"][0]["name"], "images");
    assert_eq!(listed["value"].as_array().map(Vec::len), Some(1));
}
