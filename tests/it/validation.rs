//! `item validate-definition`: every rule with a failing and a passing case, run offline (no
//! endpoint, no credentials), with the exit codes `--strict` decides.

use crate::support::{Home, Run};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

const LOGICAL_ID: &str = "8f1a1c0e-5b1e-4a57-9a3c-0f5c9b6e2d11";

fn part(path: &str, content: &[u8]) -> Value {
    json!({"path": path, "payload": STANDARD.encode(content), "payloadType": "InlineBase64"})
}

fn platform(item_type: &str, name: Option<&str>, logical_id: &str) -> Value {
    let mut metadata = json!({"type": item_type});
    if let Some(name) = name {
        metadata["displayName"] = json!(name);
    }
    let doc = json!({
        "$schema": "https://developer.microsoft.com/json-schemas/fabric/gitIntegration/platformProperties/2.0.0/schema.json",
        "metadata": metadata,
        "config": {"version": "2.0", "logicalId": logical_id},
    });
    part(".platform", doc.to_string().as_bytes())
}

fn notebook() -> Value {
    part("notebook-content.py", b"# Fabric notebook source\n")
}

fn validate(
    home: &Home,
    definition: &Value,
    item_type: Option<&str>,
    strict: bool,
) -> (Run, Value) {
    let file = home.dir.path().join("definition.json");
    std::fs::write(&file, definition.to_string()).expect("write");
    let path = file.to_string_lossy().into_owned();
    let mut args = vec!["item", "validate-definition", "--file", path.as_str()];
    if let Some(item_type) = item_type {
        args.extend(["--type", item_type]);
    }
    if strict {
        args.extend(["--strict", "true"]);
    }
    let run = home.run(&args);
    let report = run.json();
    (run, report)
}

fn codes(report: &Value, list: &str) -> Vec<String> {
    report[list]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["code"].as_str().expect("code").to_string())
        .collect()
}

/// (rule, is an error, failing definition, passing definition, --type)
fn cases() -> Vec<(&'static str, bool, Value, Value, Option<&'static str>)> {
    let good = json!({"parts": [notebook(), platform("Notebook", Some("N"), LOGICAL_ID)]});
    vec![
        (
            "InvalidEnvelope",
            true,
            json!({"parts": "notebook-content.py"}),
            good.clone(),
            None,
        ),
        (
            "EmptyDefinition",
            true,
            json!({"definition": {"parts": []}}),
            json!({"definition": {"parts": [notebook()]}}),
            None,
        ),
        (
            "UnsafePath",
            true,
            json!({"parts": [part("../notebook-content.py", b"x")]}),
            json!({"parts": [part("sub/notebook-content.py", b"x")]}),
            None,
        ),
        (
            "DuplicatePath",
            true,
            json!({"parts": [notebook(), notebook()]}),
            json!({"parts": [notebook()]}),
            None,
        ),
        (
            "InvalidBase64",
            true,
            json!({"parts": [{"path": "a.py", "payload": "%%%", "payloadType": "InlineBase64"}]}),
            json!({"parts": [part("a.py", b"x")]}),
            None,
        ),
        (
            "InvalidJson",
            true,
            json!({"parts": [part("pipeline-content.json", b"{nope")]}),
            json!({"parts": [part("pipeline-content.json", b"{}")]}),
            None,
        ),
        (
            "InvalidPlatform",
            true,
            json!({"parts": [notebook(), platform("Notebook", None, "not-a-guid")]}),
            good.clone(),
            None,
        ),
        (
            "TypeMismatch",
            true,
            json!({"parts": [notebook(), platform("Report", Some("N"), LOGICAL_ID)]}),
            good.clone(),
            Some("Notebook"),
        ),
        (
            "MissingRequiredPart",
            true,
            json!({"parts": [part("definition.pbir", b"{}")]}),
            json!({"parts": [part("definition.pbir", b"{}"), part("report.json", b"{}")]}),
            Some("Report"),
        ),
        (
            "NoDefinitionSupport",
            true,
            good.clone(),
            good.clone(),
            Some("Warehouse"),
        ),
        (
            "NonCanonicalPath",
            false,
            json!({"parts": [notebook(), part("notes.txt", b"x")]}),
            good.clone(),
            Some("Notebook"),
        ),
        (
            "UnknownFormat",
            false,
            json!({"format": "html", "parts": [notebook()]}),
            json!({"format": "fabricGitSource", "parts": [notebook()]}),
            Some("Notebook"),
        ),
        (
            "UnknownType",
            false,
            json!({"parts": [notebook()]}),
            good.clone(),
            Some("NoSuchType"),
        ),
        (
            "PayloadTypeMissing",
            false,
            json!({"parts": [{"path": "a.py", "payload": "eA=="}]}),
            json!({"parts": [part("a.py", b"x")]}),
            None,
        ),
    ]
}

