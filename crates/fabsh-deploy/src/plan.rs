//! The plan: each repository item rendered for the target and compared with what the
//! workspace holds (normalised parts, description, folder), plus the workspace's orphans and
//! the problems an offline validation finds.

use crate::config::Settings;
use crate::env_vars::{EnvAccess, EnvVars};
use crate::file::human_size;
use crate::levels::levels;
use crate::params::Parameters;
use crate::render::{Renderer, RuleHits, Target};
use crate::repo::{self, RepoItem, RepoPart};
use crate::schedules;
use crate::scope::LeftOut;
use checks::Checks;
use fabsh_model::definition::{self, platform};
use fabsh_model::deploy::{
    Change, PartDiff, Plan, PlanAction, PlanProblem, PlanRow, PlanSummary, Severity,
};
use fabsh_model::item_types;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

/// Types deployed as an empty item (no definition), as fabric-cicd does.
pub const SHELL_ONLY: &[&str] = &[
    item_types::LAKEHOUSE,
    item_types::WAREHOUSE,
    item_types::SQL_DATABASE,
    item_types::ML_EXPERIMENT,
];

/// A repository opened for one environment.
#[derive(Debug, Clone)]
pub struct Repository {
    pub root: PathBuf,
    /// The items in scope (see [`crate::scope`]): those deployed.
    pub items: Vec<RepoItem>,
    /// The repository's items the scope leaves out: not deployed, but a reference to one is
    /// to the target workspace's item of its name, and that item is no orphan.
    pub outside: Vec<LeftOut>,
    pub params: Parameters,
    pub settings: Settings,
    pub environment: Option<String>,
    /// What opening found (items out of scope, settings not supported).
    pub notes: Vec<PlanProblem>,
    /// The environment variables the parameters may read (none until [`Repository::read_env`]).
    pub env: EnvVars,
}

pub(crate) fn warning(subject: Option<String>, code: &str, message: String) -> PlanProblem {
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
    /// Its folder's path (`/a/b`, [`ROOT_FOLDER`] for the root).
    pub folder: String,
    /// Its definition's parts, when fetched (paired items with a definition).
    pub parts: Option<Vec<RepoPart>>,
}

/// The workspace root's folder path: items and folders at the top have it.
pub const ROOT_FOLDER: &str = "";

/// What plan was asked for.
pub use fabsh_model::deploy::PlanOptions as Options;

impl Repository {
    /// A target knowing only the repository (add the workspace's state to it).
    pub fn target(&self) -> Target {
        Target {
            repository: self
                .items
                .iter()
                .map(|i| (i.item_type.clone(), i.display_name.clone()))
                .collect(),
            env: self.env.clone(),
            ..Target::default()
        }
    }

    /// Reads, through `lookup`, the environment variables the parameters name for this
    /// environment that `access` allows, and no other.
    pub fn read_env(&mut self, access: EnvAccess, lookup: impl Fn(&str) -> Option<String>) {
        let names = self.params.env_names(self.environment.as_deref());
        self.env = EnvVars::read(access, &names, lookup);
    }

    /// The `$ENV:NAME` variables the parameters use that may not be read or are not set:
    /// errors, known before anything is fetched or sent.
    pub fn env_problems(&self) -> Vec<PlanProblem> {
        self.env
            .problems(&self.params.env_names(self.environment.as_deref()))
    }

    /// The renderer for `target`.
    pub fn renderer<'a>(&'a self, target: &'a Target) -> Renderer<'a> {
        Renderer {
            root: &self.root,
            params: &self.params,
            environment: self.environment.as_deref(),
            items: &self.items,
            outside: &self.outside,
            target,
        }
    }

