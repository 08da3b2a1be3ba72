//! The evaluation store: every `data-agent evaluate` run with its rows, in SQLite in the user
//! data dir (`fabsh/evaluations.sqlite3`, private to its owner), so runs can be listed,
//! shown and compared over time. Runs are JSON objects in the shape `evaluations show` prints.

use super::evaluation_store_file as store_file;
use crate::error::{Error, Result};
use rusqlite::{Connection, OptionalExtension, named_params, params};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    time TEXT NOT NULL,
    workspace_id TEXT NOT NULL,
    workspace_name TEXT,
    agent_id TEXT NOT NULL,
    agent_name TEXT,
    grading TEXT NOT NULL,
    questions_file TEXT NOT NULL,
    questions_sha256 TEXT NOT NULL,
    repeats INTEGER NOT NULL,
    concurrency INTEGER NOT NULL,
    configuration_fingerprint TEXT,
    pass_rate REAL NOT NULL,
    summary TEXT NOT NULL,
    configuration_parts TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_agent ON runs (workspace_id, agent_id);
CREATE TABLE IF NOT EXISTS rows (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    question TEXT NOT NULL,
    expected TEXT,
    actual TEXT,
    verdict TEXT,
    rule TEXT,
    rationale TEXT,
    latency_ms INTEGER,
    error TEXT,
    expected_sql TEXT,
    PRIMARY KEY (run_id, seq)
);
";

/// Stores made before reference queries (`expected_sql`) lack their column.
fn add_expected_sql(conn: &Connection) -> rusqlite::Result<()> {
    let has: bool = conn.query_row(
        "SELECT count(*) > 0 FROM pragma_table_info('rows') WHERE name = 'expected_sql'",
        [],
        |row| row.get(0),
    )?;
    if !has {
        conn.execute_batch("ALTER TABLE rows ADD COLUMN expected_sql TEXT")?;
    }
    Ok(())
}

/// Stores made before comparisons named configuration changes lack the per-part hashes;
/// their runs read back with `configurationParts` null.
fn add_configuration_parts(conn: &Connection) -> rusqlite::Result<()> {
    let has: bool = conn.query_row(
        "SELECT count(*) > 0 FROM pragma_table_info('runs') WHERE name = 'configuration_parts'",
        [],
        |row| row.get(0),
    )?;
    if !has {
        conn.execute_batch("ALTER TABLE runs ADD COLUMN configuration_parts TEXT")?;
    }
    Ok(())
}

/// The row keys, in the order `evaluate` outputs them and the table stores them.
pub const ROW_KEYS: &[&str] = &[
    "question",
    "expected",
    "actual",
    "verdict",
    "rule",
    "rationale",
    "latencyMs",
    "error",
];

/// The store's file: `<user data dir>/fabsh/evaluations.sqlite3`.
pub fn default_path() -> Result<PathBuf> {
    dirs::data_dir()
        .map(|dir| dir.join("fabsh").join("evaluations.sqlite3"))
        .ok_or_else(|| {
            Error::runtime("no user data directory for the evaluation store")
                .with_hint("set XDG_DATA_HOME (or HOME)")
        })
}

/// The agent a run reference is looked for among, as the user named it (workspace and agent,
/// each an id or a name): matched against what each run recorded, so it works offline.
#[derive(Debug, Clone)]
pub struct AgentFilter {
    pub workspace: String,
    pub agent: String,
}

/// An open evaluation store, and its file (named when it fails).
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

/// A failure of the store at `path`. A file SQLite cannot read as a database, or finds a
/// damaged page in, is named, with the ways around it (`--no-save`, moving it aside), at
/// open or later, when a query reaches the damaged page.
fn failed(path: &Path, err: rusqlite::Error) -> Error {
    use rusqlite::ErrorCode::{DatabaseCorrupt, NotADatabase};
    match err.sqlite_error_code() {
        Some(NotADatabase | DatabaseCorrupt) => {
            store_file::unusable(path, "cannot be read as a database").with_cause(err)
        }
        _ => Error::runtime(format!("the evaluation store {} failed", path.display()))
            .with_cause(err),
    }
}

impl Store {
    /// The store in the user data dir, created on first use.
    pub fn open() -> Result<Store> {
        Self::open_at(&default_path()?)
    }

