//! The fourth front end: fabsh as a Model Context Protocol server (`fabsh mcp serve`). Each
//! registry command the server's policy admits is a tool whose schema comes from its flags
//! and whose annotations come from its traits; a call runs the command in process, as the
//! command line would, and returns its JSON.

mod agents;
mod arguments;
mod confine;
mod consent;
mod files;
pub mod http;
mod request_ids;
mod server;
mod tools;

pub use agents::published as published_agents;
pub use confine::Confinement;
pub use files::FileRoots;
pub use request_ids::OneCallPerId;
pub use server::{FabshMcp, Setup, Shared};
pub use tools::{Policy, selected, tool_groups};
