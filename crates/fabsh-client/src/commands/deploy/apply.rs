//! `deploy apply`: the plan carried out. Folders first; then the items, each started as soon
//! as the items it refers to are deployed (not when their whole level is: one slow item does
//! not hold back what does not depend on it), rendered against what is deployed by then; an
//! item's own follow-ups (an environment's publish, a lakehouse's shortcuts, a semantic
//! model's binding) run as soon as it is deployed, beside the items still deploying; then the
//! orphans to delete; then, if asked, the data agents published.

mod run;
mod writes;

use super::flags::{DeleteFlags, RepositoryFlags};
use super::plan::{make_plan, problem_note};
use super::{
    CONCURRENCY, PLAN, PUBLISH_AGENTS, WORKSPACE, consent, report, saved, target_workspace,
};
use crate::commands::common::named_as;
use crate::commands::spec::HandlerFuture;
use crate::commands::typed::{AsksAtTerminal, Command, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_model::deploy::{PlanProblem, Severity};
use run::Run;
use serde_json::json;

typed_args! {
    /// `deploy apply`.
    pub(super) struct DeployApply {
        repository: RepositoryFlags,
        workspace: Option<String> = WORKSPACE,
        deletes: DeleteFlags,
        plan: Option<String> = PLAN,
        concurrency: Option<i64> = CONCURRENCY,
        publish_agents: bool = PUBLISH_AGENTS,
        asks: AsksAtTerminal,
    }
}

impl Command for DeployApply {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            // The registry declares its range (1 to 64) and default: checked before this runs.
            let concurrency = self
                .concurrency
                .and_then(|n| usize::try_from(n).ok())
                .unwrap_or(1);
            let plan_file = self.plan.as_deref();
            let saved = plan_file.map(saved::read).transpose()?;
            let options = match &saved {
                Some(saved) => saved.options.clone(),
                // `--diff` is plan's only.
                None => self.deletes.options(false)?,
            };
            let repo = self.repository.open()?;
            if let (Some(path), Some(saved)) = (plan_file, &saved) {
                saved::check_flags(&ctx, &self.deletes, path, saved, &repo)?;
            }
            // Known before anything is read from the service: refused before any request.
            refuse_errors(&repo.env_problems())?;
            let given = self.workspace.as_deref();
            let named = target_workspace(ctx.clone(), given, &repo).await?;
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
                super::after::visible_connections(ctx.api(), &repo),
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
            if self.asks.0 {
                // A workspace known by id only is named by its id in the question.
                let named = match state.target.workspace_name.as_deref() {
                    Some(name) => named_as(name, &workspace),
                    None => workspace.clone(),
                };
                consent::ask(&plan.items, &named).await?;
            }
            let run = Run {
                api: ctx.api(),
                workspace: &workspace,
                repo: &repo,
                concurrency,
            };
            let rows = fabsh_deploy::apply::align(&repo, &plan.items).map_err(Error::runtime)?;
            let mut folder_ids = state.folders.clone();
            run.create_folders(&plan.create_folders, &mut folder_ids)
                .await?;
            let (mut done, mut follow_ups) = run
                .items(&rows, state.target.clone(), &folder_ids, visible.as_ref())
                .await;
            run.delete_orphans(&rows, &mut done).await;
            if self.publish_agents {
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
                .filter(|p| p.severity == Severity::Warning)
                .fold(reply, |reply, p| reply.with_note(problem_note(p))))
        })
    }
}

/// Refuses to go on when `problems` hold errors, listing them: nothing was written.
fn refuse_errors(problems: &[PlanProblem]) -> Result<()> {
    let lines: Vec<String> = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
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
