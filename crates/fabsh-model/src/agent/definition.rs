//! The DataAgent definition as typed documents: `data_agent.json`, one stage per folder
//! (`draft/`, `published/`) with its `stage_config.json` and one folder per datasource
//! (`datasource.json`, `fewshots.json`), and `publish_info.json`. Parts it does not know are
//! kept as they are, so a read-modify-write never loses anything.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// Where every DataAgent part lives.
pub const CONFIG_DIR: &str = "Files/Config";
/// The part that marks a definition as a whole part set.
pub const AGENT_PART: &str = "Files/Config/data_agent.json";
/// Written by publish.
pub const PUBLISH_INFO_PART: &str = "Files/Config/publish_info.json";

const SCHEMA_BASE: &str =
    "https://developer.microsoft.com/json-schemas/fabric/item/dataAgent/definition";

/// The `$schema` of a document kind (`dataAgent/2.1.0`, `dataSource/1.0.0`, ...).
pub fn schema_url(kind_and_version: &str) -> String {
    format!("{SCHEMA_BASE}/{kind_and_version}/schema.json")
}

/// A stage: the draft the configuration API edits, or the published copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Draft,
    Published,
}

impl Stage {
    /// The folder under `Files/Config`.
    pub fn folder(self) -> &'static str {
        match self {
            Stage::Draft => "draft",
            Stage::Published => "published",
        }
    }
}

/// One element of a datasource's schema tree (snake_case, as in the definition). Its fields
/// are spelled out rather than collected with `flatten`: trees run to thousands of elements,
/// and every configuration request reads them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElementDoc {
    /// Service-minted GUID.
    #[serde(default)]
    pub id: Option<String>,
    /// Selection state.
    #[serde(default)]
    pub is_selected: bool,
    /// The element's name.
    pub display_name: String,
    /// Definition element type (`lakehouse_tables.table`).
    #[serde(rename = "type")]
    pub kind: String,
    /// Column data type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_type: Option<String>,
    /// User description.
    #[serde(default)]
    pub description: Option<String>,
    /// Nested elements.
    #[serde(default)]
    pub children: Vec<ElementDoc>,
    /// Indexing state of lakehouse file directories.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_state: Option<Value>,
}

/// `datasource.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataSourceDoc {
    /// `$schema`.
    #[serde(rename = "$schema", default)]
    pub schema: String,
    /// The source item.
    #[serde(rename = "artifactId")]
    pub artifact_id: String,
    /// The source item's workspace.
    #[serde(rename = "workspaceId")]
    pub workspace_id: String,
    /// The source item's name.
    #[serde(rename = "displayName")]
    pub display_name: String,
    /// Definition type (`lakehouse_tables`).
    #[serde(rename = "type")]
    pub kind: String,
    /// Per-source instructions (API `instructions`).
    #[serde(
        rename = "dataSourceInstructions",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub instructions: Option<String>,
    /// Routing description (API `description`).
    #[serde(
        rename = "userDescription",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub description: Option<String>,
    /// The schema tree.
    #[serde(default)]
    pub elements: Vec<ElementDoc>,
    /// Other keys (`metadata`, ...), kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One few-shot example.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FewShotDoc {
    /// GUID.
    pub id: String,
    /// The question.
    pub question: String,
    /// The answer query.
    #[serde(default)]
    pub query: Option<String>,
}

/// A datasource folder of a stage.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceFolder {
    /// Folder name (`lakehouse-tables-SalesLakehouse`).
    pub folder: String,
    /// `datasource.json`, shared between copies of the definition: a wide source's tree is
    /// most of an agent, and a change to one part should not copy every tree
    /// (change it through [`SourceFolder::datasource_mut`]).
    pub datasource: Arc<DataSourceDoc>,
    /// `fewshots.json`'s examples, if the file exists.
    pub fewshots: Option<Vec<FewShotDoc>>,
}

impl SourceFolder {
    /// The datasource document, for changing (copied first when another copy shares it).
    pub fn datasource_mut(&mut self) -> &mut DataSourceDoc {
        Arc::make_mut(&mut self.datasource)
    }
}

/// One stage's documents.
#[derive(Debug, Clone, PartialEq)]
pub struct StageDoc {
    /// `stage_config.json` (`aiInstructions`, `experimental`, unknown keys).
    pub config: Value,
    /// Datasource folders, in part order.
    pub sources: Vec<SourceFolder>,
}

