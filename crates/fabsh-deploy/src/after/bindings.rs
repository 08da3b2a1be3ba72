//! A semantic model's connections: which `semantic_model_binding` gives it that it is not
//! bound to, and which of those apply can bind.

use fabsh_model::deploy::{BindConnection, Change, Connection, ConnectionDetails};

/// What apply does about one connection a semantic model should be bound to.
#[derive(Debug, Clone, PartialEq)]
pub enum Binding {
    /// Bind it (by id), with this body (the connection as the caller sees it listed).
    Bind { id: String, body: BindConnection },
    /// The caller cannot see it (by id): fabric-cicd warns and goes on, and so does apply.
    NotVisible(String),
}

fn find<'a>(list: &'a [Connection], id: &str) -> Option<&'a Connection> {
    list.iter().find(|c| c.id.as_deref() == Some(id))
}

/// For each of `ids` the model (using `current`) is not bound to, in order: the binding of
/// the connection as `visible` lists it, or a note that the caller cannot see it.
pub fn bindings(ids: &[String], current: &[Connection], visible: &[Connection]) -> Vec<Binding> {
    ids.iter()
        .filter(|id| find(current, id).is_none())
        .map(|id| match find(visible, id) {
            None => Binding::NotVisible(id.clone()),
            Some(connection) => Binding::Bind {
                id: id.clone(),
                body: BindConnection {
                    connection_binding: Connection {
                        id: Some(id.clone()),
                        connectivity_type: connection.connectivity_type.clone(),
                        // The service wants the details object even when it listed none.
                        connection_details: Some(connection.connection_details.clone().unwrap_or(
                            ConnectionDetails {
                                kind: None,
                                path: None,
                            },
                        )),
                    },
                },
            },
        })
        .collect()
}

/// The changes a plan shows for a model's bindings: those apply would make (a connection
/// the caller cannot see is no change: apply binds no such one).
pub fn binding_drift(
    ids: &[String],
    current: &[Connection],
    visible: &[Connection],
) -> Vec<Change> {
    bindings(ids, current, visible)
        .into_iter()
        .filter_map(|b| match b {
            Binding::Bind { id, .. } => Some(Change::Binding(id)),
            Binding::NotVisible(_) => None,
        })
        .collect()
}
