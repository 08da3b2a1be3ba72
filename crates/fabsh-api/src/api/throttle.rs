//! One client-side rate limiter shared by every request of the process.
//!
//! It starts unlimited. A 429 pauses every request until `Retry-After` has passed and sets a
//! rate a little under what the service accepted in the last second (multiplicative
//! decrease); long stretches without a 429 raise the rate slowly again (additive increase),
//! until it is unlimited again. Bulk work therefore settles just under the service's quota
//! instead of bouncing off it.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;
use tokio::time::Instant;

/// Share of the observed accepted rate kept after a 429.
const DECREASE_FACTOR: f64 = 0.95;
/// Growth of the rate after each calm period.
const INCREASE_FACTOR: f64 = 1.01;
/// How long without a 429 before the rate grows one step.
const CALM_PERIOD: Duration = Duration::from_secs(2);
/// Above this the limiter stops limiting.
const UNLIMITED_ABOVE: f64 = 10_000.0;
/// Fewer accepted requests than this in the window is too little traffic to measure a rate.
const MIN_MEASURABLE: f64 = 10.0;
/// The window over which accepted requests are counted.
const WINDOW: Duration = Duration::from_secs(1);

/// The shared limiter.
#[derive(Debug)]
pub struct RateLimiter {
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// Requests per second, or `None` when unlimited.
    rate: Option<f64>,
    /// Earliest start of the next request when a rate is set.
    next_slot: Instant,
    /// Nothing starts before this (set by `Retry-After`).
    paused_until: Instant,
    /// Start times of recently accepted requests, newest last.
    accepted: VecDeque<Instant>,
    /// When the rate last changed; decreases happen once per throttling episode.
    last_change: Instant,
    /// When the first request was accepted: until a whole window has passed since, the
    /// accepted count says nothing about the service's quota.
    first_accepted: Option<Instant>,
}

impl Default for RateLimiter {
    fn default() -> Self {
        let now = Instant::now();
        RateLimiter {
            state: Mutex::new(State {
                rate: None,
                next_slot: now,
                paused_until: now,
                accepted: VecDeque::new(),
                last_change: now,
                first_accepted: None,
            }),
        }
    }
}

impl RateLimiter {
    /// Waits until this request may start, reserving its slot.
    pub async fn acquire(&self) {
        let wait = {
            let mut state = self.lock();
            let now = Instant::now();
            let mut start = now.max(state.paused_until);
            if let Some(rate) = state.rate {
                start = start.max(state.next_slot);
                state.next_slot = start + Duration::from_secs_f64(1.0 / rate);
            }
            start - now
        };
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }

    /// Records a request the service accepted (not a 429); grows the rate after calm periods.
    pub fn on_accepted(&self, started: Instant) {
        let mut state = self.lock();
        let now = Instant::now();
        state.first_accepted.get_or_insert(started);
        state.accepted.push_back(started);
        while state
            .accepted
            .front()
            .is_some_and(|first| now.duration_since(*first) > WINDOW)
        {
            state.accepted.pop_front();
        }
        if let Some(rate) = state.rate
            && now.duration_since(state.last_change) >= CALM_PERIOD
        {
            let grown = rate * INCREASE_FACTOR;
            state.rate = (grown < UNLIMITED_ABOVE).then_some(grown);
            state.last_change = now;
        }
    }

    /// Records a 429: pause everything for `retry_after` and lower the rate once per episode.
    pub fn on_throttled(&self, retry_after: Duration) {
        let mut state = self.lock();
        let now = Instant::now();
        state.paused_until = state.paused_until.max(now + retry_after);
        let in_episode =
            state.rate.is_some() && now.duration_since(state.last_change) < retry_after.max(WINDOW);
        if in_episode {
            return;
        }
        let accepted_last_window = state
            .accepted
            .iter()
            .filter(|started| now.duration_since(**started) <= WINDOW)
            .count() as f64;
        // A client younger than the window (say, started right after another one used up
        // the quota) has seen too little to know the quota; so has one with sparse traffic.
        // The pause alone answers this 429.
        let young = state
            .first_accepted
            .is_none_or(|first| now.duration_since(first) < WINDOW);
        if young || accepted_last_window < MIN_MEASURABLE {
            return;
        }
        let observed = accepted_last_window * DECREASE_FACTOR;
        let lowered = state.rate.map_or(observed, |rate| rate.min(observed));
        state.rate = Some(lowered.max(0.2));
        state.next_slot = state.paused_until;
        state.last_change = now;
    }

    /// The current limit in requests per second, `None` when unlimited.
    pub fn rate(&self) -> Option<f64> {
        self.lock().rate
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is plain numbers; a panic elsewhere cannot leave it inconsistent.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_429_amid_sparse_traffic_only_pauses() {
        let limiter = RateLimiter::default();
        limiter.on_accepted(Instant::now());
        limiter.on_throttled(Duration::from_secs(2));
        assert_eq!(limiter.rate(), None);
        let before = Instant::now();
        limiter.acquire().await;
        assert_eq!(Instant::now() - before, Duration::from_secs(2));
    }

    #[tokio::test(start_paused = true)]
    async fn unlimited_until_the_first_429() {
        let limiter = RateLimiter::default();
        let before = Instant::now();
        for _ in 0..100 {
            limiter.acquire().await;
            limiter.on_accepted(Instant::now());
        }
        assert_eq!(Instant::now(), before);
        assert_eq!(limiter.rate(), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_429_pauses_and_sets_a_rate_under_the_accepted_one() {
        let limiter = RateLimiter::default();
        // 100 requests over a whole window.
        for _ in 0..100 {
            limiter.acquire().await;
            limiter.on_accepted(Instant::now());
            tokio::time::advance(Duration::from_millis(10)).await;
        }
        limiter.on_throttled(Duration::from_secs(1));
        let rate = limiter.rate().expect("a rate after a 429");
        assert!((rate - 95.0).abs() < 1e-9, "rate {rate}");
        let before = Instant::now();
        limiter.acquire().await;
        assert!(Instant::now() - before >= Duration::from_secs(1));
        // A second 429 in the same episode does not lower the rate again.
        limiter.on_throttled(Duration::from_secs(1));
        assert_eq!(limiter.rate(), Some(rate));
    }

    #[tokio::test(start_paused = true)]
    async fn a_429_in_the_first_window_only_pauses() {
        // Another client used up the quota just before this one started: the few requests
        // this one got through are no measure of the quota.
        let limiter = RateLimiter::default();
        for _ in 0..12 {
            limiter.on_accepted(Instant::now());
        }
        tokio::time::advance(Duration::from_millis(50)).await;
        limiter.on_throttled(Duration::from_secs(1));
        assert_eq!(limiter.rate(), None);
        let before = Instant::now();
        limiter.acquire().await;
        assert_eq!(Instant::now() - before, Duration::from_secs(1));
    }

    #[tokio::test(start_paused = true)]
    async fn the_rate_recovers_after_calm_periods() {
        let limiter = RateLimiter::default();
        limiter.on_accepted(Instant::now());
        tokio::time::advance(WINDOW).await;
        for _ in 0..10 {
            limiter.on_accepted(Instant::now());
        }
        limiter.on_throttled(Duration::from_secs(1));
        let low = limiter.rate().expect("rate");
        tokio::time::advance(Duration::from_secs(3)).await;
        limiter.on_accepted(Instant::now());
        assert!(limiter.rate().expect("rate") > low);
    }
}
