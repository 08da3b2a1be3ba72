//! What a plan's rows were computed from, as digests a saved plan keeps: each repository
//! item's content after parameterisation and each workspace item's state. A saved plan is
//! applied only while the repository and the workspace give the same digests and rows.

use super::{Deployed, Repository};
use crate::render::{RuleHits, Target};
use fabsh_model::deploy::{Fingerprint, Plan, PlanRow};
use sha2::{Digest, Sha256};

/// A digest of fields, each length-prefixed so that no two lists of fields digest alike.
struct Digester(Sha256);

impl Digester {
    fn new() -> Self {
        Digester(Sha256::new())
    }

    fn field(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.update((bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
        self
    }

    fn hex(self) -> String {
        self.0
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

impl Repository {
    /// The fingerprints of `rows` (a plan against `deployed`, with `target`), one per row in
    /// their order. Variables' values are digested as `$ENV:NAME`, as plans show them: a
    /// digest of a short secret could be guessed back.
    pub fn fingerprints(
        &self,
        target: &Target,
        deployed: &[Deployed],
        rows: &[PlanRow],
    ) -> Vec<Fingerprint> {
        let shown_target = (!target.env.is_empty()).then(|| target.with_env_placeholders());
        let renderer = self.renderer(shown_target.as_ref().unwrap_or(target));
        let index = self.index();
        rows.iter()
            .map(|row| {
                let key = (row.item_type.as_str(), row.display_name.as_str());
                let source = index.get(&key).map(|&n| {
                    let item = &self.items[n];
                    let rendered = renderer.render(n, &mut RuleHits::new(&self.params));
                    let mut d = Digester::new();
                    d.field(item.item_type.as_bytes())
                        .field(item.display_name.as_bytes())
                        .field(item.folder.as_bytes())
                        .field(item.description.as_deref().unwrap_or("").as_bytes())
                        .field(&item.platform_bytes());
                    for part in &rendered.parts {
                        d.field(part.path.as_bytes()).field(&part.bytes);
                    }
                    // The connections apply binds a semantic model to are the parameters',
                    // not the item's parts.
                    let environment = self.environment.as_deref();
                    for id in self.params.connections_for(&item.display_name, environment) {
                        d.field(id.as_bytes());
                    }
                    d.hex()
                });
                let live = deployed
                    .iter()
                    .find(|d| d.item_type == row.item_type && d.display_name == row.display_name)
                    .map(|found| {
                        let mut d = Digester::new();
                        d.field(found.id.as_bytes())
                            .field(found.item_type.as_bytes())
                            .field(found.display_name.as_bytes())
                            .field(found.folder.as_bytes())
                            .field(found.description.as_deref().unwrap_or("").as_bytes());
                        // A part may hold a variable's value deployed before.
                        for part in found.parts.iter().flatten() {
                            d.field(part.path.as_bytes())
                                .field(&target.env.mask_bytes(&part.bytes));
                        }
                        d.hex()
                    });
                Fingerprint {
                    item_type: row.item_type.clone(),
                    display_name: row.display_name.clone(),
                    source,
                    live,
                }
            })
            .collect()
    }
}

/// `Name.Type`.
fn key_of(item_type: &str, name: &str) -> String {
    format!("{name}.{item_type}")
}

/// How a saved plan no longer fits the repository and the workspace, naming the first item
/// that changed (in the saved plan's order, then those new since); None when the plan made
/// now, `fresh` with `fresh_prints`, is the saved one.
pub fn stale(
    saved: &Plan,
    saved_prints: &[Fingerprint],
    fresh: &Plan,
    fresh_prints: &[Fingerprint],
) -> Option<String> {
    let find_print = |prints: &'_ [Fingerprint], t: &str, n: &str| -> Option<Fingerprint> {
        prints
            .iter()
            .find(|p| p.item_type == t && p.display_name == n)
            .cloned()
    };
    let find_row = |rows: &'_ [PlanRow], t: &str, n: &str| -> Option<PlanRow> {
        rows.iter()
            .find(|r| r.item_type == t && r.display_name == n)
            .cloned()
    };
    for was in saved_prints {
        let key = key_of(&was.item_type, &was.display_name);
        let Some(now) = find_print(fresh_prints, &was.item_type, &was.display_name) else {
            return Some(match was.source {
                Some(_) => format!("{key} is no longer in the repository"),
                None => format!("{key} is no longer in the workspace"),
            });
        };
        if was.source != now.source {
            return Some(match (&was.source, &now.source) {
                (None, _) => format!("{key} was added to the repository"),
                (_, None) => format!("{key} was removed from the repository"),
                _ => format!("{key} changed in the repository"),
            });
        }
        if was.live != now.live {
            return Some(match (&was.live, &now.live) {
                (None, _) => format!("{key} was created in the workspace"),
                (_, None) => format!("{key} was deleted from the workspace"),
                _ => format!("{key} changed in the workspace"),
            });
        }
        let row_was = find_row(&saved.items, &was.item_type, &was.display_name);
        let row_now = find_row(&fresh.items, &was.item_type, &was.display_name);
        if row_was != row_now {
            let shown = |row: &Option<PlanRow>| match row {
                Some(r) if r.changes.is_empty() => format!("{:?}", r.action).to_lowercase(),
                Some(r) => format!(
                    "{} ({})",
                    format!("{:?}", r.action).to_lowercase(),
                    r.changes
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => "nothing".to_string(),
            };
            return Some(format!(
                "{key} changed in the workspace: the plan said {}, now it is {}",
                shown(&row_was),
                shown(&row_now)
            ));
        }
    }
    for now in fresh_prints {
        if find_print(saved_prints, &now.item_type, &now.display_name).is_none() {
            let key = key_of(&now.item_type, &now.display_name);
            return Some(match now.source {
                Some(_) => format!("{key} was added to the repository"),
                None => format!("{key} was created in the workspace"),
            });
        }
    }
    if saved.create_folders != fresh.create_folders {
        return Some("the workspace's folders changed".to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env_vars::EnvAccess;
    use crate::plan::{Options, open};
    use crate::repo::RepoPart;
    use crate::repo::tests::notebook;
    use std::collections::BTreeSet;

    /// A repository of one notebook whose part takes `$ENV:SECRET_VALUE`.
    fn repository(value: &str) -> (tempfile::TempDir, Repository) {
        let root = tempfile::tempdir().expect("temp dir");
        notebook(root.path(), "# Fabric notebook source\nkey = 'HERE'\n");
        let parameters = "find_replace:\n  - find_value: \"HERE\"\n    replace_value:\n      _ALL_: \"$ENV:SECRET_VALUE\"\n";
        std::fs::write(root.path().join("parameter.yml"), parameters).expect("parameters");
        let mut repo = open(Some(root.path()), None, None).expect("opens");
        let value = value.to_string();
        repo.read_env(EnvAccess::Referenced, move |_| Some(value.clone()));
        (root, repo)
    }

    fn planned(repo: &Repository, deployed: &[Deployed]) -> (Plan, Vec<Fingerprint>) {
        let mut target = repo.target();
        target.workspace_id = Some("ws".into());
        let plan = repo.plan(&target, deployed, &BTreeSet::new(), &Options::default());
        let prints = repo.fingerprints(&target, deployed, &plan.items);
        (plan, prints)
    }

    fn live(content: &str) -> Deployed {
        Deployed {
            id: "id-1".into(),
            item_type: "Notebook".into(),
            display_name: "Nb".into(),
            description: None,
            folder: String::new(),
            parts: Some(vec![RepoPart {
                path: "notebook-content.py".into(),
                bytes: content.as_bytes().to_vec(),
            }]),
        }
    }

    #[test]
    fn a_saved_plan_is_stale_once_the_repository_or_the_workspace_moves() {
        let (_root, repo) = repository("hunter2");
        let deployed = [live("old")];
        let (plan, prints) = planned(&repo, &deployed);
        assert_eq!(stale(&plan, &prints, &plan, &prints), None);
        // A variable's value is digested as its name: another value, the same digest.
        let (_other, other_value) = repository("another-secret");
        assert_eq!(planned(&other_value, &deployed).1, prints);

        let (now, now_prints) = planned(&repo, &[live("changed behind fabsh's back")]);
        assert_eq!(
            stale(&plan, &prints, &now, &now_prints).as_deref(),
            Some("Nb.Notebook changed in the workspace")
        );
        let (now, now_prints) = planned(&repo, &[]);
        assert_eq!(
            stale(&plan, &prints, &now, &now_prints).as_deref(),
            Some("Nb.Notebook was deleted from the workspace")
        );
        let mut edited = repo.clone();
        edited.items[0].parts[0].bytes = b"# Fabric notebook source\nprint(2)\n".to_vec();
        let (now, now_prints) = planned(&edited, &deployed);
        assert_eq!(
            stale(&plan, &prints, &now, &now_prints).as_deref(),
            Some("Nb.Notebook changed in the repository")
        );
        let stranger = Deployed {
            id: "id-2".into(),
            display_name: "Stranger".into(),
            parts: None,
            ..live("")
        };
        let (now, now_prints) = planned(&repo, &[live("old"), stranger]);
        assert_eq!(
            stale(&plan, &prints, &now, &now_prints).as_deref(),
            Some("Stranger.Notebook was created in the workspace")
        );
    }
}
