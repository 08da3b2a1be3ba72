//! `deploy plan`: the repository against the workspace, or validated alone.

use super::{CHANGES_PENDING_EXIT, open_repository, state, target_workspace};
use crate::commands::args::Args;
use crate::commands::spec::HandlerFuture;
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use fabsh_deploy::plan::{Options, Repository};
use fabsh_model::deploy::{Plan, PlanProblem, Severity};
use std::collections::BTreeSet;

pub(super) fn plan(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let repo = open_repository(&args)?;
        let options = Options {
            diff: args.flag("diff"),
            delete_orphans: args.flag("delete-orphans"),
        };
        let plan = match target_workspace(ctx.clone(), &args, &repo).await? {
            Some(workspace) => make_plan(ctx.clone(), &workspace, &repo, options).await?.0,
            None => repo.plan(&repo.target(), &[], &BTreeSet::new(), options),
        };
        plan_reply(&plan)
    })
}

/// Fetches the workspace's state and plans against it.
pub(super) async fn make_plan(
    ctx: Ctx,
    workspace: &str,
    repo: &Repository,
    options: Options,
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

fn plan_reply(plan: &Plan) -> Result<Reply> {
    let value = serde_json::to_value(plan)
        .map_err(|err| Error::runtime(format!("the plan could not be written: {err}")))?;
    let mut reply = Reply::json(value).with_table_rows("items");
    for problem in &plan.problems {
        reply = reply.with_note(problem_note(problem));
    }
    let errors = error_count(plan);
    if errors > 0 {
        return Ok(reply.with_failure(
            Error::usage(format!(
                "the repository has {errors} error(s); see the problems"
            ))
            .with_hint("fix them and run deploy plan again: nothing was sent"),
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
