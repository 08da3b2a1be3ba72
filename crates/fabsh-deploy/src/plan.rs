//! The plan: each repository item rendered for the target and compared with what the
//! workspace holds (normalised parts, description, folder), plus the workspace's orphans and
//! the problems an offline validation finds.

use crate::config::{self, Settings};
use crate::levels::levels;
use crate::params::Parameters;
use crate::render::{Renderer, RuleHits, Target};
use crate::repo::{self, RepoItem, RepoPart};
use crate::schedules;
use crate::variables;
use crate::{Error, Result};
use fabsh_model::definition::{self, platform, validate};
use fabsh_model::deploy::{
    PartDiff, Plan, PlanAction, PlanProblem, PlanRow, PlanSummary, Severity,
};
use fabsh_model::item_types;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Types deployed as an empty item (no definition), as fabric-cicd does.
pub const SHELL_ONLY: &[&str] = &["Lakehouse", "Warehouse", "SQLDatabase", "MLExperiment"];

/// A repository opened for one environment.
#[derive(Debug, Clone)]
pub struct Repository {
    pub root: PathBuf,
    /// The items in scope (types in scope, not matched by publish exclude_regex).
    pub items: Vec<RepoItem>,
    pub params: Parameters,
    pub settings: Settings,
    pub environment: Option<String>,
    /// What opening found (items out of scope, settings not supported).
    pub notes: Vec<PlanProblem>,
}

/// Opens `dir` (or the config's repository directory) for `environment`.
pub fn open(
    dir: Option<&Path>,
    config_file: Option<&Path>,
    environment: Option<&str>,
) -> Result<Repository> {
    let settings = match config_file {
        Some(path) => config::load(path, environment)?,
        None => Settings::default(),
    };
    let root = match (dir, &settings.repository_directory) {
        (Some(dir), _) => dir.to_path_buf(),
        (None, Some(dir)) => dir.clone(),
        (None, None) => {
            return Err(Error::invalid(
                "config.yml",
                "core.repository_directory has no value for this environment",
            ));
        }
    };
    let all = repo::read(&root)?;
    let parameter_file = settings
        .parameter
        .clone()
        .or_else(|| Some(root.join("parameter.yml")).filter(|p| p.is_file()));
    let params = match &parameter_file {
        Some(path) => Parameters::load(path)?,
        None => Parameters::default(),
    };
    let mut notes = Vec::new();
    let items = all
        .into_iter()
        .filter(|item| {
            let in_scope = settings
                .item_types_in_scope
                .as_ref()
                .is_none_or(|types| types.contains(&item.item_type));
            let excluded = settings
                .publish_exclude
                .as_ref()
                .is_some_and(|re| re.is_match(&item.display_name));
            if excluded {
                notes.push(warning(
                    Some(item.key()),
                    "Excluded",
                    "matched publish.exclude_regex: not deployed".into(),
                ));
            }
            in_scope && !excluded
        })
        .collect();
    Ok(Repository {
        root,
        items,
        params,
        settings,
        environment: environment.map(str::to_string),
        notes,
    })
}

fn warning(subject: Option<String>, code: &str, message: String) -> PlanProblem {
    PlanProblem {
        subject,
        severity: Severity::Warning,
        code: code.into(),
        message,
    }
}

fn error(subject: Option<String>, code: &str, message: String) -> PlanProblem {
    PlanProblem {
        subject,
        severity: Severity::Error,
        code: code.into(),
        message,
    }
}

/// An item of the target workspace.
#[derive(Debug, Clone)]
pub struct Deployed {
    pub id: String,
    pub item_type: String,
    pub display_name: String,
    pub description: Option<String>,
    /// Its folder's path (`/a/b`, empty for the root).
    pub folder: String,
    /// Its definition's parts, when fetched (paired items with a definition).
    pub parts: Option<Vec<RepoPart>>,
}

/// What plan was asked for.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    pub diff: bool,
    pub delete_orphans: bool,
}

