//! Where and how long an agent's SQL runs, so that a question cannot stop the server. A query
//! runs on tokio's blocking pool, never on the threads that answer requests; it has a deadline
//! (`--query-seconds`) that SQLite enforces ([`sql_run::Limits`]); and at most
//! [`QUERY_SLOTS`] run at once. A question that finds every slot taken waits for one until
//! its deadline, then is answered that the server is busy: waiting costs no thread, and the
//! asker hears back within the budget either way.
//!
//! A query runs through `crate::blocking` like all store work (its access check and the opening
//! of the data read the store), under its own cap: a slot is a pool thread it may keep busy
//! for the whole budget.

use super::sql_run::Limits;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// Agent queries that run at once. Each may keep a core busy for the whole budget, so more
/// at once would only make each slower, and the requests around them too.
pub(crate) const QUERY_SLOTS: usize = 4;

/// The budget of one server's agent queries.
#[derive(Debug)]
pub(crate) struct QueryBudget {
    seconds: u64,
    slots: Arc<Semaphore>,
}

impl QueryBudget {
    /// Queries of at most `seconds` each, [`QUERY_SLOTS`] at a time.
    pub(crate) fn new(seconds: u64) -> QueryBudget {
        QueryBudget {
            seconds,
            slots: Arc::new(Semaphore::new(QUERY_SLOTS)),
        }
    }

    /// Runs `query` on the blocking pool once a slot is free, with the limits it must keep;
    /// the deadline counts from now, so the wait for a slot is part of it. The error is why
    /// it did not run or was stopped, in the words of an answer.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        query: impl FnOnce(Limits) -> Result<T, String> + Send + 'static,
    ) -> Result<T, String> {
        let limits = Limits {
            deadline: Instant::now() + Duration::from_secs(self.seconds),
            seconds: self.seconds,
        };
        let slot = Arc::clone(&self.slots).acquire_owned();
        let Ok(Ok(slot)) = tokio::time::timeout_at(limits.deadline.into(), slot).await else {
            return Err(format!(
                "the server is busy with other questions' queries and none ended within {} s; ask again shortly",
                self.seconds
            ));
        };
        let ran = crate::blocking::run(move || {
            let _slot = slot;
            query(limits)
        })
        .await;
        ran.unwrap_or_else(|err| Err(format!("the query failed in the server: {}", err.message)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_question_waits_for_a_slot_until_its_deadline_then_hears_the_server_is_busy() {
        let budget = Arc::new(QueryBudget::new(1));
        let (release, held) = std::sync::mpsc::channel::<()>();
        let held = Arc::new(std::sync::Mutex::new(held));
        let mut running = Vec::new();
        for _ in 0..QUERY_SLOTS {
            let (budget, held) = (Arc::clone(&budget), Arc::clone(&held));
            running.push(tokio::spawn(async move {
                budget
                    .run(move |_| {
                        let _ = held.lock().map(|held| held.recv());
                        Ok(())
                    })
                    .await
            }));
        }
        // Every slot is taken until the queries are released.
        while budget.slots.available_permits() > 0 {
            tokio::task::yield_now().await;
        }
        let started = Instant::now();
        let busy = budget.run(|_| Ok(())).await.expect_err("busy");
        assert!(busy.contains("busy") && busy.contains("1 s"), "{busy}");
        assert!(started.elapsed() >= Duration::from_millis(900));
        for _ in 0..QUERY_SLOTS {
            release.send(()).expect("release");
        }
        for query in running {
            assert_eq!(query.await.expect("joined"), Ok(()));
        }
        assert_eq!(budget.run(|limits| Ok(limits.seconds)).await, Ok(1));
    }
}
