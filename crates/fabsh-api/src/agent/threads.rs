//! Conversations with a data agent, kept by fabsh: the agent's MCP server is stateless (and
//! its Assistants surface, which had threads, is being retired), so follow-up questions work
//! only if the client carries the conversation. Each thread is one JSON file,
//! `<state dir>/fabsh/threads/<id>.json`, mode 0600 (answers can hold business data).
//!
//! On a follow-up the agent receives one question text, written in the model's
//! `conversation` format from the thread's turns. Nothing else of the thread is sent.

use crate::config::{env_text, private_file};
use crate::error::{Error, Result};
use fabsh_model::agent::conversation;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Overrides where threads are kept.
pub const THREADS_DIR_VAR: &str = "FABSH_THREADS_DIR";

/// One question and its answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Turn {
    /// The question as the user asked it (without the context fabsh added).
    pub question: String,
    /// The agent's answer.
    pub answer: String,
    /// When it was answered (RFC 3339).
    pub at: String,
}

/// A conversation with one agent.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Thread {
    /// Its id (a GUID, also the file name).
    pub thread_id: String,
    /// The agent's workspace, as given.
    pub workspace: String,
    /// The agent, as given.
    pub agent: String,
    /// The MCP endpoint it talks to.
    pub endpoint: String,
    /// The turns so far, oldest first.
    pub turns: Vec<Turn>,
}

/// The directory threads are kept in.
pub fn dir() -> PathBuf {
    if let Some(dir) = env_text(THREADS_DIR_VAR) {
        return PathBuf::from(dir);
    }
    dirs::state_dir()
        .or_else(dirs::data_local_dir)
        .unwrap_or_else(|| PathBuf::from("."))
        .join("fabsh")
        .join("threads")
}

/// Checks a `--thread-id` before anything is sent: it must be a GUID, which also keeps it
/// from naming a file outside the threads directory.
pub fn check_id(id: &str) -> Result<String> {
    uuid::Uuid::try_parse(id.trim())
        .map(|id| id.to_string())
        .map_err(|_| {
            Error::usage(format!(
                "--thread-id must be a thread id from --keep-thread (a GUID), got {id:?}"
            ))
        })
}

impl Thread {
    /// A new, empty thread.
    pub fn new(workspace: &str, agent: &str, endpoint: &str) -> Thread {
        Thread {
            thread_id: uuid::Uuid::new_v4().to_string(),
            workspace: workspace.to_string(),
            agent: agent.to_string(),
            endpoint: endpoint.to_string(),
            turns: Vec::new(),
        }
    }

    /// The thread with this (checked) id.
    pub fn load(id: &str) -> Result<Thread> {
        let path = dir().join(format!("{id}.json"));
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                // A local file the flag names, not something of the service's: bad input.
                return Err(
                    Error::usage(format!("--thread-id: no thread {id}")).with_hint(format!(
                        "threads are kept in {}; start one with --keep-thread",
                        dir().display()
                    )),
                );
            }
            Err(err) => {
                return Err(
                    Error::runtime(format!("cannot read {}", path.display())).with_cause(err)
                );
            }
        };
        // The file, and the folder when it is fabsh's own (not one FABSH_THREADS_DIR chose).
        let folder = dir();
        let mut paths = vec![path.as_path()];
        if env_text(THREADS_DIR_VAR).is_none() {
            paths.push(folder.as_path());
        }
        private_file::check_private("the thread", &paths, None)?;
        serde_json::from_slice(&bytes).map_err(|err| {
            Error::runtime(format!("{} is not a fabsh thread", path.display())).with_cause(err)
        })
    }

    /// Writes the thread (0600).
    pub fn save(&self) -> Result<()> {
        let path = dir().join(format!("{}.json", self.thread_id));
        let bytes = serde_json::to_vec_pretty(self)?;
        private_file::write(&path, &bytes).map_err(|err| {
            Error::runtime(format!("cannot write {}", path.display())).with_cause(err)
        })
    }

    /// Records a turn.
    pub fn push(&mut self, question: &str, answer: &str) -> Result<()> {
        // The clock's time has an RFC 3339 form for years 0 to 9999.
        let at = time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .map_err(|err| {
                Error::runtime("the time of the turn has no RFC 3339 form").with_cause(err)
            })?;
        self.turns.push(Turn {
            question: question.to_string(),
            answer: answer.to_string(),
            at,
        });
        Ok(())
    }

    /// What the agent is sent for `question` in this thread.
    pub fn prompt(&self, question: &str) -> String {
        let earlier = self.turns.iter();
        conversation::write(
            earlier.map(|t| (t.question.as_str(), t.answer.as_str())),
            question,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_sends_its_turns_before_the_question() {
        let mut thread = Thread::new("w", "a", "u");
        assert_eq!(thread.prompt("How many?"), "How many?");
        thread.push("Revenue in 2023?", "46,117.30").unwrap();
        let text = thread.prompt("and for 2024?");
        assert!(
            text.starts_with("Earlier in this conversation:\nQ: Revenue in 2023?\nA: 46,117.30\n")
        );
        assert!(text.ends_with("\nand for 2024?"));
    }

    #[test]
    fn thread_ids_must_be_guids() {
        assert!(check_id("../../etc/passwd").is_err());
        assert!(check_id("0c9d5e71-8a26-4f3b-b1d4-2e6f7a8b9c01").is_ok());
    }
}
