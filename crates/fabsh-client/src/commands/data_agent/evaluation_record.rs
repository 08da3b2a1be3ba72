//! What `data-agent evaluate` adds around a run for tracking it over time: the baseline it is
//! compared with (`--baseline`, `--fail-on-regression`), the record of the run in the
//! evaluation store (unless `--no-save`) and the JUnit file (`--junit`).

use crate::agent::evaluation_compare;
use crate::agent::evaluations::Store;
use crate::agent::junit;
use crate::api::LroOutcome;
use crate::api::Req;
use crate::api::data_agents::Agent;
use crate::api::definitions as api_definitions;
use crate::api::resolve::is_guid;
use crate::context::Ctx;
use crate::error::{Error, Result};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use time::format_description::well_known::Rfc3339;

/// The store and baseline an evaluation needs, opened and checked before anything is asked.
pub struct Tracking {
    store: Option<Store>,
    save: bool,
    /// The recorded run to compare with, as `evaluations show` gives it.
    pub baseline: Option<Value>,
}

/// The run `--baseline` names (or latest, under `--fail-on-regression`), if any.
fn baseline_reference(baseline: Option<&str>, fail_on_regression: bool) -> Option<&str> {
    baseline.or_else(|| fail_on_regression.then_some("latest"))
}

/// The store and baseline for this evaluation of `workspace`/`agent`: `save` unless
/// `--no-save`, compared with `--baseline` (or latest, under `--fail-on-regression`). No
/// store is opened when nothing is saved or compared.
pub fn open(
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
fn same_agent(run: Value, agent: &str) -> Result<Value> {
    let of = &run["agent"];
    // With --published-url the agent is as the user named it: an id or a name.
    let named = |key: &str| {
        of[key]
            .as_str()
            .is_some_and(|it| it.eq_ignore_ascii_case(agent))
    };
    if named("id") || named("name") {
        return Ok(run);
    }
    let name = of["name"]
        .as_str()
        .or(of["id"].as_str())
        .unwrap_or("another agent");
    Err(Error::usage(format!(
        "--baseline {}: that run is of {name:?}, not of this agent",
        run["runId"].as_str().unwrap_or_default()
    ))
    .with_hint("give a run of this agent (`data-agent evaluations list`), or compare any two runs with `data-agent evaluations compare`"))
}

/// The file `--flag` names, checked to be in a directory that exists (and not to be a
/// directory itself) before anything is asked.
pub fn in_existing_dir(flag: &str, text: &str) -> Result<PathBuf> {
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
pub fn new_output_file(flag: &str, text: &str, force: bool) -> Result<PathBuf> {
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
pub fn write_junit(path: &Path, suite: &str, rows: &[Value], repeats: usize) -> Result<()> {
    std::fs::write(path, junit::render(suite, rows, repeats))
        .map_err(|err| Error::runtime(format!("cannot write {}", path.display())).with_cause(err))
}

/// The sha256 of some bytes, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The agent's published configuration: one hash of it all (its definition's `published/`
/// parts, path and payload in path order, and the publish description), so two runs can tell
/// whether the agent changed between them, and a hash per part (`publishedDescription` for
/// the description), so a comparison can name what changed. `None` when the definition
/// cannot be read.
async fn configuration(ctx: &Ctx, agent: &Agent, description: &Value) -> Option<(String, Value)> {
    let outcome = api_definitions::get(ctx.api(), &agent.workspace, &agent.id, None)
        .await
        .ok()?;
    let LroOutcome::Done(definition) = outcome else {
        return None;
    };
    let mut parts: Vec<(String, String)> = definition["definition"]["parts"]
        .as_array()?
        .iter()
        .filter_map(|part| {
            let path = part["path"].as_str()?;
            path.contains("/published/").then(|| {
                (
                    path.to_string(),
                    part["payload"].as_str().unwrap_or_default().to_string(),
                )
            })
        })
        .collect();
    parts.sort();
    let mut text = json!(parts).to_string();
    text.push_str(&description.to_string());
    let mut hashes = serde_json::Map::new();
    for (path, payload) in &parts {
        let name = path
            .split_once("/published/")
            .map_or(path.as_str(), |(_, rest)| rest);
        hashes.insert(name.to_string(), json!(sha256_hex(payload.as_bytes())));
    }
    hashes.insert(
        "publishedDescription".into(),
        json!(sha256_hex(description.to_string().as_bytes())),
    );
    Some((sha256_hex(text.as_bytes()), Value::Object(hashes)))
}

/// Who was evaluated: the workspace and agent, each `{id, name}`, and the fingerprint of the
/// agent's published configuration. Best effort: a name or fingerprint that cannot be read
/// is null; a `--published-url` run knows only the ids it was given. `given` is the
/// workspace as `-w` named it.
pub async fn subject(
    ctx: &Ctx,
    given: &str,
    agent: Option<&Agent>,
    workspace: &str,
    id: &str,
) -> Value {
    let Some(agent) = agent else {
        return json!({"workspace": {"id": workspace, "name": null}, "agent": {"id": id, "name": null}, "configurationFingerprint": null});
    };
    let workspace_name = if is_guid(given) {
        ctx.api()
            .json(Req::get(format!("/workspaces/{}", agent.workspace)))
            .await
            .ok()
            .map(|ws| ws["displayName"].clone())
    } else {
        Some(json!(given))
    };
    let item = agent.get(ctx.api()).await.unwrap_or(Value::Null);
    let description = item["properties"]["publishedDescription"].clone();
    let (fingerprint, parts) = match configuration(ctx, agent, &description).await {
        Some((fingerprint, parts)) => (json!(fingerprint), parts),
        None => (Value::Null, Value::Null),
    };
    json!({
        "workspace": {"id": agent.workspace, "name": workspace_name.unwrap_or(Value::Null)},
        "agent": {"id": agent.id, "name": item["displayName"]},
        "configurationFingerprint": fingerprint,
        "configurationParts": parts,
    })
}

/// Records the run (when saving) and answers its id.
pub fn record(tracking: &mut Tracking, run: &mut Value, rows: &[Value]) -> Result<Option<String>> {
    let Some(store) = tracking.store.as_mut().filter(|_| tracking.save) else {
        return Ok(None);
    };
    let id = uuid::Uuid::new_v4().to_string();
    run["runId"] = json!(id);
    run["time"] = json!(
        time::OffsetDateTime::now_utc()
            .replace_nanosecond(0)
            .unwrap_or_else(|_| time::OffsetDateTime::now_utc())
            .format(&Rfc3339)
            .map_err(|err| Error::runtime("cannot format the time").with_cause(err))?
    );
    store.save(run, rows)?;
    Ok(Some(id))
}

/// The comparison of this run with the baseline, if there is one.
pub fn compare(tracking: &Tracking, run: &Value, rows: &[Value]) -> Option<Value> {
    // Without a baseline nothing is compared, and the rows are not copied.
    let base = tracking.baseline.as_ref()?;
    let mut head = run.clone();
    head["rows"] = json!(rows);
    Some(evaluation_compare::compare(base, &head))
}
