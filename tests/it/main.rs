//! The integration tests: one test binary. They run the real binary (or the library) against
//! local Fabric on an ephemeral loopback port, with HOME and XDG dirs in a temp dir.

mod bad_input;
mod cli_basics;
mod http_core;
mod items;
mod local_server;
mod replay;
mod support;
