//! fabsh: a client for Microsoft Fabric workspace items and data agents, with a REPL, a
//! script runner and local Fabric (a wire-compatible server) built in. This package holds the
//! front ends — the command line, the REPL, the Rhai host — and the `--local` wiring; the
//! client (`fabsh-client`), local Fabric (`fabsh-local`) and what both share (`fabsh-model`,
//! `fabsh-http`) are crates of their own.

pub mod cli;
pub mod commands;
pub mod connect;
pub mod mcp;
pub mod repl;
pub mod script;

use std::ffi::OsString;
use std::process::ExitCode;

/// Runs fabsh with these arguments (program name first) on `handle`'s runtime.
pub fn run(args: Vec<OsString>, handle: tokio::runtime::Handle) -> ExitCode {
    cli::run(args, handle)
}
