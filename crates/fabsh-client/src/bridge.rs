//! The one place where synchronous code waits for async code.
//!
//! Everything above the HTTP core (CLI dispatch, the REPL, Rhai bindings) calls
//! [`Bridge::block_on`], which runs the future on the shared runtime and races it against the
//! current cancellation token, so Ctrl-C stops whatever is running. Work that can report what
//! it did (a bulk run) takes Ctrl-C for itself with [`Bridge::interruptible`]: the first one
//! stops that work, which then reports; a second one cancels the command as usual.

use crate::error::{Error, Result};
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::runtime::Handle;
pub use tokio_util::sync::CancellationToken;

/// Runs async work from synchronous code, cancellable with Ctrl-C.
#[derive(Clone)]
pub struct Bridge {
    handle: Handle,
    cancel: Arc<Mutex<CancellationToken>>,
    /// Set once the Ctrl-C listener runs, so front ends can ask for it as often as they like.
    listening: Arc<AtomicBool>,
    /// The token of the work that takes the next Ctrl-C for itself, while there is one.
    interruptible: Arc<Mutex<Held>>,
    /// Set when a Ctrl-C stopped interruptible work, until the command ending asks.
    interrupted: Arc<AtomicBool>,
    /// Set once a SIGTERM arrived (after [`Bridge::cancel_on_terminate`]).
    terminated: Arc<AtomicBool>,
}

/// The work that takes the next Ctrl-C: its number (to tell one from another) and its token.
type Held = Option<(u64, CancellationToken)>;

/// Interruptible work in progress: while it lives, the first Ctrl-C cancels [`Self::token`]
/// instead of the command.
pub struct Interruptible {
    number: u64,
    token: CancellationToken,
    slot: Arc<Mutex<Held>>,
}

impl Interruptible {
    /// Cancelled by the first Ctrl-C while this lives.
    pub fn token(&self) -> &CancellationToken {
        &self.token
    }
}

impl Drop for Interruptible {
    fn drop(&mut self) {
        let mut slot = lock(&self.slot);
        if slot
            .as_ref()
            .is_some_and(|(number, _)| *number == self.number)
        {
            *slot = None;
        }
    }
}

/// Numbers interruptible work, so an ending one never clears a newer one's place.
static NEXT_INTERRUPTIBLE: AtomicU64 = AtomicU64::new(0);

