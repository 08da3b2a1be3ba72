//! Who `data-agent evaluate` evaluated: the agent's workspace and name, its logical id and a
//! fingerprint of its published configuration, read (best effort) from the service so a
//! recorded run says what it was of, and a baseline can be found for the same agent.

use super::evaluation_record::sha256_hex;
use crate::agent::evaluations::AgentIdentity;
use crate::context::Ctx;
use fabsh_api::api::LroOutcome;
use fabsh_api::api::Req;
use fabsh_api::api::data_agents::Agent;
use fabsh_api::api::definitions as api_definitions;
use fabsh_api::api::resolve::is_guid;
use fabsh_model::agent::evaluation::{ConfigurationParts, Named};
use fabsh_model::definition::{decode_payload, platform};
use fabsh_model::wire::DefinitionResponse;
use serde::Deserialize;
use serde_json::{Value, json};

/// What an evaluation reads of the agent item (the service's GET): its name, and the
/// description it was published with.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AgentItem {
    display_name: Option<String>,
    #[serde(default)]
    properties: Option<AgentProperties>,
}

/// The agent item's `properties`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AgentProperties {
    published_description: Option<String>,
}

/// What an evaluation reads of a workspace (the service's GET): its name.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WorkspaceItem {
    display_name: Option<String>,
}

/// The agent's definition parts as `(path, payload)`; `None` when the definition cannot be
/// read, or has a part without a path or payload.
async fn definition_parts(ctx: &Ctx, agent: &Agent) -> Option<Vec<(String, String)>> {
    let outcome = api_definitions::get(ctx.api(), &agent.workspace, &agent.id, None)
        .await
        .ok()?;
    let LroOutcome::Done(definition) = outcome else {
        return None;
    };
    let definition: DefinitionResponse = serde_json::from_value(definition).ok()?;
    Some(
        definition
            .definition
            .parts
            .into_iter()
            .map(|part| (part.path, part.payload))
            .collect(),
    )
}

/// The agent's published configuration: one hash of it all (its definition's `published/`
/// parts, path and payload in path order, and the publish description), so two runs can tell
/// whether the agent changed between them, and a hash per part (`publishedDescription` for
/// the description), so a comparison can name what changed.
fn configuration(
    definition: &[(String, String)],
    description: Option<&str>,
) -> (String, ConfigurationParts) {
    let mut parts: Vec<&(String, String)> = definition
        .iter()
        .filter(|(path, _)| path.contains("/published/"))
        .collect();
    parts.sort();
    // The description as JSON (null when the agent has none), as fingerprints always took it.
    let description = Value::from(description).to_string();
    let mut text = json!(parts).to_string();
    text.push_str(&description);
    let mut hashes = ConfigurationParts::default();
    for (path, payload) in parts {
        let name = path
            .split_once("/published/")
            .map_or(path.as_str(), |(_, rest)| rest);
        hashes.insert(name, sha256_hex(payload.as_bytes()));
    }
    hashes.insert("publishedDescription", sha256_hex(description.as_bytes()));
    (sha256_hex(text.as_bytes()), hashes)
}

/// The logical id in the definition's `.platform`, lower-case; none when it is missing, not
/// a GUID, or the all-zero GUID the service writes for an item that has none.
fn logical_id(definition: &[(String, String)]) -> Option<String> {
    let (_, payload) = definition.iter().find(|(path, _)| path == platform::PATH)?;
    let bytes = decode_payload(payload).ok()?;
    let id = platform::parse(&bytes).ok()?.logical_id?;
    uuid::Uuid::try_parse(&id)
        .ok()
        .filter(|id| !id.is_nil())
        .map(|id| id.to_string())
}

/// Who was evaluated: the workspace and the agent, and the agent's published configuration.
pub(crate) struct Subject {
    /// The agent's workspace.
    pub workspace: Named,
    /// The agent.
    pub agent: Named,
    /// See [`fabsh_model::agent::evaluation::EvaluationRun::agent_logical_id`].
    pub logical_id: Option<String>,
    /// See [`fabsh_model::agent::evaluation::EvaluationRun::configuration_fingerprint`].
    pub configuration_fingerprint: Option<String>,
    /// See [`fabsh_model::agent::evaluation::EvaluationRun::configuration_parts`].
    pub configuration_parts: Option<ConfigurationParts>,
}

impl Subject {
    /// The workspace and agent by the ids given, nothing read.
    pub(crate) fn unread(workspace: &str, agent: &str) -> Subject {
        let named = |id: &str| Named {
            id: id.to_string(),
            name: None,
        };
        Subject {
            workspace: named(workspace),
            agent: named(agent),
            logical_id: None,
            configuration_fingerprint: None,
            configuration_parts: None,
        }
    }

    /// The agent as its baseline is looked for.
    pub(crate) fn identity(&self) -> AgentIdentity {
        AgentIdentity {
            workspace: self.workspace.id.clone(),
            agent: self.agent.id.clone(),
            name: self.agent.name.clone(),
            logical_id: self.logical_id.clone(),
        }
    }
}

/// Who was evaluated. Best effort: a name, logical id or fingerprint that cannot be read is
/// null; a `--published-url` run knows only the ids it was given. `given` is the workspace
/// as `-w` named it.
pub(crate) async fn subject(
    ctx: &Ctx,
    given: &str,
    agent: Option<&Agent>,
    workspace: &str,
    id: &str,
) -> Subject {
    let Some(agent) = agent else {
        return Subject::unread(workspace, id);
    };
    let workspace_name = if is_guid(given) {
        ctx.api()
            .json(Req::get(format!("/workspaces/{}", agent.workspace)))
            .await
            .ok()
            .and_then(|ws| serde_json::from_value::<WorkspaceItem>(ws).ok())
            .and_then(|ws| ws.display_name)
    } else {
        Some(given.to_string())
    };
    let item = agent
        .get(ctx.api())
        .await
        .ok()
        .and_then(|item| serde_json::from_value::<AgentItem>(item).ok());
    let (name, description) = match item {
        Some(item) => (
            item.display_name,
            item.properties.and_then(|p| p.published_description),
        ),
        None => (None, None),
    };
    let definition = definition_parts(ctx, agent).await;
    let (fingerprint, parts) = match &definition {
        Some(definition) => {
            let (fingerprint, parts) = configuration(definition, description.as_deref());
            (Some(fingerprint), Some(parts))
        }
        None => (None, None),
    };
    Subject {
        workspace: Named {
            id: agent.workspace.clone(),
            name: workspace_name,
        },
        agent: Named {
            id: agent.id.clone(),
            name,
        },
        logical_id: definition.as_deref().and_then(logical_id),
        configuration_fingerprint: fingerprint,
        configuration_parts: parts,
    }
}
