//! Parameterising an item's parts for a target workspace, in fabric-cicd's order: a report's
//! `byPath` model reference becomes a connection to the deployed model, logical ids of other
//! repository items become their deployed ids, then `find_replace`, `key_value_replace` and
//! `spark_pool` rules, then the all-zero workspace id placeholders become the target's id.
//! A variable library only gets the parameter rules.

use crate::bounded::PART_BYTES;
use crate::env_vars::EnvVars;
use crate::file::human_size;
use crate::params::{Filters, Parameters};
use crate::repo::{RepoItem, RepoPart};
use crate::scope::LeftOut;
use crate::variables::{ItemRef, Resolved, resolve};
use fabsh_model::deploy::{PlanProblem, Severity};
use fabsh_model::item_types;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// What is known of the target workspace; empty for an offline validation.
#[derive(Debug, Clone, Default)]
pub struct Target {
    pub workspace_id: Option<String>,
    pub workspace_name: Option<String>,
    /// The environment variables `$ENV:NAME` may read, with their values.
    pub env: EnvVars,
    /// The deployed items by (type, display name): their id and attributes (`id`,
    /// `sqlendpoint`, ...).
    pub deployed: HashMap<(String, String), BTreeMap<String, String>>,
    /// The target's Spark pools by (type, name): their ids.
    pub spark_pools: HashMap<(String, String), String>,
    /// The repository's items in scope, by (type, display name).
    pub repository: BTreeSet<(String, String)>,
}

impl Target {
    /// Records a deployed item's id and attributes.
    pub fn set_deployed(
        &mut self,
        item_type: &str,
        name: &str,
        id: &str,
        attributes: BTreeMap<String, String>,
    ) {
        let mut attributes = attributes;
        attributes.insert("id".into(), id.to_string());
        self.deployed
            .insert((item_type.to_string(), name.to_string()), attributes);
    }

    /// The deployed id of an item, if it is deployed.
    pub fn id_of(&self, item_type: &str, name: &str) -> Option<&str> {
        self.deployed
            .get(&(item_type.to_string(), name.to_string()))
            .and_then(|attrs| attrs.get("id"))
            .map(String::as_str)
    }

    /// The same target with `$ENV:NAME` where each environment variable's value would go:
    /// what a plan's diff and a dry run show.
    pub fn with_env_placeholders(&self) -> Target {
        Target {
            env: self.env.placeholders(),
            ..self.clone()
        }
    }

    pub(crate) fn in_repository(&self, item_type: &str, name: &str) -> bool {
        self.repository
            .contains(&(item_type.to_string(), name.to_string()))
    }

    pub(crate) fn attribute(&self, reference: &ItemRef) -> Option<String> {
        self.deployed
            .get(&(reference.item_type.clone(), reference.name.clone()))?
            .get(&reference.attribute)
            .cloned()
    }
}

/// How many parts each rule changed or matched, across every item rendered: a rule that
/// matches nothing is reported.
#[derive(Debug, Clone, Default)]
pub struct RuleHits {
    pub find_replace: Vec<usize>,
    pub key_value_replace: Vec<usize>,
    pub spark_pool: Vec<usize>,
}

impl RuleHits {
    /// Counters for every rule of `params`, at zero.
    pub fn new(params: &Parameters) -> Self {
        RuleHits {
            find_replace: vec![0; params.find_replace.len()],
            key_value_replace: vec![0; params.key_value_replace.len()],
            spark_pool: vec![0; params.spark_pool.len()],
        }
    }
}

/// An item's parts as they would be deployed.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// Every part but `.platform`, parameterised.
    pub parts: Vec<RepoPart>,
    /// Placeholders for values known only after something is deployed.
    pub pending: Vec<String>,
    pub problems: Vec<PlanProblem>,
    /// The indexes (into the renderer's items) of the items this one refers to.
    pub references: BTreeSet<usize>,
}

/// Everything parameterisation reads.
pub struct Renderer<'a> {
    /// The repository's root, for absolute `file_path` filters.
    pub root: &'a Path,
    pub params: &'a Parameters,
    pub environment: Option<&'a str>,
    /// The repository's items in scope.
    pub items: &'a [RepoItem],
    /// The repository's items the scope leaves out, which references may name.
    pub outside: &'a [LeftOut],
    pub target: &'a Target,
}

/// A problem's message when a step would make `file` larger than a part may be.
fn too_large(step: &str, file: &str) -> String {
    format!(
        "{step} would make {file} larger than the {} one part may hold (what fits in one definition request): not applied",
        human_size(PART_BYTES)
    )
}

