//! Saved plans: `deploy plan --out FILE` writes the plan with what it was computed from, and
//! `deploy apply --plan FILE` carries out exactly its rows, once the repository and the
//! workspace are found as they were (terraform's `plan -out` and `apply PLANFILE`).

use super::flags::DeleteFlags;
use super::state::WorkspaceState;
use crate::context::Ctx;
use crate::error::{Error, Result};
use fabsh_api::config::private_file;
use fabsh_deploy::file::{self, human_size};
use fabsh_deploy::plan::{Options, Repository};
use fabsh_model::deploy::{Fingerprint, Plan, PlanAction, SAVED_PLAN_FORMAT, SavedPlan};
use std::path::Path;

/// The largest plan file read: far beyond any plan's rows (a diff of every part of a large
/// repository is the most a plan holds), and still a bound on what is read.
const MAX_PLAN_BYTES: u64 = 512 << 20;

/// The endpoint as a plan names it: without any user or password the URL may carry.
fn endpoint(ctx: &Ctx) -> String {
    let mut url = ctx.api().base().clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.to_string()
}

/// Whether two endpoints are the same service: the same URL, but for the port of a loopback
/// one (local Fabric listens on a new port each time it starts; its data, and so the plan's
/// workspace, stays).
fn same_endpoint(saved: &str, now: &str) -> bool {
    let (Ok(a), Ok(b)) = (reqwest::Url::parse(saved), reqwest::Url::parse(now)) else {
        return saved == now;
    };
    let loopback = fabsh_api::api::trusted_hosts::is_loopback;
    if loopback(&a) && loopback(&b) {
        a.scheme() == b.scheme() && a.host_str() == b.host_str() && a.path() == b.path()
    } else {
        a == b
    }
}

/// The plan `plan` of `repo` against the workspace `state` shows, to be saved.
pub(super) fn of(
    ctx: &Ctx,
    repo: &Repository,
    plan: &Plan,
    state: &WorkspaceState,
    options: &Options,
) -> Result<SavedPlan> {
    let workspace_id = plan
        .workspace_id
        .clone()
        .ok_or_else(|| Error::runtime("a plan against no workspace cannot be saved"))?;
    let repository = std::fs::canonicalize(&repo.root)
        .unwrap_or_else(|_| repo.root.clone())
        .display()
        .to_string();
    Ok(SavedPlan {
        format: SAVED_PLAN_FORMAT.to_string(),
        endpoint: endpoint(ctx),
        workspace_id,
        workspace_name: state.target.workspace_name.clone(),
        repository,
        environment: repo.environment.clone(),
        options: options.clone(),
        plan: plan.clone(),
        fingerprints: repo.fingerprints(&state.target, &state.items, &plan.items),
    })
}

/// Writes `saved` to `path`, readable by the user only.
pub(super) fn write(path: &Path, saved: &SavedPlan) -> Result<()> {
    let bytes = serde_json::to_vec_pretty(saved)
        .map_err(|err| Error::runtime(format!("the plan could not be written: {err}")))?;
    private_file::write(path, &bytes).map_err(|err| {
        Error::runtime(format!("--out {}: cannot write the plan", path.display())).with_cause(err)
    })
}

/// Reads the plan file `path`, refusing one that is not a saved plan.
pub(super) fn read(path: &str) -> Result<SavedPlan> {
    let bytes = file::read_regular(Path::new(path), MAX_PLAN_BYTES).map_err(|err| {
        Error::usage(format!("--plan {path}: {err}")).with_hint(format!(
            "a plan file is at most {}",
            human_size(MAX_PLAN_BYTES)
        ))
    })?;
    let saved: SavedPlan = serde_json::from_slice(&bytes).map_err(|err| {
        Error::usage(format!(
            "--plan {path}: not a plan deploy plan --out wrote: {err}"
        ))
    })?;
    if saved.format != SAVED_PLAN_FORMAT {
        return Err(Error::usage(format!(
            "--plan {path}: a plan of format {:?}, where this fabsh reads {SAVED_PLAN_FORMAT:?}",
            saved.format
        ))
        .with_hint("make the plan again with this fabsh's deploy plan --out"));
    }
    Ok(saved)
}

/// Refuses, before any request, what would apply `saved` other than as it was made: the flags
/// that shape a plan (it has its own), another environment or endpoint, and deletions
/// without `--delete-orphans` (the consent every front end asks for before deleting).
pub(super) fn check_flags(
    ctx: &Ctx,
    deletes: &DeleteFlags,
    path: &str,
    saved: &SavedPlan,
    repo: &Repository,
) -> Result<()> {
    if let Some(flag) = deletes.shaping_a_plan() {
        return Err(Error::usage(format!(
            "--{flag} shapes a plan, and --plan applies {path} as it was made"
        ))
        .with_hint("give it to deploy plan --out instead; nothing was sent"));
    }
    if saved.environment != repo.environment {
        let shown = |e: &Option<String>| e.clone().unwrap_or_else(|| "(none)".into());
        return Err(Error::usage(format!(
            "--plan {path} was made for --environment {}, not {}",
            shown(&saved.environment),
            shown(&repo.environment)
        ))
        .with_hint("give the same --environment; nothing was sent"));
    }
    if !same_endpoint(&saved.endpoint, &endpoint(ctx)) {
        return Err(Error::usage(format!(
            "--plan {path} was made against {}, not {}",
            saved.endpoint,
            endpoint(ctx)
        ))
        .with_hint("nothing was sent"));
    }
    let deleting = saved
        .plan
        .items
        .iter()
        .filter(|r| r.action == PlanAction::Delete)
        .count();
    if deleting > 0 && !deletes.delete_orphans {
        return Err(Error::usage(format!(
            "--plan {path} deletes {deleting} item(s): apply it with --delete-orphans"
        ))
        .with_hint("deploy plan lists them; nothing was sent"));
    }
    Ok(())
}

/// The workspace `saved` goes to: its own; a workspace the flags or the config name must be it.
pub(super) fn workspace(named: Option<String>, path: &str, saved: &SavedPlan) -> Result<String> {
    match named {
        Some(named) if !named.eq_ignore_ascii_case(&saved.workspace_id) => {
            Err(Error::usage(format!(
                "--plan {path} was made for workspace {}, not {named}",
                saved.workspace_id
            ))
            .with_hint("nothing was written"))
        }
        _ => Ok(saved.workspace_id.clone()),
    }
}

/// Refuses `saved` when the repository or the workspace moved since it was made: the plan
/// made now (`fresh`, with `fresh_prints`) must be the one saved.
pub(super) fn check_unchanged(
    path: &str,
    saved: &SavedPlan,
    fresh: &Plan,
    fresh_prints: &[Fingerprint],
) -> Result<()> {
    match fabsh_deploy::plan::stale(&saved.plan, &saved.fingerprints, fresh, fresh_prints) {
        None => Ok(()),
        Some(what) => Err(Error::usage(format!(
            "--plan {path} no longer applies: {what} since the plan was made"
        ))
        .with_hint("make and review the plan again (deploy plan --out); nothing was written")),
    }
}
