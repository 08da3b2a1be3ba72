//! Which LRO-capable calls local Fabric answers 202 and which inline when `--async-ratio` is
//! not given: as the service did in the recordings (`tests/recordings`, copied from
//! ../shared/recordings/fabric-cli). Every recorded item create is sent again, body and
//! collection as recorded, and must get the recorded status, or the newer one the service
//! answered that type's creates with since (`create-status-by-type.tsv`, every create of
//! fabric-cli 1.7.0's recordings: where they disagree the newest wins); so must the recorded
//! getDefinition and updateDefinition of a notebook. `--async-ratio` given overrides them all.

use crate::support::{Server, http, recording_files};
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize)]
struct Cassette {
    interactions: Vec<Interaction>,
}

#[derive(Debug, Deserialize)]
struct Interaction {
    request: Request,
    response: Response,
}

#[derive(Debug, Deserialize)]
struct Request {
    method: String,
    uri: String,
    body: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Response {
    status: Status,
}

#[derive(Debug, Deserialize)]
struct Status {
    code: u16,
}

/// One recorded POST: the file it is in, the path after `/v1/workspaces/{ws}/`, its body and
/// the status the service answered.
struct RecordedPost {
    file: String,
    rest: String,
    body: Value,
    status: u16,
}

fn recorded_posts() -> Vec<RecordedPost> {
    let mut posts = Vec::new();
    for path in recording_files() {
        let text = std::fs::read_to_string(&path).expect("recording");
        let cassette: Cassette = serde_yaml_ng::from_str(&text).expect("recording YAML");
        for interaction in cassette.interactions {
            let request = interaction.request;
            let Some((_, rest)) = request.uri.split_once("/v1/workspaces/") else {
                continue;
            };
            let Some((_, rest)) = rest.split_once('/') else {
                continue;
            };
            if request.method != "POST" {
                continue;
            }
            posts.push(RecordedPost {
                file: path.file_name().unwrap().to_string_lossy().into_owned(),
                rest: rest.to_string(),
                body: request
                    .body
                    .as_deref()
                    .map_or(Value::Null, |b| serde_json::from_str(b).expect("JSON body")),
                status: interaction.response.status.code,
            });
        }
    }
    posts
}

/// The recorded item creates: POSTs to `items` or a per-type collection.
fn recorded_creates() -> Vec<RecordedPost> {
    recorded_posts()
        .into_iter()
        .filter(|post| !post.rest.contains('/') && post.body.get("displayName").is_some())
        .filter(|post| post.rest != "folders")
        .collect()
}

/// `create-status-by-type.tsv`: the status of the newest recorded create per type and kind
/// (`true`: with a definition).
fn newest_create_statuses() -> std::collections::HashMap<(String, bool), u16> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/recordings/create-status-by-type.tsv"
    );
    let text = std::fs::read_to_string(path).expect("create-status-by-type.tsv");
    text.lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [item_type, kind, _, _, status, _] = fields[..] else {
                panic!("a row of six fields: {line}");
            };
            let status = status.parse().expect("a status");
            ((item_type.to_string(), kind == "with"), status)
        })
        .collect()
}

#[test]
fn the_models_create_rule_is_the_newest_recorded_answer_of_every_type() {
    let statuses = newest_create_statuses();
    assert!(statuses.len() >= 40, "{}", statuses.len());
    for ((item_type, with_definition), status) in statuses {
        assert_eq!(
            fabsh_model::item_types::created_through_operation(&item_type, with_definition),
            status == 202,
            "{item_type} (definition: {with_definition}) was last answered {status}"
        );
    }
}

fn post(server: &Server, path: &str, body: &Value) -> (u16, String) {
    let auth = server.bearer();
    let body = body.to_string();
    http(
        &server.origin(),
        "POST",
        path,
        Some(&body),
        &[
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ],
    )
}

/// The recorded create sent to Demo under a fresh name, outside any folder.
fn replay_create(server: &Server, create: &RecordedPost, n: usize) -> (u16, String) {
    let mut body = create.body.clone();
    body["displayName"] = Value::from(format!("replayed{n}"));
    body.as_object_mut().unwrap().remove("folderId");
    post(
        server,
        &server.demo_path(&format!("/{}", create.rest)),
        &body,
    )
}

#[test]
fn creates_answer_inline_or_202_as_the_recorded_service_did() {
    let server = Server::session(module_path!());
    let creates = recorded_creates();
    // Lakehouses and pipelines 201, notebooks, reports, semantic models and a warehouse 202.
    assert!(creates.len() >= 12, "expected the recorded creates");
    assert!(creates.iter().any(|c| c.status == 201));
    assert!(creates.iter().any(|c| c.status == 202));
    let newest = newest_create_statuses();
    for (n, create) in creates.iter().enumerate() {
        let (status, body) = replay_create(&server, create, n);
        // A create through a per-type collection may leave `type` out: then only its own
        // recording tells.
        let kind = (
            create.body["type"].as_str().unwrap_or_default().to_string(),
            create.body.get("definition").is_some(),
        );
        assert_eq!(
            status,
            newest.get(&kind).copied().unwrap_or(create.status),
            "{} POST .../{} ({}, definition: {}): {body}",
            create.file,
            create.rest,
            create.body["type"],
            create.body.get("definition").is_some()
        );
        if status == 201 {
            let item: Value = serde_json::from_str(&body).expect("the created item");
            assert_eq!(item["displayName"], format!("replayed{n}"));
        }
    }
}

#[test]
fn get_and_update_definition_answer_202_as_recorded() {
    // import__test_import_update_existing_item_successNotebook.yaml: getDefinition and
    // updateDefinition of a notebook, both 202.
    let file = "import__test_import_update_existing_item_successNotebook.yaml";
    let posts: Vec<RecordedPost> = recorded_posts()
        .into_iter()
        .filter(|post| post.file == file)
        .collect();
    let recorded = |op: &str| {
        posts
            .iter()
            .find(|post| post.rest.contains(op))
            .unwrap_or_else(|| panic!("{op} in {file}"))
    };
    let server = Server::session(module_path!());
    let made = server.fabsh(&[
        "item",
        "create",
        "-w",
        server.demo.as_str(),
        "--name",
        "nb",
        "--type",
        "Notebook",
        "-q",
        "id",
    ]);
    let id = made.ok_json();
    let id = id.as_str().expect("id");
    for op in ["getDefinition", "updateDefinition"] {
        let post_of = recorded(op);
        let body = if post_of.body.is_null() {
            Value::Object(Default::default())
        } else {
            post_of.body.clone()
        };
        let path = server.demo_path(&format!("/items/{id}/{op}"));
        let (status, text) = post(&server, &path, &body);
        assert_eq!(status, post_of.status, "{op}: {text}");
    }
}

#[test]
fn an_async_ratio_given_applies_to_every_call() {
    let creates = recorded_creates();
    let inline = creates.iter().find(|c| c.status == 201).expect("a 201");
    let accepted = creates.iter().find(|c| c.status == 202).expect("a 202");
    // As a flag: every call inline.
    let server = Server::with(&[("async-ratio", "0")]);
    assert_eq!(replay_create(&server, accepted, 1).0, 201);
    // From the environment: every call 202.
    let server = Server::with_env(&[("FABSH_LOCAL_ASYNC_RATIO", "1")]);
    assert_eq!(replay_create(&server, inline, 2).0, 202);
}