impl Repository {
    /// A target knowing only the repository (add the workspace's state to it).
    pub fn target(&self) -> Target {
        Target {
            repository: self
                .items
                .iter()
                .map(|i| (i.item_type.clone(), i.display_name.clone()))
                .collect(),
            ..Target::default()
        }
    }

    /// The renderer for `target`.
    pub fn renderer<'a>(&'a self, target: &'a Target) -> Renderer<'a> {
        Renderer {
            root: &self.root,
            params: &self.params,
            environment: self.environment.as_deref(),
            items: &self.items,
            target,
        }
    }

    /// Whether an item is deployed without a definition.
    pub fn shell_only(item: &RepoItem) -> bool {
        SHELL_ONLY.contains(&item.item_type.as_str())
    }

    /// The plan against `deployed` (empty and `target.workspace_id` None: offline
    /// validation). `folders` are the workspace's folder paths.
    pub fn plan(
        &self,
        target: &Target,
        deployed: &[Deployed],
        folders: &BTreeSet<String>,
        options: Options,
    ) -> Plan {
        let renderer = self.renderer(target);
        let mut hits = RuleHits::new(&self.params);
        let rendered: Vec<_> = (0..self.items.len())
            .map(|n| renderer.render(n, &mut hits))
            .collect();
        let references: Vec<_> = rendered.iter().map(|r| r.references.clone()).collect();
        let (level_of, cyclic) = levels(&references);
        let mut problems = self.notes.clone();
        for n in cyclic {
            problems.push(warning(
                Some(self.items[n].key()),
                "ReferenceCycle",
                "its references form a cycle: it is deployed in no particular order among them"
                    .into(),
            ));
        }
        problems.extend(self.check_items(&rendered));
        problems.extend(self.check_rules(&hits));
        for r in &rendered {
            problems.extend(r.problems.iter().cloned());
        }
        let mut rows = Vec::new();
        for (n, item) in self.items.iter().enumerate() {
            let found = deployed
                .iter()
                .find(|d| d.item_type == item.item_type && d.display_name == item.display_name);
            let mut row = self.row(item, &rendered[n].parts, found, level_of[n], options.diff);
            row.refers_to = rendered[n]
                .references
                .iter()
                .map(|&r| self.items[r].key())
                .collect();
            rows.push(row);
        }
        let in_scope = |t: &str| {
            self.settings
                .item_types_in_scope
                .as_ref()
                .is_none_or(|s| s.iter().any(|x| x == t))
        };
        for d in deployed {
            let ours = self
                .items
                .iter()
                .any(|i| i.item_type == d.item_type && i.display_name == d.display_name);
            let creatable = item_types::find(&d.item_type).is_none_or(|t| t.creatable);
            if ours || !creatable || !in_scope(&d.item_type) {
                continue;
            }
            let excluded = self
                .settings
                .unpublish_exclude
                .as_ref()
                .is_some_and(|re| re.is_match(&d.display_name));
            rows.push(PlanRow {
                action: PlanAction::Orphan,
                item_type: d.item_type.clone(),
                display_name: d.display_name.clone(),
                folder: d.folder.clone(),
                id: Some(d.id.clone()),
                level: None,
                changes: if excluded {
                    vec!["kept: matches unpublish.exclude_regex".into()]
                } else {
                    Vec::new()
                },
                delete: options.delete_orphans && !excluded && !self.settings.unpublish_skip,
                refers_to: Vec::new(),
                diffs: Vec::new(),
            });
        }
        let mut wanted = BTreeSet::new();
        for item in &self.items {
            let mut path = String::new();
            for segment in item.folder.split('/').filter(|s| !s.is_empty()) {
                path = format!("{path}/{segment}");
                wanted.insert(path.clone());
            }
        }
        let mut create_folders: Vec<String> = if target.workspace_id.is_some() {
            wanted.difference(folders).cloned().collect()
        } else {
            Vec::new()
        };
        create_folders.sort_by_key(|p| (p.matches('/').count(), p.clone()));
        let summary = summarise(&rows);
        let pending = target.workspace_id.is_some()
            && (summary.create + summary.update + summary.moves + summary.delete > 0
                || !create_folders.is_empty());
        Plan {
            workspace_id: target.workspace_id.clone(),
            environment: self.environment.clone(),
            create_folders,
            items: rows,
            problems,
            summary,
            pending,
        }
    }

