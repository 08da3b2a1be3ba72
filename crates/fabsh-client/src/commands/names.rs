//! A `--name` checked against the service's naming rules (fabsh-model's one table,
//! [`fabsh_model::naming`]) before a create or a rename is sent: a name the service would
//! refuse is a usage error (exit 2) naming the flag and the rule.

use crate::commands::spec::ArgSpec;
use crate::error::{Error, Result};
use fabsh_model::naming::NameRules;

/// `name`, given by `flag`, against `rules`.
pub(crate) fn checked(flag: &ArgSpec, rules: &NameRules, name: &str) -> Result<()> {
    match rules.problem(name) {
        None => Ok(()),
        Some(rule) => Err(Error::usage(format!(
            "--{} {name:?} would be refused: {rule}",
            flag.long
        ))),
    }
}
