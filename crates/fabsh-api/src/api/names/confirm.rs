//! Confirming cached ids before they are acted on. A lookup answered from the cache leaves a
//! [`Pending`] check on the call; the call's next request waits for every pending check. A
//! check is the service's answer about the id (`GET` of the workspace or item): its
//! displayName must equal the name asked (ignoring case), its type the type cached. When the
//! next request is itself that `GET` (`item show`), its answer is the check, so the name
//! costs nothing; other reads are sent alongside the checks, writes only after them.
//!
//! A failed check drops the entry and fails the request with [`STALE_NAME`] before anything
//! was changed, and the command runner above (`fabsh-client`'s `commands::execute`) runs the
//! command again, which then lists.
//! Outside a command run, or once the call has changed something (starting over would do
//! it twice), the check is made at once by the lookup itself instead.

use super::ListKey;
use crate::api::ApiClient;
use crate::api::request::{Req, Resp};
use crate::error::{Error, Result};
use reqwest::{Method, Url};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The error code of a request refused because a cached name turned out stale.
pub const STALE_NAME: &str = "fabsh.StaleName";

static NEXT_CALL: AtomicU64 = AtomicU64::new(1);

/// One command run's state of its names: shared by the clones of its API client (and by the
/// commands it runs in turn, such as `item bulk-create`'s).
pub(crate) struct CallScope {
    pub id: u64,
    /// Whether cached ids may be confirmed by the next request rather than at once.
    lazy: bool,
    pending: tokio::sync::Mutex<Vec<Pending>>,
    /// Ids the service confirmed during this call: used again without another check.
    confirmed: Mutex<HashSet<(ListKey, String)>>,
    /// Whether a request that changes something was sent during this call.
    wrote: AtomicBool,
}

impl CallScope {
    pub(crate) fn new(lazy: bool) -> CallScope {
        CallScope {
            id: NEXT_CALL.fetch_add(1, Ordering::Relaxed),
            lazy,
            pending: tokio::sync::Mutex::new(Vec::new()),
            confirmed: Mutex::new(HashSet::new()),
            wrote: AtomicBool::new(false),
        }
    }

    pub(crate) fn note_write(&self) {
        self.wrote.store(true, Ordering::Release);
    }

    pub(crate) fn wrote(&self) -> bool {
        self.wrote.load(Ordering::Acquire)
    }

    fn confirmed(&self) -> std::sync::MutexGuard<'_, HashSet<(ListKey, String)>> {
        self.confirmed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A cached id handed out before the service confirmed it.
#[derive(Debug, Clone)]
pub(crate) struct Pending {
    pub key: ListKey,
    pub id: String,
    /// The name asked for.
    pub name: String,
    /// The type the item must have (none for workspaces).
    pub kind: Option<String>,
}

impl Pending {
    /// The path whose `GET` answers for the id.
    fn path(&self) -> String {
        match &self.key {
            ListKey::Workspaces => format!("/workspaces/{}", self.id),
            ListKey::Items(ws) => format!("/workspaces/{ws}/items/{}", self.id),
        }
    }

    /// Whether the service's answer about the id still fits the name and type.
    fn fits(&self, answer: &Value) -> bool {
        let Some(found) = super::writes::entry_of(&self.key, answer) else {
            return false;
        };
        found.name().eq_ignore_ascii_case(&self.name)
            && self
                .kind
                .as_deref()
                .is_none_or(|kind| found.kind().eq_ignore_ascii_case(kind))
            && found.id().eq_ignore_ascii_case(&self.id)
    }
}

impl ApiClient {
    /// Whether the cached id of `pending` may be used: at once when this call already
    /// confirmed it; else, in a command run that has changed nothing yet, on condition that
    /// the next request confirms it; else after a check made now. `false` when that check
    /// failed (the entry is gone, the caller lists).
    pub(crate) async fn use_cached(&self, pending: Pending) -> Result<bool> {
        let known = (pending.key.clone(), pending.id.to_lowercase());
        if self.call.confirmed().contains(&known) {
            return Ok(true);
        }
        if self.call.lazy && !self.call.wrote() {
            self.call.pending.lock().await.push(pending);
            return Ok(true);
        }
        let answer = self.check(&pending).await;
        Ok(self.judge(&pending, answer.as_ref().ok()))
    }

