//! The YAML files deploy takes (`config.yml`, `parameter.yml` and its templates): regular
//! files within a cap, parsed with errors that quote a short excerpt, never the file.

use crate::error::{Error, Input, Result};
use crate::excerpt::parse_error;
use crate::file::{self, FileError, human_size};
use serde::de::DeserializeOwned;
use std::path::Path;

/// The most a config or parameter file may hold: far beyond any real one (fabric-cicd's
/// sample parameter file is 6 KiB), and small enough to parse in memory at once.
pub const YAML_BYTES: u64 = 16 << 20;

/// The text of the file at `path` (shown as `shown`).
pub(crate) fn read_text(path: &Path, shown: &str, input: Input) -> Result<String> {
    let bytes = file::read_regular(path, YAML_BYTES).map_err(|err| match err {
        FileError::TooLarge { size, .. } => Error::invalid(
            input,
            shown,
            format!(
                "{size} bytes, more than the {} a config or parameter file may hold",
                human_size(YAML_BYTES)
            ),
        ),
        other => Error::read(input, shown, other),
    })?;
    String::from_utf8(bytes).map_err(|err| {
        Error::invalid(
            input,
            shown,
            format!(
                "not UTF-8 text (an invalid byte at offset {})",
                err.utf8_error().valid_up_to()
            ),
        )
    })
}

/// `text` parsed as `T`.
pub(crate) fn parse<T: DeserializeOwned>(text: &str, shown: &str, input: Input) -> Result<T> {
    serde_yaml_ng::from_str(text).map_err(|err| {
        let at = err.location().map(|at| (at.line(), at.column()));
        Error::invalid(input, shown, parse_error(text, &err.to_string(), at))
    })
}
