//! `deploy apply`: the plan carried out. Folders first; then the items level by level, the
//! items of one level concurrently, each rendered against what the levels before deployed;
//! then the orphans to delete; then, if asked, the data agents published.

use super::plan::{error_count, make_plan};
use super::{after, at_most, open_repository, state, target_workspace};
use crate::api::data_agents::Agent;
use crate::api::{ApiClient, definitions, folders, items};
use crate::commands::args::Args;
use crate::commands::spec::HandlerFuture;
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use fabsh_deploy::plan::{Options, Repository, creation_payload, definition_json};
use fabsh_deploy::render::{RuleHits, Target};
use fabsh_model::deploy::{ApplyOutcome, ApplyRow, PlanAction, PlanRow};
use futures::FutureExt;
use futures::channel::mpsc::UnboundedSender;
use serde_json::{Value, json};
use std::collections::BTreeMap;

const MAX_CONCURRENCY: i64 = 64;

pub(super) fn apply(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let concurrency = args.int("concurrency").unwrap_or(32);
        if !(1..=MAX_CONCURRENCY).contains(&concurrency) {
            return Err(Error::usage(format!(
                "--concurrency must be 1 to {MAX_CONCURRENCY}, not {concurrency}"
            )));
        }
        let repo = open_repository(&args)?;
        let Some(workspace) = target_workspace(ctx.clone(), &args, &repo).await? else {
            return Err(Error::usage(
                "give the target workspace with -w (or a --config whose core names one for --environment)",
            ));
        };
        let options = Options {
            diff: false,
            delete_orphans: args.flag("delete-orphans"),
        };
        let (plan, state) = make_plan(ctx.clone(), &workspace, &repo, options).await?;
        let errors = error_count(&plan);
        if errors > 0 {
            let lines: Vec<String> = plan
                .problems
                .iter()
                .filter(|p| p.severity == fabsh_model::deploy::Severity::Error)
                .map(|p| {
                    format!(
                        "{}: {}",
                        p.subject.as_deref().unwrap_or("repository"),
                        p.message
                    )
                })
                .collect();
            return Err(Error::usage(format!(
                "the repository has {errors} error(s), nothing was sent:\n  {}",
                lines.join("\n  ")
            ))
            .with_hint("deploy plan DIR lists them with their codes"));
        }
        if repo.settings.publish_skip {
            return Ok(Reply::json(
                json!({"workspaceId": workspace, "items": [], "skipped": true}),
            )
            .with_note("publish.skip is true for this environment: nothing deployed"));
        }
        let run = Run {
            api: ctx.api(),
            workspace: &workspace,
            repo: &repo,
            concurrency: concurrency as usize,
        };
        let mut folder_ids = state.folders.clone();
        run.create_folders(&plan.create_folders, &mut folder_ids)
            .await?;
        let (environments, deployed) = futures::channel::mpsc::unbounded();
        let ((mut rows, deployed_target), published) = futures::join!(
            run.items(&plan.items, state.target.clone(), &folder_ids, environments),
            after::publish_environments(ctx.api(), &workspace, deployed),
        );
        after::record_publishes(&mut rows, published);
        after::sync_shortcuts(ctx.api(), &workspace, &repo, &deployed_target, &mut rows).await;
        run.delete_orphans(&plan.items, &mut rows).await;
        after::bind_semantic_models(ctx.api(), &workspace, &repo, &mut rows).await;
        if args.flag("publish-agents") {
            run.publish_agents(&mut rows).await;
        }
        let dry_run = ctx.api().options().dry_run;
        report(&workspace, rows, ctx.bridge().take_interrupted(), dry_run)
    })
}

struct Run<'a> {
    api: &'a ApiClient,
    workspace: &'a str,
    repo: &'a Repository,
    concurrency: usize,
}

/// The outcome of one item's writes.
type Done = std::result::Result<(ApplyOutcome, String), Error>;

