//! Which `local serve` runs on a data dir: the store lock it holds (fabsh-local's
//! `server_identity`), the record it writes (`serve.json`: its pid and endpoint), and the
//! identity proof that tells it from whatever else may answer at the recorded endpoint after
//! a crash. A client checks all three before it sends the server anything secret.

use crate::connect::local_error;
use fabsh_client::error::{Error, Result};
use fabsh_local::server_identity;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};

/// Where a running server records its process and endpoint, in its data dir.
pub(super) const SERVE_FILE: &str = "serve.json";
/// How long a server that holds the lock may take to write its record (it binds and opens
/// the store first).
const RECORD_WAIT: Duration = Duration::from_secs(10);
/// How long the identity check may take.
const PROOF_WAIT: Duration = Duration::from_secs(5);

/// What `serve.json` holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Record {
    pub pid: u32,
    /// The API base URL, `http://127.0.0.1:PORT/v1`.
    pub endpoint: String,
}

impl Record {
    /// `http://127.0.0.1:PORT`.
    pub(crate) fn origin(&self) -> &str {
        self.endpoint.trim_end_matches("/v1")
    }

    /// The address its origin listens on.
    pub(crate) fn address(&self) -> Option<SocketAddr> {
        self.origin().strip_prefix("http://")?.parse().ok()
    }
}

/// The record on `dir`, whether or not its server still runs.
pub(super) fn read(dir: &Path) -> Option<Record> {
    let text = std::fs::read_to_string(dir.join(SERVE_FILE)).ok()?;
    serde_json::from_str(&text).ok()
}

pub(super) fn write(dir: &Path, record: &Record) -> Result<()> {
    use std::io::Write;
    let path = dir.join(SERVE_FILE);
    let text = serde_json::to_string(record)
        .map_err(|err| Error::runtime("cannot record the server").with_cause(err))?;
    fabsh_local::private_files::rewrite(&path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .map_err(|err| Error::runtime(format!("cannot write {}", path.display())).with_cause(err))
}

/// Removes the record of `dir`, when it is the one of `pid` (another server may have
/// started on the dir since), or whatever it is (`None`).
pub(super) fn remove(dir: &Path, pid: Option<u32>) {
    if pid.is_none_or(|pid| read(dir).is_some_and(|found| found.pid == pid)) {
        let _ = std::fs::remove_file(dir.join(SERVE_FILE));
    }
}

/// A server holds the store of `dir`, but its record names another (pid, endpoint): the
/// record is left as it is, and nothing was sent there.
pub(crate) fn mismatched(dir: &Path, record: &Record) -> Error {
    Error::runtime(format!(
        "a local Fabric server holds the store of {}, but its record ({}) names pid {} at {}, which is not that server; nothing was sent there, and the record was left as it is",
        dir.display(),
        dir.join(SERVE_FILE).display(),
        record.pid,
        record.endpoint
    ))
    .with_hint(format!(
        "stop the process that holds {} (the server started on it), then remove the record",
        dir.display()
    ))
}

/// Whether a server holds the store lock of `dir`.
pub(super) fn is_served(dir: &Path) -> bool {
    server_identity::is_served(dir)
}

/// The record of the server that holds the lock of `dir`, waiting for one that is starting to
/// write it; none when no server holds the lock, or its record never came.
pub(super) async fn live(dir: &Path) -> Option<Record> {
    let started = Instant::now();
    while is_served(dir) {
        if let Some(record) = read(dir) {
            return Some(record);
        }
        if started.elapsed() > RECORD_WAIT {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    None
}

/// The record of the server running on `dir`, once it has proved itself; none when no
/// server holds the lock, or what answers at its endpoint is not that server.
pub(crate) async fn proven(dir: &Path) -> Result<Option<Record>> {
    match live(dir).await {
        Some(found) if proves_itself(dir, &found).await? => Ok(Some(found)),
        _ => Ok(None),
    }
}

/// Whether what answers at the record's endpoint is the server of `dir`: it must give the
/// store's proof for a fresh nonce, and the recorded pid. The request carries only the
/// nonce, so an impostor learns nothing from it.
pub(super) async fn proves_itself(dir: &Path, record: &Record) -> Result<bool> {
    let nonce = uuid::Uuid::new_v4().simple().to_string();
    let (store, asked) = (dir.to_path_buf(), nonce.clone());
    let expected =
        tokio::task::spawn_blocking(move || server_identity::expected_proof(&store, &asked))
            .await
            .map_err(|err| Error::runtime("local Fabric's store failed").with_cause(err))?
            .map_err(local_error)?;
    let http = fabsh_http::client(true)?;
    let url = format!("{}/_local/identity?nonce={nonce}", record.origin());
    let answered = tokio::time::timeout(PROOF_WAIT, async {
        let response = http.get(url).send().await.ok()?;
        response.json::<Proof>().await.ok()
    })
    .await
    .ok()
    .flatten();
    Ok(answered.is_some_and(|proof| proof.proof == expected && proof.pid == record.pid))
}

/// What `/_local/identity` answers.
#[derive(Debug, Deserialize)]
struct Proof {
    pid: u32,
    proof: String,
}

/// The refusal of a second server on a data dir: which one runs there.
pub(crate) async fn already_served(dir: &Path) -> Error {
    let shown = dir.display();
    let running = match live(dir).await {
        Some(record) if !proves_itself(dir, &record).await.unwrap_or(false) => {
            return mismatched(dir, &record);
        }
        Some(record) => format!("pid {}, endpoint {}", record.pid, record.endpoint),
        None => "its record is not written yet".to_string(),
    };
    Error::runtime(format!(
        "local Fabric already runs on {shown} ({running}); one data dir has one server"
    ))
    .with_hint(format!(
        "use it: `eval \"$(fabsh local serve --detach --data-dir {shown})\"` prints its export lines; or stop it: `fabsh local stop --data-dir {shown}`"
    ))
}
