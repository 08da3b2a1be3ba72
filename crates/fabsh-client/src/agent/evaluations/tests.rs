//! The store's baseline search and its migration of older stores.

use super::baseline::RecordedAgent;
use super::{AgentIdentity, Store};
use fabsh_model::agent::evaluation::{BaselineMatch, EvaluationRun};
use serde_json::json;
use std::path::Path;

const HERE: &str = "11111111-1111-4111-8111-111111111111";
const ELSEWHERE: &str = "22222222-2222-4222-8222-222222222222";
const AGENT: &str = "33333333-3333-4333-8333-333333333333";
const COPY: &str = "44444444-4444-4444-8444-444444444444";
const LOGICAL: &str = "55555555-5555-4555-8555-555555555555";
const OTHER_LOGICAL: &str = "66666666-6666-4666-8666-666666666666";

fn run(workspace: &str, agent: &str, name: Option<&str>, logical: Option<&str>) -> EvaluationRun {
    serde_json::from_value(json!({
        "runId": null, "time": null, "workspace": {"id": workspace, "name": null},
        "agent": {"id": agent, "name": name}, "agentLogicalId": logical, "grading": "rules",
        "questionsFile": "q.json", "questionsSha256": "", "repeats": 1, "concurrency": 1,
        "configurationFingerprint": null, "configurationParts": null,
        "summary": {"runs": 1, "passed": 1, "failed": 0, "unclear": 0, "errors": 0,
                    "passRate": 1.0, "latencyP50Ms": 10, "latencyP95Ms": 10},
    }))
    .expect("a run")
}

/// Records a run under `id`.
fn save(store: &mut Store, id: &str, mut run: EvaluationRun) {
    run.run_id = Some(id.to_string());
    run.time = Some("2026-01-01T00:00:00Z".to_string());
    store.save(&run, &[]).expect("saved");
}

fn identity(name: Option<&str>, logical: Option<&str>) -> AgentIdentity {
    AgentIdentity {
        workspace: HERE.to_string(),
        agent: AGENT.to_string(),
        name: name.map(str::to_string),
        logical_id: logical.map(str::to_string),
    }
}

fn recorded<'a>(
    workspace: &'a str,
    agent: &'a str,
    name: Option<&'a str>,
    logical: Option<&'a str>,
) -> RecordedAgent<'a> {
    RecordedAgent {
        workspace,
        agent,
        name,
        logical_id: logical,
    }
}

#[test]
fn an_agent_is_recognised_by_id_logical_id_then_name() {
    let me = identity(Some("Sales agent"), Some(LOGICAL));
    let how = |run: RecordedAgent| me.matches(&run);
    assert_eq!(
        how(recorded(HERE, AGENT, None, None)),
        Some(BaselineMatch::SameAgent)
    );
    // Its workspace as a name (`--published-url -w Demo`): the item is the same.
    assert_eq!(
        how(recorded("Demo", AGENT, None, None)),
        Some(BaselineMatch::SameAgent)
    );
    // An agent named, not an id: the same only in the same workspace, else by name.
    let named = AgentIdentity {
        workspace: "Demo".into(),
        agent: "Sales agent".into(),
        name: None,
        logical_id: None,
    };
    assert_eq!(
        named.matches(&recorded("demo", "sales agent", None, None)),
        Some(BaselineMatch::SameAgent)
    );
    assert_eq!(
        named.matches(&recorded(ELSEWHERE, AGENT, Some("Sales agent"), None)),
        Some(BaselineMatch::DisplayName)
    );
    // A copy in another workspace, in either case.
    let upper = LOGICAL.to_ascii_uppercase();
    assert_eq!(
        how(recorded(ELSEWHERE, COPY, None, Some(&upper))),
        Some(BaselineMatch::LogicalId)
    );
    // The source an export gave no logical id of its own: its id became this one's.
    assert_eq!(
        how(recorded(ELSEWHERE, LOGICAL, Some("Renamed"), None)),
        Some(BaselineMatch::LogicalId)
    );
    assert_eq!(
        how(recorded(ELSEWHERE, COPY, Some("sales AGENT"), None)),
        Some(BaselineMatch::DisplayName)
    );
    // Same name, but the repository says another agent.
    assert_eq!(
        how(recorded(
            ELSEWHERE,
            COPY,
            Some("Sales agent"),
            Some(OTHER_LOGICAL)
        )),
        None
    );
    assert_eq!(how(recorded(ELSEWHERE, COPY, Some("Other"), None)), None);

    // An agent with no logical id of its own is the source of copies that carry its id.
    let source = identity(Some("Sales agent"), None);
    assert_eq!(
        source.matches(&recorded(ELSEWHERE, COPY, Some("Renamed"), Some(AGENT))),
        Some(BaselineMatch::LogicalId)
    );
}

