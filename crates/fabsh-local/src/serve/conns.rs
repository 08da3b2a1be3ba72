//! The live connections: what each is doing (`Activity`, shared by its task, its socket and
//! its requests), the cap on how many are held at once, and the sweep that closes those past
//! their deadline. At the cap, the connection idle the longest is told to close so a new one
//! can be admitted: sockets held open and silent can crowd out only each other, never a client
//! with a request to make.
//!
//! Requests only store times and counts (no timer is set, no task woken, per request); a
//! periodic sweep compares them with the timeouts.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// How long a closing connection keeps reading what its client still sends, so that the
/// answer it was given (a 413, a 401 before the body) is not destroyed by a reset.
const LINGER_MS: u64 = 2_000;

/// Milliseconds since the first call (a clock atomics can hold); never 0, which marks "unset".
fn now_ms() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let epoch = *EPOCH.get_or_init(Instant::now);
    epoch.elapsed().as_millis() as u64 + 1
}

/// The timeouts a connection's watchdog applies.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timeouts {
    /// For a request's head: from connecting, or from its first byte on a kept-alive connection.
    pub header: Duration,
    /// Between requests on a kept-alive connection.
    pub idle: Duration,
}

/// What one connection is doing. Updated without locks from its socket and requests; read by
/// its watchdog and by the cap's choice of whom to close.
#[derive(Debug)]
pub(super) struct Activity {
    id: u64,
    in_flight: AtomicU32,
    /// Whether a request was ever begun (a new connection gets the header timeout, a kept-alive
    /// one the idle timeout).
    served: AtomicBool,
    /// When the connection was accepted or its last request ended.
    idle_since: AtomicU64,
    /// When the first byte of a request arrived on an idle connection; 0 when none has.
    head_since: AtomicU64,
    /// When the connection began its lingering close; 0 when it has not.
    lingering_since: AtomicU64,
    /// Set when the cap asks this connection to close.
    evict: AtomicBool,
    /// Wakes the connection's task when the sweep found it past its deadline or the cap
    /// asked it to close.
    pub wake: Notify,
}

impl Activity {
    fn new(id: u64) -> Activity {
        Activity {
            id,
            in_flight: AtomicU32::new(0),
            served: AtomicBool::new(false),
            idle_since: AtomicU64::new(now_ms()),
            head_since: AtomicU64::new(0),
            lingering_since: AtomicU64::new(0),
            evict: AtomicBool::new(false),
            wake: Notify::new(),
        }
    }

    /// Bytes arrived from the client. On an idle connection they begin a request's head,
    /// which from now on has the header timeout.
    pub(super) fn bytes_arrived(&self) {
        if self.in_flight.load(Ordering::Acquire) == 0
            && self.head_since.load(Ordering::Relaxed) == 0
        {
            self.head_since.store(now_ms(), Ordering::Relaxed);
        }
    }

    /// A request's head was read and its handling begins.
    pub(super) fn request_began(&self) {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.served.store(true, Ordering::Relaxed);
        self.head_since.store(0, Ordering::Relaxed);
    }

    /// A request's answer was sent (or abandoned). Returns true when the connection is now idle.
    pub(super) fn request_ended(&self) -> bool {
        self.idle_since.store(now_ms(), Ordering::Relaxed);
        self.in_flight.fetch_sub(1, Ordering::AcqRel) == 1
    }

    /// The connection is closing and still reads what its client sends (see `LINGER_MS`).
    pub(super) fn began_lingering(&self) {
        self.lingering_since.store(now_ms(), Ordering::Relaxed);
    }

