//! A workspace's parts written as a repository that deploys to any workspace: what refers to
//! the source workspace's own items is written the way the git format writes it, so that
//! apply makes it the target's. An item's id becomes its logical id; the source's id under a
//! workspace-id key (`workspaceId`, `default_lakehouse_workspace_id`, ...) becomes the
//! all-zero id; the source's name in a Power BI connection string (`.../myorg/<name>;`)
//! becomes its id; and wherever its id is left, a `parameter.yml` rule written beside the
//! items makes it the target's (`$workspace.id`).

use crate::render::WORKSPACE_ID_REFERENCE;
use fabsh_model::definition::platform::UNSET_LOGICAL_ID;
use regex::{Captures, Regex};
use std::collections::HashMap;

/// The file name of the rules an export writes, which apply reads from the repository's
/// root when no config names another.
pub const PARAMETER_FILE: &str = "parameter.yml";

/// The workspace exported.
#[derive(Debug, Clone)]
pub struct Source {
    pub workspace_id: String,
    pub workspace_name: String,
    /// Each exported item's id and the logical id the repository gives it.
    pub identities: HashMap<String, String>,
}

impl Source {
    /// A part's bytes as the repository holds them; a part that is not UTF-8 text as it is.
    pub fn part(&self, bytes: Vec<u8>) -> Vec<u8> {
        let mut text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(binary) => return binary.into_bytes(),
        };
        for (id, logical) in &self.identities {
            if id != logical {
                text = text.replace(id.as_str(), logical);
            }
        }
        text = self.name_to_id(&text);
        self.workspace_keys(&text).into_bytes()
    }

    /// Whether `bytes` (as [`Source::part`] wrote them) still hold the source's id, which
    /// only a rule of [`Source::parameters`] then makes the target's.
    pub fn holds_id(&self, bytes: &[u8]) -> bool {
        let id = self.workspace_id.as_bytes();
        bytes.windows(id.len()).any(|w| w.eq_ignore_ascii_case(id))
    }

    /// The parameter file that makes the source's id, wherever a part holds it, the id of
    /// the workspace deployed to, in every environment.
    pub fn parameters(&self) -> String {
        format!(
            "# Written by deploy export: the id of the workspace exported, where items' parts\n\
             # hold it, becomes the id of the workspace they are deployed to.\n\
             find_replace:\n  - find_value: \"{}\"\n    ignore_case: \"true\"\n    replace_value:\n      _ALL_: \"$workspace.id\"\n",
            self.workspace_id
        )
    }

    /// A Power BI connection string naming the source workspace (`powerbi://<host>/v1.0/
    /// myorg/<name>`, the name as it is or percent-encoded) names it by id instead: an id is
    /// what a rule can make the target's, where a name would be replaced everywhere in the
    /// part.
    fn name_to_id(&self, text: &str) -> String {
        if self.workspace_name.is_empty() || !text.contains("myorg/") {
            return text.to_string();
        }
        let encoded = crate::variables::percent_encode(&self.workspace_name);
        let names = [regex::escape(&self.workspace_name), regex::escape(&encoded)].join("|");
        let pattern = format!(r#"(?i)(powerbi://[^/\s"';]+/v1\.0/myorg/)(?:{names})([;"'\s]|$)"#);
        let Ok(pattern) = Regex::new(&pattern) else {
            return text.to_string();
        };
        pattern
            .replace_all(text, |caps: &Captures<'_>| {
                format!("{}{}{}", &caps[1], self.workspace_id, &caps[2])
            })
            .into_owned()
    }

    /// The source's id under a workspace-id key written as the all-zero id, which apply
    /// makes the target's as fabric-cicd does.
    fn workspace_keys(&self, text: &str) -> String {
        let Ok(pattern) = Regex::new(WORKSPACE_ID_REFERENCE) else {
            return text.to_string();
        };
        pattern
            .replace_all(text, |caps: &Captures<'_>| {
                let whole = &caps[0];
                if caps[2].eq_ignore_ascii_case(&self.workspace_id) {
                    whole.replace(&caps[2], UNSET_LOGICAL_ID)
                } else {
                    whole.to_string()
                }
            })
            .into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_to_the_source_become_logical_and_the_rest_a_rule() {
        let source = Source {
            workspace_id: "aaaaaaaa-1111-2222-3333-444444444444".into(),
            workspace_name: "Sales Dev".into(),
            identities: HashMap::from([(
                "bbbbbbbb-1111-2222-3333-444444444444".to_string(),
                "cccccccc-1111-2222-3333-444444444444".to_string(),
            )]),
        };
        let datasource = r#"{"artifactId": "bbbbbbbb-1111-2222-3333-444444444444", "workspaceId": "aaaaaaaa-1111-2222-3333-444444444444"}"#;
        let written = String::from_utf8(source.part(datasource.into())).expect("text");
        assert_eq!(
            written,
            r#"{"artifactId": "cccccccc-1111-2222-3333-444444444444", "workspaceId": "00000000-0000-0000-0000-000000000000"}"#
        );
        assert!(!source.holds_id(written.as_bytes()));
        let pbir = r#""connectionString": "Data Source=powerbi://api.powerbi.com/v1.0/myorg/Sales%20Dev;Initial Catalog=Sales Dev model""#;
        let written = String::from_utf8(source.part(pbir.into())).expect("text");
        assert_eq!(
            written,
            r#""connectionString": "Data Source=powerbi://api.powerbi.com/v1.0/myorg/aaaaaaaa-1111-2222-3333-444444444444;Initial Catalog=Sales Dev model""#
        );
        assert!(source.holds_id(written.as_bytes()));
        let rules: crate::params::Parameters =
            serde_yaml_ng::from_str(&source.parameters()).expect("parameter.yml");
        assert_eq!(rules.find_replace[0].find_value, source.workspace_id);
        assert!(rules.find_replace[0].ignores_case());
        let binary = vec![0xff, 0xfe, 0x00];
        assert_eq!(source.part(binary.clone()), binary);
    }
}
