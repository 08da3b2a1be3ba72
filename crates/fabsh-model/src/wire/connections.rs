//! Connections (swagger `platform/definitions/connections.json`): those the caller can see
//! (`GET /connections`) and those an item uses (`GET .../items/{id}/connections`).

use crate::deploy;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `Connection`: a connection of the tenant the caller can see, as `GET /connections` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Connection {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// `ShareableCloud`, `OnPremisesGateway`, ... (open: types are added over time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connectivity_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection_details: Option<ConnectionDetails>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ItemConnection`: a connection an item uses. One the item makes itself (`Automatic`) has
/// no `id`: it is no connection object of the tenant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemConnection {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connectivity_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection_details: Option<ConnectionDetails>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ListConnectionDetails`: what a connection connects to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConnectionDetails {
    /// `SQL`, `Web`, ... (the connection type's name).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl From<ConnectionDetails> for deploy::ConnectionDetails {
    /// The details a binding sends: type and path.
    fn from(details: ConnectionDetails) -> Self {
        deploy::ConnectionDetails {
            kind: details.kind,
            path: details.path,
        }
    }
}

impl From<Connection> for deploy::Connection {
    /// What a binding needs of a connection.
    fn from(connection: Connection) -> Self {
        deploy::Connection {
            id: Some(connection.id),
            connectivity_type: connection.connectivity_type,
            connection_details: connection.connection_details.map(Into::into),
        }
    }
}

impl From<ItemConnection> for deploy::Connection {
    /// What a binding needs of a connection.
    fn from(connection: ItemConnection) -> Self {
        deploy::Connection {
            id: connection.id,
            connectivity_type: connection.connectivity_type,
            connection_details: connection.connection_details.map(Into::into),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_listed_connection_keeps_what_it_does_not_name() {
        let listed = json!({
            "id": "c1",
            "displayName": "Sales SQL",
            "connectivityType": "ShareableCloud",
            "connectionDetails": {"type": "SQL", "path": "server;db"},
            "privacyLevel": "Organizational"
        });
        let read: Connection = serde_json::from_value(listed.clone()).unwrap();
        assert_eq!(read.extra["privacyLevel"], "Organizational");
        assert_eq!(serde_json::to_value(&read).unwrap(), listed);
    }

    #[test]
    fn a_tenant_connection_without_an_id_is_refused_but_an_automatic_one_is_read() {
        let automatic = json!({"connectivityType": "Automatic", "connectionDetails": {"type": "SQL", "path": "p"}});
        assert!(serde_json::from_value::<Connection>(automatic.clone()).is_err());
        let item: ItemConnection = serde_json::from_value(automatic).unwrap();
        assert_eq!(deploy::Connection::from(item).id, None);
    }
}
