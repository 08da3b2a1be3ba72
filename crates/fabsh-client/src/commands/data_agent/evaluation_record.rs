//! What `data-agent evaluate` adds around a run for tracking it over time: the baseline it is
//! compared with (`--baseline`, `--fail-on-regression`), the record of the run in the
//! evaluation store (unless `--no-save`) and the JUnit file (`--junit`).

use crate::agent::evaluation_compare;
use crate::agent::evaluations::Store;
use crate::agent::junit;
use crate::error::{Error, Result};
use fabsh_model::agent::evaluation::{Comparison, EvaluationRow, EvaluationRun};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use time::format_description::well_known::Rfc3339;

/// The store and baseline an evaluation needs, opened and checked before anything is asked.
pub(crate) struct Tracking {
    store: Option<Store>,
    save: bool,
    /// The recorded run to compare with, as `evaluations show` gives it.
    pub baseline: Option<EvaluationRun>,
}

/// The run `--baseline` names (or latest, under `--fail-on-regression`), if any.
fn baseline_reference(baseline: Option<&str>, fail_on_regression: bool) -> Option<&str> {
    baseline.or_else(|| fail_on_regression.then_some("latest"))
}

/// The store and baseline for this evaluation of `workspace`/`agent`: `save` unless
/// `--no-save`, compared with `--baseline` (or latest, under `--fail-on-regression`). No
/// store is opened when nothing is saved or compared.
pub(crate) fn open(
    save: bool,
    baseline: Option<&str>,
    fail_on_regression: bool,
    workspace: &str,
    agent: &str,
) -> Result<Tracking> {
    let reference = baseline_reference(baseline, fail_on_regression);
    if !save && reference.is_none() {
        return Ok(Tracking {
            store: None,
            save,
            baseline: None,
        });
    }
    let store = Store::open()?;
    let baseline = match reference {
        None => None,
        Some("latest") => {
            let id = store.latest(workspace, agent)?.ok_or_else(|| {
                Error::not_found("--baseline latest: this agent has no recorded evaluation run")
                    .with_hint("run `data-agent evaluate` once without --fail-on-regression to record a baseline")
            })?;
            Some(store.show(&id, None)?)
        }
        Some(reference) => Some(same_agent(store.show(reference, None)?, agent)?),
    };
    Ok(Tracking {
        store: Some(store),
        save,
        baseline,
    })
}

/// The recorded run, when it is one of `agent`: comparing with another agent's run would
/// call every difference between the agents a regression.
fn same_agent(run: EvaluationRun, agent: &str) -> Result<EvaluationRun> {
    let of = &run.agent;
    // With --published-url the agent is as the user named it: an id or a name.
    let named = |it: Option<&str>| it.is_some_and(|it| it.eq_ignore_ascii_case(agent));
    if named(Some(&of.id)) || named(of.name.as_deref()) {
        return Ok(run);
    }
    Err(Error::usage(format!(
        "--baseline {}: that run is of {:?}, not of this agent",
        // A run read from the store always has its id.
        junit::or_empty(&run.run_id),
        of.name_or_id(),
    ))
    .with_hint("give a run of this agent (`data-agent evaluations list`), or compare any two runs with `data-agent evaluations compare`"))
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

/// Writes the rows (each question's `repeats` runs together) as JUnit XML.
pub(crate) fn write_junit(
    path: &Path,
    suite: &str,
    rows: &[EvaluationRow],
    repeats: usize,
) -> Result<()> {
    std::fs::write(path, junit::render(suite, rows, repeats))
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
