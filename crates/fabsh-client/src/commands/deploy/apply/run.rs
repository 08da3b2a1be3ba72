//! How apply works through the items: each started as soon as the items it refers to are
//! deployed, at most `concurrency` at once, and each deployed item's follow-ups queued
//! beside the items still deploying.

use super::super::{after, state};
use crate::error::Error;
use fabsh_api::api::ApiClient;
use fabsh_deploy::after::FollowUp as FollowUpKind;
use fabsh_deploy::apply::{dependencies, first_row};
use fabsh_deploy::plan::Repository;
use fabsh_deploy::render::Target;
use fabsh_model::deploy::{ApplyOutcome, ApplyRow, Connection, PlanAction, PlanRow};
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

pub(super) struct Run<'a> {
    pub(super) api: &'a ApiClient,
    pub(super) workspace: &'a str,
    pub(super) repo: &'a Repository,
    pub(super) concurrency: usize,
}

/// The outcome of one item's writes.
pub(super) type Done = std::result::Result<(ApplyOutcome, String), Error>;

/// The connections the caller can see, or why they could not be listed.
pub(super) type Listed = std::result::Result<Vec<Connection>, String>;

/// Where a repository item is in the run.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Progress {
    Waiting,
    Started,
    Deployed,
    Failed,
}

/// A piece of the run: an item's deployment, or one of its follow-ups once it is deployed
/// (with the id it was deployed as).
enum Job {
    Item(usize),
    After(FollowUpKind, usize, String),
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

/// What is known of a deployed item's attributes: those listed before the run, or (an item
/// not deployed before) its id alone.
fn attributes_known(
    listed: Option<&BTreeMap<String, String>>,
    id: &str,
) -> BTreeMap<String, String> {
    match listed {
        Some(listed) => listed.clone(),
        None => BTreeMap::from([("id".to_string(), id.to_string())]),
    }
}

impl Run<'_> {
    /// Every repository item, each started once the items it refers to are deployed, at most
    /// `concurrency` requests' worth of work at once; an item that refers to one that failed
    /// (or was not started) is not started. Each deployed item's follow-ups are queued as it
    /// finishes. The rows, and how many follow-ups changed something.
    pub(super) async fn items(
        &self,
        plan: &[PlanRow],
        target: Target,
        folder_ids: &BTreeMap<String, String>,
        connections: Option<&Listed>,
    ) -> (Vec<ApplyRow>, usize) {
        let mut rows: Vec<ApplyRow> = plan.iter().map(first_row).collect();
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
                    ready.extend(
                        fabsh_deploy::after::follow_ups(&self.repo.items[n], outcome)
                            .into_iter()
                            .map(|kind| Job::After(kind, n, id.clone())),
                    );
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
                let known = target.deployed.get(&key);
                if row.action == PlanAction::Unchanged {
                    // An unchanged row is one found deployed, with its id; a saved plan
                    // edited to lose it is refused rather than followed up on no item.
                    let Some(id) = row.id.clone() else {
                        let message = format!(
                            "the plan has {} {} unchanged, but without the id it is deployed as",
                            row.item_type, row.display_name
                        );
                        return Event::Item(n, Err(Error::usage(message)));
                    };
                    let attributes = attributes_known(known, &id);
                    return Event::Item(n, Ok((ApplyOutcome::Unchanged, id, attributes)));
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
                    attributes_known(known, &id)
                };
                Event::Item(n, Ok((outcome, id, attributes)))
            }
            .boxed(),
            Job::After(FollowUpKind::Publish, n, id) => {
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
            Job::After(FollowUpKind::Shortcuts, n, id) => {
                let created = rows[n].outcome == ApplyOutcome::Created;
                async move {
                    let failed = |err: Error| format!("deployed, but its shortcuts failed: {err}");
                    let result = match self.repo.wanted_shortcuts(&target, n) {
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
                        Err(err) => Err(failed(Error::runtime(err))),
                    };
                    Event::After(n, result)
                }
                .boxed()
            }
            Job::After(FollowUpKind::Schedules, n, id) => {
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
            Job::After(FollowUpKind::Bind, n, id) => {
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
}
