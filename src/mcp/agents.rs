//! `mcp serve --agents`: one tool per published data agent of the confined workspaces
//! (`ask_<agent>`), so any MCP client can ask a team's agents through fabsh's sign-in. The
//! agents are read once, when the server starts; a call is relayed as a `data_agent_query`
//! call on that agent, so it goes through the same checks and code path.

use super::confine::Confinement;
use fabsh_api::api::data_agents::{Agent, Stage, list_req};
use fabsh_client::context::Ctx;
use fabsh_client::error::{Error, Result};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::Arc;

/// The argument every agent tool takes.
pub(super) const QUESTION: &str = "question";

/// The longest tool name MCP clients accept.
const MAX_NAME: usize = 64;

/// One published agent offered as a tool.
#[derive(Debug, Clone)]
pub struct AgentTool {
    /// The tool's name: `ask_` and the agent's display name, sanitised.
    pub name: String,
    pub workspace: String,
    pub id: String,
    pub display_name: String,
    /// The publish description, or a sentence naming the agent and workspace.
    pub description: String,
}

/// An entry of the workspace's agent list, as far as a tool needs it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Listed {
    id: String,
    #[serde(default)]
    display_name: String,
}

/// The agent item's `properties` (`GetDataAgent`), as far as a tool needs them.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Properties {
    #[serde(default)]
    published_description: Option<String>,
}

/// Every published agent of the confined workspaces, named by [`name_all`].
pub async fn published(ctx: &Ctx, confinement: &Confinement) -> Result<Vec<AgentTool>> {
    let mut found = Vec::new();
    for (workspace, workspace_name) in confinement.workspaces() {
        for value in ctx.api().all(list_req(&workspace)).await? {
            let listed: Listed = serde_json::from_value(value).map_err(|err| {
                Error::runtime("the service's data agent list was not understood").with_cause(err)
            })?;
            let agent = Agent {
                workspace: workspace.clone(),
                id: listed.id.clone(),
            };
            // Only the published stage answers questions; an agent never published has none.
            match agent.settings(ctx.api(), Stage::Published).await {
                Ok(_) => {}
                Err(err) if err.has_code("DataAgentNotPublished") || err.status == Some(404) => {
                    continue;
                }
                Err(err) => return Err(err),
            }
            let item = agent.get(ctx.api()).await?;
            // An agent item without the properties read here is described by the tool's own
            // words alone: what it says of itself is a nicety, not worth refusing the agent.
            let properties = serde_json::from_value::<Properties>(item["properties"].clone()).ok();
            // What the tool does, whatever the publisher wrote; then what the agent says of
            // itself ("Sales questions v2" alone tells a model nothing about the tool).
            let mut description = format!(
                "Asks the published data agent {:?} of the workspace {workspace_name:?} a \
                 question in plain language and returns its answer, which the agent finds in \
                 the data sources it was published with (it writes and runs the queries itself).",
                listed.display_name
            );
            if let Some(own) = properties
                .and_then(|properties| properties.published_description)
                .map(|text| text.trim().to_string())
                .filter(|text| !text.is_empty())
            {
                description.push_str(&format!(" The agent describes itself: {own}"));
            }
            found.push(AgentTool {
                name: String::new(),
                workspace: workspace.clone(),
                id: listed.id,
                display_name: listed.display_name,
                description,
            });
        }
    }
    name_all(&mut found);
    Ok(found)
}

/// Gives each agent its tool name, unique and stable: agents are ordered by sanitised name,
/// workspace and id, and a name taken already gets `_2`, `_3`, ...
fn name_all(agents: &mut [AgentTool]) {
    agents.sort_by(|a, b| {
        (sanitised(&a.display_name), &a.workspace, &a.id).cmp(&(
            sanitised(&b.display_name),
            &b.workspace,
            &b.id,
        ))
    });
    let mut taken: HashMap<String, usize> = HashMap::new();
    for agent in agents {
        let base = tool_name(&agent.display_name);
        let count = taken.entry(base.clone()).or_default();
        *count += 1;
        agent.name = if *count == 1 {
            base
        } else {
            format!("{base}_{count}")
        };
    }
}

