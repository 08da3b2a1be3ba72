//! The integration test binary for the whole crate.

mod local_server;
