//! Deploying a workspace from a git folder, as pure functions: read the repository (Fabric's
//! git layout, fabric-cicd's `config.yml` and `parameter.yml`), parameterise each item's parts
//! for a target workspace, order the items by their references, and compare them with what
//! the workspace holds. The client fetches the workspace's state and carries the plan out;
//! nothing here sends a request.

pub mod after;
pub mod apply;
mod boundary;
mod bounded;
pub mod config;
pub mod env_vars;
mod error;
mod excerpt;
pub mod export;
pub mod file;
pub mod levels;
pub mod params;
pub mod plan;
pub mod promote;
pub mod protected;
pub mod render;
pub mod repo;
pub mod schedules;
pub mod scope;
mod variables;
pub mod yaml;

pub use error::{Error, Input, Result};
pub use variables::{attributes_from, needing_properties as variables_needing_properties};
