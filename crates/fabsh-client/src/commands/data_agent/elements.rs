//! `data-agent list-elements | select-tables | describe-element | delete-element`: the schema
//! elements of a datasource, addressed by dot path (`dbo.orders.amount`) or element id.

use super::{AGENT, AgentTarget, DATASOURCE, STAGE, datasource, with_datasource};
use crate::commands::common::WORKSPACE;
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::agent::walk::{self, Node};
use fabsh_api::api::data_agents::{Agent, Stage};
use fabsh_model::agent::element_path::{self, is_detail, is_table_like};
use futures::StreamExt;
use serde_json::{Value, json};

/// PATCHes in flight at once when selecting many elements.
const PATCH_CONCURRENCY: usize = 16;

pub(super) const LIST_ELEMENTS: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "list-elements",
    summary: "List a datasource's schema elements with their selection and descriptions",
    about: "Walks the whole tree, many levels' requests at once. Rows: path (schema.table[.column]), type, selected, description, id, state; grouping containers (Schemas, Tables, ...) are walked but not listed.",
    args: &[WORKSPACE, AGENT, DATASOURCE, STAGE],
    traits: Traits::READ.unpaged_list(),
    columns: &["path", "type", "selected", "description", "id"],
    examples: &[Example {
        command: "data-agent list-elements -w Demo --id \"Sales agent\" --datasource SalesLakehouse -q \"[?selected].path\"",
        about: "the selected tables and columns",
    }],
    handler: Handler::Data(handler::<ListElements>),
};

const TABLES: ArgSpec = ArgSpec::opt("tables", ArgKind::List, "Tables or views, comma-separated");
const ALL_TABLES: ArgSpec = ArgSpec::opt("all-tables", ArgKind::Bool, "Every table and view");
const ELEMENTS: ArgSpec = ArgSpec::opt(
    "elements",
    ArgKind::List,
    "Elements of any type (e.g. ontology entity types), by name or dot path, comma-separated",
);
const ALL_ELEMENTS: ArgSpec = ArgSpec::opt(
    "all-elements",
    ArgKind::Bool,
    "Every element that is not a container or a column",
);
const UNSELECT: ArgSpec = ArgSpec::opt("unselect", ArgKind::Bool, "Unselect instead of select");

pub(super) const SELECT_TABLES: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "select-tables",
    summary: "Select (or unselect) tables or other elements for the agent to use",
    about: "Names are table names or schema.table paths, any case. An unknown name is an error listing close matches, and then nothing is changed. Selecting a table selects its columns.",
    args: &[
        WORKSPACE,
        AGENT,
        DATASOURCE,
        TABLES,
        ALL_TABLES,
        ELEMENTS,
        ALL_ELEMENTS,
        UNSELECT,
    ],
    traits: Traits::MUTATE,
    columns: &[],
    examples: &[
        Example {
            command: "data-agent select-tables -w Demo --id \"Sales agent\" --datasource SalesLakehouse --tables orders,customers",
            about: "two tables",
        },
        Example {
            command: "data-agent select-tables -w Demo --id \"Sales agent\" --datasource SalesLakehouse --all-tables --unselect",
            about: "unselect everything",
        },
    ],
    handler: Handler::Data(handler::<SelectTables>),
};

const ELEMENT_PATH: ArgSpec = ArgSpec::req(
    "path",
    ArgKind::Str,
    "Dot path (schema.table or schema.table.column) or element id",
);
const ELEMENT_DESCRIPTION: ArgSpec = ArgSpec::opt(
    "description",
    ArgKind::Str,
    "The description; omitted or empty clears it",
)
.allowing_empty();

pub(super) const DESCRIBE_ELEMENT: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "describe-element",
    summary: "Set or clear the description of a table, column or other element",
    about: "Descriptions help the agent understand the schema. Omitting --description (or giving an empty one) clears it.",
    args: &[
        WORKSPACE,
        AGENT,
        DATASOURCE,
        ELEMENT_PATH,
        ELEMENT_DESCRIPTION,
    ],
    traits: Traits::MUTATE,
    columns: &[],
    examples: &[Example {
        command: "data-agent describe-element -w Demo --id \"Sales agent\" --datasource SalesLakehouse --path dbo.orders.amount --description \"Order total in EUR\"",
        about: "describe a column",
    }],
    handler: Handler::Data(handler::<DescribeElement>),
};

const ELEMENT_ID: ArgSpec =
    ArgSpec::req("element-id", ArgKind::Str, "Element id, from list-elements");

pub(super) const DELETE_ELEMENT: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "delete-element",
    summary: "Delete an element that is gone from the datasource's live schema",
    about: "Elements still in the live schema cannot be deleted; unselect them instead. Asks for confirmation on a terminal unless --yes.",
    args: &[WORKSPACE, AGENT, DATASOURCE, ELEMENT_ID],
    traits: Traits::DESTRUCTIVE.void(),
    columns: &[],
    examples: &[Example {
        command: "data-agent delete-element -w Demo --id \"Sales agent\" --datasource SalesLakehouse --element-id \"$ELEMENT_ID\" --yes",
        about: "a table that was dropped",
    }],
    handler: Handler::Data(handler::<DeleteElement>),
};

