//! The data-agent domain, shared by the client and local Fabric: datasource kinds, element
//! paths and ids, the definition's documents, few-shot files, and SQL checks. The client's
//! walk of a datasource's element tree, its MCP client, its conversation threads, and the
//! grading of answers (a model as judge, or deterministic rules) live here too.

pub mod assistants;
pub mod definition;
pub mod downloads;
pub mod element_path;
pub mod fewshot_file;
pub mod fewshot_review;
pub mod grade;
pub mod jsonrpc;
pub mod judge;
pub mod llm;
pub mod mcp;
pub mod questions;
pub mod row_file;
pub mod similarity;
pub mod sources;
pub mod sql_check;
pub mod threads;
pub mod walk;