#[test]
fn every_rule_has_a_failing_and_a_passing_case() {
    let home = Home::new();
    for (rule, is_error, failing, passing, item_type) in cases() {
        let (run, report) = validate(&home, &failing, item_type, false);
        let list = if is_error { "errors" } else { "warnings" };
        assert!(
            codes(&report, list).iter().any(|c| c == rule),
            "{rule} not reported: {report}"
        );
        let finding = report[list]
            .as_array()
            .expect("list")
            .iter()
            .find(|f| f["code"] == rule)
            .expect("finding");
        assert!(
            finding.get("path").is_some(),
            "{rule}: every finding has a path key"
        );
        if is_error {
            assert_eq!(run.code, 2, "{rule}: errors exit 2");
            assert_eq!(report["valid"], false);
        } else {
            assert_eq!(run.code, 0, "{rule}: warnings alone pass");
            let (strict, _) = validate(&home, &failing, item_type, true);
            assert_eq!(strict.code, 2, "{rule}: --strict makes warnings fail");
        }
        // The passing case: the rule says nothing (the cases for the type rules that cannot
        // pass for that type — UnknownType, NoDefinitionSupport — pass without --type).
        let passing_type = if matches!(rule, "UnknownType" | "NoDefinitionSupport") {
            None
        } else {
            item_type
        };
        let (run, report) = validate(&home, &passing, passing_type, true);
        assert_eq!(run.code, 0, "{rule}: passing case failed: {report}");
        assert!(!codes(&report, "errors").iter().any(|c| c == rule));
        assert!(!codes(&report, "warnings").iter().any(|c| c == rule));
    }
}

#[test]
fn findings_name_their_part() {
    let home = Home::new();
    let definition = json!({"parts": [part("definition.pbir", b"{oops"), part("extra.bin", b"x")]});
    let (_, report) = validate(&home, &definition, Some("Report"), false);
    let errors = report["errors"].as_array().expect("errors");
    assert!(
        errors
            .iter()
            .any(|f| f["code"] == "InvalidJson" && f["path"] == "definition.pbir"),
        "{report}"
    );
    assert!(
        errors
            .iter()
            .any(|f| f["code"] == "MissingRequiredPart" && f["path"] == "report.json"),
        "{report}"
    );
    let warnings = report["warnings"].as_array().expect("warnings");
    assert!(
        warnings
            .iter()
            .any(|f| f["code"] == "NonCanonicalPath" && f["path"] == "extra.bin"),
        "{report}"
    );
}

#[test]
fn a_part_over_the_type_limit_is_an_error() {
    let home = Home::new();
    let dir = home.dir.path().join("agent");
    std::fs::create_dir_all(dir.join("Files/Config/draft")).expect("dirs");
    std::fs::write(dir.join("Files/Config/data_agent.json"), "{}").expect("write");
    let stage = dir.join("Files/Config/draft/stage_config.json");
    std::fs::write(&stage, "{}").expect("write");
    let dir_text = dir.to_string_lossy().into_owned();
    let args = [
        "item",
        "validate-definition",
        "--type",
        "DataAgent",
        "--dir",
        &dir_text,
    ];
    assert_eq!(home.run(&args).code, 0, "within the limit");
    let big = format!("{{\"pad\": \"{}\"}}", "x".repeat(5 * 1024 * 1024));
    std::fs::write(&stage, big).expect("write");
    let run = home.run(&args);
    assert_eq!(run.code, 2);
    let report = run.json();
    assert!(
        codes(&report, "errors").contains(&"PartTooLarge".to_string()),
        "{report}"
    );
}

#[test]
fn a_source_is_required_and_only_one() {
    let home = Home::new();
    let none = home.run(&["item", "validate-definition", "--type", "Notebook"]);
    assert_eq!(none.code, 2);
    assert!(
        none.stderr.contains("one of --file, --definition, --dir"),
        "{}",
        none.stderr
    );
    let two = home.run(&[
        "item",
        "validate-definition",
        "--definition",
        "{}",
        "--dir",
        ".",
    ]);
    assert_eq!(two.code, 2);
    assert!(two.stderr.contains("only one"), "{}", two.stderr);
}
