//! Lists kept for the life of the process (workspaces, items, datasources, MCP sessions),
//! fetched once per key at a time: callers of one key share its fetch, while other keys fetch
//! alongside it, so a slow list never holds up lookups elsewhere.

use crate::error::Result;
use serde_json::Value;
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The cached lists of entries `T` (the service's JSON unless a caller reads them as a wire
/// type), one slot per key.
pub(super) struct ListCache<T = Value> {
    /// Held only to find or drop a slot, never across a fetch.
    slots: Mutex<HashMap<String, Arc<Slot<T>>>>,
}

impl<T> Default for ListCache<T> {
    fn default() -> Self {
        ListCache {
            slots: Mutex::new(HashMap::new()),
        }
    }
}

struct Slot<T> {
    /// The list once fetched. Its lock is held across the fetch: that is what makes callers
    /// of the same key wait for one fetch instead of each making their own.
    list: tokio::sync::Mutex<Option<Arc<Vec<T>>>>,
    /// Fetches finished in this slot; a caller that waited while one finished takes that
    /// list as fresh, since it was fetched after the caller came.
    fetches: AtomicU64,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot {
            list: tokio::sync::Mutex::new(None),
            fetches: AtomicU64::new(0),
        }
    }
}

impl<T> ListCache<T> {
    /// The list under `key`: the cached one when `has_wanted` finds what the caller looks for
    /// in it, else (or when none is cached) a fresh one from `fetch`, kept for later callers.
    /// A failed fetch keeps nothing; the next caller tries again.
    pub(super) async fn get<F, Fut>(
        &self,
        key: &str,
        fetch: F,
        has_wanted: impl Fn(&[T]) -> bool,
    ) -> Result<Arc<Vec<T>>>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Vec<T>>>,
    {
        let slot = self.slot(key);
        let seen = slot.fetches.load(Ordering::Acquire);
        let mut list = slot.list.lock().await;
        if let Some(cached) = list.as_ref()
            && (has_wanted(cached) || slot.fetches.load(Ordering::Acquire) != seen)
        {
            return Ok(Arc::clone(cached));
        }
        let fetched = Arc::new(fetch().await?);
        *list = Some(Arc::clone(&fetched));
        slot.fetches.fetch_add(1, Ordering::Release);
        Ok(fetched)
    }

    /// Drops every list whose key starts with `prefix`. A fetch under way for such a key
    /// finishes for those already waiting on it; later callers fetch again.
    pub(super) fn forget_prefix(&self, prefix: &str) {
        self.slots().retain(|key, _| !key.starts_with(prefix));
    }

    /// Drops the list under `key`, as [`ListCache::forget_prefix`] does.
    pub(super) fn forget(&self, key: &str) {
        self.slots().remove(key);
    }

    fn slot(&self, key: &str) -> Arc<Slot<T>> {
        let mut slots = self.slots();
        Arc::clone(slots.entry(key.to_string()).or_default())
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Slot<T>>>> {
        // The map is only ever left whole (inserts and retains do not panic midway), so a
        // poisoned lock still guards a consistent map.
        self.slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::ListCache;
    use crate::error::Error;
    use serde_json::{Value, json};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;
    use tokio::sync::oneshot;

    const PATIENCE: Duration = Duration::from_secs(10);

    #[tokio::test]
    async fn other_keys_fetch_while_one_key_waits() {
        let cache: ListCache = ListCache::default();
        let (release, released) = oneshot::channel::<()>();
        // A's fetch can only end once B's fetch has ended: a cache that fetched one key at a
        // time would wait forever here.
        let a = cache.get(
            "a",
            || async move {
                released
                    .await
                    .map_err(|_| Error::runtime("never released"))?;
                Ok(vec![json!("a")])
            },
            |_| true,
        );
        let b = async {
            let list = cache
                .get("b", || async { Ok(vec![json!("b")]) }, |_| true)
                .await;
            let _ = release.send(());
            list
        };
        let (a, b) = tokio::time::timeout(PATIENCE, async { tokio::join!(a, b) })
            .await
            .expect("the fetches of two keys do not wait for each other");
        assert_eq!(*a.expect("a"), vec![json!("a")]);
        assert_eq!(*b.expect("b"), vec![json!("b")]);
    }

    #[tokio::test]
    async fn callers_of_one_key_share_one_fetch() {
        let cache: ListCache = ListCache::default();
        let fetches = AtomicUsize::new(0);
        let get = || {
            cache.get(
                "k",
                || async {
                    fetches.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    Ok(vec![json!(1)])
                },
                // Even a caller that does not find what it wants takes a list fetched while
                // it waited.
                |list: &[Value]| list.contains(&json!(2)),
            )
        };
        let lists =
            tokio::time::timeout(PATIENCE, futures::future::join_all((0..8).map(|_| get())))
                .await
                .expect("done");
        assert!(lists.iter().all(std::result::Result::is_ok));
        assert_eq!(
            fetches.load(Ordering::SeqCst),
            1,
            "one fetch for all callers"
        );

        // Afterwards a caller missing what it wants fetches again; one that finds it does not.
        get().await.expect("refetched");
        assert_eq!(fetches.load(Ordering::SeqCst), 2);
        cache
            .get("k", || async { Err(Error::runtime("unused")) }, |_| true)
            .await
            .expect("cached");
        assert_eq!(fetches.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn failed_fetches_are_not_kept_and_forgotten_keys_fetch_again() {
        let cache: ListCache = ListCache::default();
        let failed = cache
            .get("k", || async { Err(Error::runtime("down")) }, |_| true)
            .await;
        assert!(failed.is_err());
        let list = cache
            .get("k", || async { Ok(vec![json!(1)]) }, |_| true)
            .await
            .expect("the failure was not kept");
        assert_eq!(*list, vec![json!(1)]);

        cache.forget_prefix("k");
        let list = cache
            .get("k", || async { Ok(vec![json!(2)]) }, |_| true)
            .await
            .expect("fetched again");
        assert_eq!(*list, vec![json!(2)]);
    }
}