impl StageDoc {
    /// An empty draft.
    pub fn empty() -> StageDoc {
        StageDoc {
            config: json!({"$schema": schema_url("stageConfiguration/1.0.0"), "aiInstructions": ""}),
            sources: Vec::new(),
        }
    }
}

/// The whole definition.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentDefinition {
    /// `data_agent.json`.
    pub agent: Value,
    /// `draft/`.
    pub draft: StageDoc,
    /// `published/`, after the first publish.
    pub published: Option<StageDoc>,
    /// `publish_info.json`.
    pub publish_info: Option<Value>,
    /// Parts this model does not know, kept in order.
    pub other: Vec<(String, Vec<u8>)>,
}

fn parse_json<T: serde::de::DeserializeOwned>(path: &str, bytes: &[u8]) -> Result<T, String> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    serde_json::from_slice(bytes).map_err(|err| format!("The part '{path}' is not valid: {err}"))
}

fn pretty(value: &impl Serialize) -> Vec<u8> {
    // The documents are derived structs of strings, numbers, JSON values and lists (no map
    // with keys that are not strings), which always serialize.
    serde_json::to_vec_pretty(value).expect("a definition document serializes")
}

impl AgentDefinition {
    /// Reads the parts; a part that is not valid JSON of its kind is an error naming it.
    pub fn from_parts(parts: &[(String, Vec<u8>)]) -> Result<AgentDefinition, String> {
        let mut agent = None;
        let mut stages: [Option<StageDoc>; 2] = [None, None];
        let mut publish_info = None;
        let mut other = Vec::new();
        let mut fewshots: Vec<(Stage, String, Vec<FewShotDoc>)> = Vec::new();
        for (path, bytes) in parts {
            let Some(rest) = path
                .strip_prefix(CONFIG_DIR)
                .and_then(|r| r.strip_prefix('/'))
            else {
                // A part outside the configuration folder is none of the agent's documents.
                other.push((path.clone(), bytes.clone()));
                continue;
            };
            let segments: Vec<&str> = rest.split('/').collect();
            let stage = match segments.first() {
                Some(&"draft") => Some(Stage::Draft),
                Some(&"published") => Some(Stage::Published),
                _ => None,
            };
            match (stage, segments.as_slice()) {
                (_, ["data_agent.json"]) => agent = Some(parse_json(path, bytes)?),
                (_, ["publish_info.json"]) => publish_info = Some(parse_json(path, bytes)?),
                (Some(stage), [_, "stage_config.json"]) => {
                    let slot = &mut stages[stage as usize];
                    let doc = slot.get_or_insert_with(StageDoc::empty);
                    doc.config = parse_json(path, bytes)?;
                }
                (Some(stage), [_, folder, "datasource.json"]) => {
                    let doc = stages[stage as usize].get_or_insert_with(StageDoc::empty);
                    doc.sources.push(SourceFolder {
                        folder: folder.to_string(),
                        datasource: Arc::new(parse_json(path, bytes)?),
                        fewshots: None,
                    });
                }
                (Some(stage), [_, folder, "fewshots.json"]) => {
                    let value: Value = parse_json(path, bytes)?;
                    let list = value.get("fewShots").cloned().unwrap_or(json!([]));
                    let list: Vec<FewShotDoc> = serde_json::from_value(list)
                        .map_err(|err| format!("The part '{path}' is not valid: {err}"))?;
                    fewshots.push((stage, folder.to_string(), list));
                }
                _ => other.push((path.clone(), bytes.clone())),
            }
        }
        for (stage, folder, list) in fewshots {
            let source = stages[stage as usize]
                .as_mut()
                .and_then(|doc| doc.sources.iter_mut().find(|s| s.folder == folder));
            match source {
                Some(source) => source.fewshots = Some(list),
                None => {
                    return Err(format!(
                        "The folder '{folder}' has fewshots.json but no datasource.json"
                    ));
                }
            }
        }
        let [draft, published] = stages;
        Ok(AgentDefinition {
            agent: agent.unwrap_or_else(|| json!({"$schema": schema_url("dataAgent/2.1.0")})),
            draft: draft.unwrap_or_else(StageDoc::empty),
            published,
            publish_info,
            other,
        })
    }

