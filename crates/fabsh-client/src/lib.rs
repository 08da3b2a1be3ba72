//! fabsh's client: configuration and sign-in, the HTTP core with retries, throttling, paging
//! and long-running operations, the command registry and its handlers, and the output of
//! their results. Front ends (the CLI, the REPL, scripts) run commands through it; it never
//! depends on local Fabric, which it reaches like any other endpoint.

pub mod agent;
pub mod bridge;
pub mod commands;
pub mod context;
pub mod definition;
pub mod local_time;
pub mod output;
pub mod reply;
pub mod stdlib;

pub use fabsh_api::{Error, ErrorKind, Result, api, auth, config, error};
