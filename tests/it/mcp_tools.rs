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
    assert!(wrong.stderr.contains("--tools"), "{}", wrong.stderr);
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