typed_args! {
    /// `data-agent list-elements`.
    struct ListElements {
        target: AgentTarget,
        datasource: String = DATASOURCE,
        stage: Stage = STAGE,
    }
}

impl Command for ListElements {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            let stage = self.stage;
            let walk_from = |id: String| {
                let agent = &agent;
                let api = ctx.api();
                async move { walk::walk(api, agent, stage, &id, |_| true).await }
            };
            let (_, nodes) =
                with_datasource(&ctx, &agent, stage, &self.datasource, walk_from).await?;
            let rows: Vec<Value> = nodes?
                .iter()
                .filter(|node| !node.is_grouping())
                .map(Node::row)
                .collect();
            Ok(Reply::json(Value::Array(rows)))
        })
    }
}

typed_args! {
    /// `data-agent select-tables`.
    struct SelectTables {
        target: AgentTarget,
        datasource: String = DATASOURCE,
        tables: Vec<String> = TABLES,
        all_tables: bool = ALL_TABLES,
        elements: Vec<String> = ELEMENTS,
        all_elements: bool = ALL_ELEMENTS,
        unselect: bool = UNSELECT,
    }
}

impl SelectTables {
    /// Refuses a selection that asks for nothing, or for names and all at once.
    fn check(&self) -> Result<()> {
        if self.all_tables && !self.tables.is_empty() {
            return Err(Error::usage("give --tables or --all-tables, not both"));
        }
        if self.all_elements && !self.elements.is_empty() {
            return Err(Error::usage("give --elements or --all-elements, not both"));
        }
        if !self.all_tables
            && !self.all_elements
            && self.tables.is_empty()
            && self.elements.is_empty()
        {
            return Err(Error::usage(
                "nothing to select: give --tables, --all-tables, --elements or --all-elements",
            ));
        }
        Ok(())
    }

    /// Columns are only needed when elements of any type may be named.
    fn needs_details(&self) -> bool {
        !self.elements.is_empty()
    }
}

/// The one element `wanted` names among `candidates`: an exact path wins over a suffix match.
fn pick<'a>(candidates: &[&'a Node], wanted: &str) -> std::result::Result<&'a Node, Vec<&'a Node>> {
    let matches: Vec<&Node> = candidates
        .iter()
        .copied()
        .filter(|node| element_path::names(&node.path, wanted))
        .collect();
    let exact: Vec<&Node> = matches
        .iter()
        .copied()
        .filter(|node| node.path.eq_ignore_ascii_case(wanted.trim()))
        .collect();
    match (exact.as_slice(), matches.as_slice()) {
        ([one], _) | ([], [one]) => Ok(one),
        (_, many) => Err(many.to_vec()),
    }
}

/// The elements the names stand for, or a usage error naming every unknown or ambiguous one.
fn resolve_names<'a>(
    candidates: &[&'a Node],
    names: &[String],
    what: &str,
) -> Result<Vec<&'a Node>> {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    for name in names {
        match pick(candidates, name) {
            Ok(node) => found.push(node),
            Err(many) if many.is_empty() => {
                let close =
                    element_path::close_matches(name, candidates.iter().map(|n| n.path.as_str()));
                problems.push(if close.is_empty() {
                    format!("no {what} named {name:?}")
                } else {
                    format!(
                        "no {what} named {name:?} (did you mean {}?)",
                        close.join(", ")
                    )
                });
            }
            Err(many) => {
                let paths: Vec<&str> = many.iter().map(|n| n.path.as_str()).collect();
                problems.push(format!(
                    "{name:?} names {}; give the full path",
                    paths.join(" and ")
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(found)
    } else {
        Err(Error::usage(problems.join("; "))
            .with_hint("see the names with `fabsh data-agent list-elements`; nothing was changed"))
    }
}

/// Sends one PATCH per element, a few at a time; returns the paths changed.
async fn set_selected(
    ctx: &Ctx,
    agent: &Agent,
    datasource: &str,
    nodes: &[&Node],
    selected: bool,
) -> Result<Vec<String>> {
    let api = ctx.api();
    // Collected first: a lazy map of borrowing closures trips the compiler's Send check.
    let calls: Vec<_> = nodes
        .iter()
        .map(|node| async move {
            agent
                .element_patch(api, datasource, &node.id, json!({"isSelected": selected}))
                .await
                .map(|_| node.path.clone())
        })
        .collect();
    let mut patches = futures::stream::iter(calls).buffered(PATCH_CONCURRENCY);
    let mut changed = Vec::with_capacity(nodes.len());
    while let Some(path) = patches.next().await {
        changed.push(path?);
    }
    Ok(changed)
}

impl Command for SelectTables {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            self.check()?;
            let selected = !self.unselect;
            let agent = self.target.resolve(&ctx).await?;
            let source = datasource(&ctx, &agent, Stage::Staging, &self.datasource).await?;
            let details = self.needs_details();
            let nodes = walk::walk(ctx.api(), &agent, Stage::Staging, &source.id, |node| {
                details || !is_table_like(&node.kind)
            })
            .await?;
            let tables: Vec<&Node> = nodes.iter().filter(|n| is_table_like(&n.kind)).collect();
            let objects: Vec<&Node> = nodes.iter().filter(|n| !n.is_grouping()).collect();
            let mut targets: Vec<&Node> = if self.all_tables {
                tables.clone()
            } else {
                resolve_names(&tables, &self.tables, "table")?
            };
            if self.all_elements {
                targets.extend(objects.iter().filter(|n| !is_detail(&n.kind)));
            } else {
                targets.extend(resolve_names(&objects, &self.elements, "element")?);
            }
            let mut seen = std::collections::HashSet::new();
            targets.retain(|node| seen.insert(node.id.clone()));
            let (to_change, unchanged): (Vec<&Node>, Vec<&Node>) = targets
                .into_iter()
                .partition(|node| node.selected != selected);
            let changed = set_selected(&ctx, &agent, &source.id, &to_change, selected).await?;
            let unchanged: Vec<&str> = unchanged.iter().map(|n| n.path.as_str()).collect();
            Ok(Reply::json(json!({
                "datasource": source.name,
                "selected": selected,
                "changed": changed,
                "unchanged": unchanged,
            })))
        })
    }
}

