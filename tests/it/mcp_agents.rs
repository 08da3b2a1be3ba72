//! `mcp serve --agents`: one read-only tool per published data agent of the confined
//! workspaces, relayed to the agent as `data-agent query` asks it.

use crate::data_agent_query::{EXAMPLES, published};
use crate::mcp::{call, connect, names, runtime, structured};
use serde_json::json;

/// Orders in the demo lakehouse, by the demo generator's rules
/// (crates/fabsh-local/src/tables/demo.rs; tests/it/sql_ground_truth.rs regenerates them).
const DEMO_ORDERS: u64 = 3_000;

#[test]
fn published_agents_of_the_confined_workspace_are_tools_that_answer() {
    let fx = published(module_path!(), EXAMPLES);
    let server = &fx.server;
    // A draft nobody published, in the same workspace.
    server
        .fabsh(&[
            "data-agent",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "Draft agent",
        ])
        .ok_json();
    // A published agent of another workspace.
    server
        .fabsh(&["workspace", "create", "--name", "Elsewhere"])
        .ok_json();
    server
        .fabsh(&[
            "data-agent",
            "create",
            "-w",
            "Elsewhere",
            "--name",
            "Other agent",
        ])
        .ok_json();
    server
        .fabsh(&[
            "data-agent",
            "publish",
            "-w",
            "Elsewhere",
            "--id",
            "Other agent",
            "--description",
            "Elsewhere's questions",
        ])
        .ok_json();
    runtime().block_on(async {
        let (client, _) = connect(server, &["--agents", "-w", server.demo.as_str()]).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        let asks: Vec<String> = names(&tools)
            .into_iter()
            .filter(|name| name.starts_with("ask_"))
            .collect();
        assert_eq!(asks, ["ask_sales_agent"], "only Demo's published agent");
        let tool = tools
            .iter()
            .find(|tool| tool.name == "ask_sales_agent")
            .expect("ask_sales_agent");
        // What the tool does, then the description the fixture published with.
        let description = tool.description.as_deref().expect("a description");
        assert!(
            description.starts_with(&format!(
                "Asks the published data agent \"Sales agent\" of the workspace \"{}\"",
                server.demo
            )) && description.ends_with("The agent describes itself: Sales questions"),
            "{description}"
        );
        assert_eq!(tool.input_schema["required"], json!(["question"]));
        assert_eq!(
            tool.annotations.as_ref().and_then(|a| a.read_only_hint),
            Some(true)
        );
        let asked = call(
            &client,
            "ask_sales_agent",
            json!({"question": "How many orders are there?"}),
        )
        .await;
        assert_eq!(asked.is_error, Some(false), "{asked:?}");
        let answer = structured(&asked)["answer"].as_str().expect("answer");
        let digits: String = answer.chars().filter(char::is_ascii_digit).collect();
        assert_eq!(digits.parse::<u64>().ok(), Some(DEMO_ORDERS), "{answer}");
        let empty = call(&client, "ask_sales_agent", json!({})).await;
        assert_eq!(empty.is_error, Some(true), "{empty:?}");
        client.cancel().await.expect("close");
    });
    // Without --agents, no agent tools.
    runtime().block_on(async {
        let (client, _) = connect(server, &["-w", server.demo.as_str()]).await;
        let tools = client.list_all_tools().await.expect("tools/list");
        assert!(names(&tools).iter().all(|name| !name.starts_with("ask_")));
        client.cancel().await.expect("close");
    });
}

#[test]
fn agents_without_a_workspace_is_refused() {
    let server = crate::support::shared(module_path!());
    let refused = server.fabsh(&["mcp", "serve", "--agents"]);
    assert_eq!(refused.code, 2, "{refused:?}");
    assert!(
        refused.stderr.contains("--agents") && refused.stderr.contains("--workspace"),
        "{}",
        refused.stderr
    );
}