impl Run<'_> {
    async fn create_folders(
        &self,
        paths: &[String],
        ids: &mut BTreeMap<String, String>,
    ) -> Result<()> {
        for path in paths {
            let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
            let parent_id = ids.get(parent).cloned();
            let created =
                folders::create(self.api, self.workspace, name, parent_id.as_deref()).await?;
            let value = created.outcome.into_value();
            let id = value["id"].as_str().unwrap_or_default().to_string();
            ids.insert(path.clone(), id);
        }
        Ok(())
    }

    /// Every repository item, level by level; an item that refers to one that failed (or was
    /// not started) is not started.
    async fn items(
        &self,
        plan: &[PlanRow],
        mut target: Target,
        folder_ids: &BTreeMap<String, String>,
        environments: UnboundedSender<after::Deployed>,
    ) -> (Vec<ApplyRow>, Target) {
        let mut rows: Vec<ApplyRow> = plan
            .iter()
            .map(|row| ApplyRow {
                item_type: row.item_type.clone(),
                display_name: row.display_name.clone(),
                outcome: match row.action {
                    PlanAction::Unchanged => ApplyOutcome::Unchanged,
                    PlanAction::Orphan => ApplyOutcome::Kept,
                    _ => ApplyOutcome::NotStarted,
                },
                id: row.id.clone(),
                level: row.level,
                error: None,
                notes: Vec::new(),
            })
            .collect();
        let top = plan.iter().filter_map(|r| r.level).max().unwrap_or(0);
        let needing = fabsh_deploy::variables_needing_properties(&self.repo.params);
        for level in 0..=top {
            let work: Vec<usize> = plan
                .iter()
                .enumerate()
                .filter(|(_, r)| {
                    r.level == Some(level)
                        && matches!(
                            r.action,
                            PlanAction::Create | PlanAction::Update | PlanAction::Move
                        )
                })
                .map(|(n, _)| n)
                .collect();
            let target_now = &target;
            let mut jobs = Vec::new();
            for n in work {
                jobs.push(
                    async move { (n, self.item(n, &plan[n], target_now, folder_ids).await) }
                        .boxed(),
                );
            }
            let done: Vec<(usize, Done)> = at_most(jobs, self.concurrency).await;
            for (n, result) in done {
                match result {
                    Ok((outcome, id)) => {
                        if rows[n].item_type == "Environment"
                            && matches!(outcome, ApplyOutcome::Created | ApplyOutcome::Updated)
                        {
                            // Published while the later levels deploy. The receiver lives
                            // as long as this run, so the send cannot fail.
                            let _ = environments.unbounded_send((n, id.clone()));
                        }
                        rows[n].outcome = outcome;
                        rows[n].id = Some(id);
                    }
                    Err(err) => {
                        rows[n].outcome = ApplyOutcome::Failed;
                        rows[n].error = Some(err.to_string());
                    }
                }
            }
            // The attributes later levels ask for, of this level's new items: read together.
            let mut reads = Vec::new();
            for row in rows.iter().filter(|r| r.level == Some(level)) {
                let Some(id) = row.id.clone() else { continue };
                let key = (row.item_type.clone(), row.display_name.clone());
                let known = target.deployed.get(&key).cloned().unwrap_or_default();
                let fresh = needing.contains(&key) && target.id_of(&key.0, &key.1) != Some(&id);
                reads.push(
                    async move {
                        let attributes = if fresh {
                            state::item_attributes(self.api, self.workspace, &key.0, &id)
                                .await
                                .unwrap_or_default()
                        } else {
                            known
                        };
                        (key, id, attributes)
                    }
                    .boxed(),
                );
            }
            for (key, id, attributes) in at_most(reads, self.concurrency).await {
                target.set_deployed(&key.0, &key.1, &id, attributes);
            }
        }
        (rows, target)
    }

    /// Creates, updates or moves plan row `n` (the repository's item `n`).
    async fn item(
        &self,
        n: usize,
        row: &PlanRow,
        target: &Target,
        folder_ids: &BTreeMap<String, String>,
    ) -> Done {
        let item = &self.repo.items[n];
        let mut hits = RuleHits::new(&self.repo.params);
        let rendered = self.repo.renderer(target).render(n, &mut hits);
        if let Some(problem) = rendered.problems.first() {
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
                let mut body = json!({"displayName": item.display_name, "type": item.item_type});
                if let Some(description) = &item.description {
                    body["description"] = json!(description);
                }
                if let Some(folder) = &folder_id {
                    body["folderId"] = json!(folder);
                }
                if shell {
                    if let Some(payload) = creation_payload(item) {
                        body["creationPayload"] = payload;
                    }
                } else {
                    body["definition"] = definition_json(item, &rendered.parts);
                }
                let created = items::create(self.api, self.workspace, body).await?;
                let id = match created
                    .outcome
                    .into_value()
                    .get("id")
                    .and_then(Value::as_str)
                {
                    Some(id) => id.to_string(),
                    None => items::find_by_name(
                        self.api,
                        self.workspace,
                        &item.display_name,
                        &item.item_type,
                    )
                    .await?
                    .and_then(|found| found["id"].as_str().map(str::to_string))
                    .ok_or_else(|| {
                        Error::runtime("created, but the new item was not found by name")
                    })?,
                };
                Ok((ApplyOutcome::Created, id))
            }
            (action, Some(id)) => {
                let mut outcome = ApplyOutcome::Moved;
                if action == PlanAction::Update {
                    if shell {
                        let body =
                            json!({"description": item.description.clone().unwrap_or_default()});
                        items::update(self.api, self.workspace, id, body).await?;
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
                if row.changes.iter().any(|c| c.starts_with("folder ")) {
                    items::move_to_folder(self.api, self.workspace, id, folder_id.as_deref())
                        .await?;
                }
                Ok((outcome, id.clone()))
            }
            (_, None) => Err(Error::runtime("the plan gave no id for an existing item")),
        }
    }

    async fn delete_orphans(&self, plan: &[PlanRow], rows: &mut [ApplyRow]) {
        let doomed: Vec<usize> = plan
            .iter()
            .enumerate()
            .filter(|(_, r)| r.delete)
            .map(|(n, _)| n)
            .collect();
        let mut jobs = Vec::new();
        for n in doomed {
            let id = plan[n].id.clone().unwrap_or_default();
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

    async fn publish_agents(&self, rows: &mut [ApplyRow]) {
        for row in rows.iter_mut().filter(|r| r.item_type == "DataAgent") {
            let deployed = matches!(
                row.outcome,
                ApplyOutcome::Created
                    | ApplyOutcome::Updated
                    | ApplyOutcome::Moved
                    | ApplyOutcome::Unchanged
            );
            let Some(id) = row.id.clone().filter(|_| deployed) else {
                continue;
            };
            let agent = Agent {
                workspace: self.workspace.to_string(),
                id,
            };
            if let Err(err) = agent.publish(self.api, None).await {
                row.outcome = ApplyOutcome::Failed;
                row.error = Some(format!("deployed, but publishing failed: {err}"));
            }
        }
    }
}

fn report(workspace: &str, rows: Vec<ApplyRow>, interrupted: bool, dry_run: bool) -> Result<Reply> {
    let count = |outcome: ApplyOutcome| rows.iter().filter(|r| r.outcome == outcome).count();
    let summary = json!({
        "created": count(ApplyOutcome::Created),
        "updated": count(ApplyOutcome::Updated),
        "moved": count(ApplyOutcome::Moved),
        "unchanged": count(ApplyOutcome::Unchanged),
        "deleted": count(ApplyOutcome::Deleted),
        "kept": count(ApplyOutcome::Kept),
        "failed": count(ApplyOutcome::Failed),
        "notStarted": count(ApplyOutcome::NotStarted),
    });
    let unfinished = count(ApplyOutcome::Failed) + count(ApplyOutcome::NotStarted);
    let value = json!({"workspaceId": workspace, "summary": summary, "items": rows});
    let mut reply = Reply::json(value.clone()).with_table_rows("items");
    if dry_run {
        // Each item with what the run would do, planned ids for those it would create.
        reply = reply.with_dry_run_items(value["items"].clone());
    }
    if interrupted {
        return Ok(reply.with_failure(Error::cancelled()));
    }
    if unfinished > 0 {
        return Ok(reply.with_failure(
            Error::new(ErrorKind::Partial, format!("{unfinished} item(s) not deployed"))
                .with_hint("fix the cause and run the same deploy apply again: deployed items pair by type and name and are not made twice"),
        ));
    }
    Ok(reply)
}
