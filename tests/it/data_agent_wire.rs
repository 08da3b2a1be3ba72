//! The data-agent commands send what the service's contract asks for and read what it may
//! answer (issue 14, client side). The contract is Microsoft's swagger, vendored under
//! `tests/fixtures/fabric-rest-api-specs` (commit 4a7d6e4, MIT): each test names the operation
//! or definition it pins.

use crate::bad_input::assert_rejected;
use crate::data_agent_query::{EXAMPLES, published};
use crate::data_agents::AgentFixture;
use crate::judge_stub::{self, Judge};
use crate::support::{Run, Server};
use fabsh::commands::REGISTRY;
use fabsh_client::commands::ArgKind;
use serde_json::Value;
use std::collections::BTreeSet;

/// A vendored swagger file, parsed.
pub(crate) fn swagger(path: &str) -> Value {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fabric-rest-api-specs")
        .join(path);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|err| panic!("{file:?}: {err}"));
    serde_json::from_str(&text).expect("swagger JSON")
}

/// A definition of `dataAgent/definitions.json`.
fn definition(name: &str) -> Value {
    swagger("dataAgent/definitions.json")["definitions"][name].clone()
}

fn keys(object: &Value) -> BTreeSet<String> {
    object
        .as_object()
        .expect("object")
        .keys()
        .cloned()
        .collect()
}

/// The requests a `--dry-run` printed.
fn planned(run: &Run) -> Vec<Value> {
    run.ok_json()["requests"]
        .as_array()
        .expect("requests")
        .clone()
}

#[test]
fn every_workspace_and_agent_flag_takes_a_name() {
    // SPEC §4.2 types -w/--id as uuid on these six; `publish -w Demo` always took names, so
    // they take names too. "Demo" and its lakehouse come from local Fabric's demo data.
    let fx = AgentFixture::new(module_path!());
    fx.add_lakehouse();
    let named = |command: &str, rest: &[&str]| {
        let mut args = vec![
            "data-agent",
            command,
            "-w",
            fx.server.demo.as_str(),
            "--id",
            "Sales agent",
        ];
        args.extend_from_slice(rest);
        fx.server.fabsh(&args)
    };
    let source = ["--datasource", "SalesLakehouse"];
    let added = fx.ok(
        "add-fewshot",
        &[
            "--datasource",
            "SalesLakehouse",
            "--question",
            "How many orders?",
            "--sql",
            "SELECT COUNT(*) FROM dbo.orders",
        ],
    );
    let fewshot = added["id"].as_str().expect("few-shot id").to_string();
    fx.ok("publish", &[]);
    let with = |extra: &[&'static str]| [&source[..], extra].concat();
    let ok = |command: &str, rest: &[&str]| {
        let run = named(command, rest);
        assert_eq!(run.code, 0, "{command}: {}", run.stderr);
    };
    ok("update-datasource", &with(&["--instructions", "EUR"]));
    ok(
        "show-fewshot",
        &[&with(&[])[..], &["--fewshot-id", &fewshot]].concat(),
    );
    ok(
        "update-fewshot",
        &[
            &with(&["--question", "Orders?"])[..],
            &["--fewshot-id", &fewshot],
        ]
        .concat(),
    );
    ok("clear-fewshots", &with(&["--yes"]));
    ok("reset", &["--yes"]);
    // The names resolve; the service then refuses to delete an element still in the schema.
    let element = named(
        "delete-element",
        &with(&[
            "--element-id",
            "U2NoZW1hcy9kYm8vVGFibGVzL29yZGVycw==",
            "--yes",
        ]),
    );
    assert_eq!(element.code, 1, "{}", element.stderr);
    assert!(
        element.stderr.contains("ElementStillAvailable"),
        "{}",
        element.stderr
    );
    // A blank value is neither an id nor a name: exit 2 naming the flag as typed, nothing
    // sent.
    for (flag, value, named) in [("-w", " ", "-w"), ("--id", "", "--id")] {
        let mut args = vec![
            "data-agent",
            "reset",
            "-w",
            fx.server.demo.as_str(),
            "--id",
            "Sales agent",
        ];
        let at = args.iter().position(|arg| *arg == flag).expect("flag") + 1;
        args[at] = value;
        args.push("--yes");
        assert_rejected(&fx.server, &args, &format!("{named} is empty"));
    }
}

#[test]
fn the_artifact_types_are_the_services_supported_item_types() {
    // `DataAgentSupportedItemType`: what a FabricItem datasource may be (Lakehouse included,
    // though it is added as LakehouseTables).
    let service: BTreeSet<String> = definition("DataAgentSupportedItemType")["enum"]
        .as_array()
        .expect("enum")
        .iter()
        .map(|value| value.as_str().expect("text").to_string())
        .collect();
    let spec = REGISTRY
        .find("data-agent", "add-datasource")
        .expect("add-datasource");
    let flag = spec
        .args
        .iter()
        .find(|arg| arg.long == "artifact-type")
        .expect("--artifact-type");
    let ArgKind::Enum(values) = flag.kind else {
        panic!("--artifact-type is not an enum");
    };
    let ours: BTreeSet<String> = values
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    assert_eq!(ours, service);
}

#[test]
fn datasource_creates_send_only_what_the_request_declares() {
    // Staging_CreateDatasource takes `CreateDataAgentDatasourceRequest`: `type` and a
    // reference, no `fabricItemType` and no instructions (those go in a PATCH, whose
    // `UpdateDataAgentDatasourceRequest` declares them).
    let fx = AgentFixture::new(module_path!());
    let declared = keys(&definition("CreateDataAgentDatasourceRequest")["properties"]);
    let example = swagger("dataAgent/examples/CreateStagingDataAgentWarehouseDatasource.json");
    let example_body = &example["parameters"]["createDataAgentDatasourceRequest"];
    let patchable = keys(&definition("UpdateDataAgentDatasourceRequest")["properties"]);
    for artifact in ["Sales Model", "SalesLakehouse"] {
        let run = fx.run(
            "add-datasource",
            &[
                "--artifact",
                artifact,
                "--instructions",
                "Amounts are in EUR",
                "--dry-run",
            ],
        );
        let requests = planned(&run);
        let create = &requests[0];
        assert_eq!(create["method"], "POST", "{requests:?}");
        assert!(keys(&create["body"]).is_subset(&declared), "{create}");
        if artifact == "Sales Model" {
            assert_eq!(keys(&create["body"]), keys(example_body));
        }
        let patch = &requests[1];
        assert_eq!(patch["method"], "PATCH", "{requests:?}");
        assert!(keys(&patch["body"]).is_subset(&patchable), "{patch}");
        assert_eq!(patch["body"]["instructions"], "Amounts are in EUR");
    }
}

#[test]
fn a_datasource_added_through_an_operation_keeps_its_instructions() {
    // Staging_CreateDatasource may answer 202 with headers only (its swagger example): the
    // instructions must still land, and the command must print the datasource, not null.
    let example = swagger("dataAgent/examples/CreateStagingDataAgentDatasource.json");
    assert!(example["responses"]["202"].get("body").is_none());
    let fx = AgentFixture::on(Server::with(&[("async-ratio", "1")]));
    let added = fx.ok(
        "add-datasource",
        &[
            "--artifact",
            "SalesLakehouse",
            "--instructions",
            "Amounts are in EUR",
        ],
    );
    assert_eq!(added["instructions"], "Amounts are in EUR", "{added}");
    assert_eq!(added["displayName"], "SalesLakehouse", "{added}");
    let shown = fx.ok("show-datasource", &["--datasource", "SalesLakehouse"]);
    assert_eq!(shown["instructions"], "Amounts are in EUR", "{shown}");
    assert_eq!(shown["id"], added["id"]);
}

#[test]
fn describing_an_element_without_text_sends_an_empty_string() {
    // Staging_UpdateDatasourceElement updates only the fields given, and its `description`
    // is a string: a null would leave the old description; an empty string clears it.
    let fx = AgentFixture::new(module_path!());
    fx.add_lakehouse();
    let declared =
        definition("UpdateDataSourceElementRequest")["properties"]["description"]["type"].clone();
    assert_eq!(declared, "string");
    let path = ["--datasource", "SalesLakehouse", "--path", "dbo.orders"];
    fx.ok(
        "describe-element",
        &[&path[..], &["--description", "Orders"]].concat(),
    );
    let run = fx.run("describe-element", &[&path[..], &["--dry-run"]].concat());
    let requests = planned(&run);
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0]["body"]["description"], "", "{requests:?}");
    let cleared = fx.ok("describe-element", &path);
    assert_eq!(cleared["description"], Value::Null, "{cleared}");
}

