//! fabsh: a client for Microsoft Fabric workspace items and data agents, with a REPL, a
//! script runner and local Fabric (a wire-compatible server) built in.

pub mod api;
pub mod auth;
pub mod bridge;
pub mod cli;
pub mod commands;
pub mod config;
pub mod context;
pub mod definition;
pub mod error;
pub mod item_types;
pub mod local;
pub mod output;
pub mod repl;
pub mod reply;
pub mod script;

pub use error::{Error, ErrorKind, Result};

use std::ffi::OsString;
use std::process::ExitCode;

/// Runs fabsh with these arguments (program name first) on `handle`'s runtime.
pub fn run(args: Vec<OsString>, handle: tokio::runtime::Handle) -> ExitCode {
    cli::run(args, handle)
}
