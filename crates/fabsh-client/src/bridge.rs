//! The one place where synchronous code waits for async code.
//!
//! Everything above the HTTP core (CLI dispatch, the REPL, Rhai bindings) calls
//! [`Bridge::block_on`], which runs the future on the shared runtime and races it against the
//! current cancellation token, so Ctrl-C stops whatever is running.

use crate::error::{Error, Result};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

/// Runs async work from synchronous code, cancellable with Ctrl-C.
#[derive(Clone)]
pub struct Bridge {
    handle: Handle,
    cancel: Arc<Mutex<CancellationToken>>,
    /// Set once the Ctrl-C listener runs, so front ends can ask for it as often as they like.
    listening: Arc<AtomicBool>,
}

impl Bridge {
    /// A bridge onto `handle`'s runtime.
    pub fn new(handle: Handle) -> Self {
        Bridge {
            handle,
            cancel: Arc::new(Mutex::new(CancellationToken::new())),
            listening: Arc::new(AtomicBool::new(false)),
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
                _ = token.cancelled() => Err(Error::cancelled()),
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

    /// True when the current command was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.lock().is_cancelled()
    }

    /// Starts afresh after a cancelled command (the REPL keeps going after Ctrl-C).
    pub fn reset(&self) {
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
                            bridge.cancel();
                        }
                    });
                }
                Err(_) => self.listening.store(false, Ordering::SeqCst),
            }
        }
        #[cfg(not(unix))]
        self.handle.spawn(async move {
            while tokio::signal::ctrl_c().await.is_ok() {
                bridge.cancel();
            }
        });
    }

    fn lock(&self) -> MutexGuard<'_, CancellationToken> {
        // A poisoned lock only means another thread panicked while swapping tokens; the
        // token inside is still a valid token.
        self.cancel
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