/// `ask_` and the display name in the tool-name charset, within the length clients accept
/// (room is left for a `_N` suffix).
fn tool_name(display_name: &str) -> String {
    let mut name = format!("ask_{}", sanitised(display_name));
    name.truncate(MAX_NAME - 4);
    name.trim_end_matches('_').to_string()
}

/// Lowercase, runs of anything outside `[a-z0-9_-]` as one `_`, none at the ends; `agent`
/// for a name with nothing left.
fn sanitised(display_name: &str) -> String {
    let mut out = String::new();
    for c in display_name.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_');
    if out.is_empty() {
        "agent".to_string()
    } else {
        out.to_string()
    }
}

impl AgentTool {
    /// The MCP tool: read-only, one required `question`.
    pub fn tool(&self) -> Tool {
        let schema = json!({
            "type": "object",
            "properties": {
                QUESTION: {"type": "string", "description": "The question for the agent"}
            },
            "required": [QUESTION],
        });
        let Value::Object(schema) = schema else {
            unreachable!("a JSON object literal")
        };
        let schema: JsonObject = schema;
        let title = format!("Ask {}", self.display_name);
        let mut tool = Tool::default();
        tool.name = self.name.clone().into();
        tool.title = Some(title.clone());
        tool.description = Some(self.description.clone().into());
        tool.input_schema = Arc::new(schema);
        tool.annotations = Some(
            ToolAnnotations::with_title(title)
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(true),
        );
        tool
    }

    /// The `data_agent_query` arguments asking this agent the call's question.
    pub fn query_arguments(&self, arguments: &Map<String, Value>) -> Result<Map<String, Value>> {
        let question = match arguments.get(QUESTION) {
            Some(Value::String(text)) if !text.trim().is_empty() => text.clone(),
            _ => {
                return Err(
                    Error::usage("argument `question` is required: a non-empty string")
                        .with_hint(format!("call {} with {{\"question\": \"...\"}}", self.name)),
                );
            }
        };
        if let Some(other) = arguments.keys().find(|key| *key != QUESTION) {
            return Err(Error::usage(format!(
                "{} takes only `question`, not `{other}`",
                self.name
            )));
        }
        let mut query = Map::new();
        query.insert("workspace".into(), json!(self.workspace));
        query.insert("id".into(), json!(self.id));
        query.insert("prompt".into(), json!(question));
        Ok(query)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_the_tool_name_charset() {
        assert_eq!(tool_name("Sales agent"), "ask_sales_agent");
        assert_eq!(tool_name("Q&A: 2026 (EU)"), "ask_q_a_2026_eu");
        assert_eq!(tool_name("!!!"), "ask_agent");
        assert!(tool_name(&"x".repeat(100)).len() <= MAX_NAME - 4);
    }

    fn agent(display_name: &str, id: &str) -> AgentTool {
        AgentTool {
            name: String::new(),
            workspace: "w".into(),
            id: id.into(),
            display_name: display_name.into(),
            description: String::new(),
        }
    }

    #[test]
    fn colliding_names_are_numbered_by_id_whatever_the_list_order() {
        for order in [["b", "a"], ["a", "b"]] {
            let mut agents = [
                agent("Sales agent", order[0]),
                agent("sales-agent!", "c"),
                agent("Sales  Agent", order[1]),
            ];
            name_all(&mut agents);
            let named: Vec<(&str, &str)> = agents
                .iter()
                .map(|a| (a.id.as_str(), a.name.as_str()))
                .collect();
            assert_eq!(
                named,
                [
                    ("c", "ask_sales-agent"),
                    ("a", "ask_sales_agent"),
                    ("b", "ask_sales_agent_2")
                ]
            );
        }
    }
}
