//! Unset optional strings of the data-agent API are left out, never `null` (issue 28): the
//! swagger (tests/fixtures/fabric-rest-api-specs/dataAgent/swagger.json) types `description`,
//! `instructions`, a few-shot's `query`, the settings' `aiInstructions` and the published
//! description as strings, and its examples leave unset ones out (elements without
//! `description`, a lakehouse source without `fabricItemType`). Every operation of that swagger
//! that answers a body is called, in the order that leaves those strings unset, and its answer
//! may hold `null` only where the operation's own example does (an end of list's
//! `continuationToken`), or as the service was observed live to send it (`fabricItemType` of a
//! `LakehouseTables` source). The client reads an absent field.

use crate::data_agent_wire::swagger;
use crate::data_agents::AgentFixture;
use crate::service_bodies::call;
use crate::support::shared;
use serde_json::{Value, json};

/// Every `null` of `answer` (by JSON path) that the example does not show as null at the same
/// place (an array's entries are held against the example's first entry).
fn unexpected_nulls(answer: &Value, example: &Value, at: &str, found: &mut Vec<String>) {
    match answer {
        Value::Null if !example.is_null() => found.push(at.to_string()),
        Value::Array(entries) => {
            let model = example.get(0).unwrap_or(&Value::Bool(false));
            for (i, entry) in entries.iter().enumerate() {
                unexpected_nulls(entry, model, &format!("{at}[{i}]"), found);
            }
        }
        Value::Object(map) => {
            for (key, entry) in map {
                let live_lakehouse_kind =
                    key == "fabricItemType" && map.get("type") == Some(&json!("LakehouseTables"));
                if !live_lakehouse_kind {
                    let model = example.get(key).unwrap_or(&Value::Bool(false));
                    unexpected_nulls(entry, model, &format!("{at}.{key}"), found);
                }
            }
        }
        _ => {}
    }
}

/// One operation of the swagger that answers a body.
struct Operation {
    id: String,
    method: String,
    path: String,
    status: u16,
    example: Value,
    /// The name of its body parameter, if it takes one.
    body_param: Option<String>,
}

