//! Progress on stderr: spinners and bars on a terminal, nothing when piped.

use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

/// Hands out spinners and bars; a no-op when stderr is not a terminal.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    enabled: bool,
}

/// One running indicator; finishing (or dropping) it clears the line.
pub struct Spinner {
    bar: Option<ProgressBar>,
    label: String,
}

impl Progress {
    /// Progress that draws only when `enabled`.
    pub fn new(enabled: bool) -> Self {
        Progress { enabled }
    }

    /// Progress that never draws.
    pub fn hidden() -> Self {
        Progress { enabled: false }
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
        Spinner { bar, label }
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
        Spinner { bar, label }
    }
}

impl Spinner {
    /// Shows a status and, when known, a percentage.
    pub fn update(&self, status: &str, percent: Option<u64>) {
        if let Some(bar) = &self.bar {
            match percent {
                Some(percent) => bar.set_message(format!("{}: {status} {percent}%", self.label)),
                None => bar.set_message(format!("{}: {status}", self.label)),
            }
        }
    }

    /// Advances a bar by one step.
    pub fn step(&self) {
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
