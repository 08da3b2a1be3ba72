//! Parameterisation, one case per row: a parameter.yml, an environment, one part's text, and
//! the text fabric-cicd's documented rules make of it (find_replace by literal or by a
//! regex's group 1 and item filters, key_value_replace by JSONPath, `$workspace.id`, `$ENV:`,
//! the all-zero workspace id under the keys fabric-cicd reads). The expected texts are written here by hand from
//! those rules, not produced by the renderer.

use super::{Renderer, RuleHits, Target};
use crate::env_vars::EnvVars;
use crate::params::Parameters;
use crate::repo::{RepoItem, RepoPart};
use std::path::Path;

const TARGET_WORKSPACE: &str = "99999999-8888-7777-6666-555555555555";

/// One part of one item, as the repository would hold it.
fn item(item_type: &str, name: &str, path: &str, text: &str) -> RepoItem {
    RepoItem {
        item_type: item_type.into(),
        display_name: name.into(),
        description: None,
        logical_id: "11111111-0000-0000-0000-000000000001".into(),
        folder: String::new(),
        dir: format!("{name}.{item_type}"),
        parts: vec![RepoPart {
            path: path.into(),
            bytes: text.as_bytes().to_vec(),
        }],
        platform: serde_json::json!({}),
        parent_logical_id: None,
    }
}

/// What the renderer makes of `item`'s one part, with the problems it reported (by code).
fn render(
    yaml: &str,
    environment: Option<&str>,
    item: RepoItem,
    env: EnvVars,
) -> (String, Vec<String>) {
    let params: Parameters = serde_yaml_ng::from_str(yaml).expect("parameter.yml");
    let target = Target {
        workspace_id: Some(TARGET_WORKSPACE.into()),
        workspace_name: Some("Sales".into()),
        env,
        ..Target::default()
    };
    let items = [item];
    let renderer = Renderer {
        root: Path::new("/repo"),
        params: &params,
        environment,
        items: &items,
        outside: &[],
        target: &target,
    };
    let mut hits = RuleHits::new(&params);
    let rendered = renderer.render(0, &mut hits);
    let text = String::from_utf8(rendered.parts[0].bytes.clone()).expect("text");
    let codes = rendered.problems.iter().map(|p| p.code.clone()).collect();
    (text, codes)
}

struct Case {
    name: &'static str,
    yaml: &'static str,
    environment: Option<&'static str>,
    /// The item's type and name, and its one part's path and text.
    item: (&'static str, &'static str, &'static str, &'static str),
    expected: &'static str,
}

const NOTEBOOK: &str = "notebook-content.py";

