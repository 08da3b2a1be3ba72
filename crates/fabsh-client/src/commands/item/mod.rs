//! The `item` group.

pub(crate) mod basics;
mod bulk;
mod bulk_transfer;
mod bulk_transfer_bodies;
mod copy_move;
mod definition_flags;
pub(crate) mod definitions;
mod endorsements;
mod identity;
mod inspect;
mod invitations;
mod new_item;
pub(crate) mod organisation;
mod shares;
mod url;

use super::spec::CommandSpec;

/// The item commands, in help order (the spec's order).
pub static COMMANDS: &[CommandSpec] = &[
    basics::LIST,
    basics::SHOW,
    definitions::GET_DEFINITION,
    definitions::VALIDATE_DEFINITION,
    inspect::LIST_CONNECTIONS,
    basics::EXISTS,
    url::URL,
    inspect::INSPECT,
    inspect::LIST_DOWNSTREAM_RELATIONS,
    inspect::LIST_UPSTREAM_RELATIONS,
    endorsements::SHOW_ENDORSEMENT,
    endorsements::LIST_ENDORSEMENTS,
    basics::CREATE,
    basics::UPDATE,
    organisation::UPDATE_LOGICAL_ID,
    definitions::UPDATE_DEFINITION,
    basics::DELETE,
    copy_move::COPY,
    copy_move::MOVE,
    organisation::MOVE_TO_FOLDER,
    organisation::APPLY_TAGS,
    organisation::UNAPPLY_TAGS,
    bulk_transfer::BULK_EXPORT_DEFINITIONS,
    bulk_transfer::BULK_IMPORT_DEFINITIONS,
    bulk_transfer::BULK_MOVE,
    bulk::BULK_CREATE,
    bulk::BULK_DELETE,
    shares::LIST_EXTERNAL_DATA_SHARES,
    shares::CREATE_EXTERNAL_DATA_SHARE,
    shares::SHOW_EXTERNAL_DATA_SHARE,
    shares::REVOKE_EXTERNAL_DATA_SHARE,
    shares::DELETE_EXTERNAL_DATA_SHARE,
    identity::ASSIGN_IDENTITY,
    invitations::GET_INVITATION,
    invitations::ACCEPT_INVITATION,
];
