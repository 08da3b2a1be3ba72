//! Parameterising an item's parts for a target workspace, in fabric-cicd's order: a report's
//! `byPath` model reference becomes a connection to the deployed model, logical ids of other
//! repository items become their deployed ids, then `find_replace`, `key_value_replace` and
//! `spark_pool` rules, then the all-zero workspace id placeholders become the target's id.
//! A variable library only gets the parameter rules.

use crate::params::{Filters, FindReplace, KeyValueReplace, Parameters, for_env};
use crate::repo::{RepoItem, RepoPart};
use crate::variables::{ItemRef, Resolved, resolve};
use fabsh_model::definition::platform::UNSET_LOGICAL_ID;
use fabsh_model::deploy::PlanProblem;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// What is known of the target workspace; empty for an offline validation.
#[derive(Debug, Clone, Default)]
pub struct Target {
    pub workspace_id: Option<String>,
    pub workspace_name: Option<String>,
    /// The environment variables `$ENV:NAME` reads.
    pub env_vars: BTreeMap<String, String>,
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
    pub target: &'a Target,
}

const WORKSPACE_ID_REFERENCE: &str =
    r#""?(default_lakehouse_workspace_id|workspaceId|workspace)"?\s*[:=]\s*"(.*?)""#;

impl Renderer<'_> {
    /// Renders item `index`, counting rule matches into `hits`.
    pub fn render(&self, index: usize, hits: &mut RuleHits) -> Rendered {
        let item = &self.items[index];
        let mut out = Rendered::default();
        if let Some(parent) = &item.parent_logical_id
            && let Some(p) = self.items.iter().position(|i| &i.logical_id == parent)
        {
            out.references.insert(p);
        }
        for part in &item.parts {
            let Some(text) = part.text() else {
                out.parts.push(part.clone());
                continue;
            };
            let mut text = text.to_string();
            let file = format!("{}/{}", item.dir, part.path);
            if item.item_type != "VariableLibrary" {
                if item.item_type == "Report" && part.path == "definition.pbir" {
                    text = self.by_path(item, &text, &mut out);
                }
                text = self.logical_ids(index, &text, &mut out);
            }
            for (n, rule) in self.params.find_replace.iter().enumerate() {
                if self.filters_match(&rule.filters, item, &file) {
                    hits.find_replace[n] += self.find_replace(rule, &mut text, &file, &mut out);
                }
            }
            for (n, rule) in self.params.key_value_replace.iter().enumerate() {
                if self.filters_match(&rule.filters, item, &file) {
                    hits.key_value_replace[n] += self.key_value(rule, &mut text, &file, &mut out);
                }
            }
            if item.item_type == "Environment" && part.path.ends_with("Sparkcompute.yml") {
                self.spark_pools(item, &mut text, hits, &mut out);
            }
            if item.item_type != "VariableLibrary" {
                text = self.workspace_ids(&text, &mut out);
            }
            out.parts.push(RepoPart {
                path: part.path.clone(),
                bytes: text.into_bytes(),
            });
        }
        out
    }

    fn problem(out: &mut Rendered, subject: &str, code: &str, message: String) {
        out.problems.push(PlanProblem {
            subject: Some(subject.to_string()),
            severity: fabsh_model::deploy::Severity::Error,
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
                .map(|glob| glob.compile_matcher().is_match(file))
                .unwrap_or(false)
        } else {
            filter == file
        }
    }

    fn by_path(&self, item: &RepoItem, text: &str, out: &mut Rendered) -> String {
        let Ok(mut doc) = serde_json::from_str::<Value>(text) else {
            return text.to_string();
        };
        let Some(path) = doc
            .pointer("/datasetReference/byPath/path")
            .and_then(Value::as_str)
        else {
            return text.to_string();
        };
        let model_dir = join_relative(&item.dir, path);
        let Some(p) = self
            .items
            .iter()
            .position(|i| i.item_type == "SemanticModel" && i.dir == model_dir)
        else {
            Self::problem(
                out,
                &item.key(),
                "UnknownSemanticModel",
                format!(
                    "definition.pbir refers to {path:?}, which is no semantic model of the repository (in scope)"
                ),
            );
            return text.to_string();
        };
        out.references.insert(p);
        let model = &self.items[p];
        let id = match self.target.id_of("SemanticModel", &model.display_name) {
            Some(id) => id.to_string(),
            None => {
                let placeholder = format!("<id of {}>", model.key());
                out.pending.push(placeholder.clone());
                placeholder
            }
        };
        doc["datasetReference"] = json!({"byConnection": {
            "connectionString": null,
            "pbiServiceModelId": null,
            "pbiModelVirtualServerName": "sobe_wowvirtualserver",
            "pbiModelDatabaseName": id,
            "name": "EntityDataSource",
            "connectionType": "pbiServiceXmlaStyleLive",
        }});
        serde_json::to_string_pretty(&doc).unwrap_or_else(|_| text.to_string())
    }

    fn logical_ids(&self, index: usize, text: &str, out: &mut Rendered) -> String {
        let mut text = text.to_string();
        for (p, other) in self.items.iter().enumerate() {
            let logical = other.logical_id.as_str();
            if p == index || logical == UNSET_LOGICAL_ID || !text.contains(logical) {
                continue;
            }
            out.references.insert(p);
            let id = match self.target.id_of(&other.item_type, &other.display_name) {
                Some(id) => id.to_string(),
                None => {
                    let placeholder = format!("<id of {}>", other.key());
                    out.pending.push(placeholder.clone());
                    placeholder
                }
            };
            text = text.replace(logical, &id);
        }
        text
    }

    /// Applies one rule to a text part; 1 when it matched.
    fn find_replace(
        &self,
        rule: &FindReplace,
        text: &mut String,
        file: &str,
        out: &mut Rendered,
    ) -> usize {
        let case = if rule.ignores_case() { "(?i)" } else { "" };
        let finds: Vec<String> = if rule.regex() {
            let pattern = match regex::Regex::new(&format!("{case}{}", rule.find_value)) {
                Ok(pattern) => pattern,
                Err(err) => {
                    Self::problem(
                        out,
                        file,
                        "InvalidRegex",
                        format!("find_value {:?}: {err}", rule.find_value),
                    );
                    return 0;
                }
            };
            if pattern.captures_len() < 2 {
                Self::problem(
                    out,
                    file,
                    "InvalidRegex",
                    format!(
                        "find_value {:?} has no capture group 1, the value to replace",
                        rule.find_value
                    ),
                );
                return 0;
            }
            let mut found: Vec<String> = pattern
                .captures_iter(text)
                .filter_map(|c| c.get(1).map(|m| m.as_str().to_string()))
                .filter(|m| !m.is_empty())
                .collect();
            found.dedup();
            found
        } else {
            let find = if rule.find_value.starts_with("$workspace.") {
                match self.value_of(&rule.find_value, file, out) {
                    Some(v) => v,
                    None => return 0,
                }
            } else {
                rule.find_value.clone()
            };
            let contains = if rule.ignores_case() {
                text.to_lowercase().contains(&find.to_lowercase())
            } else {
                text.contains(&find)
            };
            if contains { vec![find] } else { Vec::new() }
        };
        if finds.is_empty() {
            return 0;
        }
        self.note_references(rule.replace_value.values(), out);
        let Some(raw) = for_env(&rule.replace_value, self.environment) else {
            return 1;
        };
        let Some(replacement) = self.value_of(&scalar_text(raw), file, out) else {
            return 1;
        };
        for find in finds {
            let literal = regex::Regex::new(&format!("{case}{}", regex::escape(&find)));
            if let Ok(literal) = literal {
                *text = literal
                    .replace_all(text, regex::NoExpand(&replacement))
                    .into_owned();
            }
        }
        1
    }

    fn key_value(
        &self,
        rule: &KeyValueReplace,
        text: &mut String,
        file: &str,
        out: &mut Rendered,
    ) -> usize {
        let path = match serde_json_path::JsonPath::parse(&rule.find_key) {
            Ok(path) => path,
            Err(err) => {
                Self::problem(
                    out,
                    file,
                    "InvalidJsonPath",
                    format!("find_key {:?}: {err}", rule.find_key),
                );
                return 0;
            }
        };
        let (mut doc, yaml) = match parse_structured(text) {
            Some(parsed) => parsed,
            None => return 0,
        };
        let pointers: Vec<String> = path
            .query_located(&doc)
            .locations()
            .map(|location| location.to_json_pointer())
            .collect();
        if pointers.is_empty() {
            return 0;
        }
        self.note_references(rule.replace_value.values(), out);
        let Some(raw) = for_env(&rule.replace_value, self.environment) else {
            return 1;
        };
        let value = match raw {
            Value::String(s) => match self.value_of(s, file, out) {
                Some(v) => Value::String(v),
                None => return 1,
            },
            other => other.clone(),
        };
        let mut changed = false;
        for pointer in pointers {
            if let Some(slot) = doc.pointer_mut(&pointer)
                && *slot != value
            {
                *slot = value.clone();
                changed = true;
            }
        }
        if changed {
            let written = if yaml {
                serde_yaml_ng::to_string(&doc).ok()
            } else {
                serde_json::to_string_pretty(&doc).ok()
            };
            if let Some(written) = written {
                *text = written;
            }
        }
        1
    }

    fn spark_pools(
        &self,
        item: &RepoItem,
        text: &mut String,
        hits: &mut RuleHits,
        out: &mut Rendered,
    ) {
        let Ok(doc) = serde_yaml_ng::from_str::<Value>(text) else {
            return;
        };
        let Some(pool_id) = doc.get("instance_pool_id").and_then(Value::as_str) else {
            return;
        };
        for (n, rule) in self.params.spark_pool.iter().enumerate() {
            let named = rule
                .item_name
                .as_ref()
                .is_none_or(|names| names.values().contains(&item.display_name.as_str()));
            if rule.instance_pool_id != pool_id || !named {
                continue;
            }
            hits.spark_pool[n] += 1;
            let Some(pool) = for_env(&rule.replace_value, self.environment) else {
                continue;
            };
            let id = match self
                .target
                .spark_pools
                .get(&(pool.pool_type.clone(), pool.name.clone()))
            {
                Some(id) => id.clone(),
                None if self.target.workspace_id.is_none() => {
                    let placeholder = format!("<{} pool {}>", pool.pool_type, pool.name);
                    out.pending.push(placeholder.clone());
                    placeholder
                }
                None => {
                    Self::problem(
                        out,
                        &item.key(),
                        "UnknownSparkPool",
                        format!(
                            "the target workspace has no {} Spark pool named {:?}",
                            pool.pool_type, pool.name
                        ),
                    );
                    continue;
                }
            };
            *text = text.replace(pool_id, &id);
            return;
        }
    }

    fn workspace_ids(&self, text: &str, out: &mut Rendered) -> String {
        if !text.contains(UNSET_LOGICAL_ID) {
            return text.to_string();
        }
        let Ok(pattern) = regex::Regex::new(WORKSPACE_ID_REFERENCE) else {
            return text.to_string();
        };
        let id = match &self.target.workspace_id {
            Some(id) => id.clone(),
            None => {
                let placeholder = "<$workspace.id>".to_string();
                out.pending.push(placeholder.clone());
                placeholder
            }
        };
        pattern
            .replace_all(text, |caps: &regex::Captures<'_>| {
                let whole = &caps[0];
                if &caps[2] == UNSET_LOGICAL_ID {
                    whole.replace(UNSET_LOGICAL_ID, &id)
                } else {
                    whole.to_string()
                }
            })
            .into_owned()
    }
}

/// A `replace_value` scalar as text (YAML may read `true` or a number).
fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The part as JSON, or else as a YAML mapping or sequence; `true` for YAML.
fn parse_structured(text: &str) -> Option<(Value, bool)> {
    let trimmed = text.trim_start_matches('\u{feff}');
    if let Ok(doc) = serde_json::from_str::<Value>(trimmed) {
        return Some((doc, false));
    }
    match serde_yaml_ng::from_str::<Value>(trimmed) {
        Ok(doc @ (Value::Object(_) | Value::Array(_))) => Some((doc, true)),
        _ => None,
    }
}

/// `base/rel` with `..` and `.` resolved, `/`-separated.
fn join_relative(base: &str, rel: &str) -> String {
    let rel = rel.replace('\\', "/");
    let mut segments: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
    for segment in rel.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            other => segments.push(other),
        }
    }
    segments.join("/")
}
