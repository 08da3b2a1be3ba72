//! The `item` group.

pub(crate) mod basics;
mod url;

use super::spec::CommandSpec;

/// The item commands, in help order.
pub static COMMANDS: &[CommandSpec] = &[
    basics::LIST,
    basics::SHOW,
    basics::EXISTS,
    url::URL,
    basics::CREATE,
    basics::UPDATE,
    basics::DELETE,
];
