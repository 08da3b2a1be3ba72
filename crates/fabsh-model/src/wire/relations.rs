//! An item's relations (a beta API, `…/items/{id}/relations/{upstream|downstream}`): the items
//! related to it, the edges between them, and the workspaces those items are in.

use super::Item;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The answer: not paged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemRelations {
    /// `{id, type, displayName, workspaceId}` each (no description).
    pub items: Vec<Item>,
    pub relations: Vec<ItemRelation>,
    pub workspaces: Vec<WorkspaceRef>,
}

/// One edge: `item_id` depends on `dependent_on_item_id` (a report on its semantic model).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemRelation {
    pub item_id: String,
    pub dependent_on_item_id: String,
    /// `CascadeDelete`, `Datasource`, `Shortcut`, ... (open).
    pub relation_type: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A workspace as the relations name it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceRef {
    pub id: String,
    pub display_name: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relations_round_trip_with_items_without_descriptions() {
        // The swagger's GetUpstreamRelations example, shortened.
        let text = r#"{"items":[{"id":"m1","type":"SemanticModel","displayName":"Sales","workspaceId":"w1"}],"relations":[{"itemId":"r1","dependentOnItemId":"m1","relationType":"Datasource"}],"workspaces":[{"id":"w1","displayName":"Demo"}]}"#;
        let relations: ItemRelations = serde_json::from_str(text).unwrap();
        assert_eq!(relations.items[0].description, None);
        assert_eq!(relations.relations[0].relation_type, "Datasource");
        assert_eq!(serde_json::to_string(&relations).unwrap(), text);
    }
}
