//! getDefinition?format=ipynb of a notebook stored as fabricGitSource (`notebook-content.py`):
//! local Fabric converts it as the service does (issue 14, item 10), and what another client
//! edits in that ipynb (fabric-cli's `set` on `metadata.language_info.name`,
//! `metadata.dependencies.lakehouse`) is kept.

use crate::copy_move::id_of;
use crate::replay::cassette;
use crate::support::{Server, http};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

/// A raw POST as the admin, answered inline (`async-ratio` 0): its status and JSON body.
fn post(server: &Server, path: &str, body: &Value) -> (u16, Value) {
    let auth = server.bearer();
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    let (status, text) = http(
        &server.origin(),
        "POST",
        path,
        Some(&body.to_string()),
        &headers,
    );
    let value = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}: {text}"))
    };
    (status, value)
}

/// The decoded text of a definition's part.
fn part_text(definition: &Value, path: &str) -> String {
    let part = definition["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .find(|part| part["path"] == path)
        .unwrap_or_else(|| panic!("no {path} in {definition}"));
    let bytes = STANDARD
        .decode(part["payload"].as_str().expect("payload"))
        .expect("base64");
    String::from_utf8(bytes).expect("UTF-8")
}

/// The notebook of interaction 3 of the export recording, created in the Demo workspace as
/// that request created it; returns the item path `/v1/workspaces/{ws}/items/{id}`.
fn create_recorded_notebook(server: &Server) -> String {
    let recording = cassette("export__test_export_item_success.yaml");
    let create = &recording.interactions[3].request;
    assert!(create.uri.ends_with("/notebooks"), "{}", create.uri);
    let body: Value = serde_json::from_str(create.body.as_deref().expect("body")).expect("JSON");
    let (status, created) = post(server, &server.demo_path("/notebooks"), &body);
    assert_eq!(status, 201, "{created}");
    server.demo_path(&format!("/items/{}", id_of(&created)))
}

/// getDefinition in `format`, answered inline: the definition.
fn definition_in(server: &Server, item: &str, format: &str) -> Value {
    let path = format!("{item}/getDefinition?format={format}");
    let (status, body) = post(server, &path, &json!({}));
    assert_eq!(status, 200, "{body}");
    body["definition"].clone()
}

#[test]
fn a_python_notebook_reads_as_the_ipynb_the_service_makes_of_it() {
    // export__test_export_item_success.yaml: interaction 3 creates a notebook from a
    // notebook-content.py, interaction 11 asks getDefinition?format=ipynb, and the result
    // (interaction 15) is this ipynb: language_info, kernel_info with jupyter_kernel_name,
    // dependencies.lakehouse null, the cells' META under metadata.microsoft.
    let server = Server::with(&[("async-ratio", "0")]);
    let item = create_recorded_notebook(&server);
    let ours: Value = serde_json::from_str(&part_text(
        &definition_in(&server, &item, "ipynb"),
        "notebook-content.ipynb",
    ))
    .expect("ipynb JSON");
    let recording = cassette("export__test_export_item_success.yaml");
    let result = &recording.interactions[15];
    assert!(
        recording.interactions[11]
            .request
            .uri
            .ends_with("getDefinition?format=ipynb")
    );
    let recorded: Value =
        serde_json::from_str(result.response.body.string.as_deref().expect("result"))
            .expect("JSON");
    let recorded: Value = serde_json::from_str(&part_text(
        &recorded["definition"],
        "notebook-content.ipynb",
    ))
    .expect("recorded ipynb");
    assert_eq!(ours, recorded);
}

#[test]
fn another_clients_edits_of_the_ipynb_metadata_are_kept() {
    let server = Server::with(&[("async-ratio", "0")]);
    let item = create_recorded_notebook(&server);
    let mut ipynb: Value = serde_json::from_str(&part_text(
        &definition_in(&server, &item, "ipynb"),
        "notebook-content.ipynb",
    ))
    .expect("ipynb JSON");
    // fabric-cli's `set` only replaces paths that exist in what it exported.
    let lakehouse = json!({"default_lakehouse": "5b218778-e7a5-4d73-8187-f10824047715",
        "default_lakehouse_name": "SalesLakehouse"});
    *ipynb
        .pointer_mut("/metadata/language_info/name")
        .expect("metadata.language_info.name exists") = json!("python");
    *ipynb
        .pointer_mut("/metadata/dependencies/lakehouse")
        .expect("metadata.dependencies.lakehouse exists") = lakehouse.clone();
    let update = json!({"definition": {"format": "ipynb", "parts": [{
        "path": "notebook-content.ipynb",
        "payload": STANDARD.encode(ipynb.to_string()),
        "payloadType": "InlineBase64",
    }]}});
    let (status, body) = post(&server, &format!("{item}/updateDefinition"), &update);
    assert_eq!(status, 200, "{body}");
    let again: Value = serde_json::from_str(&part_text(
        &definition_in(&server, &item, "ipynb"),
        "notebook-content.ipynb",
    ))
    .expect("ipynb JSON");
    assert_eq!(again, ipynb);
    // Read back as notebook-content.py, the lakehouse is in the notebook's META.
    let source = part_text(
        &definition_in(&server, &item, "fabricGitSource"),
        "notebook-content.py",
    );
    assert!(
        source.contains("\"default_lakehouse_name\": \"SalesLakehouse\""),
        "{source}"
    );
}
