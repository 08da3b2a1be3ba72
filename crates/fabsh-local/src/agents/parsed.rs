//! Parsed agent definitions, remembered per item and parts version.
//!
//! Every configuration request reads the agent's definition; for an agent over a wide source
//! that is a tree of a thousand elements to read and parse, many times more work than the
//! request itself. The store bumps an item's parts version with every change to its parts
//! (by any route, any process), so a remembered definition is used only while the stored
//! one is still the same, and a request costs one small query instead. Each server keeps its
//! own [`Definitions`] (two servers in one process share nothing).

use crate::api_error::ApiError;
use crate::store::items::{self, Part};
use fabsh_model::agent::definition::AgentDefinition;
use rusqlite::Connection;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

/// Definitions kept at most; a server rarely works on more agents at once.
const CAPACITY: usize = 32;

/// The item and its parts version.
type Key = (String, i64);

/// A definition and the part bytes it was read from.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub definition: Arc<AgentDefinition>,
    pub parts: Vec<SharedPart>,
}

/// A stored part whose bytes successive versions share while they do not change (a wide
/// source's tree is most of an agent's bytes and rarely changes).
#[derive(Debug, Clone)]
pub(crate) struct SharedPart {
    pub path: String,
    pub payload: Arc<[u8]>,
}

/// One server's parsed definitions, by item and parts version.
#[derive(Debug, Default)]
pub(crate) struct Definitions {
    memo: Mutex<HashMap<Key, Arc<Parsed>>>,
}

impl Definitions {
    fn lock(&self) -> MutexGuard<'_, HashMap<Key, Arc<Parsed>>> {
        // The map only holds finished results; a panic elsewhere cannot leave it half-written.
        crate::locks::lock(&self.memo)
    }

    fn insert(&self, key: Key, parsed: Arc<Parsed>) {
        let mut map = self.lock();
        if map.len() >= CAPACITY {
            map.clear();
        }
        map.insert(key, parsed);
    }

    /// The item's definition as stored now (as `conn` sees it), parsed once per version.
    pub(crate) fn load(&self, conn: &Connection, item_id: &str) -> Result<Arc<Parsed>, ApiError> {
        let key = key(conn, item_id)?;
        if let Some(found) = self.lock().get(&key) {
            return Ok(Arc::clone(found));
        }
        let parts = items::parts(conn, item_id)?;
        let definition = Arc::new(parse(&parts)?);
        let parts = parts
            .into_iter()
            .map(|part| SharedPart {
                path: part.path,
                payload: part.payload.into(),
            })
            .collect();
        let parsed = Arc::new(Parsed { definition, parts });
        self.insert(key, Arc::clone(&parsed));
        Ok(parsed)
    }

    /// Remembers a committed save, so the next request need not read or parse it back. Only
    /// after the commit: a rolled-back version number could otherwise be reused for other
    /// bytes.
    pub(crate) fn remember(&self, saved: &Saved) {
        self.insert(saved.key.clone(), Arc::clone(&saved.parsed));
    }
}

fn key(conn: &Connection, item_id: &str) -> Result<Key, ApiError> {
    let version = items::parts_version(conn, item_id)?;
    Ok((item_id.to_string(), version))
}

/// Reads stored parts as a definition; unreadable parts are the caller's corrupted payload.
pub(crate) fn parse(parts: &[Part]) -> Result<AgentDefinition, ApiError> {
    let pairs: Vec<(String, Vec<u8>)> = parts
        .iter()
        .map(|part| (part.path.clone(), part.payload.clone()))
        .collect();
    AgentDefinition::from_parts(&pairs)
        .map_err(|err| ApiError::bad_request("CorruptedPayload", err))
}

/// What a save wrote, to remember once its transaction has committed.
#[derive(Debug)]
pub(crate) struct Saved {
    key: Key,
    parsed: Arc<Parsed>,
}

/// Describes the definition just written (call inside the transaction, after the writes).
pub(crate) fn saved(
    conn: &Connection,
    item_id: &str,
    definition: AgentDefinition,
    parts: Vec<SharedPart>,
) -> Result<Saved, ApiError> {
    Ok(Saved {
        key: key(conn, item_id)?,
        parsed: Arc::new(Parsed {
            definition: Arc::new(definition),
            parts,
        }),
    })
}