const CASES: &[Case] = &[
    Case {
        name: "a literal find_value takes the environment's replace_value, everywhere",
        yaml: "find_replace:\n  - find_value: dev-server\n    replace_value:\n      PPE: ppe-server\n      PROD: prod-server\n",
        environment: Some("PROD"),
        item: (
            "Notebook",
            "Nb",
            NOTEBOOK,
            "a = 'dev-server'\nb = 'dev-server'\n",
        ),
        expected: "a = 'prod-server'\nb = 'prod-server'\n",
    },
    Case {
        name: "_ALL_ stands for an environment the rule does not name",
        yaml: "find_replace:\n  - find_value: dev-server\n    replace_value:\n      _ALL_: any-server\n      PROD: prod-server\n",
        environment: Some("PPE"),
        item: ("Notebook", "Nb", NOTEBOOK, "s = 'dev-server'\n"),
        expected: "s = 'any-server'\n",
    },
    Case {
        name: "an environment with no value and no _ALL_ leaves the part as it is",
        yaml: "find_replace:\n  - find_value: dev-server\n    replace_value:\n      PROD: prod-server\n",
        environment: Some("PPE"),
        item: ("Notebook", "Nb", NOTEBOOK, "s = 'dev-server'\n"),
        expected: "s = 'dev-server'\n",
    },
    Case {
        name: "a regex replaces what its group 1 captured, and only that",
        yaml: "find_replace:\n  - find_value: 'lakehouse_id = \"([0-9a-f-]{36})\"'\n    is_regex: \"true\"\n    replace_value:\n      PROD: aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee\n",
        environment: Some("PROD"),
        item: (
            "Notebook",
            "Nb",
            NOTEBOOK,
            "lakehouse_id = \"12345678-1234-1234-1234-123456789abc\"\n# 12345678-1234-1234-1234-123456789abc\n",
        ),
        expected: "lakehouse_id = \"aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee\"\n# aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee\n",
    },
    Case {
        name: "an item_type filter keeps a rule off other types",
        yaml: "find_replace:\n  - find_value: dev-server\n    replace_value:\n      PROD: prod-server\n    item_type: DataPipeline\n",
        environment: Some("PROD"),
        item: ("Notebook", "Nb", NOTEBOOK, "s = 'dev-server'\n"),
        expected: "s = 'dev-server'\n",
    },
    Case {
        name: "an item_name filter lets the rule apply to the item it names",
        yaml: "find_replace:\n  - find_value: dev-server\n    replace_value:\n      PROD: prod-server\n    item_name: [Other, Nb]\n",
        environment: Some("PROD"),
        item: ("Notebook", "Nb", NOTEBOOK, "s = 'dev-server'\n"),
        expected: "s = 'prod-server'\n",
    },
    Case {
        name: "a file_path glob matches the part's path under the repository",
        yaml: "find_replace:\n  - find_value: dev-server\n    replace_value:\n      PROD: prod-server\n    file_path: '**/*.py'\n",
        environment: Some("PROD"),
        item: ("Notebook", "Nb", NOTEBOOK, "s = 'dev-server'\n"),
        expected: "s = 'prod-server'\n",
    },
    Case {
        name: "$workspace.id is the target workspace's id",
        yaml: "find_replace:\n  - find_value: dev-workspace\n    replace_value:\n      _ALL_: $workspace.id\n",
        environment: Some("PROD"),
        item: ("Notebook", "Nb", NOTEBOOK, "w = 'dev-workspace'\n"),
        expected: "w = '99999999-8888-7777-6666-555555555555'\n",
    },
    Case {
        name: "the all-zero id under a workspace key becomes the target's, outside any rule",
        yaml: "",
        environment: Some("PROD"),
        item: (
            "Notebook",
            "Nb",
            NOTEBOOK,
            "# META \"default_lakehouse_workspace_id\": \"00000000-0000-0000-0000-000000000000\"\nother = \"00000000-0000-0000-0000-000000000000\"\n",
        ),
        expected: "# META \"default_lakehouse_workspace_id\": \"99999999-8888-7777-6666-555555555555\"\nother = \"00000000-0000-0000-0000-000000000000\"\n",
    },
    Case {
        name: "a variable library gets the rules but keeps the all-zero id",
        yaml: "find_replace:\n  - find_value: dev-server\n    replace_value:\n      PROD: prod-server\n",
        environment: Some("PROD"),
        item: (
            "VariableLibrary",
            "Vars",
            "variables.json",
            "{\"s\": \"dev-server\", \"workspaceId\": \"00000000-0000-0000-0000-000000000000\"}",
        ),
        expected: "{\"s\": \"prod-server\", \"workspaceId\": \"00000000-0000-0000-0000-000000000000\"}",
    },
    Case {
        name: "key_value_replace sets the value a JSONPath names, for the environment",
        yaml: "key_value_replace:\n  - find_key: $.properties.activities[?(@.name==\"Copy\")].typeProperties.source.connection\n    replace_value:\n      PROD: prod-connection\n",
        environment: Some("PROD"),
        item: (
            "DataPipeline",
            "Pipe",
            "pipeline-content.json",
            "{\"properties\":{\"activities\":[{\"name\":\"Copy\",\"typeProperties\":{\"source\":{\"connection\":\"dev-connection\"}}},{\"name\":\"Other\",\"typeProperties\":{\"source\":{\"connection\":\"dev-connection\"}}}]}}",
        ),
        expected: "prod-connection|dev-connection",
    },
];

/// The two connections of the pipeline case, as `first|second`: key_value_replace writes the
/// part back as JSON (its formatting is the writer's), so the values are what is compared.
fn connections(text: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(text).expect("json");
    let activities = value["properties"]["activities"]
        .as_array()
        .expect("activities");
    activities
        .iter()
        .map(|a| {
            a["typeProperties"]["source"]["connection"]
                .as_str()
                .unwrap_or("?")
        })
        .collect::<Vec<_>>()
        .join("|")
}

#[test]
fn parameter_rules_make_the_texts_fabric_cicd_documents() {
    let mut failures = Vec::new();
    for case in CASES {
        let (item_type, name, path, text) = case.item;
        let (rendered, problems) = render(
            case.yaml,
            case.environment,
            item(item_type, name, path, text),
            EnvVars::default(),
        );
        let shown = if item_type == "DataPipeline" {
            connections(&rendered)
        } else {
            rendered
        };
        if shown != case.expected || !problems.is_empty() {
            failures.push(format!(
                "{}:\n  expected {:?}\n  got      {:?} (problems {problems:?})",
                case.name, case.expected, shown
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_invalid_rule_is_a_problem_and_changes_nothing() {
    let cases = [
        (
            "find_replace:\n  - find_value: '([unclosed'\n    is_regex: \"true\"\n    replace_value:\n      PROD: x\n",
            "InvalidRegex",
        ),
        (
            "find_replace:\n  - find_value: 'no group'\n    is_regex: \"true\"\n    replace_value:\n      PROD: x\n",
            "InvalidRegex",
        ),
        (
            "find_replace:\n  - find_value: dev-server\n    replace_value:\n      PROD: $workspace.nothing\n",
            "InvalidVariable",
        ),
    ];
    let text = "s = 'dev-server' # no group\n";
    for (yaml, code) in cases {
        let (rendered, problems) = render(
            yaml,
            Some("PROD"),
            item("Notebook", "Nb", NOTEBOOK, text),
            EnvVars::default(),
        );
        assert_eq!(rendered, text, "{yaml}");
        assert_eq!(problems, [code], "{yaml}");
    }
}
