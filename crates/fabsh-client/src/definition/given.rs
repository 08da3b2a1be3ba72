//! A definition the user gives a command (`--definition`, `--dir`, update-definition's
//! `--file`, a bulk item's `definition`): read, `--options` merged, and checked offline as
//! validate-definition checks it, so a definition with duplicate parts or a bad `.platform`
//! is refused before anything is sent, whichever command it goes to.
//!
//! It takes plain values ([`Given`]): the commands layer reads them from the flags, so this
//! layer knows the flags only by the names its messages use.

use super::folder;
use crate::error::{Error, Result};
use fabsh_model::definition::{self, validate};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;

/// One place a definition can come from, each the flag of its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// One file, sent as one part.
    File,
    /// The definition envelope as JSON.
    Definition,
    /// A folder of part files.
    Dir,
}

impl Source {
    /// The flag's name, as messages write it after `--`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Source::File => "file",
            Source::Definition => "definition",
            Source::Dir => "dir",
        }
    }
}

/// A file sent whole as a definition's one part, named after the file.
pub(crate) struct PartFile {
    /// The file's name without directories: the part's path.
    pub(crate) name: String,
    pub(crate) bytes: Arc<Vec<u8>>,
}

/// What a command was given to send a definition with; `None` is a source not given.
#[derive(Default)]
pub(crate) struct Given {
    pub(crate) file: Option<PartFile>,
    /// `--definition`: the envelope as JSON.
    pub(crate) definition: Option<Value>,
    /// `--dir`: a folder of part files.
    pub(crate) dir: Option<PathBuf>,
    /// `--allow-extra`: `--dir` may send files that are not parts of the type.
    pub(crate) allow_extra: bool,
    /// `--options`: keys merged into the definition.
    pub(crate) options: Option<Value>,
}

impl Given {
    /// True when `source` was given.
    pub(crate) fn has(&self, source: Source) -> bool {
        match source {
            Source::File => self.file.is_some(),
            Source::Definition => self.definition.is_some(),
            Source::Dir => self.dir.is_some(),
        }
    }

    /// The definition given with whichever of `offered` (the command's sources, in the order
    /// its messages list them) was given, checked; `None` when none was. A file is one part
    /// named after the file; a folder is held against `item_type` (else its `.platform`'s
    /// type) unless `allow_extra`.
    pub(crate) fn definition(
        self,
        offered: &[Source],
        item_type: Option<&str>,
    ) -> Result<Option<Value>> {
        let source = one_source(offered, |source| self.has(source))?;
        if self.allow_extra && source != Some(Source::Dir) {
            return Err(Error::usage("--allow-extra only applies to --dir")
                .with_hint("it lets --dir send files that are not parts of the definition"));
        }
        let Some(source) = source else {
            if self.options.is_some() {
                return Err(Error::usage(format!(
                    "--options needs {}",
                    source_list(offered, " or ")
                ))
                .with_hint(
                    "--options adds type-specific settings to the definition it goes with",
                ));
            }
            return Ok(None);
        };
        let flag = format!("--{}", source.name());
        let raw = match (source, self.file, self.definition, self.dir) {
            (Source::File, Some(file), _, _) => {
                json!({"parts": [definition::part(&file.name, &file.bytes)]})
            }
            (Source::Dir, _, _, Some(dir)) => folder::read_dir(&dir, self.allow_extra, item_type)?,
            (Source::Definition, _, Some(value), _) => value,
            // `one_source` picked a source that was given.
            _ => Value::Null,
        };
        checked(&raw, self.options.as_ref(), &flag, item_type).map(Some)
    }
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

/// The one source among `offered` that `given` says was given, if any; several is a usage
/// error.
pub(crate) fn one_source(
    offered: &[Source],
    given: impl Fn(Source) -> bool,
) -> Result<Option<Source>> {
    let given: Vec<Source> = offered
        .iter()
        .copied()
        .filter(|source| given(*source))
        .collect();
    match given.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(*one)),
        many => Err(Error::usage(format!(
            "give only one of {} (got --{})",
            source_list(offered, ", "),
            many.iter()
                .map(|source| source.name())
                .collect::<Vec<_>>()
                .join(", --")
        ))),
    }
}

/// `--file, --definition, --dir`.
pub(crate) fn source_list(sources: &[Source], separator: &str) -> String {
    sources
        .iter()
        .map(|source| format!("--{}", source.name()))
        .collect::<Vec<_>>()
        .join(separator)
}
