//! Offline checks of a definition: the envelope, each part (path, base64, JSON, size), the
//! `.platform` part, and — given an item type — the type's required and canonical parts and
//! formats from `item_types`. Every finding names the part it is about.

use super::{INLINE_BASE64, decode_payload, inner, paths, platform};
use crate::item_types::{self, PartRules};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashSet;

/// One problem found, with the part path it concerns (`null` for the envelope itself).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub path: Option<String>,
    /// A stable name for the rule (`MissingRequiredPart`, `InvalidBase64`, ...).
    pub code: &'static str,
    pub message: String,
}

/// The outcome: valid when there are no errors; warnings never make a definition invalid
/// (`--strict` decides what to do with them).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    pub valid: bool,
    pub errors: Vec<Finding>,
    pub warnings: Vec<Finding>,
}

impl Report {
    fn error(&mut self, path: Option<&str>, code: &'static str, message: impl Into<String>) {
        self.errors.push(Finding {
            path: path.map(str::to_string),
            code,
            message: message.into(),
        });
    }

    fn warning(&mut self, path: Option<&str>, code: &'static str, message: impl Into<String>) {
        self.warnings.push(Finding {
            path: path.map(str::to_string),
            code,
            message: message.into(),
        });
    }

    /// The report as JSON output.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// One line per error, for messages that refuse a definition.
    pub fn error_lines(&self) -> Vec<String> {
        self.errors
            .iter()
            .map(|f| match &f.path {
                Some(path) => format!("{path}: {} ({})", f.message, f.code),
                None => format!("{} ({})", f.message, f.code),
            })
            .collect()
    }
}

/// Paths whose payload must be JSON.
fn is_json_path(path: &str) -> bool {
    path == platform::PATH
        || [".json", ".pbir", ".pbism", ".ipynb", ".bim"]
            .iter()
            .any(|ext| path.to_ascii_lowercase().ends_with(ext))
}

/// Checks a definition in either envelope shape; `item_type` enables the per-type checks.
pub fn validate(value: &Value, item_type: Option<&str>) -> Report {
    let mut report = Report::default();
    check(&mut report, value, item_type);
    report.valid = report.errors.is_empty();
    report
}

fn check(report: &mut Report, value: &Value, item_type: Option<&str>) {
    let definition = inner(value);
    let Some(object) = definition.as_object() else {
        report.error(
            None,
            "InvalidEnvelope",
            "the definition must be a JSON object with a `parts` array",
        );
        return;
    };
    let format = match object.get("format") {
        None | Some(Value::Null) => None,
        Some(Value::String(format)) => Some(format.as_str()),
        Some(_) => {
            report.error(None, "InvalidEnvelope", "`format` must be a string");
            None
        }
    };
    let Some(parts) = object.get("parts").and_then(Value::as_array) else {
        report.error(
            None,
            "InvalidEnvelope",
            "the definition has no `parts` array",
        );
        return;
    };
    if parts.is_empty() {
        report.error(None, "EmptyDefinition", "the definition has no parts");
    }
    let known = item_type.and_then(item_types::find);
    let rules = known.and_then(|t| t.parts);
    let mut seen = HashSet::new();
    let mut paths = Vec::new();
    for (index, part) in parts.iter().enumerate() {
        let Some(path) = part
            .get("path")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
        else {
            report.error(
                None,
                "InvalidEnvelope",
                format!("part {index} has no `path`"),
            );
            continue;
        };
        if let Some(problem) = paths::problem(path) {
            report.error(Some(path), "UnsafePath", problem);
            continue;
        }
        if !seen.insert(path) {
            report.error(
                Some(path),
                "DuplicatePath",
                "the path appears more than once",
            );
            continue;
        }
        paths.push(path);
        check_part(report, path, part, item_type, rules);
    }
    if let Some(name) = item_type {
        match known {
            None => report.warning(
                None,
                "UnknownType",
                format!("{name} is not a known item type, so its parts were not checked"),
            ),
            Some(t) if !t.has_definition => report.error(
                None,
                "NoDefinitionSupport",
                format!("items of type {} have no definition", t.name),
            ),
            Some(t) => {
                if let Some(rules) = t.parts {
                    check_layout(report, t.name, rules, format, &paths);
                }
            }
        }
    }
}

fn check_part(
    report: &mut Report,
    path: &str,
    part: &Value,
    item_type: Option<&str>,
    rules: Option<&PartRules>,
) {
    match part.get("payloadType") {
        None | Some(Value::Null) => report.warning(
            Some(path),
            "PayloadTypeMissing",
            format!("no payloadType; {INLINE_BASE64} is assumed"),
        ),
        Some(Value::String(kind)) if kind == INLINE_BASE64 => {}
        Some(other) => report.error(
            Some(path),
            "InvalidEnvelope",
            format!("payloadType is {other}; only {INLINE_BASE64} exists"),
        ),
    }
    let Some(payload) = part.get("payload").and_then(Value::as_str) else {
        report.error(
            Some(path),
            "InvalidEnvelope",
            "the part has no `payload` text",
        );
        return;
    };
    let bytes = match decode_payload(payload) {
        Ok(bytes) => bytes,
        Err(err) => {
            report.error(
                Some(path),
                "InvalidBase64",
                format!("the payload is not valid base64 ({err})"),
            );
            return;
        }
    };
    if let Some(limit) = rules.and_then(|r| r.max_part_bytes)
        && bytes.len() > limit
    {
        report.error(
            Some(path),
            "PartTooLarge",
            format!("the part is {} bytes; the limit is {limit}", bytes.len()),
        );
    }
    if path == platform::PATH {
        check_platform(report, &bytes, item_type);
    } else if is_json_path(path) {
        let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        if let Err(err) = serde_json::from_slice::<serde::de::IgnoredAny>(text) {
            report.error(
                Some(path),
                "InvalidJson",
                format!("the payload is not valid JSON: {err}"),
            );
        }
    }
}

