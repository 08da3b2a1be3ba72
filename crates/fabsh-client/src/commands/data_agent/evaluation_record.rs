//! What `data-agent evaluate` adds around a run for tracking it over time: the baseline it is
//! compared with (`--baseline`, `--fail-on-regression`; `latest` follows the agent to other
//! workspaces, and is none for an agent never evaluated), the record of the run in the
//! evaluation store (unless `--no-save`) and the JUnit file (`--junit`).

use super::evaluation_subject::Subject;
use crate::agent::evaluation_compare;
use crate::agent::evaluations::{AgentIdentity, RecordedAgent, Store};
use crate::agent::junit;
use crate::error::{Error, Result};
use fabsh_model::agent::evaluation::{
    Baseline, BaselineMatch, Comparison, EvaluationRow, EvaluationRun, Named,
};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use time::format_description::well_known::Rfc3339;

/// The store and baseline an evaluation needs, opened and checked before anything is asked.
pub(crate) struct Tracking {
    store: Option<Store>,
    save: bool,
    /// The recorded run to compare with, as `evaluations show` gives it.
    pub baseline: Option<EvaluationRun>,
    /// The baseline asked for: the run and how it was found, or that none was.
    pub chosen: Option<Baseline>,
}

/// The run `--baseline` names (or latest, under `--fail-on-regression`), if any.
fn baseline_reference(baseline: Option<&str>, fail_on_regression: bool) -> Option<&str> {
    baseline.or_else(|| fail_on_regression.then_some("latest"))
}

/// The baseline asked for, before the agent is known well enough to choose one.
enum Wanted {
    /// No baseline.
    Nothing,
    /// `latest`: chosen once the agent's identity is read.
    Latest,
    /// The run `--baseline RUN` names, found; checked to be of this agent once it is read.
    Run(Box<EvaluationRun>),
}

/// The store opened (unless nothing is saved or compared) and the baseline asked for, with
/// a run named by `--baseline RUN` found: a run that does not exist is refused before the
/// agent is read or anything asked.
pub(crate) struct Opened {
    store: Option<Store>,
    save: bool,
    wanted: Wanted,
}

/// The store for this evaluation: `save` unless `--no-save`, compared with `--baseline` (or
/// latest, under `--fail-on-regression`). No store is opened when nothing is saved or
/// compared.
pub(crate) fn open(save: bool, baseline: Option<&str>, fail_on_regression: bool) -> Result<Opened> {
    let reference = baseline_reference(baseline, fail_on_regression);
    if !save && reference.is_none() {
        return Ok(Opened {
            store: None,
            save,
            wanted: Wanted::Nothing,
        });
    }
    let store = Store::open()?;
    let wanted = match reference {
        None => Wanted::Nothing,
        Some("latest") => Wanted::Latest,
        Some(reference) => Wanted::Run(Box::new(store.show(reference, None)?)),
    };
    Ok(Opened {
        store: Some(store),
        save,
        wanted,
    })
}

impl Opened {
    /// True when a baseline is asked for (the agent's identity is then read to choose it).
    pub(crate) fn compares(&self) -> bool {
        !matches!(self.wanted, Wanted::Nothing)
    }

    /// The baseline for `subject`: the run `--baseline` named, when it is of this agent; for
    /// `latest`, the newest run of this agent here, else of the same agent elsewhere (same
    /// logical id, else same name), else none (the run is then compared with nothing, which
    /// a first evaluation of an agent always is).
    pub(crate) fn choose(self, subject: &Subject) -> Result<Tracking> {
        let who = subject.identity();
        let (baseline, chosen) = match (self.wanted, &self.store) {
            (Wanted::Nothing, _) | (_, None) => (None, None),
            (Wanted::Run(run), _) => {
                let run = same_agent(*run, &who)?;
                let chosen = found(BaselineMatch::Given, &run);
                (Some(run), Some(chosen))
            }
            (Wanted::Latest, Some(store)) => match store.latest_of(&who)? {
                Some((id, how)) => {
                    let run = store.show(&id, None)?;
                    let chosen = found(how, &run);
                    (Some(run), Some(chosen))
                }
                None => (None, Some(Baseline::none())),
            },
        };
        Ok(Tracking {
            store: self.store,
            save: self.save,
            baseline,
            chosen,
        })
    }
}

/// The baseline `run`, found as `how` says.
fn found(how: BaselineMatch, run: &EvaluationRun) -> Baseline {
    Baseline {
        matched_by: how,
        run_id: run.run_id.clone(),
        workspace: Some(run.workspace.clone()),
        agent: Some(run.agent.clone()),
    }
}