impl Renderer<'_> {
    /// Renders item `index`, counting rule matches into `hits`.
    pub fn render(&self, index: usize, hits: &mut RuleHits) -> Rendered {
        let item = &self.items[index];
        let mut out = Rendered::default();
        // What the item's definition holds so far: `.platform` and the parts rendered.
        let mut definition_bytes = item.platform_bytes().len() as u64;
        if let Some(parent) = &item.parent_logical_id
            && let Some(p) = self.items.iter().position(|i| &i.logical_id == parent)
        {
            out.references.insert(p);
        }
        for part in &item.parts {
            let Some(text) = part.text() else {
                definition_bytes += part.bytes.len() as u64;
                out.parts.push(part.clone());
                continue;
            };
            let mut text = text.to_string();
            let file = format!("{}/{}", item.dir, part.path);
            if item.item_type != item_types::VARIABLE_LIBRARY {
                if item.item_type == item_types::REPORT && part.path == "definition.pbir" {
                    text = self.by_path(item, &text, &mut out);
                }
                text = self.logical_ids(index, &file, &text, &mut out);
            }
            for (n, rule) in self.params.find_replace.iter().enumerate() {
                if self.filters_match(&rule.filters, item, &file) {
                    hits.find_replace[n] += self.find_replace(n, rule, &mut text, &file, &mut out);
                }
            }
            for (n, rule) in self.params.key_value_replace.iter().enumerate() {
                if self.filters_match(&rule.filters, item, &file) {
                    hits.key_value_replace[n] += self.key_value(rule, &mut text, &file, &mut out);
                }
            }
            if item.item_type == item_types::ENVIRONMENT && part.path.ends_with("Sparkcompute.yml")
            {
                self.spark_pools(item, &file, &mut text, hits, &mut out);
            }
            if item.item_type != item_types::VARIABLE_LIBRARY {
                text = self.workspace_ids(&text, &mut out);
            }
            definition_bytes += text.len() as u64;
            out.parts.push(RepoPart {
                path: part.path.clone(),
                bytes: text.into_bytes(),
            });
            // The item cannot be deployed past this: its other parts are not rendered.
            if definition_bytes > fabsh_model::limits::DEFINITION_BYTES {
                Self::problem(
                    &mut out,
                    &item.key(),
                    "DefinitionTooLarge",
                    format!(
                        "its parts, parameterised, add up to more than the {} one definition request holds",
                        human_size(fabsh_model::limits::DEFINITION_BYTES)
                    ),
                );
                break;
            }
        }
        out
    }

    fn problem(out: &mut Rendered, subject: &str, code: &str, message: String) {
        Self::found(out, subject, Severity::Error, code, message);
    }

    fn found(out: &mut Rendered, subject: &str, severity: Severity, code: &str, message: String) {
        out.problems.push(PlanProblem {
            subject: Some(subject.to_string()),
            severity,
            code: code.to_string(),
            message,
        });
    }

    /// Records the items a matched rule's values refer to, in any environment: the order of
    /// deployment must not depend on which environment is planned.
    fn note_references<'v>(&self, values: impl Iterator<Item = &'v Value>, out: &mut Rendered) {
        for raw in values.filter_map(Value::as_str) {
            if let Some(Ok(reference)) = crate::variables::item_ref(raw)
                && let Some(p) = self.items.iter().position(|i| {
                    i.item_type == reference.item_type && i.display_name == reference.name
                })
            {
                out.references.insert(p);
            }
        }
    }

    /// The value to write for a resolved variable, noting placeholders and problems.
    fn value_of(&self, raw: &str, subject: &str, out: &mut Rendered) -> Option<String> {
        match resolve(raw, self.target) {
            Resolved::Value(value) => Some(value),
            Resolved::Pending(placeholder) => {
                out.pending.push(placeholder.clone());
                Some(placeholder)
            }
            Resolved::Invalid(message) => {
                Self::problem(out, subject, "InvalidVariable", message);
                None
            }
            // Said of parameter.yml, as the plan's own check of the variables says it.
            Resolved::Refused(code, message) => {
                Self::problem(out, "parameter.yml", code, message);
                None
            }
        }
    }

    fn filters_match(&self, filters: &Filters, item: &RepoItem, file: &str) -> bool {
        if let Some(types) = &filters.item_type
            && !types.values().contains(&item.item_type.as_str())
        {
            return false;
        }
        if let Some(names) = &filters.item_name
            && !names.values().contains(&item.display_name.as_str())
        {
            return false;
        }
        match &filters.file_path {
            None => true,
            Some(paths) => paths.values().iter().any(|p| self.path_matches(p, file)),
        }
    }

    /// A `file_path` filter value against a part's path relative to the root: absolute,
    /// relative (with or without a leading `/`, either slash), or a glob.
    fn path_matches(&self, filter: &str, file: &str) -> bool {
        let mut filter = filter.replace('\\', "/");
        let root = self.root.to_string_lossy().replace('\\', "/");
        if let Some(rest) = filter.strip_prefix(root.trim_end_matches('/')) {
            filter = rest.to_string();
        }
        let filter = filter.trim_start_matches("./").trim_start_matches('/');
        if filter.contains(['*', '?', '[']) {
            globset::GlobBuilder::new(filter)
                .literal_separator(true)
                .build()
                .is_ok_and(|glob| glob.compile_matcher().is_match(file))
        } else {
            filter == file
        }
    }
}

mod references;
mod rules;

pub(crate) use references::WORKSPACE_ID_REFERENCE;

#[cfg(test)]
mod tests;
