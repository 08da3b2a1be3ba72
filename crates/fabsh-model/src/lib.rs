//! fabsh's model: the wire and domain types and pure functions that the client and local
//! Fabric share. Nothing here does I/O; both sides depend on this crate, never on each other.

pub mod agent;
pub mod definition;
pub mod deploy;
pub mod edit_distance;
pub mod item_types;
pub mod jobs;
pub mod limits;
pub mod naming;
mod problem;
pub mod promotion;
pub mod roles;
mod secret;
pub mod sql;
pub mod wire;

pub use problem::Problem;
pub use secret::Secret;
