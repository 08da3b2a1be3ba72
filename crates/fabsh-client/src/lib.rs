//! fabsh's commands: the registry (each command declared once, with its typed arguments), the
//! handlers, what they build on (evaluations, definitions on disk, replies) and the output of
//! their results, the only place that prints. Front ends (the CLI, the REPL, scripts, MCP) run
//! commands through it. It reaches Fabric through `fabsh-api`, and never depends on local
//! Fabric, which it reaches like any other endpoint.

pub mod agent;
pub mod bridge;
pub mod commands;
pub mod context;
pub mod definition;
pub mod local_time;
pub mod output;
pub mod reply;
pub mod stdlib;

// The client's one error type is the layer's below it: every failure, from sign-in to a
// handler's check, is one Error with one kind (DESIGN §5).
pub use fabsh_api::{Error, ErrorKind, Result, error};
