//! The evaluation store: every `data-agent evaluate` run with its rows, in SQLite in the user
//! data dir (`fabsh/evaluations.sqlite3`, private to its owner), so runs can be listed,
//! shown and compared over time. Runs are JSON objects in the shape `evaluations show` prints.

use super::evaluation_store_file as store_file;
use crate::error::{Error, Result};
use fabsh_model::agent::evaluation::{
    EvaluationRow, EvaluationRun, EvaluationSummary, ListedRun, Named,
};
use fabsh_model::agent::grade::Verdict;
use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension, named_params, params};
use std::path::{Path, PathBuf};

mod baseline;
#[cfg(test)]
mod tests;

pub(crate) use baseline::{AgentIdentity, RecordedAgent};

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
    configuration_parts TEXT,
    agent_logical_id TEXT
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

/// Columns later versions added, each with why an older store lacks it: a store made before
/// gets them added, and its older runs read back with them null.
///
/// - `rows.expected_sql`: stores made before reference queries.
/// - `runs.configuration_parts`: stores made before comparisons named configuration changes
///   (their runs read back with `configurationParts` null).
/// - `runs.agent_logical_id`: stores made before runs followed their agent across
///   workspaces (their runs are found as baselines by the agent's id or name only).
const ADDED_COLUMNS: [(&str, &str); 3] = [
    ("rows", "expected_sql"),
    ("runs", "configuration_parts"),
    ("runs", "agent_logical_id"),
];

/// Adds each of [`ADDED_COLUMNS`] (as TEXT) that the store lacks.
fn add_missing_columns(conn: &Connection) -> rusqlite::Result<()> {
    for (table, column) in ADDED_COLUMNS {
        let has: bool = conn.query_row(
            "SELECT count(*) > 0 FROM pragma_table_info(?1) WHERE name = ?2",
            [table, column],
            |row| row.get(0),
        )?;
        if !has {
            conn.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} TEXT"))?;
        }
    }
    Ok(())
}

/// The store's file: `<user data dir>/fabsh/evaluations.sqlite3`.
pub fn default_path() -> Result<PathBuf> {
    dirs::data_dir()
        .map(|dir| dir.join("fabsh").join("evaluations.sqlite3"))
        .ok_or_else(|| {
            Error::runtime("no user data directory for the evaluation store")
                .with_hint("set XDG_DATA_HOME (or HOME)")
        })
}

/// A run's summary as stored (JSON text); none when the text does not read as one, which
/// `evaluations show` prints as null and `list` as null runs.
fn summary_of(text: &str) -> Option<EvaluationSummary> {
    serde_json::from_str(text).ok()
}

/// The verdict in column `at` of a stored row: a name fabsh wrote, or null.
fn verdict_at(row: &rusqlite::Row, at: usize) -> rusqlite::Result<Option<Verdict>> {
    let Some(name) = row.get::<_, Option<String>>(at)? else {
        return Ok(None);
    };
    Verdict::named(&name).map(Some).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            at,
            Type::Text,
            format!("{name:?} is not a verdict").into(),
        )
    })
}

/// The agent a run reference is looked for among, as the user named it (workspace and agent,
/// each an id or a name; one left out matches any): matched against what each run recorded,
/// so it works offline.
#[derive(Debug, Clone)]
pub struct AgentFilter {
    pub workspace: Option<String>,
    pub agent: Option<String>,
}

