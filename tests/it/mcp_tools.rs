//! What an assistant sees of `fabsh mcp serve`: tool sets small enough for clients that cap
//! them, and descriptions that say what a tool returns and what must be given.

use crate::mcp::{connect, names, runtime};
use crate::support;

#[test]
fn tools_selects_groups_commands_and_single_tools() {
    let server = support::shared(module_path!());
    runtime().block_on(async {
        let (client, _) = connect(
            server,
            &[
                "--allow-writes",
                "--tools",
                "folder,data-agent.query,item_list",
            ],
        )
        .await;
        let mut listed = names(&client.list_all_tools().await.expect("tools/list"));
        listed.sort();
        // The folder group as the registry declares it under --allow-writes (no delete).
        assert_eq!(
            listed,
            [
                "data_agent_query",
                "folder_create",
                "folder_list",
                "folder_move",
                "item_list"
            ]
        );
        client.cancel().await.expect("close");
    });
    let wrong = server.fabsh(&["mcp", "serve", "--tools", "items"]);
    assert_eq!(wrong.code, 2, "{wrong:?}");
    assert!(
        wrong.stderr.contains("--tools") && wrong.stderr.contains("did you mean item?"),
        "{}",
        wrong.stderr
    );
    // Far from any group: every group that has tools is named.
    let wrong = server.fabsh(&["mcp", "serve", "--tools", "nothing-like-it"]);
    assert_eq!(wrong.code, 2, "{wrong:?}");
    for group in ["sql", "deploy", "job", "schedule", "data-agent", "item"] {
        assert!(wrong.stderr.contains(group), "{group}: {}", wrong.stderr);
    }
}

#[test]
fn descriptions_say_what_a_tool_returns_and_that_prompt_is_required() {
    let server = support::shared(module_path!());
    runtime().block_on(async {
        let (client, _) = connect(server, &[]).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        for tool in &tools {
            let description = tool.description.as_deref().unwrap_or_default();
            assert!(
                description.contains("Returns"),
                "{}: {description}",
                tool.name
            );
        }
        let query = tools
            .iter()
            .find(|tool| tool.name == "data_agent_query")
            .expect("data_agent_query");
        let prompt = &query.input_schema["properties"]["prompt"]["description"];
        assert!(
            prompt
                .as_str()
                .is_some_and(|text| text.contains("required") && !text.contains("stdin")),
            "{prompt}"
        );
        client.cancel().await.expect("close");
    });
}

/// The tools a server started with `flags` lists.
fn listed(server: &support::Server, flags: &[&str]) -> Vec<rmcp::model::Tool> {
    runtime().block_on(async {
        let (client, _) = connect(server, flags).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        client.cancel().await.expect("close");
        tools
    })
}

/// The number after `word` in `text` (`offers 38`).
fn number_after(text: &str, word: &str) -> usize {
    let at = text
        .find(word)
        .unwrap_or_else(|| panic!("{word:?} in the README"))
        + word.len();
    text[at..]
        .trim_start()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|digits| digits.parse().ok())
        .unwrap_or_else(|| panic!("a number after {word:?}"))
}

#[test]
fn the_default_set_fits_forty_and_the_readme_counts_what_is_offered() {
    let server = support::shared(module_path!());
    let files = tempfile::tempdir().expect("dir");
    let folder = files.path().display().to_string();
    let default = listed(server, &[]);
    let writes = listed(server, &["--allow-writes"]);
    let with_files = listed(server, &["--files", &folder]);
    // Cursor keeps 40 tools.
    assert!(default.len() <= 40, "{}", default.len());
    assert!(with_files.len() <= 40, "{}", with_files.len());
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README");
    let counts = &readme[readme
        .find("the default server offers")
        .expect("the counts")..];
    assert_eq!(
        number_after(counts, "the default server offers"),
        default.len()
    );
    assert_eq!(number_after(counts, "with `--allow-writes`"), writes.len());
    // What cannot work without files is not offered without them.
    let default_names = names(&default);
    let file_names = names(&with_files);
    for tool in ["deploy_plan", "deploy_export"] {
        assert!(
            !default_names.contains(&tool.to_string()),
            "{tool} without --files"
        );
        assert!(
            file_names.contains(&tool.to_string()),
            "{tool} with --files"
        );
    }
    // Writing tools that read a repository come with --allow-writes only beside --files.
    let writes_and_files = names(&listed(server, &["--allow-writes", "--files", &folder]));
    for tool in ["deploy_apply", "deploy_promote"] {
        assert!(
            !names(&writes).contains(&tool.to_string()),
            "{tool} without --files"
        );
        assert!(
            writes_and_files.contains(&tool.to_string()),
            "{tool} with --files"
        );
    }
    // What is left out by default comes when --tools names its group.
    assert!(!default_names.contains(&"item_list_endorsements".to_string()));
    let item = names(&listed(server, &["--tools", "item"]));
    assert!(
        item.contains(&"item_list_endorsements".to_string()),
        "{item:?}"
    );
}

#[test]
fn a_tool_the_server_does_not_offer_is_answered_with_the_flag_that_offers_it() {
    let server = support::shared(module_path!());
    runtime().block_on(async {
        let (client, _) = connect(server, &[]).await;
        for (tool, flag) in [
            ("item_create", "--allow-writes"),
            ("item_delete", "--allow-destructive"),
            ("deploy_plan", "--files"),
            ("item_list_endorsements", "--tools"),
        ] {
            let refused = client
                .call_tool(rmcp::model::CallToolRequestParams::new(tool.to_string()))
                .await
                .expect_err("not offered");
            let text = refused.to_string();
            assert!(text.contains(tool) && text.contains(flag), "{tool}: {text}");
        }
        client.cancel().await.expect("close");
    });
}

#[test]
fn every_description_speaks_only_of_its_own_arguments() {
    let server = support::shared(module_path!());
    let files = tempfile::tempdir().expect("dir");
    let folder = files.path().display().to_string();
    let mut found = Vec::new();
    for flags in [&[][..], &["--allow-writes"][..], &["--files", &folder][..]] {
        for tool in listed(server, flags) {
            let description = tool.description.as_deref().unwrap_or_default();
            let properties = tool.input_schema["properties"]
                .as_object()
                .expect("properties");
            // Every `name` in backticks that is some command's flag is this tool's argument.
            for name in description.split('`').skip(1).step_by(2) {
                let is_flag = fabsh::commands::REGISTRY.all().any(|spec| {
                    fabsh_client::commands::common::effective_args(spec)
                        .iter()
                        .any(|arg| arg.snake_name() == name)
                });
                if is_flag && !properties.contains_key(name) {
                    found.push(format!("{flags:?} {}: `{name}`", tool.name));
                }
            }
            let lower = description.to_lowercase();
            for word in ["exit 6", "exit 7", "exits 7", "-o html", "fabsh_llm"] {
                if lower.contains(word) {
                    found.push(format!("{flags:?} {}: {word:?}", tool.name));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
