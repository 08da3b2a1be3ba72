//! parameter.yml's rules applied to one text part: `find_replace`, `key_value_replace` and
//! `spark_pool`, each refused when its output would make the part larger than it may be.

use super::{Rendered, Renderer, RuleHits, too_large};
use crate::bounded::{self, Format, PART_BYTES, TooLarge};
use crate::excerpt::cut;
use crate::params::{FindReplace, KeyValueReplace, for_env};
use crate::repo::RepoItem;
use fabsh_model::limits::serialized_len;
use serde_json::Value;

/// The most different values a regex `find_replace` may capture in one part: each is then
/// replaced through the whole part, so this bounds the passes over it.
const MAX_CAPTURED: usize = 256;

/// How a `find_replace` rule is named in messages: its place in the list and its find_value.
fn find_rule(n: usize, rule: &FindReplace) -> String {
    format!(
        "find_replace rule {} (find_value {:?})",
        n + 1,
        cut(&rule.find_value, 60)
    )
}

impl Renderer<'_> {
    /// Applies one rule to a text part; 1 when it matched.
    pub(super) fn find_replace(
        &self,
        n: usize,
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
            // Each different value once, in the order they appear.
            let mut seen = std::collections::HashSet::new();
            let mut found = Vec::new();
            for value in pattern
                .captures_iter(text)
                .filter_map(|c| c.get(1).map(|m| m.as_str()))
            {
                if value.is_empty() || !seen.insert(value) {
                    continue;
                }
                if found.len() == MAX_CAPTURED {
                    Self::problem(
                        out,
                        file,
                        "TooManyMatches",
                        format!(
                            "{} captures more than {MAX_CAPTURED} different values in {file}: not applied",
                            find_rule(n, rule)
                        ),
                    );
                    return 1;
                }
                found.push(value.to_string());
            }
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
            let Ok(literal) = literal else { continue };
            if let Ok(replaced) = bounded::replace_matches(text, &literal, &replacement, PART_BYTES)
            {
                *text = replaced;
            } else {
                Self::problem(
                    out,
                    file,
                    "PartTooLarge",
                    too_large(&find_rule(n, rule), file),
                );
                break;
            }
        }
        1
    }

    pub(super) fn key_value(
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
        let Some((mut doc, yaml)) = parse_structured(text) else {
            return 0;
        };
        let pointers: Vec<String> = path
            .query_located(&doc)
            .locations()
            .map(serde_json_path::NormalizedPath::to_json_pointer)
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
        let rule_name = || {
            format!(
                "key_value_replace of find_key {:?}",
                cut(&rule.find_key, 60)
            )
        };
        // Each slot filled takes at least the value's compact size: refused before any is.
        let least = (pointers.len() as u64).saturating_mul(serialized_len(&value));
        if least > PART_BYTES {
            Self::problem(out, file, "PartTooLarge", too_large(&rule_name(), file));
            return 1;
        }
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
            let format = if yaml { Format::Yaml } else { Format::Json };
            match bounded::write(&doc, format, PART_BYTES) {
                Ok(written) => *text = written,
                Err(TooLarge) => {
                    Self::problem(out, file, "PartTooLarge", too_large(&rule_name(), file));
                }
            }
        }
        1
    }

    pub(super) fn spark_pools(
        &self,
        item: &RepoItem,
        file: &str,
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
            if let Ok(replaced) = bounded::replace_text(text, pool_id, &id, PART_BYTES) {
                *text = replaced;
            } else {
                let step = format!("spark_pool rule {} (instance_pool_id {pool_id:?})", n + 1);
                Self::problem(out, file, "PartTooLarge", too_large(&step, file));
            }
            return;
        }
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