impl std::fmt::Display for AgentFilter {
    /// `WORKSPACE/AGENT`, each part as given (nothing where it was left out).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(workspace) = &self.workspace {
            f.write_str(workspace)?;
        }
        f.write_str("/")?;
        if let Some(agent) = &self.agent {
            f.write_str(agent)?;
        }
        Ok(())
    }
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
            .and_then(|()| add_missing_columns(&conn))
            .map_err(unreadable)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Records a run (its `rows` aside) and its rows.
    pub fn save(&mut self, run: &EvaluationRun, rows: &[EvaluationRow]) -> Result<()> {
        let tx = self
            .conn
            .transaction()
            .map_err(|err| failed(&self.path, err))?;
        // As JSON text; a run without a summary (never one `evaluate` makes) stores null.
        let summary = serde_json::to_string(&run.summary)?;
        let parts = run
            .configuration_parts
            .as_ref()
            .map(serde_json::to_string)
            .transpose()?;
        tx.execute(
            // By name: columns added later sit where each store's migration put them.
            "INSERT INTO runs (id, time, workspace_id, workspace_name, agent_id, agent_name,
                               grading, questions_file, questions_sha256, repeats, concurrency,
                               configuration_fingerprint, pass_rate, summary,
                               configuration_parts, agent_logical_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
            params![
                run.run_id,
                run.time,
                run.workspace.id,
                run.workspace.name,
                run.agent.id,
                run.agent.name,
                run.grading,
                run.questions_file,
                run.questions_sha256,
                run.repeats,
                run.concurrency,
                run.configuration_fingerprint,
                // The column wants a number; a run without a summary has no rate to list.
                run.summary
                    .as_ref()
                    .map_or(0.0, |summary| summary.pass_rate),
                summary,
                parts,
                run.agent_logical_id,
            ],
        )
        .map_err(|err| failed(&self.path, err))?;
        for (seq, row) in rows.iter().enumerate() {
            tx.execute(
                "INSERT INTO rows (run_id, seq, question, expected, actual, verdict, rule,
                                   rationale, latency_ms, error, expected_sql)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    run.run_id,
                    seq as i64,
                    row.question,
                    row.expected,
                    row.actual,
                    row.verdict.map(Verdict::name),
                    row.rule,
                    row.rationale,
                    row.latency_ms,
                    row.error,
                    row.reference_query(),
                ],
            )
            .map_err(|err| failed(&self.path, err))?;
        }
        tx.commit().map_err(|err| failed(&self.path, err))
    }

    /// The runs of an agent, newest first, in `evaluations list`'s shape.
    /// (Newest by insertion: RFC 3339 texts with fractions of varying length do not sort.)
    pub fn list(&self, workspace: &str, agent: &str) -> Result<Vec<ListedRun>> {
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
                let summary = summary_of(&row.get::<_, String>(3)?);
                Ok(ListedRun {
                    run_id: Some(row.get(0)?),
                    time: Some(crate::local_time::shown(&row.get::<_, String>(1)?)),
                    pass_rate: Some(row.get(2)?),
                    runs: summary.map(|summary| summary.runs),
                    configuration_fingerprint: row.get(4)?,
                    grading: Some(row.get(5)?),
                    questions_sha256: Some(row.get(6)?),
                })
            })
            .map_err(|err| failed(&self.path, err))?;
        runs.collect::<rusqlite::Result<Vec<ListedRun>>>()
            .map_err(|err| failed(&self.path, err))
    }

    /// The full id of the run `reference` names: its id or an unambiguous prefix of it (as a
    /// table too narrow for whole ids shows it, `…` and all), or `latest`; among the runs of
    /// `agent` when given (`latest` is then that agent's newest run).
    pub fn resolve(&self, reference: &str, agent: Option<&AgentFilter>) -> Result<String> {
        let reference = reference.trim_end_matches('…');
        let (workspace, agent_name) = agent.map_or((None, None), |a| {
            (a.workspace.as_deref(), a.agent.as_deref())
        });
        // Everyone's runs, or one agent's, as recorded: by id or by name, in any case.
        const OF_AGENT: &str = "(:workspace IS NULL OR workspace_id = :workspace COLLATE NOCASE
                 OR workspace_name = :workspace COLLATE NOCASE)
             AND (:agent IS NULL OR agent_id = :agent COLLATE NOCASE OR agent_name = :agent COLLATE NOCASE)";
        let whose = match agent {
            Some(agent) => format!(" of {agent}"),
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
    pub fn show(&self, reference: &str, agent: Option<&AgentFilter>) -> Result<EvaluationRun> {
        let id = self.resolve(reference, agent)?;
        let mut run = self
            .conn
            .query_row(
                "SELECT id, time, workspace_id, workspace_name, agent_id, agent_name, grading,
                        questions_file, questions_sha256, repeats, concurrency,
                        configuration_fingerprint, summary, configuration_parts,
                        agent_logical_id
                 FROM runs WHERE id = ?1",
                params![id],
                |row| {
                    Ok(EvaluationRun {
                        run_id: Some(row.get(0)?),
                        time: Some(crate::local_time::shown(&row.get::<_, String>(1)?)),
                        workspace: Named {
                            id: row.get(2)?,
                            name: row.get(3)?,
                        },
                        agent: Named {
                            id: row.get(4)?,
                            name: row.get(5)?,
                        },
                        agent_logical_id: row.get(14)?,
                        grading: row.get(6)?,
                        questions_file: row.get(7)?,
                        questions_sha256: row.get(8)?,
                        repeats: row.get(9)?,
                        concurrency: row.get(10)?,
                        configuration_fingerprint: row.get(11)?,
                        summary: summary_of(&row.get::<_, String>(12)?),
                        // Null for runs recorded before parts were, and for parts that do not
                        // read as such.
                        configuration_parts: row
                            .get::<_, Option<String>>(13)?
                            .and_then(|parts| serde_json::from_str(&parts).ok()),
                        rows: Vec::new(),
                        extra: serde_json::Map::new(),
                    })
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
        run.rows = statement
            .query_map(params![id], |row| {
                Ok(EvaluationRow {
                    question: row.get(0)?,
                    expected: row.get(1)?,
                    actual: row.get(2)?,
                    verdict: verdict_at(row, 3)?,
                    rule: row.get(4)?,
                    rationale: row.get(5)?,
                    latency_ms: row.get(6)?,
                    error: row.get(7)?,
                    // Only rows with a reference query say so.
                    expected_sql: row.get::<_, Option<String>>(8)?.map(Some),
                    expected_result: None,
                    steps: None,
                    thread_id: None,
                    files: None,
                    extra: serde_json::Map::new(),
                })
            })
            .map_err(|err| failed(&self.path, err))?
            .collect::<rusqlite::Result<Vec<EvaluationRow>>>()
            .map_err(|err| failed(&self.path, err))?;
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
