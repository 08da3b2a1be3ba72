//! Which server runs on a store, and how a client tells it from an impostor.
//!
//! - A lock: `local serve` holds an exclusive lock on `serve.lock` in the data dir for as long
//!   as it serves, so one data dir has at most one server, and a lock that nobody holds means
//!   no server runs there (whatever `serve.json` says after a crash).
//! - A proof: `GET /_local/identity?nonce=N` answers the server's pid and a hash of the nonce
//!   keyed with a secret of the store (the digest of its identity header), which only a
//!   process that opened the store can compute. A client that can read the store checks it
//!   before it sends the server anything secret (`local stop` sends an admin token); the
//!   request itself carries nothing secret, so asking an impostor gives it nothing.

use crate::state::Shared;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;
use sha2::Digest;
use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

/// The lock file in the data dir.
pub const LOCK_FILE: &str = "serve.lock";

/// The store lock, held while it lives.
#[derive(Debug)]
pub struct StoreLock {
    _file: File,
}

/// Takes the store lock of `data_dir` (which must exist); `None` when another process holds
/// it, that is, when a server runs on this store.
pub fn lock(data_dir: &Path) -> crate::Result<Option<StoreLock>> {
    let path = data_dir.join(LOCK_FILE);
    crate::private_files::create_file(&path).map_err(|err| {
        crate::Error::failed(format!("cannot create {}", path.display())).with_cause(err)
    })?;
    let file = File::options()
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|err| {
            crate::Error::failed(format!("cannot open {}", path.display())).with_cause(err)
        })?;
    match file.try_lock() {
        Ok(()) => Ok(Some(StoreLock { _file: file })),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(err)) => {
            Err(crate::Error::failed(format!("cannot lock {}", path.display())).with_cause(err))
        }
    }
}

/// Whether a server holds the store lock of `data_dir` now. Nothing is created: a data dir
/// without a lock file has no server.
pub fn is_served(data_dir: &Path) -> bool {
    let Ok(file) = File::options()
        .read(true)
        .write(true)
        .open(data_dir.join(LOCK_FILE))
    else {
        return false;
    };
    matches!(file.try_lock(), Err(std::fs::TryLockError::WouldBlock))
}

/// The proof for `nonce` keyed with the digest of the store's identity header.
fn proof_with(identity_header_digest: &str, nonce: &str) -> String {
    let text = format!("fabsh local server identity\n{identity_header_digest}\n{nonce}");
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The proof the server on `data_dir` must give for `nonce`, computed from the store.
pub fn expected_proof(data_dir: &Path, nonce: &str) -> crate::Result<String> {
    let header = identity_header(data_dir)?;
    Ok(proof_with(&crate::auth::secret_digest(&header), nonce))
}

/// The store's identity header (what `local serve` prints as `IDENTITY_HEADER`).
pub fn identity_header(data_dir: &Path) -> crate::Result<String> {
    let (_, facts) = crate::admin::open_store(data_dir)?;
    Ok(facts.identity_header)
}

/// GET `/_local/identity?nonce=N`: `{pid, proof}`, open to every caller (it holds nothing
/// secret).
pub(crate) fn answer(
    State(state): State<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let Some(nonce) = query.get("nonce").filter(|n| (16..=128).contains(&n.len())) else {
        return crate::respond::json(
            StatusCode::BAD_REQUEST,
            &json!({"error": "give a nonce of 16 to 128 characters"}),
        );
    };
    let body = json!({
        "pid": std::process::id(),
        "proof": proof_with(&state.identity_header_digest, nonce),
    });
    crate::respond::json(StatusCode::OK, &body)
}