#[test]
fn latest_prefers_this_agent_here_then_its_logical_id_then_its_name() {
    let dir = tempfile::tempdir().expect("dir");
    // The store makes its own folder private; the temporary one may not be.
    let path = dir.path().join("fabsh").join("evaluations.sqlite3");
    let mut store = Store::open_at(&path).expect("store");
    let me = identity(Some("Sales agent"), Some(LOGICAL));
    assert_eq!(store.latest_of(&me).expect("latest"), None);

    save(
        &mut store,
        "by-name",
        run(ELSEWHERE, COPY, Some("Sales agent"), None),
    );
    save(
        &mut store,
        "told-apart",
        run(ELSEWHERE, COPY, Some("Sales agent"), Some(OTHER_LOGICAL)),
    );
    let found = |store: &Store| store.latest_of(&me).expect("latest");
    assert_eq!(
        found(&store),
        Some(("by-name".to_string(), BaselineMatch::DisplayName))
    );
    save(
        &mut store,
        "copy-here",
        run(HERE, COPY, Some("Old name"), Some(LOGICAL)),
    );
    // Newer, but of another workspace: this workspace's copy comes first.
    save(
        &mut store,
        "copy-elsewhere",
        run(ELSEWHERE, COPY, Some("Old name"), Some(LOGICAL)),
    );
    assert_eq!(
        found(&store),
        Some(("copy-here".to_string(), BaselineMatch::LogicalId))
    );
    save(
        &mut store,
        "mine",
        run(HERE, AGENT, Some("Sales agent"), Some(LOGICAL)),
    );
    save(
        &mut store,
        "newer-copy",
        run(HERE, COPY, None, Some(LOGICAL)),
    );
    assert_eq!(
        found(&store),
        Some(("mine".to_string(), BaselineMatch::SameAgent))
    );
    save(&mut store, "mine-again", run(HERE, AGENT, None, None));
    assert_eq!(
        found(&store),
        Some(("mine-again".to_string(), BaselineMatch::SameAgent))
    );
}

/// A store as fabsh wrote it before the per-part hashes and the logical id were recorded, in
/// a private folder of its own.
fn old_store(path: &Path) {
    let folder = path.parent().expect("folder");
    std::fs::create_dir(folder).expect("folder");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700)).expect("mode");
    }
    let conn = rusqlite::Connection::open(path).expect("open");
    conn.execute_batch(
        "CREATE TABLE runs (id TEXT PRIMARY KEY, time TEXT NOT NULL,
             workspace_id TEXT NOT NULL, workspace_name TEXT, agent_id TEXT NOT NULL,
             agent_name TEXT, grading TEXT NOT NULL, questions_file TEXT NOT NULL,
             questions_sha256 TEXT NOT NULL, repeats INTEGER NOT NULL,
             concurrency INTEGER NOT NULL, configuration_fingerprint TEXT,
             pass_rate REAL NOT NULL, summary TEXT NOT NULL);
         CREATE TABLE rows (run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
             seq INTEGER NOT NULL, question TEXT NOT NULL, expected TEXT, actual TEXT,
             verdict TEXT, rule TEXT, rationale TEXT, latency_ms INTEGER, error TEXT,
             PRIMARY KEY (run_id, seq));",
    )
    .expect("old schema");
    conn.execute(
        "INSERT INTO runs VALUES ('old', '2025-01-01T00:00:00Z', ?1, 'Demo', ?2, 'Sales agent',
                                  'rules', 'q.json', '', 1, 1, NULL, 1.0, '{}')",
        [HERE, AGENT],
    )
    .expect("old run");
    drop(conn);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).expect("mode");
    }
}

#[test]
fn an_older_store_gains_the_logical_id_column_and_its_runs_keep_null() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("fabsh").join("evaluations.sqlite3");
    old_store(&path);
    let mut store = Store::open_at(&path).expect("migrated");
    let old = store.show("old", None).expect("old run");
    assert_eq!(old.agent_logical_id, None);
    assert_eq!(old.configuration_parts, None);
    // Found by its agent's id as before; by name from another workspace's copy.
    let me = identity(None, None);
    assert_eq!(
        store.latest_of(&me).expect("latest"),
        Some(("old".to_string(), BaselineMatch::SameAgent))
    );
    let copy = AgentIdentity {
        workspace: ELSEWHERE.to_string(),
        agent: COPY.to_string(),
        name: Some("Sales agent".to_string()),
        logical_id: Some(LOGICAL.to_string()),
    };
    assert_eq!(
        store.latest_of(&copy).expect("latest"),
        Some(("old".to_string(), BaselineMatch::DisplayName))
    );
    // New runs record it, beside the old.
    save(&mut store, "new", run(HERE, AGENT, None, Some(LOGICAL)));
    assert_eq!(
        store
            .show("new", None)
            .expect("new")
            .agent_logical_id
            .as_deref(),
        Some(LOGICAL)
    );
    drop(store);
    // Opened again, nothing is migrated twice.
    let again = Store::open_at(&path).expect("reopened");
    assert_eq!(again.show("old", None).expect("old").agent_logical_id, None);
}