fn operations() -> Vec<Operation> {
    let spec = swagger("dataAgent/swagger.json");
    let mut found = Vec::new();
    for (path, methods) in spec["paths"].as_object().expect("paths") {
        for (method, op) in methods.as_object().expect("methods") {
            let Some(responses) = op["responses"].as_object() else {
                continue;
            };
            let Some((status, _)) = responses
                .iter()
                .find(|(code, answer)| code.starts_with('2') && answer.get("schema").is_some())
            else {
                continue;
            };
            let example_ref = op["x-ms-examples"]
                .as_object()
                .and_then(|examples| examples.values().next())
                .and_then(|example| example["$ref"].as_str())
                .expect("an example");
            let example = swagger(&format!(
                "dataAgent/{}",
                example_ref.trim_start_matches("./")
            ));
            let body_param = op["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|p| p["in"] == "body")
                .and_then(|p| p["name"].as_str())
                .map(str::to_string);
            found.push(Operation {
                id: op["operationId"].as_str().expect("operationId").to_string(),
                method: method.to_uppercase(),
                path: path.clone(),
                status: status.parse().expect("a status"),
                example,
                body_param,
            });
        }
    }
    found
}

/// When an operation is called: staging reads while everything is unset, then the publish
/// (with no description), the published reads and the item's, then the writes.
fn phase(op: &Operation) -> u8 {
    match (op.method.as_str(), op.path.contains("/staging/")) {
        ("GET", true) => 0,
        _ if op.id == "Items_PublishDataAgent" => 1,
        ("GET", false) => 2,
        _ => 3,
    }
}

#[test]
fn every_answer_leaves_unset_strings_out_as_the_swagger_examples_do() {
    let server = shared(module_path!());
    let fx = AgentFixture::on_shared(server, "Optional strings agent");
    let source = fx.add_lakehouse();
    let ds = source["id"].as_str().expect("datasource id").to_string();
    let base = format!("/v1/workspaces/{}/dataAgents/{}", fx.workspace, fx.agent);
    let (status, _, text) = call(
        server,
        "POST",
        &format!("{base}/staging/datasources/{ds}/fewshots"),
        Some(&json!({"question": "How many orders?"})),
    );
    assert_eq!(status, 201, "{text}");
    let fewshot: Value = serde_json::from_str(&text).expect("JSON");
    let fewshot = fewshot["id"].as_str().expect("few-shot id").to_string();
    let (_, _, text) = call(
        server,
        "GET",
        &format!("{base}/staging/datasources/{ds}/elements"),
        None,
    );
    let elements: Value = serde_json::from_str(&text).expect("JSON");
    let element = elements["value"][0]["id"]
        .as_str()
        .expect("an element")
        .to_string();

    // Made by the fixture, or answering definitions rather than configuration.
    let skipped = [
        "Items_CreateDataAgent",
        "Staging_CreateDatasource",
        "Items_GetDataAgentDefinition",
    ];
    let mut ops: Vec<Operation> = operations()
        .into_iter()
        .filter(|op| !skipped.contains(&op.id.as_str()))
        .collect();
    ops.sort_by_key(phase);
    assert_eq!(ops.len(), 21, "every operation that answers a body");
    for op in &ops {
        let mut path = op
            .path
            .replace("{workspaceId}", &fx.workspace)
            .replace("{dataAgentId}", &fx.agent)
            .replace("{datasourceId}", &ds)
            .replace("{fewShotId}", &fewshot);
        if op.id == "Staging_UpdateDatasourceElement" {
            path.push_str(&format!("?id={element}"));
        }
        let body = op.body_param.as_ref().map(|name| {
            if op.id == "Items_PublishDataAgent" {
                json!({})
            } else {
                op.example["parameters"][name].clone()
            }
        });
        let (status, _, text) = call(server, &op.method, &format!("/v1{path}"), body.as_ref());
        assert_eq!(status, op.status, "{} {path}: {text}", op.id);
        let answer: Value = serde_json::from_str(&text).expect("JSON");
        let example = &op.example["responses"][op.status.to_string()]["body"];
        let mut found = Vec::new();
        unexpected_nulls(&answer, example, "", &mut found);
        assert!(
            found.is_empty(),
            "{} answers null at {found:?}: {answer}",
            op.id
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

/// The other form the swagger allows for an unset string: `""`. Every absent `description`,
/// `instructions`, `aiInstructions` and few-shot `query` of a data-agent answer is sent as ""
/// by a proxy; the client's commands read the same as without it (an empty string and an
/// absent one both mean unset).
fn fill_unset(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let few_shot = map.contains_key("question");
            let mut map: serde_json::Map<String, Value> = map
                .into_iter()
                .map(|(key, value)| (key, fill_unset(value)))
                .collect();
            let mut keys = vec!["description", "instructions"];
            if few_shot {
                keys.push("query");
            }
            if map.contains_key("value") || map.contains_key("id") || few_shot {
                for key in keys {
                    map.entry(key).or_insert(json!(""));
                }
            }
            Value::Object(map)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(fill_unset).collect()),
        other => other,
    }
}

/// `value` with every null and "" left out, so both forms of unset compare equal.
fn without_unset(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null() && *v != "")
                .map(|(k, v)| (k.clone(), without_unset(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_unset).collect()),
        other => other.clone(),
    }
}

#[test]
fn the_client_reads_unset_strings_sent_empty() {
    use crate::stub::Stub;
    let fx = AgentFixture::new(module_path!());
    fx.add_lakehouse();
    let ds = fx.ok("list-datasources", &[])[0]["id"]
        .as_str()
        .expect("datasource id")
        .to_string();
    let (status, _, text) = call(
        &fx.server,
        "POST",
        &format!(
            "/v1/workspaces/{}/dataAgents/{}/staging/datasources/{ds}/fewshots",
            fx.workspace, fx.agent
        ),
        Some(&json!({"question": "How many orders?"})),
    );
    assert_eq!(status, 201, "{text}");
    let proxy = Stub::reshaping_proxy(&fx.server.origin(), |_, path, body| {
        if path.contains("/dataAgents/") && path.contains("/staging") {
            let mut body = fill_unset(body);
            if path.ends_with("/staging/settings") {
                body.as_object_mut()
                    .map(|m| m.entry("aiInstructions").or_insert(json!("")));
            }
            body
        } else {
            body
        }
    });
    // The proxy does send "" where local Fabric leaves the strings out.
    let auth = fx.server.bearer();
    let (_, sent) = crate::support::http(
        proxy.endpoint.trim_end_matches("/v1"),
        "GET",
        &format!(
            "/v1/workspaces/{}/dataAgents/{}/staging/datasources/{ds}/fewshots",
            fx.workspace, fx.agent
        ),
        None,
        &[("Authorization", auth.as_str())],
    );
    let sent: Value = serde_json::from_str(&sent).expect("JSON");
    assert_eq!(sent["value"][0]["query"], "", "{sent}");
    let commands: [(&str, &[&str]); 4] = [
        ("get-config", &[]),
        ("list-datasources", &[]),
        ("list-fewshots", &["--datasource", "SalesLakehouse"]),
        ("list-elements", &["--datasource", "SalesLakehouse"]),
    ];
    for (command, rest) in commands {
        let direct = fx.ok(command, rest);
        let proxied = fx
            .run_env(
                command,
                rest,
                &[("FABSH_ENDPOINT", proxy.endpoint.as_str())],
            )
            .ok_json();
        assert_eq!(
            without_unset(&proxied),
            without_unset(&direct),
            "{command} through a service that sends \"\""
        );
    }
}
