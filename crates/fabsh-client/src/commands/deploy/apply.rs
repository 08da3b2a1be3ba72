//! `deploy apply`: the plan carried out. Folders first; then the items, each started as soon
//! as the items it refers to are deployed (not when their whole level is: one slow item does
//! not hold back what does not depend on it), rendered against what is deployed by then; an
//! item's own follow-ups (an environment's publish, a lakehouse's shortcuts, a semantic
//! model's binding) run as soon as it is deployed, beside the items still deploying; then the
//! orphans to delete; then, if asked, the data agents published.

use super::plan::{make_plan, problem_note};
use super::{
    after, at_most, consent, open_repository, plan_options, report, saved, state, target_workspace,
};
use crate::api::data_agents::Agent;
use crate::api::{ApiClient, definitions, folders, items};
use crate::commands::args::Args;
use crate::commands::common::named_as;
use crate::commands::spec::HandlerFuture;
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_deploy::plan::{Repository, creation_payload, definition_json};
use fabsh_deploy::render::{RuleHits, Target};
use fabsh_model::deploy::{ApplyOutcome, ApplyRow, Connection, PlanAction, PlanProblem, PlanRow};
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

const MAX_CONCURRENCY: i64 = 64;

pub(super) fn apply(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let concurrency = args.int("concurrency").unwrap_or(32);
        if !(1..=MAX_CONCURRENCY).contains(&concurrency) {
            return Err(Error::usage(format!(
                "--concurrency must be 1 to {MAX_CONCURRENCY}, not {concurrency}"
            )));
        }
        let plan_file = args.opt_str("plan");
        let saved = plan_file.map(saved::read).transpose()?;
        let options = match &saved {
            Some(saved) => saved.options.clone(),
            None => plan_options(&args)?,
        };
        let repo = open_repository(&args)?;
        if let (Some(path), Some(saved)) = (plan_file, &saved) {
            saved::check_flags(&ctx, &args, path, saved, &repo)?;
        }
        // Known before anything is read from the service: refused before any request.
        refuse_errors(&repo.env_problems())?;
        let named = target_workspace(ctx.clone(), &args, &repo).await?;
        let workspace = match (named, plan_file.zip(saved.as_ref())) {
            (named, Some((path, saved))) => saved::workspace(named, path, saved)?,
            (Some(named), None) => named,
            (None, None) => {
                let err = Error::usage(
                    "give the target workspace with -w (or a --config whose core names one for --environment)",
                );
                // An environment config.yml does not know is the likely cause: say so.
                return Err(repo
                    .notes
                    .iter()
                    .filter(|p| p.code == "UnknownEnvironment")
                    .fold(err, |err, p| err.with_hint(problem_note(p))));
            }
        };
        // The connections a binding needs do not depend on the plan: listed beside it.
        let (planned, visible) = futures::join!(
            make_plan(ctx.clone(), &workspace, &repo, &options),
            after::visible_connections(ctx.api(), &repo),
        );
        let (fresh, state) = planned?;
        // A saved plan is carried out as it is, once the plan made now shows that nothing
        // it was made from moved.
        let plan = match (plan_file, saved) {
            (Some(path), Some(saved)) => {
                let prints = repo.fingerprints(&state.target, &state.items, &fresh.items);
                saved::check_unchanged(path, &saved, &fresh, &prints)?;
                saved.plan
            }
            _ => fresh,
        };
        refuse_errors(&plan.problems)?;
        if repo.settings.publish_skip {
            return Ok(Reply::json(
                json!({"workspaceId": workspace, "items": [], "skipped": true}),
            )
            .with_note("publish.skip is true for this environment: nothing deployed"));
        }
        if args.asks_at_terminal() {
            let name = state.target.workspace_name.as_deref().unwrap_or_default();
            consent::ask(&plan.items, &named_as(name, &workspace)).await?;
        }
        let run = Run {
            api: ctx.api(),
            workspace: &workspace,
            repo: &repo,
            concurrency: concurrency as usize,
        };
        let rows = align(&repo, &plan.items)?;
        let mut folder_ids = state.folders.clone();
        run.create_folders(&plan.create_folders, &mut folder_ids)
            .await?;
        let (mut done, mut follow_ups) = run
            .items(&rows, state.target.clone(), &folder_ids, visible.as_ref())
            .await;
        run.delete_orphans(&rows, &mut done).await;
        if args.flag("publish-agents") {
            follow_ups += run.publish_agents(&mut done).await;
        }
        // An error the service answered may quote what was sent.
        for row in &mut done {
            if let Some(error) = &mut row.error {
                *error = repo.env.mask(error);
            }
        }
        let dry_run = ctx.api().options().dry_run;
        let reply = report::reply(
            &workspace,
            report::in_plan_order(done, &plan.items),
            follow_ups,
            ctx.bridge().take_interrupted(),
            dry_run,
        )?;
        // What the plan warned of (an environment parameter.yml does not know, a rule that
        // matched nothing) is as true of the apply.
        Ok(plan
            .problems
            .iter()
            .filter(|p| p.severity == fabsh_model::deploy::Severity::Warning)
            .fold(reply, |reply, p| reply.with_note(problem_note(p))))
    })
}