/// A lock whose poisoning only means another thread panicked while swapping tokens; what it
/// holds is still valid.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Bridge {
    /// A bridge onto `handle`'s runtime.
    pub fn new(handle: Handle) -> Self {
        Bridge {
            handle,
            cancel: Arc::new(Mutex::new(CancellationToken::new())),
            listening: Arc::new(AtomicBool::new(false)),
            interruptible: Arc::new(Mutex::new(None)),
            interrupted: Arc::new(AtomicBool::new(false)),
            terminated: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The runtime handle, for spawning background tasks (servers, signal listeners).
    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Runs `fut` to completion, or returns [`Error::cancelled`] when Ctrl-C arrives first.
    pub fn block_on<T>(&self, fut: impl Future<Output = Result<T>>) -> Result<T> {
        let token = self.token();
        self.handle.block_on(async move {
            tokio::select! {
                biased;
                () = token.cancelled() => Err(Error::cancelled()),
                result = fut => result,
            }
        })
    }

    /// The token that the current command is cancelled by.
    pub fn token(&self) -> CancellationToken {
        self.lock().clone()
    }

    /// Cancels whatever is running now.
    pub fn cancel(&self) {
        self.lock().cancel();
    }

    /// What Ctrl-C does: stops the interruptible work in progress, if there is some not yet
    /// stopped, else cancels whatever is running.
    pub fn interrupt(&self) {
        let held = lock(&self.interruptible);
        if let Some((_, token)) = held.as_ref().filter(|(_, token)| !token.is_cancelled()) {
            self.interrupted.store(true, Ordering::SeqCst);
            token.cancel();
            return;
        }
        drop(held);
        self.cancel();
    }

    /// Marks the start of work that reports what it did when Ctrl-C stops it: until the
    /// guard is dropped, the first Ctrl-C cancels the guard's token instead of the command.
    pub fn interruptible(&self) -> Interruptible {
        let number = NEXT_INTERRUPTIBLE.fetch_add(1, Ordering::Relaxed);
        let token = self.token().child_token();
        *lock(&self.interruptible) = Some((number, token.clone()));
        Interruptible {
            number,
            token,
            slot: Arc::clone(&self.interruptible),
        }
    }

    /// True (once) when a Ctrl-C stopped interruptible work since the last time asked: the
    /// command then reports what was done and ends as cancelled.
    pub fn take_interrupted(&self) -> bool {
        self.interrupted.swap(false, Ordering::SeqCst)
    }

    /// True when the current command was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.lock().is_cancelled()
    }

    /// Starts afresh after a cancelled command (the REPL keeps going after Ctrl-C).
    pub fn reset(&self) {
        self.interrupted.store(false, Ordering::SeqCst);
        let mut token = self.lock();
        if token.is_cancelled() {
            *token = CancellationToken::new();
        }
    }

    /// Cancels the running command on every Ctrl-C, for the life of the process. The signal
    /// handler is in place when this returns (a Ctrl-C right after it is never lost), and
    /// calling it again does nothing.
    pub fn cancel_on_ctrl_c(&self) {
        if self.listening.swap(true, Ordering::SeqCst) {
            return;
        }
        let bridge = self.clone();
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            // Registering needs the runtime's context; the listener then runs on the runtime.
            let _context = self.handle.enter();
            match signal(SignalKind::interrupt()) {
                Ok(mut interrupts) => {
                    self.handle.spawn(async move {
                        while interrupts.recv().await.is_some() {
                            bridge.interrupt();
                        }
                    });
                }
                Err(_) => self.listening.store(false, Ordering::SeqCst),
            }
        }
        #[cfg(not(unix))]
        self.handle.spawn(async move {
            while tokio::signal::ctrl_c().await.is_ok() {
                bridge.interrupt();
            }
        });
    }

    /// For a one-shot command: a SIGTERM (a CI job cancelled, a container stopped) stops the
    /// command as Ctrl-C does, so work in progress reports what it did (a run waited on is
    /// named, left running) instead of dying without a word; [`Self::was_terminated`] then
    /// says so, and the process exits 143 as a terminated one does. A second SIGTERM cancels
    /// the command outright.
    pub fn cancel_on_terminate(&self) {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let _context = self.handle.enter();
            if let Ok(mut terms) = signal(SignalKind::terminate()) {
                let bridge = self.clone();
                self.handle.spawn(async move {
                    while terms.recv().await.is_some() {
                        bridge.terminated.store(true, Ordering::SeqCst);
                        bridge.interrupt();
                    }
                });
            }
        }
    }

    /// True once a SIGTERM arrived: the work stopped is not to ask anything, and the process
    /// exits 143.
    pub fn was_terminated(&self) -> bool {
        self.terminated.load(Ordering::SeqCst)
    }

    fn lock(&self) -> MutexGuard<'_, CancellationToken> {
        lock(&self.cancel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_ctrl_c_stops_interruptible_work_and_the_second_the_command() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let bridge = Bridge::new(runtime.handle().clone());
        let work = bridge.interruptible();
        bridge.interrupt();
        assert!(work.token().is_cancelled());
        assert!(!bridge.is_cancelled());
        bridge.interrupt();
        assert!(bridge.is_cancelled());
        assert!(bridge.take_interrupted());
        assert!(!bridge.take_interrupted());
        drop(work);
        bridge.reset();
        bridge.interrupt();
        assert!(
            bridge.is_cancelled(),
            "with no interruptible work, Ctrl-C cancels"
        );
    }
}
