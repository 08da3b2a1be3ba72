//! The references an item's parts make to other items and the workspace, made the
//! target's: a report's `byPath` model reference becomes a connection to the deployed model,
//! logical ids of other repository items become their ids (for an item the run leaves out,
//! the id of the target's item of its name), and the all-zero workspace id placeholders
//! become the target's id.

use super::{Rendered, Renderer, too_large};
use crate::bounded::{self, Format, PART_BYTES, TooLarge};
use crate::repo::RepoItem;
use fabsh_model::definition::platform::UNSET_LOGICAL_ID;
use fabsh_model::deploy::Severity;
use fabsh_model::item_types;
use serde_json::{Value, json};

/// A workspace id under one of the keys fabric-cicd reads them from (group 2): the all-zero
/// id there stands for the workspace deployed to.
pub(crate) const WORKSPACE_ID_REFERENCE: &str =
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
        let is_model =
            |i: &RepoItem| i.item_type == item_types::SEMANTIC_MODEL && i.dir == model_dir;
        let id = if let Some(p) = self.items.iter().position(is_model) {
            out.references.insert(p);
            let model = &self.items[p];
            match self
                .target
                .id_of(item_types::SEMANTIC_MODEL, &model.display_name)
            {
                Some(id) => id.to_string(),
                None => Self::pending(out, &model.key()),
            }
        } else if let Some(model) = self.outside.iter().find(|l| is_model(&l.item)) {
            // A byPath reference cannot stay as it is: the model must be deployed.
            match self.outside_id(&model.item, false, &item.key(), out) {
                Some(id) => id,
                None => return text.to_string(),
            }
        } else {
            Self::problem(
                out,
                &item.key(),
                "UnknownSemanticModel",
                format!(
                    "definition.pbir refers to {path:?}, which is no semantic model of the repository"
                ),
            );
            return text.to_string();
        };
        doc["datasetReference"] = json!({"byConnection": {
            "connectionString": null,
            "pbiServiceModelId": null,
            "pbiModelVirtualServerName": "sobe_wowvirtualserver",
            "pbiModelDatabaseName": id,
            "name": "EntityDataSource",
            "connectionType": "pbiServiceXmlaStyleLive",
        }});
        if let Ok(written) = bounded::write(&doc, Format::Json, PART_BYTES) {
            written
        } else {
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

    pub(super) fn logical_ids(
        &self,
        index: usize,
        file: &str,
        text: &str,
        out: &mut Rendered,
    ) -> String {
        let mut text = text.to_string();
        let named = |other: &RepoItem, text: &str| {
            let logical = other.logical_id.as_str();
            logical != UNSET_LOGICAL_ID && text.contains(logical)
        };
        for (p, other) in self.items.iter().enumerate() {
            if p == index || !named(other, &text) {
                continue;
            }
            out.references.insert(p);
            let id = match self.target.id_of(&other.item_type, &other.display_name) {
                Some(id) => id.to_string(),
                None => Self::pending(out, &other.key()),
            };
            Self::replace_logical_id(&mut text, other, &id, file, out);
        }
        // As fabric-cicd does, a logical id of an item the run leaves out becomes the id of
        // the target's item of its name.
        for other in self.outside {
            if named(&other.item, &text)
                && let Some(id) = self.outside_id(&other.item, other.by_type, file, out)
            {
                Self::replace_logical_id(&mut text, &other.item, &id, file, out);
            }
        }
        text
    }

    /// A placeholder for the id of the item `key`, known once it is deployed.
    fn pending(out: &mut Rendered, key: &str) -> String {
        let placeholder = format!("<id of {key}>");
        out.pending.push(placeholder.clone());
        placeholder
    }

    /// The id of the target's item of the name of `item`, a repository item the run leaves
    /// out, referred to from `subject`: a placeholder when there is no workspace to look in.
    /// When the workspace holds no such item, the reference is left as it is: a warning for
    /// an item of a type out of scope (`by_type`), as fabric-cicd leaves those, else an
    /// error.
    fn outside_id(
        &self,
        item: &RepoItem,
        by_type: bool,
        subject: &str,
        out: &mut Rendered,
    ) -> Option<String> {
        if let Some(id) = self.target.id_of(&item.item_type, &item.display_name) {
            return Some(id.to_string());
        }
        if self.target.workspace_id.is_none() {
            return Some(Self::pending(out, &item.key()));
        }
        let (severity, why) = if by_type {
            (
                Severity::Warning,
                "of a type out of scope, which the target workspace does not hold either: its logical id is deployed as it is",
            )
        } else {
            (
                Severity::Error,
                "which this run does not deploy (out of scope) and the target workspace does not hold",
            )
        };
        let message = format!("refers to {}, {why}", item.key());
        Self::found(out, subject, severity, "UnresolvedReference", message);
        None
    }

    /// Replaces the logical id of `other` in `text` (the part `file`) with `id`.
    fn replace_logical_id(
        text: &mut String,
        other: &RepoItem,
        id: &str,
        file: &str,
        out: &mut Rendered,
    ) {
        match bounded::replace_text(text, &other.logical_id, id, PART_BYTES) {
            Ok(replaced) => *text = replaced,
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

    pub(super) fn workspace_ids(&self, text: &str, out: &mut Rendered) -> String {
        if !text.contains(UNSET_LOGICAL_ID) {
            return text.to_string();
        }
        let Ok(pattern) = regex::Regex::new(WORKSPACE_ID_REFERENCE) else {
            return text.to_string();
        };
        let id = if let Some(id) = &self.target.workspace_id {
            id.clone()
        } else {
            let placeholder = "<$workspace.id>".to_string();
            out.pending.push(placeholder.clone());
            placeholder
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