    /// The parts, in the order the service lists them.
    pub fn to_parts(&self) -> Vec<(String, Vec<u8>)> {
        self.parts_with(&|_, _| false)
            .into_iter()
            .filter_map(|(path, bytes)| match bytes {
                PartBytes::New(bytes) => Some((path, bytes)),
                PartBytes::Unchanged => None,
            })
            .collect()
    }

    /// The parts, with every `datasource.json` whose document is the same as in `previous`
    /// (and whose bytes `kept` says the caller still has) left [`PartBytes::Unchanged`]: a
    /// wide source's tree is most of the bytes, and most changes touch few-shots or
    /// settings, so it need not be written out, copied or compared again each time.
    pub fn to_parts_since(
        &self,
        previous: &AgentDefinition,
        kept: &dyn Fn(&str) -> bool,
    ) -> Vec<(String, PartBytes)> {
        let mut before: Vec<(String, &DataSourceDoc)> = Vec::new();
        for (stage, doc) in [
            (Stage::Draft, Some(&previous.draft)),
            (Stage::Published, previous.published.as_ref()),
        ] {
            // A stage that was never published has no datasources.
            let Some(doc) = doc else { continue };
            for source in &doc.sources {
                before.push((datasource_path(stage, source), &*source.datasource));
            }
        }
        self.parts_with(&|path, doc| {
            before
                .iter()
                .any(|(old_path, old)| old_path == path && (std::ptr::eq(*old, doc) || *old == doc))
                && kept(path)
        })
    }

    fn parts_with(&self, unchanged: &Unchanged<'_>) -> Vec<(String, PartBytes)> {
        let new = |path: &str, bytes| (path.to_string(), PartBytes::New(bytes));
        let mut parts = vec![new(AGENT_PART, pretty(&self.agent))];
        stage_parts(Stage::Draft, &self.draft, unchanged, &mut parts);
        if let Some(info) = &self.publish_info {
            parts.push(new(PUBLISH_INFO_PART, pretty(info)));
        }
        if let Some(published) = &self.published {
            stage_parts(Stage::Published, published, unchanged, &mut parts);
        }
        parts.extend(
            self.other
                .iter()
                .map(|(path, bytes)| new(path, bytes.clone())),
        );
        parts
    }

    /// A stage's documents (`None` for a never-published agent's published stage).
    pub fn stage(&self, stage: Stage) -> Option<&StageDoc> {
        match stage {
            Stage::Draft => Some(&self.draft),
            Stage::Published => self.published.as_ref(),
        }
    }

    /// The published description, once published.
    pub fn published_description(&self) -> Option<&str> {
        self.publish_info
            .as_ref()
            .and_then(|info| info.get("description"))
            .and_then(Value::as_str)
    }

    /// Copies the draft to the published stage and records the description.
    pub fn publish(&mut self, description: &str) {
        self.published = Some(self.draft.clone());
        self.publish_info = Some(json!({
            "$schema": schema_url("publishInfo/1.0.0"),
            "description": description,
        }));
    }

    /// Copies the published stage back over the draft; false when never published.
    pub fn reset(&mut self) -> bool {
        match &self.published {
            Some(published) => {
                self.draft = published.clone();
                true
            }
            None => false,
        }
    }
}

/// Whether the `datasource.json` at a path is unchanged since the previous definition.
type Unchanged<'a> = dyn Fn(&str, &DataSourceDoc) -> bool + 'a;

/// A part's bytes in a definition written out again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartBytes {
    /// Bytes to store.
    New(Vec<u8>),
    /// The same bytes as the previous definition's part at this path.
    Unchanged,
}

fn datasource_path(stage: Stage, source: &SourceFolder) -> String {
    format!(
        "{CONFIG_DIR}/{}/{}/datasource.json",
        stage.folder(),
        source.folder
    )
}