    /// Confirms the call's pending ids before `req` goes out. When `req` is a read, it goes
    /// out alongside the checks (answering one of them if it is its `GET`) and its answer is
    /// returned here; a write waits for them. Fails with [`STALE_NAME`] when a check fails.
    pub(crate) async fn confirm_before(
        &self,
        req: &Req,
        url: &Url,
    ) -> Result<Option<Result<Resp>>> {
        let mut pending = self.call.pending.lock().await;
        if pending.is_empty() {
            return Ok(None);
        }
        let checks = std::mem::take(&mut *pending);
        let read = req.method == Method::GET && !req.mutates() && !self.options.dry_run;
        let path = self.path_under_base(url);
        let own = checks.iter().position(|check| {
            read && path
                .as_deref()
                .is_some_and(|p| p.eq_ignore_ascii_case(&check.path()))
        });
        let others = futures::future::join_all(
            checks
                .iter()
                .enumerate()
                .filter(|(at, _)| Some(*at) != own)
                .map(|(_, check)| self.check(check)),
        );
        let (answers, sent) = if read {
            let (answers, sent) = tokio::join!(others, self.send_to(req, url));
            (answers, Some(sent))
        } else {
            (others.await, None)
        };
        let own_answer = match (own, &sent) {
            (Some(_), Some(Ok(resp))) => resp.json().ok(),
            _ => None,
        };
        let mut answers = answers.into_iter();
        let mut stale = Vec::new();
        for (at, check) in checks.iter().enumerate() {
            let answer = if Some(at) == own {
                own_answer.clone()
            } else {
                answers.next().and_then(Result::ok)
            };
            if !self.judge(check, answer.as_ref()) {
                stale.push(format!("{:?}", check.name));
            }
        }
        if stale.is_empty() {
            return Ok(sent);
        }
        Err(stale_error(&stale))
    }

    /// Confirms what is still pending when a command ends without having sent a request.
    pub async fn confirm_pending(&self) -> Result<()> {
        let checks = std::mem::take(&mut *self.call.pending.lock().await);
        let mut stale = Vec::new();
        for check in checks {
            let answer = self.check(&check).await;
            if !self.judge(&check, answer.as_ref().ok()) {
                stale.push(format!("{:?}", check.name));
            }
        }
        if stale.is_empty() {
            Ok(())
        } else {
            Err(stale_error(&stale))
        }
    }

    /// Whether a request that changes something was sent in this call.
    pub fn call_wrote(&self) -> bool {
        self.call.wrote()
    }

    /// The service's answer about a pending id.
    async fn check(&self, check: &Pending) -> Result<Value> {
        let req = Req::get(check.path());
        let url = self.url_for(&req.target)?;
        self.send_to(&req, &url).await?.json()
    }

    /// Records the verdict on `check`: confirmed for the rest of the call, or dropped from
    /// the cache (with what the answer showed, when the id is still there).
    fn judge(&self, check: &Pending, answer: Option<&Value>) -> bool {
        if answer.is_some_and(|answer| check.fits(answer)) {
            self.call
                .confirmed()
                .insert((check.key.clone(), check.id.to_lowercase()));
            return true;
        }
        self.names.forget_entry(&check.key, &check.id);
        false
    }

    /// `url`'s path under the endpoint (`/workspaces/...`), if it is under it.
    pub(crate) fn path_under_base(&self, url: &Url) -> Option<String> {
        let base = self.base.path().trim_end_matches('/');
        url.path().strip_prefix(base).map(String::from)
    }
}

/// The failure of a request whose cached names turned out stale.
fn stale_error(names: &[String]) -> Error {
    Error::runtime(format!(
        "{} changed since fabsh last listed {}",
        names.join(" and "),
        if names.len() == 1 { "it" } else { "them" }
    ))
    .with_code(STALE_NAME)
    .with_hint("run the command again: fabsh lists the names afresh")
}