    /// The store at `path`, created on first use.
    pub fn open_at(path: &Path) -> Result<Store> {
        store_file::check_private(path)?;
        store_file::create_if_missing(path, SCHEMA)?;
        store_file::check_not_empty(path)?;
        let unreadable = |err| failed(path, err);
        let conn = Connection::open(path).map_err(unreadable)?;
        // Two evaluations finishing at once (parallel CI jobs) wait for each other.
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(unreadable)?;
        conn.execute_batch("PRAGMA foreign_keys = ON;")
            .and_then(|()| conn.execute_batch(SCHEMA))
            .and_then(|()| add_expected_sql(&conn))
            .and_then(|()| add_configuration_parts(&conn))
            .map_err(unreadable)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Records a run (`evaluations show`'s shape without `rows`) and its rows.
    pub fn save(&mut self, run: &Value, rows: &[Value]) -> Result<()> {
        let tx = self
            .conn
            .transaction()
            .map_err(|err| failed(&self.path, err))?;
        let text = |value: &Value| value.as_str().map(str::to_string);
        tx.execute(
            "INSERT INTO runs VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
            params![
                text(&run["runId"]),
                text(&run["time"]),
                text(&run["workspace"]["id"]),
                text(&run["workspace"]["name"]),
                text(&run["agent"]["id"]),
                text(&run["agent"]["name"]),
                text(&run["grading"]),
                text(&run["questionsFile"]),
                text(&run["questionsSha256"]),
                run["repeats"].as_i64(),
                run["concurrency"].as_i64(),
                text(&run["configurationFingerprint"]),
                run["summary"]["passRate"].as_f64().unwrap_or(0.0),
                run["summary"].to_string(),
                (!run["configurationParts"].is_null())
                    .then(|| run["configurationParts"].to_string()),
            ],
        )
        .map_err(|err| failed(&self.path, err))?;
        for (seq, row) in rows.iter().enumerate() {
            let cell = |key: &str| match &row[key] {
                Value::Null => None,
                Value::String(text) => Some(text.clone()),
                other => Some(other.to_string()),
            };
            tx.execute(
                "INSERT INTO rows (run_id, seq, question, expected, actual, verdict, rule,
                                   rationale, latency_ms, error, expected_sql)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    text(&run["runId"]),
                    seq as i64,
                    cell("question"),
                    cell("expected"),
                    cell("actual"),
                    cell("verdict"),
                    cell("rule"),
                    cell("rationale"),
                    row["latencyMs"].as_i64(),
                    cell("error"),
                    cell("expectedSql"),
                ],
            )
            .map_err(|err| failed(&self.path, err))?;
        }
        tx.commit().map_err(|err| failed(&self.path, err))
    }

    /// The runs of an agent, newest first, in `evaluations list`'s shape.
    /// (Newest by insertion: RFC 3339 texts with fractions of varying length do not sort.)
    pub fn list(&self, workspace: &str, agent: &str) -> Result<Vec<Value>> {
        let mut statement = self
            .conn
            .prepare(
                "SELECT id, time, pass_rate, summary, configuration_fingerprint, grading,
                        questions_sha256 FROM runs
                 WHERE workspace_id = ?1 AND agent_id = ?2 ORDER BY rowid DESC",
            )
            .map_err(|err| failed(&self.path, err))?;
        let runs = statement
            .query_map(params![workspace, agent], |row| {
                let summary: String = row.get(3)?;
                let summary: Value = serde_json::from_str(&summary).unwrap_or(Value::Null);
                Ok(json!({
                    "runId": row.get::<_, String>(0)?,
                    "time": crate::local_time::shown(&row.get::<_, String>(1)?),
                    "passRate": row.get::<_, f64>(2)?,
                    "runs": summary["runs"],
                    "configurationFingerprint": row.get::<_, Option<String>>(4)?,
                    "grading": row.get::<_, String>(5)?,
                    "questionsSha256": row.get::<_, String>(6)?,
                }))
            })
            .map_err(|err| failed(&self.path, err))?;
        runs.collect::<rusqlite::Result<Vec<Value>>>()
            .map_err(|err| failed(&self.path, err))
    }

    /// The newest run of an agent, if any.
    pub fn latest(&self, workspace: &str, agent: &str) -> Result<Option<String>> {
        Ok(self
            .list(workspace, agent)?
            .first()
            .and_then(|run| run["runId"].as_str().map(str::to_string)))
    }

