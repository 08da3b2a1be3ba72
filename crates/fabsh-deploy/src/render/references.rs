//! The references an item's parts make to other items and the workspace, made the
//! target's: a report's `byPath` model reference becomes a connection to the deployed model,
//! logical ids of other repository items become their ids, and the all-zero workspace id
//! placeholders become the target's id.

use super::{Rendered, Renderer, too_large};
use crate::bounded::{self, Format, PART_BYTES, TooLarge};
use crate::repo::RepoItem;
use fabsh_model::definition::platform::UNSET_LOGICAL_ID;
use serde_json::{Value, json};

const WORKSPACE_ID_REFERENCE: &str =
    r#""?(default_lakehouse_workspace_id|workspaceId|workspace)"?\s*[:=]\s*"(.*?)""#;

impl Renderer<'_> {
    pub(super) fn by_path(&self, item: &RepoItem, text: &str, out: &mut Rendered) -> String {
        let Ok(mut doc) = serde_json::from_str::<Value>(text) else {
            return text.to_string();
        };
        let Some(path) = doc
            .pointer("/datasetReference/byPath/path")
            .and_then(Value::as_str)
        else {
            return text.to_string();
        };
        let model_dir = join_relative(&item.dir, path);
        let Some(p) = self
            .items
            .iter()
            .position(|i| i.item_type == "SemanticModel" && i.dir == model_dir)
        else {
            Self::problem(
                out,
                &item.key(),
                "UnknownSemanticModel",
                format!(
                    "definition.pbir refers to {path:?}, which is no semantic model of the repository (in scope)"
                ),
            );
            return text.to_string();
        };
        out.references.insert(p);
        let model = &self.items[p];
        let id = match self.target.id_of("SemanticModel", &model.display_name) {
            Some(id) => id.to_string(),
            None => {
                let placeholder = format!("<id of {}>", model.key());
                out.pending.push(placeholder.clone());
                placeholder
            }
        };
        doc["datasetReference"] = json!({"byConnection": {
            "connectionString": null,
            "pbiServiceModelId": null,
            "pbiModelVirtualServerName": "sobe_wowvirtualserver",
            "pbiModelDatabaseName": id,
            "name": "EntityDataSource",
            "connectionType": "pbiServiceXmlaStyleLive",
        }});
        match bounded::write(&doc, Format::Json, PART_BYTES) {
            Ok(written) => written,
            Err(TooLarge) => {
                let file = format!("{}/definition.pbir", item.dir);
                Self::problem(
                    out,
                    &file,
                    "PartTooLarge",
                    too_large("its model reference written byConnection", &file),
                );
                text.to_string()
            }
        }
    }

    pub(super) fn logical_ids(
        &self,
        index: usize,
        file: &str,
        text: &str,
        out: &mut Rendered,
    ) -> String {
        let mut text = text.to_string();
        for (p, other) in self.items.iter().enumerate() {
            let logical = other.logical_id.as_str();
            if p == index || logical == UNSET_LOGICAL_ID || !text.contains(logical) {
                continue;
            }
            out.references.insert(p);
            let id = match self.target.id_of(&other.item_type, &other.display_name) {
                Some(id) => id.to_string(),
                None => {
                    let placeholder = format!("<id of {}>", other.key());
                    out.pending.push(placeholder.clone());
                    placeholder
                }
            };
            match bounded::replace_text(&text, logical, &id, PART_BYTES) {
                Ok(replaced) => text = replaced,
                Err(TooLarge) => Self::problem(
                    out,
                    file,
                    "PartTooLarge",
                    too_large(
                        &format!("the logical id of {} made its id", other.key()),
                        file,
                    ),
                ),
            }
        }
        text
    }

    pub(super) fn workspace_ids(&self, text: &str, out: &mut Rendered) -> String {
        if !text.contains(UNSET_LOGICAL_ID) {
            return text.to_string();
        }
        let Ok(pattern) = regex::Regex::new(WORKSPACE_ID_REFERENCE) else {
            return text.to_string();
        };
        let id = match &self.target.workspace_id {
            Some(id) => id.clone(),
            None => {
                let placeholder = "<$workspace.id>".to_string();
                out.pending.push(placeholder.clone());
                placeholder
            }
        };
        pattern
            .replace_all(text, |caps: &regex::Captures<'_>| {
                let whole = &caps[0];
                if &caps[2] == UNSET_LOGICAL_ID {
                    whole.replace(UNSET_LOGICAL_ID, &id)
                } else {
                    whole.to_string()
                }
            })
            .into_owned()
    }
}

/// `base/rel` with `..` and `.` resolved, `/`-separated.
fn join_relative(base: &str, rel: &str) -> String {
    let rel = rel.replace('\\', "/");
    let mut segments: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
    for segment in rel.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            other => segments.push(other),
        }
    }
    segments.join("/")
}