/// The plan's rows as apply works through them: the repository's items in its order (an
/// item is found by its index in the repository), then the orphans.
fn align(repo: &Repository, plan: &[PlanRow]) -> Result<Vec<PlanRow>> {
    let orphan = |r: &PlanRow| matches!(r.action, PlanAction::Orphan | PlanAction::Delete);
    let mut rows = Vec::with_capacity(plan.len());
    for item in &repo.items {
        let row = plan
            .iter()
            .find(|r| {
                !orphan(r) && r.item_type == item.item_type && r.display_name == item.display_name
            })
            .ok_or_else(|| Error::runtime(format!("the plan has no row for {}", item.key())))?;
        rows.push(row.clone());
    }
    rows.extend(plan.iter().filter(|r| orphan(r)).cloned());
    Ok(rows)
}

/// Refuses to go on when `problems` hold errors, listing them: nothing was written.
fn refuse_errors(problems: &[PlanProblem]) -> Result<()> {
    let lines: Vec<String> = problems
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
    if lines.is_empty() {
        return Ok(());
    }
    Err(Error::usage(format!(
        "the plan has {} error(s), nothing was written:\n  {}",
        lines.len(),
        lines.join("\n  ")
    ))
    .with_hint("deploy plan DIR lists them with their codes"))
}

struct Run<'a> {
    api: &'a ApiClient,
    workspace: &'a str,
    repo: &'a Repository,
    concurrency: usize,
}

/// The outcome of one item's writes.
type Done = std::result::Result<(ApplyOutcome, String), Error>;

/// The connections the caller can see, or why they could not be listed.
type Listed = std::result::Result<Vec<Connection>, String>;

/// Where a repository item is in the run.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Progress {
    Waiting,
    Started,
    Deployed,
    Failed,
}

/// A piece of the run: an item's deployment, or one of its follow-ups once it is deployed.
enum Job {
    Item(usize),
    Publish(usize),
    Shortcuts(usize),
    Bind(usize),
    Schedules(usize),
}

/// What a follow-up did: notes for its item's row, and whether it changed something.
struct FollowUp {
    notes: Vec<String>,
    changed: bool,
}

impl FollowUp {
    /// A follow-up whose notes say what it changed (none: it changed nothing).
    fn noted(notes: Vec<String>) -> FollowUp {
        FollowUp {
            changed: !notes.is_empty(),
            notes,
        }
    }
}

/// A finished job: an item deployed (its outcome, id and attributes) or not; a follow-up
/// done, or why it failed.
enum Event {
    Item(
        usize,
        std::result::Result<(ApplyOutcome, String, BTreeMap<String, String>), Error>,
    ),
    After(usize, std::result::Result<FollowUp, String>),
}

/// For each repository item, the items it waits for: those it refers to at a lower level
/// (a reference within a cycle has none and is ignored, as the levels ignore it).
fn dependencies(plan: &[PlanRow]) -> Vec<Vec<usize>> {
    let by_key: HashMap<String, usize> = plan
        .iter()
        .enumerate()
        .map(|(n, r)| (format!("{}.{}", r.display_name, r.item_type), n))
        .collect();
    plan.iter()
        .map(|row| {
            row.refers_to
                .iter()
                .filter_map(|key| by_key.get(key).copied())
                .filter(|&d| plan[d].level < row.level)
                .collect()
        })
        .collect()
}