    fn row(
        &self,
        item: &RepoItem,
        parts: &[RepoPart],
        found: Option<&Deployed>,
        level: u32,
        diff: bool,
    ) -> PlanRow {
        let mut row = PlanRow {
            action: PlanAction::Create,
            item_type: item.item_type.clone(),
            display_name: item.display_name.clone(),
            folder: item.folder.clone(),
            id: None,
            level: Some(level),
            changes: Vec::new(),
            delete: false,
            refers_to: Vec::new(),
            diffs: Vec::new(),
        };
        let Some(found) = found else {
            return row;
        };
        row.id = Some(found.id.clone());
        let mut content = false;
        if item.description.as_deref().unwrap_or("") != found.description.as_deref().unwrap_or("") {
            row.changes.push("description".into());
            content = true;
        }
        if let (false, Some(theirs)) = (Self::shell_only(item), &found.parts) {
            for (path, change, part_diff) in compare_parts(theirs, parts, diff) {
                row.changes.push(format!("part {path} {change}"));
                if let Some(d) = part_diff {
                    row.diffs.push(d);
                }
                content = true;
            }
        }
        let moved = found.folder != item.folder;
        if moved {
            let shown = |f: &str| {
                if f.is_empty() {
                    "/".to_string()
                } else {
                    f.to_string()
                }
            };
            row.changes.push(format!(
                "folder {} -> {}",
                shown(&found.folder),
                shown(&item.folder)
            ));
        }
        row.action = match (content, moved) {
            (true, _) => PlanAction::Update,
            (false, true) => PlanAction::Move,
            (false, false) => PlanAction::Unchanged,
        };
        row
    }

    /// Duplicates, unknown types, and each definition through validate-definition's checks.
    fn check_items(&self, rendered: &[crate::render::Rendered]) -> Vec<PlanProblem> {
        let mut problems = Vec::new();
        let mut names = BTreeSet::new();
        let mut logical = BTreeMap::new();
        for (n, item) in self.items.iter().enumerate() {
            if !names.insert((item.item_type.clone(), item.display_name.to_lowercase())) {
                problems.push(error(
                    Some(item.key()),
                    "DuplicateItem",
                    "another item of this type has the same name".into(),
                ));
            }
            if item.logical_id != platform::UNSET_LOGICAL_ID
                && let Some(other) = logical.insert(item.logical_id.clone(), item.key())
            {
                problems.push(error(
                    Some(item.key()),
                    "DuplicateLogicalId",
                    format!("{other} has the same logicalId {}", item.logical_id),
                ));
            }
            if item_types::find(&item.item_type).is_none() {
                problems.push(warning(
                    Some(item.key()),
                    "UnknownItemType",
                    format!("{} is not an item type fabsh knows", item.item_type),
                ));
            }
            if Self::shell_only(item) {
                continue;
            }
            let definition = definition_json(item, &rendered[n].parts);
            let report = validate::validate(&definition, Some(&item.item_type));
            for finding in report.errors {
                problems.push(error(
                    Some(item.key()),
                    finding.code,
                    format!("{}: {}", finding.path.unwrap_or_default(), finding.message),
                ));
            }
        }
        problems
    }

