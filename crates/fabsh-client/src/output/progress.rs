//! Progress on stderr: spinners and bars on a terminal, nothing when piped. A front end that
//! is not a terminal (the MCP server) can take the same reports through a [`ProgressSink`].

use indicatif::{ProgressBar, ProgressStyle};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Where progress goes besides the terminal: each report says how far the work is (steps
/// done, or an operation's percentage), out of how many when known, and what it is doing.
pub trait ProgressSink: Send + Sync {
    fn report(&self, done: f64, total: Option<f64>, message: String);
}

/// Hands out spinners and bars; a no-op when stderr is not a terminal and no sink listens.
#[derive(Clone)]
pub struct Progress {
    enabled: bool,
    sink: Option<Arc<dyn ProgressSink>>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("enabled", &self.enabled)
            .field("sink", &self.sink.is_some())
            .finish()
    }
}

/// One running indicator; finishing (or dropping) it clears the line.
pub struct Spinner {
    bar: Option<ProgressBar>,
    label: String,
    sink: Option<Arc<dyn ProgressSink>>,
    /// Steps done, for a bar's reports to the sink.
    done: AtomicU64,
    total: Option<u64>,
}

impl Progress {
    /// Progress that draws only when `enabled`.
    pub fn new(enabled: bool) -> Self {
        Progress {
            enabled,
            sink: None,
        }
    }

    /// Progress that never draws.
    pub fn hidden() -> Self {
        Progress::new(false)
    }

    /// Progress that draws nothing and reports everything to `sink`.
    pub fn reporting_to(sink: Arc<dyn ProgressSink>) -> Self {
        Progress {
            enabled: false,
            sink: Some(sink),
        }
    }

    /// A message the user must act on while the command waits (a sign-in code): shown on
    /// stderr even where spinners are not.
    pub fn announce(&self, message: &str) {
        eprintln!("{message}");
    }

    /// A remark about how the command read its input (`note: ...`), shown on stderr even
    /// where spinners are not, so a pipe's reader still learns it.
    pub fn note(&self, message: &str) {
        eprintln!("note: {message}");
    }

    /// A spinner for waiting on something (a long-running operation).
    pub fn spinner(&self, label: String) -> Spinner {
        let bar = self.enabled.then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar.set_message(label.clone());
            bar
        });
        self.indicator(bar, label, None)
    }

    /// A bar counting `total` steps (bulk work).
    pub fn bar(&self, total: u64, label: String) -> Spinner {
        let bar = self.enabled.then(|| {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({elapsed})")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar.set_message(label.clone());
            bar
        });
        self.indicator(bar, label, Some(total))
    }

    fn indicator(&self, bar: Option<ProgressBar>, label: String, total: Option<u64>) -> Spinner {
        Spinner {
            bar,
            label,
            sink: self.sink.clone(),
            done: AtomicU64::new(0),
            total,
        }
    }
}

impl Spinner {
    /// Shows a status and, when known, a percentage.
    pub fn update(&self, status: &str, percent: Option<u64>) {
        let message = match percent {
            Some(percent) => format!("{}: {status} {percent}%", self.label),
            None => format!("{}: {status}", self.label),
        };
        if let Some(sink) = &self.sink {
            // A report's progress must grow each time; a poll without a percentage still
            // counts as a step.
            let polls = self.done.fetch_add(1, Ordering::Relaxed) + 1;
            match percent {
                Some(percent) => sink.report(percent as f64, Some(100.0), message.clone()),
                None => sink.report(polls as f64, None, message.clone()),
            }
        }
        if let Some(bar) = &self.bar {
            bar.set_message(message);
        }
    }

    /// Advances a bar by one step.
    pub fn step(&self) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(sink) = &self.sink {
            sink.report(
                done as f64,
                self.total.map(|total| total as f64),
                format!("{}: {done}", self.label),
            );
        }
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// Clears the indicator.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.finish();
    }
}