impl Run<'_> {
    /// Creates the plan's folders (sorted by depth), the folders of one depth together.
    async fn create_folders(
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
                let value = created.outcome.into_value();
                let id = value["id"].as_str().unwrap_or_default().to_string();
                Ok::<_, Error>((path.clone(), id))
            }))
            .await;
            for result in made {
                let (path, id) = result?;
                ids.insert(path, id);
            }
        }
        Ok(())
    }

    /// Every repository item, each started once the items it refers to are deployed, at most
    /// `concurrency` requests' worth of work at once; an item that refers to one that failed
    /// (or was not started) is not started. Each deployed item's follow-ups are queued as it
    /// finishes. The rows, and how many follow-ups changed something.
    async fn items(
        &self,
        plan: &[PlanRow],
        target: Target,
        folder_ids: &BTreeMap<String, String>,
        connections: Option<&Listed>,
    ) -> (Vec<ApplyRow>, usize) {
        let mut rows: Vec<ApplyRow> = plan
            .iter()
            .map(|row| ApplyRow {
                item_type: row.item_type.clone(),
                display_name: row.display_name.clone(),
                outcome: match row.action {
                    PlanAction::Unchanged => ApplyOutcome::Unchanged,
                    PlanAction::Orphan => ApplyOutcome::Kept,
                    PlanAction::Create
                    | PlanAction::Update
                    | PlanAction::Move
                    | PlanAction::Delete => ApplyOutcome::NotStarted,
                },
                id: row.id.clone(),
                level: row.level,
                error: None,
                notes: Vec::new(),
            })
            .collect();
        let count = self.repo.items.len().min(plan.len());
        let waits_for = dependencies(&plan[..count]);
        let needing = fabsh_deploy::variables_needing_properties(&self.repo.params);
        let mut target = Arc::new(target);
        let mut progress = vec![Progress::Waiting; count];
        let mut ready: VecDeque<Job> = VecDeque::new();
        let mut running = FuturesUnordered::new();
        let mut follow_ups = 0;
        loop {
            for n in 0..count {
                let startable = progress[n] == Progress::Waiting
                    && waits_for[n]
                        .iter()
                        .all(|&d| progress[d] == Progress::Deployed);
                if startable {
                    progress[n] = Progress::Started;
                    ready.push_back(Job::Item(n));
                }
            }
            while running.len() < self.concurrency {
                let Some(job) = ready.pop_front() else { break };
                running.push(self.start(
                    job,
                    &plan[..count],
                    &rows,
                    &target,
                    folder_ids,
                    &needing,
                    connections,
                ));
            }
            let Some(event) = running.next().await else {
                break;
            };
            match event {
                Event::Item(n, Ok((outcome, id, attributes))) => {
                    let row = &rows[n];
                    Arc::make_mut(&mut target).set_deployed(
                        &row.item_type,
                        &row.display_name,
                        &id,
                        attributes,
                    );
                    progress[n] = Progress::Deployed;
                    let changed = matches!(outcome, ApplyOutcome::Created | ApplyOutcome::Updated);
                    match row.item_type.as_str() {
                        "Environment" if changed => ready.push_back(Job::Publish(n)),
                        "Lakehouse" => ready.push_back(Job::Shortcuts(n)),
                        "SemanticModel" => ready.push_back(Job::Bind(n)),
                        _ => {}
                    }
                    if self.repo.items[n]
                        .parts
                        .iter()
                        .any(|p| p.path == fabsh_deploy::schedules::PART)
                    {
                        ready.push_back(Job::Schedules(n));
                    }
                    rows[n].outcome = outcome;
                    rows[n].id = Some(id);
                }
                Event::Item(n, Err(err)) => {
                    progress[n] = Progress::Failed;
                    rows[n].outcome = ApplyOutcome::Failed;
                    rows[n].error = Some(err.to_string());
                }
                Event::After(n, Ok(done)) => {
                    follow_ups += usize::from(done.changed);
                    rows[n].notes.extend(done.notes);
                }
                Event::After(n, Err(err)) => {
                    rows[n].outcome = ApplyOutcome::Failed;
                    rows[n].error = Some(err);
                }
            }
        }
        (rows, follow_ups)
    }

    /// The future of one job, over a snapshot of what is deployed when it starts.
    #[allow(clippy::too_many_arguments)]
    fn start<'b>(
        &'b self,
        job: Job,
        plan: &'b [PlanRow],
        rows: &[ApplyRow],
        target: &Arc<Target>,
        folder_ids: &'b BTreeMap<String, String>,
        needing: &'b BTreeSet<(String, String)>,
        connections: Option<&'b Listed>,
    ) -> BoxFuture<'b, Event> {
        let target = Arc::clone(target);
        match job {
            Job::Item(n) => async move {
                let row = &plan[n];
                let key = (row.item_type.clone(), row.display_name.clone());
                let known = target.deployed.get(&key).cloned().unwrap_or_default();
                if row.action == PlanAction::Unchanged {
                    let id = row.id.clone().unwrap_or_default();
                    return Event::Item(n, Ok((ApplyOutcome::Unchanged, id, known)));
                }
                let done = match self.item(n, row, &target, folder_ids).await {
                    Ok(done) => done,
                    Err(err) => return Event::Item(n, Err(err)),
                };
                let (outcome, id) = done;
                // The attributes later items ask for (`sqlendpoint`, ...) of a new item.
                let fresh = needing.contains(&key) && target.id_of(&key.0, &key.1) != Some(&id);
                let attributes = if fresh {
                    match state::item_attributes(self.api, self.workspace, &key.0, &id).await {
                        Ok(found) => found,
                        // The items that refer to them cannot be written right: they wait,
                        // and a re-run (which finds this item by name) finishes the job.
                        Err(err) => {
                            let message = format!(
                                "deployed as {id}, but reading the attributes items refer to ($items variables) failed: {}",
                                err.message
                            );
                            return Event::Item(n, Err(Error::new(err.kind, message)));
                        }
                    }
                } else {
                    known
                };
                Event::Item(n, Ok((outcome, id, attributes)))
            }
            .boxed(),
            Job::Publish(n) => {
                let id = rows[n].id.clone().unwrap_or_default();
                async move {
                    let result = after::publish_environment(self.api, self.workspace, &id).await;
                    Event::After(
                        n,
                        result
                            .map(|()| FollowUp::noted(vec!["published".to_string()]))
                            .map_err(|err| format!("deployed, but publishing failed: {err}")),
                    )
                }
                .boxed()
            }
            Job::Shortcuts(n) => {
                let id = rows[n].id.clone().unwrap_or_default();
                let created = rows[n].outcome == ApplyOutcome::Created;
                async move {
                    let failed = |err: Error| format!("deployed, but its shortcuts failed: {err}");
                    let result = match after::wanted_shortcuts(self.repo, &target, n) {
                        Ok(wanted) if wanted.is_empty() => Ok(FollowUp::noted(Vec::new())),
                        Ok(wanted) => {
                            after::sync_shortcuts(self.api, self.workspace, &id, &wanted, created)
                                .await
                                .map(|made| {
                                    FollowUp::noted(match made {
                                        0 => Vec::new(),
                                        made => vec![format!("{made} shortcut(s) created")],
                                    })
                                })
                                .map_err(failed)
                        }
                        Err(err) => Err(failed(err)),
                    };
                    Event::After(n, result)
                }
                .boxed()
            }
            Job::Schedules(n) => {
                let id = rows[n].id.clone().unwrap_or_default();
                let created = rows[n].outcome == ApplyOutcome::Created;
                async move {
                    let result = after::sync_schedules(
                        self.api,
                        self.workspace,
                        self.repo,
                        &target,
                        n,
                        &id,
                        created,
                    )
                    .await
                    .map(FollowUp::noted)
                    .map_err(|err| format!("deployed, but its schedules failed: {err}"));
                    Event::After(n, result)
                }
                .boxed()
            }
            Job::Bind(n) => {
                let id = rows[n].id.clone().unwrap_or_default();
                let name = rows[n].display_name.clone();
                async move {
                    let result = after::bind_semantic_model(
                        self.api,
                        self.workspace,
                        self.repo,
                        &name,
                        &id,
                        connections,
                    )
                    .await
                    .map(|(notes, bound)| FollowUp {
                        notes,
                        changed: bound > 0,
                    })
                    .map_err(|err| format!("deployed, but binding failed: {err}"));
                    Event::After(n, result)
                }
                .boxed()
            }
        }
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
            .find(|p| p.severity == fabsh_model::deploy::Severity::Error)
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
                // Schedules are written after the item, through the job scheduler.
                let written = row.changes.iter().any(|c| {
                    c == "description"
                        || (c.starts_with("part ")
                            && !c.starts_with(&format!("part {} ", fabsh_deploy::schedules::PART)))
                });
                if action == PlanAction::Update && !written {
                    outcome = ApplyOutcome::Updated;
                } else if action == PlanAction::Update {
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
            .filter(|(_, r)| r.action == PlanAction::Delete)
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

    /// Publishes every deployed data agent; how many were published.
    async fn publish_agents(&self, rows: &mut [ApplyRow]) -> usize {
        let mut published = 0;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, level: u32, refers_to: &[&str]) -> PlanRow {
        PlanRow {
            action: PlanAction::Create,
            item_type: "Notebook".into(),
            display_name: name.into(),
            folder: String::new(),
            id: None,
            level: Some(level),
            changes: Vec::new(),
            refers_to: refers_to.iter().map(|r| r.to_string()).collect(),
            diffs: Vec::new(),
        }
    }

    #[test]
    fn an_item_waits_for_what_it_refers_to_and_a_cycle_waits_for_nothing() {
        // c refers to a and b; a and b to each other (a cycle: the levels put a first).
        let plan = vec![
            row("a", 0, &["b.Notebook"]),
            row("b", 1, &["a.Notebook"]),
            row("c", 2, &["a.Notebook", "b.Notebook", "elsewhere.Lakehouse"]),
        ];
        assert_eq!(dependencies(&plan), vec![vec![], vec![0], vec![0, 1]]);
    }
}
