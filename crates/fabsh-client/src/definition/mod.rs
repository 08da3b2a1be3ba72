//! Definitions on disk and in transit: folders of part files (`--dir`), definitions streamed
//! from the service's answer straight to files, and bulk export/import trees. The envelope,
//! part paths, `.platform` and validation are the model's (`fabsh_model::definition`).

pub mod bulk_tree;
pub mod folder;
pub mod given;
pub mod stream;
