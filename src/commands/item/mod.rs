//! The `item` group.

mod basics;
mod bulk;
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
    bulk::BULK_CREATE,
    bulk::BULK_DELETE,
];