fn stage_parts(
    stage: Stage,
    doc: &StageDoc,
    unchanged: &Unchanged<'_>,
    parts: &mut Vec<(String, PartBytes)>,
) {
    let base = format!("{CONFIG_DIR}/{}", stage.folder());
    parts.push((
        format!("{base}/stage_config.json"),
        PartBytes::New(pretty(&doc.config)),
    ));
    for source in &doc.sources {
        let folder = format!("{base}/{}", source.folder);
        let path = datasource_path(stage, source);
        let doc: &DataSourceDoc = &source.datasource;
        let bytes = if unchanged(&path, doc) {
            PartBytes::Unchanged
        } else {
            PartBytes::New(pretty(doc))
        };
        parts.push((path, bytes));
        if let Some(fewshots) = &source.fewshots {
            let doc = json!({"$schema": schema_url("fewShots/1.0.0"), "fewShots": fewshots});
            parts.push((
                format!("{folder}/fewshots.json"),
                PartBytes::New(pretty(&doc)),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn datasource() -> DataSourceDoc {
        serde_json::from_value(json!({
            "$schema": schema_url("dataSource/1.0.0"),
            "artifactId": "a", "workspaceId": "w", "displayName": "Sales",
            "type": "lakehouse_tables", "metadata": {"k": 1},
            "elements": [{"id": "e", "is_selected": false, "display_name": "dbo",
                          "type": "lakehouse_tables.schema", "description": null,
                          "children": [], "index_state": "x"}]
        }))
        .expect("datasource")
    }

    #[test]
    fn parts_round_trip_and_unknown_parts_survive() {
        let mut definition = AgentDefinition::from_parts(&[]).expect("empty");
        definition.draft.sources.push(SourceFolder {
            folder: "lakehouse-tables-Sales".into(),
            datasource: Arc::new(datasource()),
            fewshots: Some(vec![FewShotDoc {
                id: "f".into(),
                question: "q".into(),
                query: Some("SELECT 1".into()),
            }]),
        });
        definition
            .other
            .push(("Files/Config/topic.json".into(), b"{}".to_vec()));
        let parts = definition.to_parts();
        let again = AgentDefinition::from_parts(&parts).expect("parse");
        assert_eq!(again, definition);
        assert_eq!(again.draft.sources[0].datasource.extra["metadata"]["k"], 1);
        assert_eq!(
            again.draft.sources[0].datasource.elements[0].index_state,
            Some(json!("x"))
        );
    }

    #[test]
    fn only_changed_sources_are_written_out_again() {
        let mut before = AgentDefinition::from_parts(&[]).expect("empty");
        for name in ["Sales", "Wide"] {
            before.draft.sources.push(SourceFolder {
                folder: format!("lakehouse-tables-{name}"),
                datasource: Arc::new(datasource()),
                fewshots: None,
            });
        }
        let mut after = before.clone();
        after.draft.sources[1].datasource_mut().display_name = "Renamed".into();
        let bytes_of = |parts: &[(String, PartBytes)], folder: &str| {
            let path = format!("{CONFIG_DIR}/draft/{folder}/datasource.json");
            parts
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, b)| b.clone())
        };
        let parts = after.to_parts_since(&before, &|_| true);
        assert_eq!(
            bytes_of(&parts, "lakehouse-tables-Sales"),
            Some(PartBytes::Unchanged)
        );
        assert!(matches!(
            bytes_of(&parts, "lakehouse-tables-Wide"),
            Some(PartBytes::New(_))
        ));
        // Bytes the caller no longer has are written out even when the document is the same.
        let parts = after.to_parts_since(&before, &|_| false);
        assert!(matches!(
            bytes_of(&parts, "lakehouse-tables-Sales"),
            Some(PartBytes::New(_))
        ));
    }

    #[test]
    fn publish_copies_the_draft_and_reset_copies_it_back() {
        let mut definition = AgentDefinition::from_parts(&[]).expect("empty");
        assert!(!definition.reset());
        definition.draft.config["aiInstructions"] = json!("v1");
        definition.publish("first");
        definition.draft.config["aiInstructions"] = json!("v2");
        assert_eq!(definition.published_description(), Some("first"));
        let parts = definition.to_parts();
        assert!(parts.iter().any(|(p, _)| p == PUBLISH_INFO_PART));
        assert!(
            parts
                .iter()
                .any(|(p, _)| p == "Files/Config/published/stage_config.json")
        );
        assert!(definition.reset());
        assert_eq!(definition.draft.config["aiInstructions"], "v1");
    }

    #[test]
    fn bad_parts_are_named() {
        let err = AgentDefinition::from_parts(&[(
            "Files/Config/draft/stage_config.json".into(),
            b"{,".to_vec(),
        )])
        .unwrap_err();
        assert!(err.contains("stage_config.json"), "{err}");
    }
}
