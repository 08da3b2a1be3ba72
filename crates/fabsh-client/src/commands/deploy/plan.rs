//! `deploy plan`: the repository against the workspace, or validated alone; with `--out`,
//! saved for `deploy apply --plan`.

use super::flags::{DeleteFlags, RepositoryFlags};
use super::{CHANGES_PENDING_EXIT, DIFF, OUT, WORKSPACE, saved, state, target_workspace};
use crate::commands::spec::HandlerFuture;
use crate::commands::typed::{Command, typed_args};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::{Reply, TableDiff};
use fabsh_deploy::plan::{Options, Repository};
use fabsh_model::deploy::{Plan, PlanProblem, Severity};
use std::collections::BTreeSet;
use std::path::Path;

typed_args! {
    /// `deploy plan`.
    pub(super) struct DeployPlan {
        repository: RepositoryFlags,
        workspace: Option<String> = WORKSPACE,
        diff: bool = DIFF,
        deletes: DeleteFlags,
        out: Option<String> = OUT,
    }
}

impl Command for DeployPlan {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let options = self.deletes.options(self.diff)?;
            let repo = self.repository.open()?;
            let out = self.out.as_deref();
            let given = self.workspace.as_deref();
            let Some(workspace) = target_workspace(ctx.clone(), given, &repo).await? else {
                if out.is_some() {
                    return Err(Error::usage(
                    "--out saves a plan to apply to a workspace: give it with -w (or a --config whose core names one)",
                )
                .with_hint("nothing was sent"));
                }
                let plan = repo.plan(&repo.target(), &[], &BTreeSet::new(), &options);
                return Ok(plan_reply(&plan)?.with_note(
                "no workspace given: the repository was validated and compared with nothing (every item shows as create); give -w to compare it with a workspace",
            ));
            };
            let (plan, state) = make_plan(ctx.clone(), &workspace, &repo, &options).await?;
            let mut reply = plan_reply(&plan)?;
            // A plan with errors is not one to apply.
            if let Some(path) = out
                && error_count(&plan) == 0
            {
                saved::write(
                    Path::new(path),
                    &saved::of(&ctx, &repo, &plan, &state, &options)?,
                )?;
                reply = reply.with_note(format!(
                    "plan saved to {path}: deploy apply --plan {path} applies exactly it"
                ));
            } else if out.is_some() {
                reply = reply.with_note("the plan has errors: not saved");
            }
            Ok(reply)
        })
    }
}

/// Fetches the workspace's state and plans against it.
pub(super) async fn make_plan(
    ctx: Ctx,
    workspace: &str,
    repo: &Repository,
    options: &Options,
) -> Result<(Plan, state::WorkspaceState)> {
    let state = state::fetch(ctx.api(), workspace, repo).await?;
    let mut plan = repo.plan(&state.target, &state.items, &state.folder_paths(), options);
    super::after::drift(ctx.api(), workspace, repo, &state.target, &mut plan).await?;
    Ok((plan, state))
}

/// The number of error-severity problems.
pub(super) fn error_count(plan: &Plan) -> usize {
    plan.problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count()
}

/// How a problem is shown beside the answer: `severity: subject: message (code)`.
pub(super) fn problem_note(problem: &PlanProblem) -> String {
    let severity = match problem.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let subject = problem.subject.as_deref().unwrap_or("repository");
    format!(
        "{severity}: {subject}: {} ({})",
        problem.message, problem.code
    )
}

/// The diffs of the plan's rows, for a table to show after them.
fn table_diffs(plan: &Plan) -> Vec<TableDiff> {
    plan.items
        .iter()
        .flat_map(|row| {
            row.diffs.iter().map(move |d| TableDiff {
                title: format!("{}.{}: {}", row.display_name, row.item_type, d.path),
                diff: d.diff.clone(),
            })
        })
        .collect()
}

fn plan_reply(plan: &Plan) -> Result<Reply> {
    let value = serde_json::to_value(plan)
        .map_err(|err| Error::runtime(format!("the plan could not be written: {err}")))?;
    let mut reply = Reply::json(value)
        .with_table_rows("items")
        .with_table_diffs(table_diffs(plan));
    for problem in &plan.problems {
        reply = reply.with_note(problem_note(problem));
    }
    let errors: Vec<_> = plan
        .problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .collect();
    if !errors.is_empty() {
        let message = match errors.as_slice() {
            [one] => format!(
                "{}: {}",
                one.subject.as_deref().unwrap_or("repository"),
                one.message
            ),
            many => format!("the plan has {} errors; see the problems", many.len()),
        };
        return Ok(reply.with_failure(
            Error::usage(message).with_hint("nothing was written; deploy apply refuses this plan"),
        ));
    }
    if plan.pending {
        let s = &plan.summary;
        return Ok(reply.with_failure(Error::new(
            ErrorKind::ChangesPending,
            format!(
                "changes pending: {} to create, {} to update, {} to move, {} to delete, {} folder(s) to create (exit {CHANGES_PENDING_EXIT})",
                s.create,
                s.update,
                s.moves,
                s.delete,
                plan.create_folders.len()
            ),
        )));
    }
    Ok(reply)
}
