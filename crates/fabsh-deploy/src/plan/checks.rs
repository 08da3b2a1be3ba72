//! What a plan checks beyond each item's own render: the items together (duplicates, unknown
//! types, each definition through validate-definition's checks) and the rules (ones that
//! match nothing, `$items` naming an item of neither the repository nor the target).

use super::{Repository, definition_json, error, warning};
use crate::params::for_env;
use crate::render::{RuleHits, Target};
use crate::repo::{RepoItem, RepoPart};
use crate::variables::{self, ItemRef};
use fabsh_model::definition::{platform, validate};
use fabsh_model::deploy::PlanProblem;
use fabsh_model::item_types;
use std::collections::{BTreeMap, BTreeSet};

/// The checks of each item, in turn: duplicates, unknown types, and its definition through
/// validate-definition's checks.
#[derive(Default)]
pub(super) struct Checks {
    names: BTreeSet<(String, String)>,
    logical: BTreeMap<String, String>,
}

impl Checks {
    /// The problems of `item`, rendered as `parts`, and with the items checked before.
    pub(super) fn item(&mut self, item: &RepoItem, parts: &[RepoPart]) -> Vec<PlanProblem> {
        let mut problems = Vec::new();
        if !self
            .names
            .insert((item.item_type.clone(), item.display_name.to_lowercase()))
        {
            problems.push(error(
                Some(item.key()),
                "DuplicateItem",
                "another item of this type has the same name".into(),
            ));
        }
        if item.logical_id != platform::UNSET_LOGICAL_ID
            && let Some(other) = self.logical.insert(item.logical_id.clone(), item.key())
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
        if Repository::shell_only(item) {
            return problems;
        }
        let definition = definition_json(item, parts);
        let report = validate::validate(&definition, Some(&item.item_type));
        for finding in report.errors {
            problems.push(error(
                Some(item.key()),
                finding.code,
                match finding.path {
                    Some(path) => format!("{path}: {}", finding.message),
                    // A finding about the whole definition has no part path.
                    None => format!(": {}", finding.message),
                },
            ));
        }
        problems
    }
}

impl Repository {
    /// Rules that matched nothing, and `$items` variables naming an item neither the
    /// repository nor `target` holds.
    pub(super) fn check_rules(&self, hits: &RuleHits, target: &Target) -> Vec<PlanProblem> {
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
        let rules = self
            .params
            .find_replace
            .iter()
            .zip(&hits.find_replace)
            .map(|(r, hit)| (&r.replace_value, *hit > 0))
            .chain(
                self.params
                    .key_value_replace
                    .iter()
                    .zip(&hits.key_value_replace)
                    .map(|(r, hit)| (&r.replace_value, *hit > 0)),
            );
        let environment = self.environment.as_deref();
        for (values, matched) in rules {
            let chosen = for_env(values, environment);
            for value in values.values() {
                let Some(text) = value.as_str() else { continue };
                let Some(parsed) = variables::item_ref(text) else {
                    continue;
                };
                let planned = chosen.is_some_and(|c| std::ptr::eq(c, value));
                let problem = match parsed {
                    Err(message) => Some((message, matched)),
                    Ok(reference) => match variables::check_attribute(&reference) {
                        Err(message) => Some((message, matched)),
                        Ok(()) => unresolved(&reference, text, target, planned)
                            .map(|(message, fatal)| (message, fatal && matched)),
                    },
                };
                if let Some((message, fatal)) = problem {
                    let code = "UnknownItemReference";
                    let subject = Some("parameter.yml".to_string());
                    problems.push(if fatal {
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

/// Why the `$items` variable `text` (naming `reference`) cannot be resolved, and whether that
/// is fatal, when it cannot. `planned`: the value is the one for the environment planned;
/// another environment's is deployed to another workspace, which this plan has not read.
fn unresolved(
    reference: &ItemRef,
    text: &str,
    target: &Target,
    planned: bool,
) -> Option<(String, bool)> {
    if target.in_repository(&reference.item_type, &reference.name) {
        return None;
    }
    if target.workspace_id.is_none() {
        return Some((
            format!(
                "{text:?}: no {} named {:?} in the repository (in scope): the target workspace must hold one",
                reference.item_type, reference.name
            ),
            false,
        ));
    }
    let deployed = target
        .id_of(&reference.item_type, &reference.name)
        .is_some();
    (planned && !deployed).then(|| (variables::unknown_item(text, reference), true))
}