    /// The full id of the run `reference` names: its id or an unambiguous prefix of it (as a
    /// table too narrow for whole ids shows it, `…` and all), or `latest`; among the runs of
    /// `agent` when given (`latest` is then that agent's newest run).
    pub fn resolve(&self, reference: &str, agent: Option<&AgentFilter>) -> Result<String> {
        let reference = reference.trim_end_matches('…');
        let (workspace, agent_name) =
            agent.map_or(("", ""), |a| (a.workspace.as_str(), a.agent.as_str()));
        // Everyone's runs, or one agent's, as recorded: by id or by name, in any case.
        const OF_AGENT: &str = "(:workspace = '' OR workspace_id = :workspace COLLATE NOCASE
                 OR workspace_name = :workspace COLLATE NOCASE)
             AND (:agent = '' OR agent_id = :agent COLLATE NOCASE OR agent_name = :agent COLLATE NOCASE)";
        let whose = match agent {
            Some(agent) => format!(" of {}/{}", agent.workspace, agent.agent),
            None => String::new(),
        };
        if reference == "latest" {
            // As `--baseline latest` means the newest run: of the agent given, else of any.
            return self
                .conn
                .query_row(
                    &format!("SELECT id FROM runs WHERE {OF_AGENT} ORDER BY rowid DESC LIMIT 1"),
                    named_params! {":workspace": workspace, ":agent": agent_name},
                    |row| row.get::<_, String>(0),
                )
                .optional()
                .map_err(|err| failed(&self.path, err))?
                .ok_or_else(|| {
                    Error::not_found(format!("latest: no evaluation run{whose} is recorded"))
                        .with_hint("`data-agent evaluate` records a run unless --no-save")
                });
        }
        let pattern = format!("{}%", reference.replace(['%', '_'], ""));
        let mut statement = self
            .conn
            .prepare(&format!(
                "SELECT id FROM runs WHERE id LIKE :pattern AND {OF_AGENT} LIMIT 2"
            ))
            .map_err(|err| failed(&self.path, err))?;
        let ids = statement
            .query_map(
                named_params! {":pattern": pattern, ":workspace": workspace, ":agent": agent_name},
                |row| row.get::<_, String>(0),
            )
            .map_err(|err| failed(&self.path, err))?
            .collect::<rusqlite::Result<Vec<String>>>()
            .map_err(|err| failed(&self.path, err))?;
        match ids.as_slice() {
            [id] if !reference.is_empty() => Ok(id.clone()),
            [] | [_] => Err(
                Error::not_found(format!("no evaluation run {reference:?}{whose}"))
                    .with_hint("`data-agent evaluations list WORKSPACE/AGENT` lists the runs"),
            ),
            _ => Err(Error::usage(format!(
                "{reference:?} names more than one evaluation run; give more of its id"
            ))),
        }
    }

    /// A run and its rows, in `evaluations show`'s shape.
    pub fn show(&self, reference: &str, agent: Option<&AgentFilter>) -> Result<Value> {
        let id = self.resolve(reference, agent)?;
        let mut run = self
            .conn
            .query_row(
                "SELECT id, time, workspace_id, workspace_name, agent_id, agent_name, grading,
                        questions_file, questions_sha256, repeats, concurrency,
                        configuration_fingerprint, summary, configuration_parts
                 FROM runs WHERE id = ?1",
                params![id],
                |row| {
                    let summary: String = row.get(12)?;
                    Ok(json!({
                        "runId": row.get::<_, String>(0)?,
                        "time": crate::local_time::shown(&row.get::<_, String>(1)?),
                        "workspace": {"id": row.get::<_, String>(2)?, "name": row.get::<_, Option<String>>(3)?},
                        "agent": {"id": row.get::<_, String>(4)?, "name": row.get::<_, Option<String>>(5)?},
                        "grading": row.get::<_, String>(6)?,
                        "questionsFile": row.get::<_, String>(7)?,
                        "questionsSha256": row.get::<_, String>(8)?,
                        "repeats": row.get::<_, i64>(9)?,
                        "concurrency": row.get::<_, i64>(10)?,
                        "configurationFingerprint": row.get::<_, Option<String>>(11)?,
                        "summary": serde_json::from_str::<Value>(&summary).unwrap_or(Value::Null),
                        "configurationParts": row
                            .get::<_, Option<String>>(13)?
                            .and_then(|parts| serde_json::from_str::<Value>(&parts).ok())
                            .unwrap_or(Value::Null),
                    }))
                },
            )
            .optional()
            .map_err(|err| failed(&self.path, err))?
            .ok_or_else(|| Error::not_found(format!("no evaluation run {reference:?}")))?;
        let mut statement = self
            .conn
            .prepare(
                "SELECT question, expected, actual, verdict, rule, rationale, latency_ms, error,
                        expected_sql
                 FROM rows WHERE run_id = ?1 ORDER BY seq",
            )
            .map_err(|err| failed(&self.path, err))?;
        let rows = statement
            .query_map(params![id], |row| {
                let mut out = serde_json::Map::new();
                for (i, key) in ROW_KEYS.iter().enumerate() {
                    let value = if *key == "latencyMs" {
                        row.get::<_, Option<i64>>(i)?
                            .map_or(Value::Null, Value::from)
                    } else {
                        row.get::<_, Option<String>>(i)?
                            .map_or(Value::Null, Value::from)
                    };
                    out.insert(key.to_string(), value);
                }
                // Only rows with a reference query say so.
                if let Some(sql) = row.get::<_, Option<String>>(ROW_KEYS.len())? {
                    out.insert("expectedSql".to_string(), Value::from(sql));
                }
                Ok(Value::Object(out))
            })
            .map_err(|err| failed(&self.path, err))?
            .collect::<rusqlite::Result<Vec<Value>>>()
            .map_err(|err| failed(&self.path, err))?;
        run["rows"] = Value::Array(rows);
        Ok(run)
    }

    /// Deletes a run and its rows; answers the full id.
    pub fn delete(&self, reference: &str, agent: Option<&AgentFilter>) -> Result<String> {
        let id = self.resolve(reference, agent)?;
        self.conn
            .execute("DELETE FROM runs WHERE id = ?1", params![id])
            .map_err(|err| failed(&self.path, err))?;
        Ok(id)
    }
}
