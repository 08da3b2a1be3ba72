//! Walking a datasource's element tree. The service answers one level per request (`rootId`),
//! so the walk keeps many level requests in flight at once: a tree of N levels costs about N
//! round trips however wide it is.

use crate::api::ApiClient;
use crate::api::data_agents::{Agent, Stage};
use crate::api::typed;
use crate::error::Result;
use fabsh_model::agent::element_path;
use fabsh_model::wire::DatasourceElement;
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};

/// The most level requests in flight at once.
const MAX_IN_FLIGHT: usize = 64;

/// One element as the walk found it.
#[derive(Debug, Clone)]
pub struct Node {
    /// The service's element id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The service's element type (`Table`, `Column`, `Schemas`, ...).
    pub kind: String,
    /// Selection state.
    pub selected: bool,
    /// User description.
    pub description: Option<String>,
    /// `Available`, `NotAvailable`, ... when the service says.
    pub state: Option<String>,
    /// Whether it has children to fetch.
    pub has_children: bool,
    /// Dot path (`dbo.orders.amount`), without grouping containers.
    pub path: String,
    /// Types and names from the top of the tree to this element.
    pub chain: Vec<(String, String)>,
}

impl Node {
    fn from_wire(element: DatasourceElement, parent: Option<&Node>) -> Node {
        let chain: Vec<(String, String)> = parent
            .into_iter()
            .flat_map(|p| p.chain.iter().cloned())
            .chain([(element.kind.clone(), element.display_name.clone())])
            .collect();
        let path = element_path::dot_path(chain.iter().map(|(t, n)| (t.as_str(), n.as_str())));
        Node {
            id: element.id,
            name: element.display_name,
            kind: element.kind,
            selected: element.is_selected == Some(true),
            description: element.description,
            state: element.state,
            has_children: element.has_sub_elements == Some(true),
            path,
            chain,
        }
    }

    /// True for grouping containers (`Schemas`, `Tables`, ...).
    pub fn is_grouping(&self) -> bool {
        element_path::is_grouping(&self.kind)
    }

    /// The row `list-elements` shows.
    pub fn row(&self) -> Value {
        json!({
            "path": self.path,
            "type": self.kind,
            "selected": self.selected,
            "description": self.description,
            "id": self.id,
            "state": self.state,
        })
    }
}

/// Walks the tree of `datasource`, opening an element's children only when `descend` says so;
/// returns the elements in tree order (parents before their children).
pub async fn walk<F>(
    api: &ApiClient,
    agent: &Agent,
    stage: Stage,
    datasource: &str,
    descend: F,
) -> Result<Vec<Node>>
where
    F: Fn(&Node) -> bool,
{
    let mut nodes: Vec<Node> = Vec::new();
    let mut children: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    let mut pending: VecDeque<Option<usize>> = VecDeque::from([None]);
    let mut in_flight = FuturesUnordered::new();
    loop {
        while in_flight.len() < MAX_IN_FLIGHT {
            let Some(parent) = pending.pop_front() else {
                break;
            };
            let root = parent.map(|index: usize| nodes[index].id.clone());
            let req = agent.elements_req(stage, datasource, root.as_deref());
            in_flight.push(async move { (parent, api.all(req).await) });
        }
        let Some((parent, level)) = in_flight.next().await else {
            break;
        };
        for value in level? {
            let element = typed::read(value, "a datasource element")?;
            let node = Node::from_wire(element, parent.map(|index| &nodes[index]));
            let index = nodes.len();
            if node.has_children && descend(&node) {
                pending.push_back(Some(index));
            }
            nodes.push(node);
            children.entry(parent).or_default().push(index);
        }
    }
    Ok(in_tree_order(nodes, &children))
}

fn in_tree_order(nodes: Vec<Node>, children: &HashMap<Option<usize>, Vec<usize>>) -> Vec<Node> {
    let mut order = Vec::with_capacity(nodes.len());
    // The top-level elements, if any, the first on top.
    let mut stack: Vec<usize> = children
        .get(&None)
        .into_iter()
        .flatten()
        .rev()
        .copied()
        .collect();
    while let Some(index) = stack.pop() {
        order.push(index);
        if let Some(kids) = children.get(&Some(index)) {
            stack.extend(kids.iter().rev());
        }
    }
    let mut slots: Vec<Option<Node>> = nodes.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|index| slots[index].take())
        .collect()
}