/// The recorded run, when it is one of this agent (as `--baseline latest` would find it: by
/// its id, its logical id or its name): comparing with another agent's run would call every
/// difference between the agents a regression.
fn same_agent(run: EvaluationRun, who: &AgentIdentity) -> Result<EvaluationRun> {
    let recorded = RecordedAgent {
        workspace: &run.workspace.id,
        agent: &run.agent.id,
        name: run.agent.name.as_deref(),
        logical_id: run.agent_logical_id.as_deref(),
    };
    if who.matches(&recorded).is_some() {
        return Ok(run);
    }
    Err(Error::usage(format!(
        "--baseline {}: that run is of {:?}, not of this agent",
        // A run read from the store always has its id.
        junit::or_empty(&run.run_id),
        run.agent.name_or_id(),
    ))
    .with_hint("give a run of this agent (`data-agent evaluations list`), or compare any two runs with `data-agent evaluations compare`"))
}

/// The notes that say which baseline this run is compared with (its run, how it was found,
/// and whose it is when not this agent's here), or that there is none. Each fits 80 columns
/// but for long names.
pub(crate) fn baseline_notes(chosen: &Baseline, workspace: &Named) -> Vec<String> {
    let Some(id) = &chosen.run_id else {
        return vec!["no baseline: this agent has no recorded run, here or elsewhere".into()];
    };
    let mut notes = vec![format!(
        "baseline: run {id} ({})",
        chosen.matched_by.words()
    )];
    let elsewhere = chosen
        .workspace
        .as_ref()
        .is_some_and(|of| !of.id.eq_ignore_ascii_case(&workspace.id));
    let another = matches!(
        chosen.matched_by,
        BaselineMatch::LogicalId | BaselineMatch::DisplayName
    );
    if let (Some(of), Some(agent)) = (&chosen.workspace, &chosen.agent)
        && (elsewhere || another)
    {
        notes.push(format!(
            "baseline run of {:?} in workspace {:?}",
            agent.name_or_id(),
            of.name_or_id()
        ));
    }
    notes
}

/// The file `--flag` names, checked to be in a directory that exists (and not to be a
/// directory itself) before anything is asked.
pub(crate) fn in_existing_dir(flag: &str, text: &str) -> Result<PathBuf> {
    let path = PathBuf::from(text);
    if path.is_dir() {
        return Err(Error::usage(format!(
            "--{flag}: {} is a directory; give a file path",
            path.display()
        )));
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !parent.is_dir() {
        return Err(Error::usage(format!(
            "--{flag}: the directory {} does not exist",
            parent.display()
        )));
    }
    Ok(path)
}

/// A file `evaluate` writes (`--output-file`, `--junit`): as [`in_existing_dir`], and not
/// one that exists unless `--force` (`force`) says to replace it (a results file of an
/// earlier run is often what a user compares with).
pub(crate) fn new_output_file(flag: &str, text: &str, force: bool) -> Result<PathBuf> {
    let path = in_existing_dir(flag, text)?;
    if path.exists() && !force {
        return Err(Error::usage(format!(
            "--{flag}: {} exists; refusing to replace it",
            path.display()
        ))
        .with_hint("add --force to replace it, or give another file name"));
    }
    Ok(path)
}

/// Writes evaluations as JUnit XML, a testsuite each (each question's `repeats` runs
/// together).
pub(crate) fn write_junit(path: &Path, suites: &[junit::Suite<'_>]) -> Result<()> {
    std::fs::write(path, junit::render_suites(suites))
        .map_err(|err| Error::runtime(format!("cannot write {}", path.display())).with_cause(err))
}

/// The sha256 of some bytes, in hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Records the run (when saving), giving it its id and time, and answers the id.
pub(crate) fn record(
    tracking: &mut Tracking,
    run: &mut EvaluationRun,
    rows: &[EvaluationRow],
) -> Result<Option<String>> {
    let Some(store) = tracking.store.as_mut().filter(|_| tracking.save) else {
        return Ok(None);
    };
    let id = uuid::Uuid::new_v4().to_string();
    run.run_id = Some(id.clone());
    run.time = Some(
        time::OffsetDateTime::now_utc()
            .replace_nanosecond(0)
            .unwrap_or_else(|_| time::OffsetDateTime::now_utc())
            .format(&Rfc3339)
            .map_err(|err| Error::runtime("cannot format the time").with_cause(err))?,
    );
    store.save(run, rows)?;
    Ok(Some(id))
}

/// The comparison of this run with the baseline, if there is one.
pub(crate) fn compare(
    tracking: &Tracking,
    run: &EvaluationRun,
    rows: &[EvaluationRow],
) -> Option<Comparison> {
    // Without a baseline nothing is compared, and the rows are not copied.
    let base = tracking.baseline.as_ref()?;
    let head = EvaluationRun {
        rows: rows.to_vec(),
        ..run.clone()
    };
    Some(evaluation_compare::compare(base, &head))
}
