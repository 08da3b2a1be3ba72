//! The clients of data agents: the walk of a datasource's element tree, the MCP client of a
//! published agent (rmcp, over fabsh's HTTP core) and of SQL endpoints, the Assistants surface
//! and its downloads, and the conversation threads fabsh keeps. What is done with the answers
//! (evaluations, grading, reports) is the client's (`fabsh-client`'s `agent`).

pub mod assistants;
pub mod downloads;
pub mod mcp;
mod mcp_http;
pub mod sql_endpoint;
pub mod threads;
pub mod walk;
