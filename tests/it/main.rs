//! The integration tests: one test binary.

mod replay;
