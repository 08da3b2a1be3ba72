//! getDefinition and updateDefinition answer inline (200) or long-running (202) per item type
//! as the service does (issue 28): checked against every row of
//! tests/recordings/definition-status-by-type.tsv, which counts the statuses of all 19,053
//! interactions recorded by microsoft/fabric-cli 1.7.0's tests (MIT, see LICENSE there).

use crate::service_bodies::{call, header, path_of, poll_to_success};
use crate::support::{Server, shared};
use serde_json::{Value, json};

/// One row: type, operation, status.
fn recorded_rows() -> Vec<(String, String, u16)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/recordings/definition-status-by-type.tsv");
    let text = std::fs::read_to_string(path).expect("the status table");
    text.lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<&str> = line.split('\t').collect();
            (
                cells[0].to_string(),
                cells[1].to_string(),
                cells[2].parse().expect("a status"),
            )
        })
        .collect()
}

/// The id of an item of `item_type` in Demo: the seeded one for types the service creates only
/// with a definition, else a new one.
fn item_of(server: &Server, item_type: &str) -> String {
    if matches!(item_type, "Report" | "SemanticModel") {
        return server.demo_item_id(item_type);
    }
    // Letters and `_` only: some types' names may hold nothing else (fabsh-model's naming).
    server.create_demo_item(&format!("Status_of_{item_type}"), item_type)
}

/// The definition an answer carries: inline, or at its operation's `/result`.
fn definition_of(server: &Server, status: u16, head: &str, body: &str) -> Value {
    let answer: Value = if status == 202 {
        poll_to_success(server, head);
        let location = header(head, "Location").expect("Location");
        let (status, _, result) = call(
            server,
            "GET",
            &format!("{}/result", path_of(server, &location)),
            None,
        );
        assert_eq!(status, 200, "{result}");
        serde_json::from_str(&result).expect("JSON")
    } else {
        serde_json::from_str(body).expect("JSON")
    };
    answer["definition"].clone()
}

#[test]
fn each_type_answers_definition_calls_as_recorded() {
    let server = shared(module_path!());
    let items_path = server.demo_path("/items");
    let mut checked = 0;
    let mut ids = std::collections::BTreeMap::new();
    for (item_type, operation, recorded) in recorded_rows() {
        let id = ids
            .entry(item_type.clone())
            .or_insert_with(|| item_of(server, &item_type))
            .clone();
        let base = format!("{items_path}/{id}");
        let (status, head, body) = call(server, "POST", &format!("{base}/getDefinition"), None);
        let definition = definition_of(server, status, &head, &body);
        let status = if operation == "getDefinition" {
            status
        } else {
            let mut definition = definition;
            // A type created empty has no parts to send back; the service wants some.
            let content = definition["parts"]
                .as_array()
                .is_some_and(|parts| parts.iter().any(|p| p["path"] != ".platform"));
            if !content {
                definition["parts"] = json!([{
                    "path": "definition.json",
                    "payload": "e30=",
                    "payloadType": "InlineBase64",
                }]);
            }
            let body = json!({ "definition": definition });
            let (status, head, answer) = call(
                server,
                "POST",
                &format!("{base}/updateDefinition"),
                Some(&body),
            );
            if status == 202 {
                poll_to_success(server, &head);
            }
            assert!(matches!(status, 200 | 202), "{item_type}: {answer}");
            status
        };
        assert_eq!(
            status, recorded,
            "{item_type} {operation}: the service answered {recorded}"
        );
        checked += 1;
    }
    assert_eq!(checked, 43, "every row of the table");
}
