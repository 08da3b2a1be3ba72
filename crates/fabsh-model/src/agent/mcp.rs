//! The names a published data agent's MCP endpoint uses on the wire: the client asks with
//! them and local Fabric answers with them.

/// The protocol version fabsh speaks (the one the Fabric server announces).
pub const PROTOCOL_VERSION: &str = "2025-06-18";
/// The argument the data agent's tool takes, when its schema does not say otherwise.
pub const QUESTION_ARGUMENT: &str = "userQuestion";