    /// True when no request is being handled: closing the connection loses nothing begun.
    pub(super) fn is_idle(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) == 0
    }

    /// When the connection should be closed, in `now_ms` time; `None` while a request is
    /// being handled.
    fn deadline_ms(&self, timeouts: &Timeouts) -> Option<u64> {
        let lingering = self.lingering_since.load(Ordering::Relaxed);
        if lingering != 0 {
            return Some(lingering + LINGER_MS);
        }
        if !self.is_idle() {
            return None;
        }
        let header = timeouts.header.as_millis() as u64;
        if !self.served.load(Ordering::Relaxed) {
            return Some(self.idle_since.load(Ordering::Relaxed) + header);
        }
        match self.head_since.load(Ordering::Relaxed) {
            0 => Some(self.idle_since.load(Ordering::Relaxed) + timeouts.idle.as_millis() as u64),
            head => Some(head + header),
        }
    }

    /// True when the connection is past its deadline.
    pub(super) fn expired(&self, timeouts: &Timeouts) -> bool {
        self.deadline_ms(timeouts)
            .is_some_and(|deadline| deadline <= now_ms())
    }

    /// Whether the cap asked this connection to close (the request stands until taken).
    pub(super) fn eviction_requested(&self) -> bool {
        self.evict.load(Ordering::Acquire)
    }

    /// Takes the cap's request to close, if one was made.
    pub(super) fn take_eviction(&self) -> bool {
        self.evict.swap(false, Ordering::AcqRel)
    }
}

/// The live connections and the cap on them.
#[derive(Debug)]
pub(super) struct Conns {
    cap: usize,
    inner: Mutex<Inner>,
    /// Set while the accept loop waits for room; request ends then wake it.
    waiting: AtomicBool,
    /// Wakes the accept loop: a connection ended, went idle, or declined to close.
    changed: Notify,
}

#[derive(Debug, Default)]
struct Inner {
    live: HashMap<u64, Arc<Activity>>,
    next_id: u64,
    /// Connections told to close that have not yet: their places count as free.
    closing: usize,
}

/// Whether the accept loop may take another connection.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Room {
    /// Under the cap, or an idle connection was told to close to make room.
    Free,
    /// At the cap with every connection busy: wait for `Conns::changed`.
    Full,
}