    /// Rules that matched nothing, and `$items` variables of any environment naming an item
    /// the repository does not hold.
    fn check_rules(&self, hits: &RuleHits) -> Vec<PlanProblem> {
        let mut problems = Vec::new();
        let unmatched = |kind: &str, what: &str| {
            warning(
                Some("parameter.yml".into()),
                "UnmatchedRule",
                format!("{kind} {what:?} matches no part of any item in scope"),
            )
        };
        for (rule, hit) in self.params.find_replace.iter().zip(&hits.find_replace) {
            if *hit == 0 {
                problems.push(unmatched("find_replace", &rule.find_value));
            }
        }
        for (rule, hit) in self
            .params
            .key_value_replace
            .iter()
            .zip(&hits.key_value_replace)
        {
            if *hit == 0 {
                problems.push(unmatched("key_value_replace", &rule.find_key));
            }
        }
        for (rule, hit) in self.params.spark_pool.iter().zip(&hits.spark_pool) {
            if *hit == 0 {
                problems.push(unmatched("spark_pool", &rule.instance_pool_id));
            }
        }
        // A variable of a rule that matched some part would make apply fail: an error. One of
        // a rule that matches nothing in scope is only worth a look.
        let values = self
            .params
            .find_replace
            .iter()
            .zip(&hits.find_replace)
            .flat_map(|(r, hit)| r.replace_value.values().map(move |v| (v, *hit > 0)))
            .chain(
                self.params
                    .key_value_replace
                    .iter()
                    .zip(&hits.key_value_replace)
                    .flat_map(|(r, hit)| r.replace_value.values().map(move |v| (v, *hit > 0))),
            );
        let target = self.target();
        for (value, matched) in values {
            let Some(text) = value.as_str() else { continue };
            if let Some(parsed) = variables::item_ref(text) {
                let problem = match parsed {
                    Err(message) => Some(message),
                    Ok(reference) => variables::check_attribute(&reference).err().or_else(|| {
                        (!target
                            .repository
                            .contains(&(reference.item_type.clone(), reference.name.clone())))
                        .then(|| {
                            format!(
                                "{text:?}: no {} named {:?} in the repository (in scope)",
                                reference.item_type, reference.name
                            )
                        })
                    }),
                };
                if let Some(message) = problem {
                    let code = "UnknownItemReference";
                    let subject = Some("parameter.yml".to_string());
                    problems.push(if matched {
                        error(subject, code, message)
                    } else {
                        warning(subject, code, message)
                    });
                }
            }
        }
        problems.sort_by(|a, b| a.message.cmp(&b.message));
        problems.dedup();
        problems
    }
}

/// The definition apply sends: the rendered parts and `.platform`, with the format a type's
/// files call for. `.schedules` is not among them: apply writes it through the job
/// scheduler's routes.
pub fn definition_json(item: &RepoItem, parts: &[RepoPart]) -> Value {
    let mut out: Vec<Value> = parts
        .iter()
        .filter(|p| p.path != schedules::PART)
        .map(|p| definition::part(&p.path, &p.bytes))
        .collect();
    out.push(definition::part(platform::PATH, &item.platform_bytes()));
    let mut def = serde_json::json!({ "parts": out });
    if let Some(format) = format_of(item) {
        def["format"] = Value::String(format.into());
    }
    def
}

/// The definition format a type's files call for, when the service needs one.
pub fn format_of(item: &RepoItem) -> Option<&'static str> {
    let has = |name: &str| item.parts.iter().any(|p| p.path == name);
    match item.item_type.as_str() {
        "Notebook" if has(definition::notebook::IPYNB_PATH) => Some("ipynb"),
        "SparkJobDefinition" if has("SparkJobDefinitionV1.json") => Some("SparkJobDefinitionV1"),
        "SparkJobDefinition" if has("SparkJobDefinitionV2.json") => Some("SparkJobDefinitionV2"),
        _ => None,
    }
}

