//! fabsh's model: the wire and domain types and pure functions that the client and local
//! Fabric share. Nothing here does I/O; both sides depend on this crate, never on each other.

pub mod agent;
pub mod definition;
mod invalid;
pub mod item_types;
pub mod roles;
mod secret;

pub use invalid::Invalid;
pub use secret::Secret;