    /// Each item's index by (type, display name): rows are in the plan's order, and an item
    /// is found by its index in the repository.
    pub(crate) fn index(&self) -> HashMap<(&str, &str), usize> {
        self.items
            .iter()
            .enumerate()
            .map(|(n, i)| ((i.item_type.as_str(), i.display_name.as_str()), n))
            .collect()
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
        options: &Options,
    ) -> Plan {
        let renderer = self.renderer(target);
        // A diff shows `$ENV:NAME` where a variable's value goes: the parts it shows are
        // rendered again for it, with those in place of the values.
        let shown_target =
            (options.diff && !target.env.is_empty()).then(|| target.with_env_placeholders());
        let shown_renderer = shown_target.as_ref().map(|t| self.renderer(t));
        let mut hits = RuleHits::new(&self.params);
        let mut checks = Checks::default();
        let mut item_problems = Vec::new();
        let mut render_problems = Vec::new();
        let mut references = Vec::new();
        let mut rows = Vec::new();
        let mut rendered_bytes = 0u64;
        // One item at a time: the plan keeps what it finds, never every rendered part at once.
        for (n, item) in self.items.iter().enumerate() {
            if rendered_bytes > repo::REPOSITORY_BYTES {
                item_problems.push(error(
                    Some(item.key()),
                    "RepositoryTooLarge",
                    format!(
                        "the items before it, parameterised, add up to more than {}, the most deploy plans: it and the items after it are left out",
                        human_size(repo::REPOSITORY_BYTES)
                    ),
                ));
                break;
            }
            let rendered = renderer.render(n, &mut hits);
            rendered_bytes += rendered
                .parts
                .iter()
                .map(|p| p.bytes.len() as u64)
                .sum::<u64>();
            item_problems.extend(checks.item(item, &rendered.parts));
            let mut same = deployed
                .iter()
                .filter(|d| d.item_type == item.item_type && d.display_name == item.display_name);
            let found = same.next();
            let others: Vec<&str> = same.map(|d| d.id.as_str()).collect();
            if let (Some(first), false) = (found, others.is_empty()) {
                // The service lets some types repeat a name (fabsh-model's names_unique):
                // pairing one would update it and count the others as orphans.
                item_problems.push(error(
                    Some(item.key()),
                    "AmbiguousItemName",
                    format!(
                        "{} items of the workspace are this {} named {:?} ({}, {}): deploy pairs items by type and name and cannot tell which to update; rename or delete all but one",
                        others.len() + 1,
                        item.item_type,
                        item.display_name,
                        first.id,
                        others.join(", ")
                    ),
                ));
            }
            let (mut row, changed) = self.row(item, &rendered.parts, found);
            if options.diff
                && !changed.is_empty()
                && let Some(theirs) = found.and_then(|d| d.parts.as_ref())
            {
                let shown_rendered;
                let shown = match &shown_renderer {
                    Some(shown) => {
                        shown_rendered = shown.render(n, &mut RuleHits::new(&self.params));
                        &shown_rendered.parts
                    }
                    None => &rendered.parts,
                };
                row.diffs = diffs(&changed, theirs, shown, &target.env);
            }
            row.refers_to = rendered
                .references
                .iter()
                .map(|&r| self.items[r].key())
                .collect();
            rows.push(row);
            references.push(rendered.references);
            render_problems.extend(rendered.problems);
        }
        let (level_of, cyclic) = levels(&references);
        for (row, level) in rows.iter_mut().zip(level_of) {
            row.level = Some(level);
        }
        let mut problems = self.notes.clone();
        for n in cyclic {
            problems.push(warning(
                Some(self.items[n].key()),
                "ReferenceCycle",
                "its references form a cycle: it is deployed in no particular order among them"
                    .into(),
            ));
        }
        problems.extend(item_problems);
        problems.extend(self.check_rules(&hits, target));
        problems.extend(
            target
                .env
                .problems(&self.params.env_names(self.environment.as_deref())),
        );
        problems.extend(render_problems);
        // Each problem once (a variable refused is found by each rule that uses it), and no
        // message showing a variable's value (a definition check may quote a part).
        let mut seen = BTreeSet::new();
        problems.retain(|p| seen.insert((p.subject.clone(), p.code.clone(), p.message.clone())));
        for problem in &mut problems {
            problem.message = target.env.mask(&problem.message);
        }
        rows.extend(self.orphans(deployed, options));
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
        problems.extend(mass_delete(&rows, deployed, options));
        let mut plan = Plan {
            workspace_id: target.workspace_id.clone(),
            environment: self.environment.clone(),
            create_folders,
            items: rows,
            problems,
            summary: PlanSummary::default(),
            pending: false,
        };
        settle(&mut plan);
        plan
    }