/// The creation payload a shell-only item is created with: a lakehouse with schemas when
/// its metadata names a default schema; a warehouse's `.platform` `creationPayload`.
pub fn creation_payload(item: &RepoItem) -> Option<Value> {
    match item.item_type.as_str() {
        "Lakehouse" => item
            .parts
            .iter()
            .any(|p| {
                p.path == "lakehouse.metadata.json"
                    && p.text().is_some_and(|t| t.contains("defaultSchema"))
            })
            .then(|| serde_json::json!({ "enableSchemas": true })),
        _ => item.platform.pointer("/metadata/creationPayload").cloned(),
    }
}

/// The counts of each action.
pub fn summarise(rows: &[PlanRow]) -> PlanSummary {
    let mut summary = PlanSummary::default();
    for row in rows {
        match row.action {
            PlanAction::Create => summary.create += 1,
            PlanAction::Update => summary.update += 1,
            PlanAction::Move => summary.moves += 1,
            PlanAction::Unchanged => summary.unchanged += 1,
            PlanAction::Orphan => summary.orphan += 1,
        }
        if row.delete {
            summary.delete += 1;
        }
    }
    summary
}

/// A part's content for comparison: JSON parsed (key order and layout do not count), text
/// with one kind of line end and no byte-order mark or trailing blank lines, else bytes.
#[derive(Debug, PartialEq)]
enum Normal {
    Json(Value),
    Text(String),
    Bytes(Vec<u8>),
}

fn normalise(bytes: &[u8]) -> Normal {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Normal::Bytes(bytes.to_vec());
    };
    let text = text.trim_start_matches('\u{feff}');
    let trimmed = text.trim_start();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && let Ok(doc) = serde_json::from_str::<Value>(text)
    {
        return Normal::Json(doc);
    }
    Normal::Text(text.replace("\r\n", "\n").trim_end().to_string())
}

fn shown(normal: &Normal) -> Option<String> {
    match normal {
        Normal::Json(doc) => serde_json::to_string_pretty(doc).ok(),
        Normal::Text(text) => Some(text.clone()),
        Normal::Bytes(_) => None,
    }
}

/// The parts that differ: `(path, added|removed|changed, diff)`; `.platform` is compared as
/// metadata, not here.
pub fn compare_parts(
    deployed: &[RepoPart],
    ours: &[RepoPart],
    diff: bool,
) -> Vec<(String, &'static str, Option<PartDiff>)> {
    let theirs: BTreeMap<&str, &[u8]> = deployed
        .iter()
        .filter(|p| p.path != platform::PATH)
        .map(|p| (p.path.as_str(), p.bytes.as_slice()))
        .collect();
    let mine: BTreeMap<&str, &[u8]> = ours
        .iter()
        .map(|p| (p.path.as_str(), p.bytes.as_slice()))
        .collect();
    let paths: BTreeSet<&str> = theirs.keys().chain(mine.keys()).copied().collect();
    let mut out = Vec::new();
    // Schedules are listed by the service in a form of its own: compared in one form.
    let normal = |path: &str, bytes: &[u8]| match path {
        schedules::PART => normalise(&schedules::canonical(bytes)),
        _ => normalise(bytes),
    };
    for path in paths {
        let (old, new) = (
            theirs.get(path).map(|b| normal(path, b)),
            mine.get(path).map(|b| normal(path, b)),
        );
        let change = match (&old, &new) {
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            (Some(a), Some(b)) if a != b => "changed",
            _ => continue,
        };
        let part_diff = diff.then(|| {
            let old_text = old.as_ref().and_then(shown).unwrap_or_default();
            let new_text = new.as_ref().and_then(shown).unwrap_or_default();
            let binary =
                matches!(old, Some(Normal::Bytes(_))) || matches!(new, Some(Normal::Bytes(_)));
            PartDiff {
                path: path.to_string(),
                diff: if binary {
                    String::new()
                } else {
                    similar::TextDiff::from_lines(&old_text, &new_text)
                        .unified_diff()
                        .header(&format!("deployed/{path}"), &format!("repository/{path}"))
                        .to_string()
                },
            }
        });
        out.push((path.to_string(), change, part_diff));
    }
    out
}

#[cfg(test)]
mod tests;