typed_args! {
    /// `data-agent describe-element`.
    struct DescribeElement {
        target: AgentTarget,
        datasource: String = DATASOURCE,
        path: String = ELEMENT_PATH,
        description: Option<String> = ELEMENT_DESCRIPTION,
    }
}

impl Command for DescribeElement {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let wanted = self.path.trim().to_string();
            // Staging_UpdateDatasourceElement updates only the fields given, and `description`
            // is a string: a `null` may be read as "not given" and leave the old text, so an
            // empty string is what clears it.
            let description = self.description.unwrap_or_default();
            let agent = self.target.resolve(&ctx).await?;
            let source = datasource(&ctx, &agent, Stage::Staging, &self.datasource).await?;
            // First along the path only; a suffix path or an element id needs the whole tree.
            let lower = wanted.to_lowercase();
            let along = walk::walk(ctx.api(), &agent, Stage::Staging, &source.id, |node| {
                node.is_grouping() || lower.starts_with(&format!("{}.", node.path.to_lowercase()))
            })
            .await?;
            let found = find_element(&along, &wanted);
            let node = if let Ok(node) = found {
                node.clone()
            } else {
                let all =
                    walk::walk(ctx.api(), &agent, Stage::Staging, &source.id, |_| true).await?;
                find_element(&all, &wanted)?.clone()
            };
            let updated = agent
                .element_patch(
                    ctx.api(),
                    &source.id,
                    &node.id,
                    json!({"description": description}),
                )
                .await?;
            Ok(Reply::json(json!({
                "path": node.path,
                "type": node.kind,
                "id": node.id,
                "description": updated
                    .get("description")
                    .filter(|text| text.as_str().is_some_and(|text| !text.is_empty()))
                    .cloned()
                    .unwrap_or(Value::Null),
            })))
        })
    }
}

/// The element with this id, or the one element this dot path names.
fn find_element<'a>(nodes: &'a [Node], wanted: &str) -> Result<&'a Node> {
    if let Some(node) = nodes.iter().find(|node| node.id == wanted) {
        return Ok(node);
    }
    let named: Vec<&Node> = nodes.iter().filter(|n| !n.is_grouping()).collect();
    resolve_names(&named, &[wanted.to_string()], "element")?
        .into_iter()
        .next()
        .ok_or_else(|| Error::usage(format!("no element {wanted:?}")))
}

typed_args! {
    /// `data-agent delete-element`.
    struct DeleteElement {
        target: AgentTarget,
        datasource: String = DATASOURCE,
        element: String = ELEMENT_ID,
    }
}

impl Command for DeleteElement {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let element = self.element.trim().to_string();
            if element.is_empty() {
                return Err(Error::usage("--element-id cannot be empty"));
            }
            let agent = self.target.resolve(&ctx).await?;
            let source = datasource(&ctx, &agent, Stage::Staging, &self.datasource).await?;
            agent
                .element_delete(ctx.api(), &source.id, &element)
                .await
                .map_err(|err| {
                    if err.has_code("ElementStillAvailable") {
                        err.with_hint("the element is still in the live schema; unselect it with `fabsh data-agent select-tables --unselect` instead")
                    } else {
                        err
                    }
                })?;
            Ok(Reply::empty())
        })
    }
}
