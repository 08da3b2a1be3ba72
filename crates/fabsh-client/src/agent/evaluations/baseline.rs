//! Which recorded runs are of the agent evaluated now, and the one `--baseline latest` takes.
//! An agent is recognised across workspaces and re-creations: by its item id, by the logical
//! id a deployment repository gives its copies, then by its display name; the newest run of
//! the best kind of match wins, one of this workspace before one of another.

use super::{Store, failed};
use crate::error::Result;
use fabsh_model::agent::evaluation::BaselineMatch;
use rusqlite::named_params;

/// The agent an evaluation is of, as its baseline is looked for.
#[derive(Debug, Clone)]
pub(crate) struct AgentIdentity {
    /// Its workspace's id (with `--published-url`, the workspace as the user named it).
    pub workspace: String,
    /// Its id (with `--published-url`, the agent as the user named it).
    pub agent: String,
    /// Its display name, when it was read.
    pub name: Option<String>,
    /// Its logical id, when it has one (never the all-zero GUID, which means none).
    pub logical_id: Option<String>,
}

/// What a recorded run says of its agent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RecordedAgent<'a> {
    /// The workspace's id (or as named).
    pub workspace: &'a str,
    /// The agent's id (or as named).
    pub agent: &'a str,
    /// The agent's display name, when it was read.
    pub name: Option<&'a str>,
    /// The agent's logical id, when it had one and the run recorded it.
    pub logical_id: Option<&'a str>,
}

fn same(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

impl AgentIdentity {
    /// How a run of `run`'s agent is a run of this agent, if it is one.
    pub(crate) fn matches(&self, run: &RecordedAgent) -> Option<BaselineMatch> {
        // An item id names one item wherever it is (a workspace given by name with
        // `--published-url` is still its workspace); an agent named otherwise is the same
        // only in the same workspace.
        let one_item = uuid::Uuid::try_parse(&self.agent).is_ok();
        if same(run.agent, &self.agent) && (one_item || same(run.workspace, &self.workspace)) {
            return Some(BaselineMatch::SameAgent);
        }
        // `deploy export` writes an item's id as the logical id of its copies when the
        // service gives it none: the source's runs and its copies' share that id either way.
        let mine = [self.logical_id.as_deref(), Some(self.agent.as_str())];
        let is_mine = |id: &str| mine.into_iter().flatten().any(|m| same(m, id));
        let copied = run.logical_id.is_some_and(is_mine)
            || self
                .logical_id
                .as_deref()
                .is_some_and(|l| same(l, run.agent));
        if copied {
            return Some(BaselineMatch::LogicalId);
        }
        // Two agents a repository tells apart are never taken for each other by name.
        let told_apart = matches!(
            (self.logical_id.as_deref(), run.logical_id),
            (Some(mine), Some(theirs)) if !same(mine, theirs)
        );
        // An agent named rather than read (`--published-url`) is recorded as named.
        let names = [self.name.as_deref(), Some(self.agent.as_str())];
        let named = [run.name, Some(run.agent)]
            .into_iter()
            .flatten()
            .any(|theirs| names.into_iter().flatten().any(|mine| same(mine, theirs)));
        (named && !told_apart).then_some(BaselineMatch::DisplayName)
    }

    /// True when `workspace` (a run's) is this agent's.
    fn here(&self, workspace: &str) -> bool {
        same(workspace, &self.workspace)
    }
}

/// A run's id, workspace, agent, agent name and logical id, as the query selects them.
type Candidate = (String, String, String, Option<String>, Option<String>);

fn candidate(row: &rusqlite::Row) -> rusqlite::Result<Candidate> {
    Ok((
        row.get(0)?,
        row.get(1)?,
        row.get(2)?,
        row.get(3)?,
        row.get(4)?,
    ))
}

impl Store {
    /// The run `--baseline latest` compares `who` with, and how it was found: the newest of
    /// this agent in its workspace, else of an agent with its logical id, else of one with its
    /// name (each of its workspace first); none when no run is of it.
    pub(crate) fn latest_of(&self, who: &AgentIdentity) -> Result<Option<(String, BaselineMatch)>> {
        // Every run that could match, newest first (by insertion, as `list`), then the best.
        let mut statement = self
            .conn
            .prepare(
                "SELECT id, workspace_id, agent_id, agent_name, agent_logical_id FROM runs
                 WHERE agent_id COLLATE NOCASE IN (:agent, :logical)
                    OR agent_logical_id COLLATE NOCASE IN (:agent, :logical)
                    OR agent_name COLLATE NOCASE IN (:agent, :name)
                 ORDER BY rowid DESC",
            )
            .map_err(|err| failed(&self.path, err))?;
        let mut rows = statement
            .query(named_params! {
                ":agent": who.agent,
                ":logical": who.logical_id,
                ":name": who.name,
            })
            .map_err(|err| failed(&self.path, err))?;
        let mut best: Option<((BaselineMatch, bool), String)> = None;
        while let Some(row) = rows.next().map_err(|err| failed(&self.path, err))? {
            let (id, workspace, agent, name, logical) =
                candidate(row).map_err(|err| failed(&self.path, err))?;
            let recorded = RecordedAgent {
                workspace: &workspace,
                agent: &agent,
                name: name.as_deref(),
                logical_id: logical.as_deref(),
            };
            let Some(how) = who.matches(&recorded) else {
                continue;
            };
            // Lower is better: the kind of match, then this workspace's before another's; the
            // first of a rank met is its newest.
            let rank = (how, !who.here(&workspace));
            if best.as_ref().is_none_or(|(known, _)| rank < *known) {
                best = Some((rank, id));
            }
        }
        Ok(best.map(|((how, _), id)| (id, how)))
    }
}
