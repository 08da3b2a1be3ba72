//! The server's locks guard data that each change leaves whole (a map insert, a queue push,
//! a connection handed out), so a panic on another thread while holding one leaves nothing
//! half-done behind: the lock is taken through the poison rather than failing every request
//! after it.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, poisoned or not.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
