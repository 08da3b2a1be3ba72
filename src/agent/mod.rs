//! The data-agent domain, shared by the client and local Fabric: datasource kinds, element
//! paths and ids, the definition's documents, few-shot files, and SQL checks. The client's
//! walk of a datasource's element tree lives here too.

pub mod definition;
pub mod element_path;
pub mod fewshot_file;
pub mod sources;
pub mod sql_check;
pub mod walk;
