//! The flags that send an item a definition, read into the plain values
//! [`definition::given`](crate::definition::given) checks: that layer sits below the
//! commands and does not read flags.

use crate::commands::args::FileArg;
use crate::commands::common::{ALLOW_EXTRA, DEFINITION, DEFINITION_DIR, DEFINITION_OPTIONS};
use crate::commands::typed::typed_args;
use crate::definition::given::{Given, PartFile};
use serde_json::Value;
use std::path::PathBuf;

typed_args! {
    /// `--definition`, `--dir`, `--allow-extra` and `--options`, as given.
    pub(super) struct DefinitionFlags {
        definition: Option<Value> = DEFINITION,
        dir: Option<String> = DEFINITION_DIR,
        allow_extra: bool = ALLOW_EXTRA,
        options: Option<Value> = DEFINITION_OPTIONS,
    }
}

impl DefinitionFlags {
    /// The sources as `given` takes them, with `file` (update-definition's `--file`) when
    /// the command has one.
    pub(super) fn given(self, file: Option<FileArg>) -> Given {
        Given {
            file: file.map(|file| PartFile {
                name: file.file_name(),
                bytes: file.bytes,
            }),
            definition: self.definition,
            dir: self.dir.map(PathBuf::from),
            allow_extra: self.allow_extra,
            options: self.options,
        }
    }
}
