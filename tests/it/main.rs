//! The integration tests: one test binary. They run the real binary against local Fabric on
//! an ephemeral loopback port, with HOME and XDG dirs in a temp dir.

mod bad_input;
mod cli_basics;
mod http_core;
mod items;
mod replay;
mod support;
