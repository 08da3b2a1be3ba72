//! A data agent's datasources and their elements, as the data-agent configuration API lists
//! them (`.../dataSources`, `.../dataSources/{id}/elements`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A datasource of a data agent's configuration: what fabsh reads of it to name and address
/// it (its kind and item reference are read from the whole value).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Datasource {
    /// Its configuration-API id, which addresses it.
    pub id: String,
    pub display_name: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An element of a datasource (a schema, table, column, ...), one level of the tree per list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DatasourceElement {
    pub id: String,
    pub display_name: String,
    /// `Table`, `Column`, `Schemas`, ... (open).
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_selected: Option<bool>,
    /// The user's description; left out when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `Available`, `NotAvailable`, ... when the service says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_sub_elements: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_element_keeps_what_it_does_not_name_and_needs_its_id_name_and_type() {
        let listed = json!({"id": "e1", "isSelected": true, "displayName": "orders",
            "type": "Table", "hasSubElements": true, "state": "Available", "dataType": "x"});
        let read: DatasourceElement = serde_json::from_value(listed.clone()).unwrap();
        assert_eq!(read.extra["dataType"], "x");
        assert_eq!(serde_json::to_value(&read).unwrap(), listed);
        let nameless = json!({"id": "e1", "type": "Table"});
        assert!(serde_json::from_value::<DatasourceElement>(nameless).is_err());
    }
}