    /// The row of `item`, rendered as `parts`, against what is deployed; and the paths of
    /// the parts that differ.
    fn row(
        &self,
        item: &RepoItem,
        parts: &[RepoPart],
        found: Option<&Deployed>,
    ) -> (PlanRow, Vec<String>) {
        let mut row = PlanRow {
            action: PlanAction::Create,
            item_type: item.item_type.clone(),
            display_name: item.display_name.clone(),
            folder: item.folder.clone(),
            id: None,
            level: None,
            changes: Vec::new(),
            refers_to: Vec::new(),
            diffs: Vec::new(),
        };
        let mut changed = Vec::new();
        let Some(found) = found else {
            return (row, changed);
        };
        row.id = Some(found.id.clone());
        let mut content = false;
        if item.description.as_deref().unwrap_or("") != found.description.as_deref().unwrap_or("") {
            row.changes.push(Change::Description);
            content = true;
        }
        if let (false, Some(theirs)) = (Self::shell_only(item), &found.parts) {
            for (path, change) in compare_parts(theirs, parts) {
                changed.push(path.clone());
                row.changes.push(Change::Part { path, change });
                content = true;
            }
        }
        let moved = found.folder != item.folder;
        if moved {
            row.changes.push(Change::Folder {
                from: found.folder.clone(),
                to: item.folder.clone(),
            });
        }
        row.action = match (content, moved) {
            (true, _) => PlanAction::Update,
            (false, true) => PlanAction::Move,
            (false, false) => PlanAction::Unchanged,
        };
        (row, changed)
    }
}

/// The diffs of the `changed` parts from what is deployed (`theirs`) to `ours`, as rendered
/// for showing: the deployed side may hold a variable's value deployed before, so it is
/// masked too.
fn diffs(
    changed: &[String],
    theirs: &[RepoPart],
    ours: &[RepoPart],
    env: &EnvVars,
) -> Vec<PartDiff> {
    let bytes_of = |parts: &[RepoPart], path: &str| {
        parts
            .iter()
            .find(|p| p.path == path)
            .map(|p| p.bytes.clone())
    };
    changed
        .iter()
        .map(|path| {
            let old = bytes_of(theirs, path).map(|b| env.mask_bytes(&b));
            let new = bytes_of(ours, path);
            part_diff(path, old.as_deref(), new.as_deref())
        })
        .collect()
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
        item_types::NOTEBOOK if has(definition::notebook::IPYNB_PATH) => Some("ipynb"),
        item_types::SPARK_JOB_DEFINITION if has("SparkJobDefinitionV1.json") => {
            Some("SparkJobDefinitionV1")
        }
        item_types::SPARK_JOB_DEFINITION if has("SparkJobDefinitionV2.json") => {
            Some("SparkJobDefinitionV2")
        }
        _ => None,
    }
}

/// The creation payload a shell-only item is created with: a lakehouse with schemas when
/// its metadata names a default schema; a warehouse's `.platform` `creationPayload`.
pub fn creation_payload(item: &RepoItem) -> Option<Value> {
    match item.item_type.as_str() {
        item_types::LAKEHOUSE => item
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

mod checks;
mod compare;
mod fingerprint;
mod open;
mod orphans;
mod settle;

pub use compare::{compare_parts, part_diff};
pub use fingerprint::stale;
pub use open::{open, open_scoped};
use orphans::mass_delete;
pub(crate) use settle::settle;

#[cfg(test)]
mod tests;
