//! The client's side of data agents: the walk of a datasource's element tree, the MCP client
//! of a published agent, its Assistants surface and downloads, the conversation threads fabsh
//! keeps, and the grading of answers by a model. The domain itself (documents, element
//! paths, few-shot files, SQL checks, grading rules) is the model's (`fabsh_model::agent`).

pub mod evaluation_compare;
pub mod evaluation_report;
pub(crate) mod evaluation_store_file;
pub mod evaluations;
pub mod fewshot_review;
pub mod judge;
pub mod junit;
