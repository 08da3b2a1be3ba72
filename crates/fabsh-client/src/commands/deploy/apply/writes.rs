//! What apply sends for one row: folders created, an item created, updated or moved, an
//! orphan deleted, a data agent published. What to send is decided by `fabsh_deploy::apply`.

use super::super::at_most;
use super::run::{Done, Run};
use crate::error::{Error, Result};
use fabsh_api::api::data_agents::Agent;
use fabsh_api::api::{definitions, folders, items};
use fabsh_deploy::apply::{moves, publishes_agent, writes_item};
use fabsh_deploy::plan::{Repository, creation_payload, definition_json};
use fabsh_deploy::render::{RuleHits, Target};
use fabsh_model::deploy::{ApplyOutcome, ApplyRow, PlanAction, PlanRow, Severity};
use fabsh_model::wire::{CreateItemRequest, Folder, Item, UpdateItemRequest};
use futures::FutureExt;
use serde_json::Value;
use std::collections::BTreeMap;

impl Run<'_> {
    /// Creates the plan's folders (sorted by depth), the folders of one depth together.
    pub(super) async fn create_folders(
        &self,
        paths: &[String],
        ids: &mut BTreeMap<String, String>,
    ) -> Result<()> {
        let depth = |path: &String| path.matches('/').count();
        for chunk in paths.chunk_by(|a, b| depth(a) == depth(b)) {
            let ids_now = &*ids;
            let made = futures::future::join_all(chunk.iter().map(|path| async move {
                let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
                let parent_id = ids_now.get(parent).cloned();
                let created =
                    folders::create(self.api, self.workspace, name, parent_id.as_deref()).await?;
                let folder: Folder = created.outcome.done_as("the new folder")?;
                Ok::<_, Error>((path.clone(), folder.id))
            }))
            .await;
            for result in made {
                let (path, id) = result?;
                ids.insert(path, id);
            }
        }
        Ok(())
    }

    /// Creates, updates or moves plan row `n` (the repository's item `n`).
    pub(super) async fn item(
        &self,
        n: usize,
        row: &PlanRow,
        target: &Target,
        folder_ids: &BTreeMap<String, String>,
    ) -> Done {
        let item = &self.repo.items[n];
        let mut hits = RuleHits::new(&self.repo.params);
        // A dry run lists the requests it would send, so it shows `$ENV:NAME` where a
        // variable's value would go.
        let shown;
        let target = if self.api.options().dry_run && !target.env.is_empty() {
            shown = target.with_env_placeholders();
            &shown
        } else {
            target
        };
        let rendered = self.repo.renderer(target).render(n, &mut hits);
        if let Some(problem) = rendered
            .problems
            .iter()
            .find(|p| p.severity == Severity::Error)
        {
            return Err(Error::runtime(problem.message.clone()));
        }
        // A dry run creates nothing, so what only a created item's answer holds (an
        // eventhouse's query URI) stays a placeholder in the request it lists; a real run
        // must not write one.
        if !rendered.pending.is_empty() && !self.api.options().dry_run {
            return Err(Error::runtime(format!(
                "values not known yet: {}",
                rendered.pending.join(", ")
            )));
        }
        let folder_id = folder_ids.get(&item.folder).cloned();
        let shell = Repository::shell_only(item);
        match (row.action, &row.id) {
            (PlanAction::Create, _) => {
                let body = CreateItemRequest {
                    description: item.description.clone(),
                    folder_id: folder_id.clone(),
                    creation_payload: shell.then(|| creation_payload(item)).flatten(),
                    definition: (!shell).then(|| definition_json(item, &rendered.parts)),
                    ..CreateItemRequest::new(&item.display_name, &item.item_type)
                };
                let created = items::create(self.api, self.workspace, &body).await?;
                // An operation that ends without the new item as its result leaves it to be
                // found by name.
                let id = match created.outcome.done_as::<Item>("the new item") {
                    Ok(new) => new.id,
                    Err(_) => items::find_by_name::<Item>(
                        self.api,
                        self.workspace,
                        &item.display_name,
                        &item.item_type,
                    )
                    .await?
                    .map(|found| found.id)
                    .ok_or_else(|| {
                        Error::runtime("created, but the new item was not found by name")
                    })?,
                };
                Ok((ApplyOutcome::Created, id))
            }
            (action, Some(id)) => {
                let mut outcome = ApplyOutcome::Moved;
                let written = writes_item(row);
                if action == PlanAction::Update && !written {
                    outcome = ApplyOutcome::Updated;
                } else if action == PlanAction::Update {
                    if shell {
                        // A repository item without a description clears the deployed one's.
                        let body = UpdateItemRequest {
                            display_name: None,
                            description: Some(item.description.clone().unwrap_or_default()),
                        };
                        // Its answer is not read (a dry run's echoes only what was sent).
                        items::update::<Value>(self.api, self.workspace, id, &body).await?;
                    } else {
                        definitions::update(
                            self.api,
                            self.workspace,
                            id,
                            definition_json(item, &rendered.parts),
                            true,
                        )
                        .await?;
                    }
                    outcome = ApplyOutcome::Updated;
                }
                if moves(row) {
                    items::move_to_folder(self.api, self.workspace, id, folder_id.as_deref())
                        .await?;
                }
                Ok((outcome, id.clone()))
            }
            (_, None) => Err(Error::runtime("the plan gave no id for an existing item")),
        }
    }

    pub(super) async fn delete_orphans(&self, plan: &[PlanRow], rows: &mut [ApplyRow]) {
        let doomed: Vec<usize> = plan
            .iter()
            .enumerate()
            .filter(|(_, r)| r.action == PlanAction::Delete)
            .map(|(n, _)| n)
            .collect();
        let mut jobs = Vec::new();
        for n in doomed {
            // The planner deletes only what it found deployed, by the id it listed.
            let Some(id) = plan[n].id.clone() else {
                rows[n].outcome = ApplyOutcome::Failed;
                rows[n].error = Some("the plan gave no id for an item to delete".to_string());
                continue;
            };
            jobs.push(
                async move { (n, items::delete(self.api, self.workspace, &id, false).await) }
                    .boxed(),
            );
        }
        let done: Vec<(usize, Result<()>)> = at_most(jobs, self.concurrency).await;
        for (n, result) in done {
            match result {
                Ok(()) => rows[n].outcome = ApplyOutcome::Deleted,
                Err(err) => {
                    rows[n].outcome = ApplyOutcome::Failed;
                    rows[n].error = Some(err.to_string());
                }
            }
        }
    }

    /// Publishes every deployed data agent; how many were published.
    pub(super) async fn publish_agents(&self, rows: &mut [ApplyRow]) -> usize {
        let mut published = 0;
        for row in rows.iter_mut().filter(|r| publishes_agent(r)) {
            let Some(id) = row.id.clone() else {
                continue;
            };
            let agent = Agent {
                workspace: self.workspace.to_string(),
                id,
            };
            match agent.publish(self.api, None).await {
                Ok(_) => published += 1,
                Err(err) => {
                    row.outcome = ApplyOutcome::Failed;
                    row.error = Some(format!("deployed, but publishing failed: {err}"));
                }
            }
        }
        published
    }
}
