//! Tool schemas an assistant can fill in without guessing (issue 25, "Easy for a model to
//! call"): switches are JSON booleans, lists are arrays on every tool, counts are integers
//! with their range, a value of the wrong type is refused naming its argument, and no
//! description speaks of the command line.

use crate::mcp::{call, connect, error_map, runtime};
use crate::support::{self, Server};
use rmcp::model::Tool;
use serde_json::{Value, json};

/// Every tool the widest server offers, with a folder for files so file arguments show too.
async fn widest_tools(server: &Server, files: &str) -> Vec<Tool> {
    let (client, _) = connect(
        server,
        &["--allow-writes", "--allow-destructive", "--files", files],
    )
    .await;
    let tools = client.list_all_tools().await.expect("tools/list");
    client.cancel().await.expect("close");
    tools
}

fn property<'a>(tools: &'a [Tool], tool: &str, argument: &str) -> &'a Value {
    let tool = tools
        .iter()
        .find(|t| t.name == tool)
        .unwrap_or_else(|| panic!("no tool {tool}"));
    tool.input_schema
        .get("properties")
        .and_then(|properties| properties.get(argument))
        .unwrap_or_else(|| panic!("{} has no argument {argument}", tool.name))
}

#[test]
fn switches_are_booleans_lists_arrays_and_counts_ranged_integers() {
    let server = support::shared(module_path!());
    let files = tempfile::tempdir().expect("tempdir");
    let tools = runtime().block_on(widest_tools(server, &files.path().display().to_string()));
    // `recursive` is `--recursive true|false` on the command line: a switch to a tool.
    for tool in ["item_list", "folder_list"] {
        let recursive = property(&tools, tool, "recursive");
        assert_eq!(
            recursive["type"], "boolean",
            "{tool}.recursive: {recursive}"
        );
    }
    // `include` takes several properties on item list and one so far on item show: both lists.
    for tool in ["item_list", "item_show"] {
        let include = property(&tools, tool, "include");
        assert_eq!(include["type"], "array", "{tool}.include: {include}");
        assert_eq!(
            include["items"]["type"], "string",
            "{tool}.include: {include}"
        );
    }
    // A count of 1 or more (the service has no empty page to ask for).
    let limit = property(&tools, "item_list", "limit");
    assert_eq!(limit["type"], "integer", "{limit}");
    assert_eq!(limit["minimum"], 1, "{limit}");
    // Every property's type is one JSON Schema knows, and no integer is text.
    for tool in &tools {
        let properties = tool.input_schema["properties"]
            .as_object()
            .expect("properties");
        for (name, schema) in properties {
            let types: Vec<&str> = match &schema["type"] {
                Value::String(one) => vec![one.as_str()],
                Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
                other => panic!("{}.{name}: no type: {other}", tool.name),
            };
            for kind in &types {
                assert!(
                    ["string", "integer", "boolean", "array", "object"].contains(kind),
                    "{}.{name}: {kind}",
                    tool.name
                );
            }
            if let Some(Value::String(default)) = schema.get("default") {
                assert!(
                    !["true", "false"].contains(&default.as_str())
                        && default.parse::<i64>().is_err(),
                    "{}.{name}: a boolean or number default given as text: {default:?}",
                    tool.name
                );
            }
            if let Some(minimum) = schema.get("minimum") {
                assert_eq!(schema["type"], "integer", "{}.{name}", tool.name);
                assert!(minimum.is_i64(), "{}.{name}: {minimum}", tool.name);
            }
        }
    }
}

#[test]
fn an_argument_of_the_wrong_type_is_refused_naming_it_before_anything_is_sent() {
    let server = Server::session(module_path!());
    let cases = [
        (json!({"recursive": "true"}), "recursive", "a boolean"),
        (json!({"limit": "5"}), "limit", "an integer"),
        (json!({"include": "folderId"}), "include", "an array"),
        (json!({"limit": 0}), "limit", "1"),
        (json!({"all": "yes"}), "all", "a boolean"),
    ];
    runtime().block_on(async {
        let (client, _) = connect(&server, &["-w", server.demo.as_str()]).await;
        let before = server.request_count();
        for (arguments, named, expected) in &cases {
            let result = call(&client, "item_list", arguments.clone()).await;
            let message = error_map(&result)["message"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            assert!(
                message.contains(&format!("`{named}`")) && message.contains(expected),
                "{arguments}: {message}"
            );
            assert!(!message.contains("--"), "{arguments}: {message}");
        }
        assert_eq!(
            server.request_count(),
            before,
            "a refused call sent requests: {:?}",
            server.request_paths()
        );
        // The right types go through: a switch as a boolean, a list as an array.
        let listed = call(
            &client,
            "item_list",
            json!({"recursive": false, "include": ["folderId"], "limit": 2}),
        )
        .await;
        assert_ne!(listed.is_error, Some(true), "{listed:?}");
        client.cancel().await.expect("close");
    });
}

/// Words about a terminal that mean nothing to an assistant calling a tool.
const COMMAND_LINE_WORDS: &[&str] = &["--", "exit code", "stderr", "stdin", "command line"];

fn command_line_words(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    COMMAND_LINE_WORDS
        .iter()
        .copied()
        .filter(|word| lower.contains(word))
        .collect()
}

#[test]
fn descriptions_speak_to_an_assistant_not_a_terminal() {
    let server = support::shared(module_path!());
    let files = tempfile::tempdir().expect("tempdir");
    let tools = runtime().block_on(widest_tools(server, &files.path().display().to_string()));
    let mut found = Vec::new();
    for tool in &tools {
        let description = tool.description.as_deref().unwrap_or_default();
        for word in command_line_words(description) {
            found.push(format!("{}: {word:?} in {description:?}", tool.name));
        }
        let properties = tool.input_schema["properties"]
            .as_object()
            .expect("properties");
        for (name, schema) in properties {
            let text = schema["description"].as_str().unwrap_or_default();
            for word in command_line_words(text) {
                found.push(format!("{}.{name}: {word:?} in {text:?}", tool.name));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
