//! The data-agent domain: datasource kinds, element paths and ids, the definition's
//! documents, few-shot and question files, SQL checks, similarity, the deterministic grading
//! rules, evaluation records (runs, rows, comparisons) and few-shot reviews, the MCP wire
//! names and the follow-up conversation format.

pub mod assistants;
pub mod conversation;
pub mod definition;
pub mod element_path;
pub mod evaluation;
pub mod fewshot_file;
pub mod fewshot_review;
pub mod grade;
pub mod grade_result;
pub mod language_model;
pub mod mcp;
pub mod mcp_message;
pub mod questions;
pub mod row_file;
pub mod similarity;
pub mod sources;
pub mod sql_check;
