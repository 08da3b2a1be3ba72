//! What `data-agent evaluate` adds around a run for tracking it over time: the baseline it is
//! compared with (`--baseline`, `--fail-on-regression`), the record of the run in the
//! evaluation store (unless `--no-save`) and the JUnit file (`--junit`).

use crate::agent::evaluation_compare;
use crate::agent::evaluations::Store;
use crate::agent::junit;
use crate::context::Ctx;
use crate::error::{Error, Result};
use fabsh_api::api::LroOutcome;
use fabsh_api::api::Req;
use fabsh_api::api::data_agents::Agent;
use fabsh_api::api::definitions as api_definitions;
use fabsh_api::api::resolve::is_guid;
use fabsh_model::agent::evaluation::{
    Comparison, ConfigurationParts, EvaluationRow, EvaluationRun, Named,
};
use fabsh_model::wire::DefinitionResponse;
use serde::Deserialize;
use serde_json::{Value, json};
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

/// What an evaluation reads of the agent item (the service's GET): its name, and the
/// description it was published with.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AgentItem {
    display_name: Option<String>,
    #[serde(default)]
    properties: Option<AgentProperties>,
}

/// The agent item's `properties`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AgentProperties {
    published_description: Option<String>,
}

/// What an evaluation reads of a workspace (the service's GET): its name.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WorkspaceItem {
    display_name: Option<String>,
}

/// The agent's published configuration: one hash of it all (its definition's `published/`
/// parts, path and payload in path order, and the publish description), so two runs can tell
/// whether the agent changed between them, and a hash per part (`publishedDescription` for
/// the description), so a comparison can name what changed. `None` when the definition
/// cannot be read.
async fn configuration(
    ctx: &Ctx,
    agent: &Agent,
    description: Option<&str>,
) -> Option<(String, ConfigurationParts)> {
    let outcome = api_definitions::get(ctx.api(), &agent.workspace, &agent.id, None)
        .await
        .ok()?;
    let LroOutcome::Done(definition) = outcome else {
        return None;
    };
    // A definition whose parts lack a path or payload cannot be fingerprinted: none is taken.
    let definition: DefinitionResponse = serde_json::from_value(definition).ok()?;
    let mut parts: Vec<(String, String)> = definition
        .definition
        .parts
        .into_iter()
        .filter(|part| part.path.contains("/published/"))
        .map(|part| (part.path, part.payload))
        .collect();
    parts.sort();
    // The description as JSON (null when the agent has none), as fingerprints always took it.
    let description = Value::from(description).to_string();
    let mut text = json!(parts).to_string();
    text.push_str(&description);
    let mut hashes = ConfigurationParts::default();
    for (path, payload) in &parts {
        let name = path
            .split_once("/published/")
            .map_or(path.as_str(), |(_, rest)| rest);
        hashes.insert(name, sha256_hex(payload.as_bytes()));
    }
    hashes.insert("publishedDescription", sha256_hex(description.as_bytes()));
    Some((sha256_hex(text.as_bytes()), hashes))
}

/// Who was evaluated: the workspace and the agent, and the agent's published configuration.
pub(crate) struct Subject {
    /// The agent's workspace.
    pub workspace: Named,
    /// The agent.
    pub agent: Named,
    /// See [`EvaluationRun::configuration_fingerprint`].
    pub configuration_fingerprint: Option<String>,
    /// See [`EvaluationRun::configuration_parts`].
    pub configuration_parts: Option<ConfigurationParts>,
}

impl Subject {
    /// The workspace and agent by the ids given, nothing read.
    pub(crate) fn unread(workspace: &str, agent: &str) -> Subject {
        let named = |id: &str| Named {
            id: id.to_string(),
            name: None,
        };
        Subject {
            workspace: named(workspace),
            agent: named(agent),
            configuration_fingerprint: None,
            configuration_parts: None,
        }
    }
}

/// Who was evaluated. Best effort: a name or fingerprint that cannot be read is null; a
/// `--published-url` run knows only the ids it was given. `given` is the workspace as `-w`
/// named it.
pub(crate) async fn subject(
    ctx: &Ctx,
    given: &str,
    agent: Option<&Agent>,
    workspace: &str,
    id: &str,
) -> Subject {
    let Some(agent) = agent else {
        return Subject::unread(workspace, id);
    };
    let workspace_name = if is_guid(given) {
        ctx.api()
            .json(Req::get(format!("/workspaces/{}", agent.workspace)))
            .await
            .ok()
            .and_then(|ws| serde_json::from_value::<WorkspaceItem>(ws).ok())
            .and_then(|ws| ws.display_name)
    } else {
        Some(given.to_string())
    };
    let item = agent
        .get(ctx.api())
        .await
        .ok()
        .and_then(|item| serde_json::from_value::<AgentItem>(item).ok());
    let (name, description) = match item {
        Some(item) => (
            item.display_name,
            item.properties.and_then(|p| p.published_description),
        ),
        None => (None, None),
    };
    let (fingerprint, parts) = match configuration(ctx, agent, description.as_deref()).await {
        Some((fingerprint, parts)) => (Some(fingerprint), Some(parts)),
        None => (None, None),
    };
    Subject {
        workspace: Named {
            id: agent.workspace.clone(),
            name: workspace_name,
        },
        agent: Named {
            id: agent.id.clone(),
            name,
        },
        configuration_fingerprint: fingerprint,
        configuration_parts: parts,
    }
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
