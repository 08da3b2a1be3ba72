//! Unset optional strings of the data-agent configuration API are left out, never `null`
//! (issue 28): the swagger types `description`, `instructions`, a few-shot's `query` and the
//! settings' `aiInstructions` as strings, and its examples leave unset ones out
//! (`ListStagingDataAgentDatasourceElements`: elements without `description`). The client reads
//! both an absent field and an empty string.

use crate::data_agents::AgentFixture;
use crate::service_bodies::call;
use crate::support::shared;
use serde_json::{Value, json};

/// Every `null` in an answer, by its JSON path, other than keys the service does send as
/// null (`fabricItemType` of a lakehouse source, as observed live; an end of list's
/// `continuationToken`/`continuationUri`).
fn nulls(value: &Value, at: &str, found: &mut Vec<String>) {
    match value {
        Value::Null => found.push(at.to_string()),
        Value::Array(entries) => {
            for (i, entry) in entries.iter().enumerate() {
                nulls(entry, &format!("{at}[{i}]"), found);
            }
        }
        Value::Object(map) => {
            for (key, entry) in map {
                if !matches!(
                    key.as_str(),
                    "fabricItemType" | "continuationToken" | "continuationUri"
                ) {
                    nulls(entry, &format!("{at}.{key}"), found);
                }
            }
        }
        _ => {}
    }
}

#[test]
fn configuration_answers_leave_unset_strings_out() {
    let server = shared(module_path!());
    let fx = AgentFixture::on_shared(server, "Optional strings agent");
    let source = fx.add_lakehouse();
    let ds = source["id"].as_str().expect("datasource id");
    let base = format!(
        "/v1/workspaces/{}/dataAgents/{}/staging",
        fx.workspace, fx.agent
    );
    let (status, _, text) = call(
        server,
        "POST",
        &format!("{base}/datasources/{ds}/fewshots"),
        Some(&json!({"question": "How many orders?"})),
    );
    assert!(matches!(status, 200 | 201), "{text}");
    let paths = [
        "/settings".to_string(),
        "/datasources".to_string(),
        format!("/datasources/{ds}"),
        format!("/datasources/{ds}/elements"),
        format!("/datasources/{ds}/fewshots"),
    ];
    for path in paths {
        let (status, _, text) = call(server, "GET", &format!("{base}{path}"), None);
        assert_eq!(status, 200, "{path}: {text}");
        let answer: Value = serde_json::from_str(&text).expect("JSON");
        let mut found = Vec::new();
        nulls(&answer, "", &mut found);
        assert!(
            found.is_empty(),
            "{path} answers null at {found:?}: {answer}"
        );
    }
    // The client reads an absent few-shot query as the service leaves it out.
    let listed = fx.ok("list-fewshots", &["--datasource", "SalesLakehouse"]);
    let rows = listed.as_array().expect("rows");
    assert!(
        rows.iter().any(|row| row["question"] == "How many orders?"),
        "{listed}"
    );
    let config = fx.ok("get-config", &[]);
    assert!(
        config["instructions"].is_null() || config["instructions"].is_string(),
        "{config}"
    );
}
