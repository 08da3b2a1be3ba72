//! fabsh: a client for Microsoft Fabric workspace items and data agents.

pub mod error;
pub mod local;

pub use error::{Error, ErrorKind, Result};
