//! fabsh's layer that talks to Microsoft Fabric: configuration and sign-in, the HTTP core with
//! retries, throttling, paging and long-running operations, the typed endpoint functions, the
//! name cache, and the MCP and SQL-endpoint clients of data agents.
//!
//! It prints nothing: what it does is reported through [`watch`], and the front ends above it
//! (the command registry and its output, in `fabsh-client`) decide what a person sees. Nothing
//! here knows of commands, flags or output formats.

pub mod agent;
pub mod api;
pub mod auth;
pub mod config;
pub mod error;
pub mod onelake;
pub mod watch;

pub use error::{Error, ErrorKind, Result};