#[test]
fn publish_answers_with_the_published_description() {
    // Items_PublishDataAgent answers `{publishedDescription}`; when an operation ends without
    // a result, the same answer is read from the agent's `properties.publishedDescription`
    // (GetDataAgent).
    let get = swagger("dataAgent/examples/GetDataAgent.json");
    let publish = swagger("dataAgent/examples/PublishDataAgent.json");
    let from_agent =
        fabsh_api::api::data_agents::published_answer(&get["responses"]["200"]["body"]);
    assert_eq!(
        keys(&from_agent),
        keys(&publish["responses"]["200"]["body"])
    );
    assert_eq!(from_agent["publishedDescription"], "Published via API");
    let fx = AgentFixture::new(module_path!());
    let published = fx.ok("publish", &["--description", "Sales questions"]);
    assert_eq!(published["publishedDescription"], "Sales questions");
}

#[test]
fn reasoning_judges_are_asked_without_a_temperature() {
    // Reasoning models (o-series, gpt-5.x) answer 400 to `temperature: 0`, which made every
    // grade "unclear". The stand-in judge refuses it as they do.
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("questions.json");
    std::fs::write(&file, r#"["How many orders are there?"]"#).expect("write");
    for model in ["o3-mini", "reasoning-deployment"] {
        let judge = Judge::start();
        let run = fx.server.fabsh_env(
            &[
                "data-agent",
                "evaluate",
                "-w",
                &fx.workspace,
                "--id",
                &fx.agent,
                "--questions",
                &file.to_string_lossy(),
                "--llm-endpoint",
                judge.endpoint(),
                "--llm-model",
                model,
            ],
            &[("FABSH_LLM_KEY", judge_stub::KEY)],
        );
        let out = run.ok_json();
        let row = &out["rows"][0];
        assert_eq!(row["rule"], "judge", "{model}: {row}");
        assert_ne!(row["verdict"], "unclear", "{model}: {row}");
        let graded = judge.seen();
        assert!(
            graded
                .iter()
                .all(|seen| seen.body.get("temperature").is_none()),
            "{model}"
        );
    }
}