impl Conns {
    /// No more than `cap` connections at once (at least one).
    pub(super) fn new(cap: usize) -> Conns {
        Conns {
            cap: cap.max(1),
            inner: Mutex::new(Inner::default()),
            waiting: AtomicBool::new(false),
            changed: Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Only a map and counters live behind this lock, each change a single step; a panic
        // elsewhere cannot leave them half-changed.
        crate::locks::lock(&self.inner)
    }

    /// Makes room for one more connection if it can: under the cap there is room; at the cap,
    /// the connection idle the longest is told to close.
    pub(super) fn make_room(&self) -> Room {
        let mut inner = self.lock();
        if inner.live.len().saturating_sub(inner.closing) < self.cap || Self::evict_one(&mut inner)
        {
            self.waiting.store(false, Ordering::Relaxed);
            Room::Free
        } else {
            self.waiting.store(true, Ordering::Relaxed);
            Room::Full
        }
    }

    /// Tells the connection idle the longest to close, whatever the cap (the process is out of
    /// descriptors). False when every connection is busy.
    pub(super) fn free_one(&self) -> bool {
        Self::evict_one(&mut self.lock())
    }

    /// Tells the connection idle the longest to close; one whose request has begun to arrive
    /// only when no other is idle. Ties (times are in milliseconds) go to the one accepted
    /// first.
    fn evict_one(inner: &mut Inner) -> bool {
        let oldest = inner
            .live
            .values()
            .filter(|conn| conn.is_idle() && !conn.evict.load(Ordering::Acquire))
            .min_by_key(|conn| {
                (
                    conn.head_since.load(Ordering::Relaxed) != 0,
                    conn.idle_since.load(Ordering::Relaxed),
                    conn.id,
                )
            })
            .cloned();
        match oldest {
            Some(conn) => {
                conn.evict.store(true, Ordering::Release);
                inner.closing += 1;
                conn.wake.notify_one();
                true
            }
            None => false,
        }
    }

    /// Registers a newly accepted connection.
    pub(super) fn add(&self) -> Arc<Activity> {
        let mut inner = self.lock();
        inner.next_id += 1;
        let conn = Arc::new(Activity::new(inner.next_id));
        inner.live.insert(conn.id, conn.clone());
        conn
    }

    /// A connection has ended.
    pub(super) fn remove(&self, conn: &Activity) {
        let mut inner = self.lock();
        inner.live.remove(&conn.id);
        if conn.take_eviction() {
            inner.closing = inner.closing.saturating_sub(1);
        }
        drop(inner);
        self.changed.notify_one();
    }

    /// A connection told to close had a request begin first; it stays.
    pub(super) fn declined(&self) {
        let mut inner = self.lock();
        inner.closing = inner.closing.saturating_sub(1);
        drop(inner);
        self.changed.notify_one();
    }

    /// A connection went idle: room may be made now, if the accept loop waits for it.
    pub(super) fn went_idle(&self) {
        if self.waiting.load(Ordering::Relaxed) {
            self.changed.notify_one();
        }
    }

    /// Resolves when a connection ended, went idle while the accept loop waited, or declined
    /// to close.
    pub(super) async fn changed(&self) {
        self.changed.notified().await;
    }

    /// How many connections are open.
    pub(super) fn open(&self) -> usize {
        self.lock().live.len()
    }

    /// Wakes every connection past its deadline; its task closes it.
    pub(super) fn sweep(&self, timeouts: &Timeouts) {
        for conn in self.lock().live.values() {
            if conn.expired(timeouts) {
                conn.wake.notify_one();
            }
        }
    }
}

/// How often to sweep: often enough for the shorter timeout to be kept to within a quarter
/// of it, but never busily.
pub(super) fn sweep_interval(timeouts: &Timeouts) -> Duration {
    (timeouts.header.min(timeouts.idle) / 4)
        .clamp(Duration::from_millis(10), Duration::from_millis(250))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIMEOUTS: Timeouts = Timeouts {
        header: Duration::from_secs(10),
        idle: Duration::from_secs(60),
    };

    #[test]
    fn at_the_cap_the_longest_idle_connection_is_closed_and_busy_ones_never() {
        let conns = Conns::new(2);
        let first = conns.add();
        let second = conns.add();
        first.request_began();
        assert_eq!(conns.make_room(), Room::Free);
        assert!(second.eviction_requested(), "the idle one is told to close");
        assert!(!first.eviction_requested());
        conns.remove(&second);
        let third = conns.add();
        third.request_began();
        assert_eq!(conns.make_room(), Room::Full, "both are busy");
        first.request_ended();
        assert_eq!(conns.make_room(), Room::Free);
        assert!(first.eviction_requested());
        // It had a request begin before it saw the request to close, so it stays.
        first.request_began();
        assert!(first.take_eviction());
        conns.declined();
        assert_eq!(conns.make_room(), Room::Full, "both are busy again");
        assert_eq!(conns.open(), 2);
    }

    #[test]
    fn a_new_connection_gets_the_header_timeout_a_kept_alive_one_the_idle_timeout() {
        let conns = Conns::new(4);
        let conn = conns.add();
        let left = |conn: &Activity| {
            conn.deadline_ms(&TIMEOUTS)
                .map(|deadline| Duration::from_millis(deadline - now_ms()))
        };
        let fresh = left(&conn).unwrap();
        assert!(fresh <= TIMEOUTS.header && fresh > TIMEOUTS.header / 2);
        conn.request_began();
        assert_eq!(left(&conn), None, "no deadline while busy");
        conn.request_ended();
        assert!(left(&conn).unwrap() > TIMEOUTS.header);
        conn.bytes_arrived();
        assert!(left(&conn).unwrap() <= TIMEOUTS.header);
        conn.began_lingering();
        assert!(left(&conn).unwrap() <= Duration::from_millis(LINGER_MS));
        assert!(!conn.expired(&TIMEOUTS));
    }
}
