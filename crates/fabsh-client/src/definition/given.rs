//! A definition the user gives a command (`--definition`, `--dir`, update-definition's
//! `--file`, a bulk item's `definition`): read, `--options` merged, and checked offline as
//! validate-definition checks it, so a definition with duplicate parts or a bad `.platform`
//! is refused before anything is sent, whichever command it goes to.

use super::folder;
use crate::commands::args::Args;
use crate::error::{Error, Result};
use fabsh_model::definition::{self, validate};
use serde_json::{Value, json};
use std::path::Path;

/// The definition given with whichever of `sources` (`file`, `definition`, `dir`) was given,
/// checked; `None` when none was. `--file` is one part named after the file; `--dir` is
/// held against `item_type` (else its `.platform`'s type) unless `--allow-extra`.
pub fn given_definition(
    args: &Args,
    sources: &[&'static str],
    item_type: Option<&str>,
) -> Result<Option<Value>> {
    let source = one_source(args, sources)?;
    if args.flag("allow-extra") && source != Some("dir") {
        return Err(Error::usage("--allow-extra only applies to --dir")
            .with_hint("it lets --dir send files that are not parts of the definition"));
    }
    let options = args.json("options");
    let Some(source) = source else {
        if options.is_some() {
            return Err(
                Error::usage(format!("--options needs {}", source_list(sources, " or ")))
                    .with_hint(
                        "--options adds type-specific settings to the definition it goes with",
                    ),
            );
        }
        return Ok(None);
    };
    let flag = format!("--{source}");
    let raw = match source {
        "file" => {
            let file = args
                .file("file")
                .ok_or_else(|| Error::usage("--file is required"))?;
            json!({"parts": [definition::part(&file.file_name(), &file.bytes)]})
        }
        "dir" => folder::read_dir(
            Path::new(args.str("dir")?),
            args.flag("allow-extra"),
            item_type,
        )?,
        _ => args.json(source).cloned().unwrap_or(Value::Null),
    };
    checked(&raw, options, &flag, item_type).map(Some)
}

/// `raw` as the service takes it, with `options` merged; refused with every error
/// validate-definition would report, for `item_type` when the command knows it (a part the
/// type requires missing, as in a folder holding only `.platform`). `flag` names where it
/// came from.
pub fn checked(
    raw: &Value,
    options: Option<&Value>,
    flag: &str,
    item_type: Option<&str>,
) -> Result<Value> {
    let report = validate::validate(raw, item_type);
    if !report.valid {
        let mut err = Error::usage(format!(
            "{flag}: the definition has {} error(s); nothing was sent",
            report.errors.len()
        ));
        for line in report.error_lines() {
            err = err.with_cause(line);
        }
        return Err(err.with_hint("`fabsh item validate-definition` shows the full report"));
    }
    let mut definition = definition::from_user_json(raw, flag)?;
    if let Some(options) = options {
        merge_options(&mut definition, options)?;
    }
    Ok(definition)
}

/// Adds `--options` keys to the definition object (`format`, ...); `parts` stays the user's.
fn merge_options(definition: &mut Value, options: &Value) -> Result<()> {
    let Some(options) = options.as_object() else {
        return Err(Error::usage("--options must be a JSON object"));
    };
    if options.contains_key("parts") {
        return Err(Error::usage(
            "--options cannot set `parts`; put them in the definition",
        ));
    }
    if let Some(definition) = definition.as_object_mut() {
        for (key, value) in options {
            definition.insert(key.clone(), value.clone());
        }
    }
    Ok(())
}

/// The one flag among `sources` that was given, if any; several is a usage error.
pub fn one_source(args: &Args, sources: &[&'static str]) -> Result<Option<&'static str>> {
    let given: Vec<&'static str> = sources
        .iter()
        .copied()
        .filter(|name| args.has(name))
        .collect();
    match given.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one)),
        many => Err(Error::usage(format!(
            "give only one of {} (got --{})",
            source_list(sources, ", "),
            many.join(", --")
        ))),
    }
}

/// `--file, --definition, --dir`.
pub fn source_list(sources: &[&str], separator: &str) -> String {
    sources
        .iter()
        .map(|name| format!("--{name}"))
        .collect::<Vec<_>>()
        .join(separator)
}