fn check_platform(report: &mut Report, bytes: &[u8], item_type: Option<&str>) {
    let path = Some(platform::PATH);
    let doc = match platform::document(bytes) {
        Ok(doc) => doc,
        Err(message) => {
            report.error(path, "InvalidJson", message);
            return;
        }
    };
    for (is_error, message) in platform::problems(&doc) {
        if is_error {
            report.error(path, "InvalidPlatform", message);
        } else {
            report.warning(path, "InvalidPlatform", message);
        }
    }
    let declared = platform::fields(&doc).item_type;
    if let (Some(expected), Some(declared)) = (item_type, declared.as_deref())
        && !expected.trim().eq_ignore_ascii_case(declared.trim())
    {
        report.error(
            path,
            "TypeMismatch",
            format!("metadata.type is {declared} but --type is {expected}"),
        );
    }
}

/// The `MissingRequiredPart` findings for a definition of `item_type` with this `format` and
/// these part paths: the rule [`validate`] applies, for callers that hold decoded parts (local
/// Fabric refuses such definitions as the service does). None for unknown types or types
/// without part rules.
pub fn missing_required_parts(
    item_type: &str,
    format: Option<&str>,
    paths: &[&str],
) -> Vec<Finding> {
    let mut report = Report::default();
    if let Some(t) = item_types::find(item_type)
        && let Some(rules) = t.parts
    {
        check_layout(&mut report, t.name, rules, format, paths);
    }
    report
        .errors
        .into_iter()
        .filter(|f| f.code == "MissingRequiredPart")
        .collect()
}

fn check_layout(
    report: &mut Report,
    type_name: &str,
    rules: &PartRules,
    format: Option<&str>,
    paths: &[&str],
) {
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    if let Some(format) = format {
        if rules.formats.is_empty() {
            report.warning(
                None,
                "UnknownFormat",
                format!("{type_name} has no named formats; format {format:?} may be refused"),
            );
        } else if !rules.formats.iter().any(|f| same(f, format)) {
            report.warning(
                None,
                "UnknownFormat",
                format!(
                    "format {format:?} is not one of {}",
                    rules.formats.join(", ")
                ),
            );
        }
    }
    let present = |pattern: &str| paths.iter().any(|p| item_types::path_matches(pattern, p));
    let applicable: Vec<_> = rules
        .required
        .iter()
        .filter(|r| {
            r.when_format
                .is_none_or(|f| format.is_some_and(|given| same(f, given)))
        })
        .collect();
    for requirement in &applicable {
        // A general requirement is covered by a format-specific one that names a subset of
        // its alternatives: that one already reported (or satisfied) it.
        let covered = requirement.when_format.is_none()
            && applicable.iter().any(|other| {
                other.when_format.is_some()
                    && other.any_of.iter().all(|p| requirement.any_of.contains(p))
            });
        if covered || requirement.any_of.iter().any(|pattern| present(pattern)) {
            continue;
        }
        let (expected, message) = match requirement.any_of {
            // Every requirement names at least one pattern (the table is written so): one
            // naming none asks for nothing.
            [] => continue,
            [only] => (*only, format!("a {type_name} definition needs this part")),
            all @ [first, ..] => (
                *first,
                format!("a {type_name} definition needs one of {}", all.join(", ")),
            ),
        };
        report.error(Some(expected), "MissingRequiredPart", message);
    }
    for path in paths.iter().filter(|p| **p != platform::PATH) {
        if !rules.is_canonical(path) {
            report.warning(
                Some(path),
                "NonCanonicalPath",
                format!("not a path {type_name} definitions use"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::definition::part;
    use serde_json::json;

    #[test]
    fn a_notebook_with_its_source_and_platform_is_valid() {
        let platform = platform::render(
            "Notebook",
            "N",
            None,
            "8f1a1c0e-5b1e-4a57-9a3c-0f5c9b6e2d11",
        );
        let def =
            json!({"parts": [part("notebook-content.py", b"# hi"), part(".platform", &platform)]});
        let report = validate(&def, Some("notebook"));
        assert!(report.valid, "{report:?}");
        assert!(report.warnings.is_empty(), "{report:?}");
    }

    #[test]
    fn missing_required_parts_names_what_validate_names() {
        let missing = missing_required_parts("Report", Some("PBIR"), &["definition.pbir"]);
        let paths: Vec<_> = missing.iter().filter_map(|f| f.path.as_deref()).collect();
        assert_eq!(paths, ["definition/report.json"]);
        assert!(missing_required_parts("Notebook", None, &["notebook-content.py"]).is_empty());
        assert_eq!(missing_required_parts("Notebook", None, &[]).len(), 1);
        assert!(missing_required_parts("NoSuchType", None, &[]).is_empty());
    }

    #[test]
    fn a_format_specific_requirement_reports_once() {
        let def = json!({"format": "ipynb", "parts": [part("x.txt", b"")]});
        let report = validate(&def, Some("Notebook"));
        let missing: Vec<_> = report
            .errors
            .iter()
            .filter(|f| f.code == "MissingRequiredPart")
            .collect();
        assert_eq!(missing.len(), 1, "{report:?}");
        assert_eq!(missing[0].path.as_deref(), Some("notebook-content.ipynb"));
    }
}
