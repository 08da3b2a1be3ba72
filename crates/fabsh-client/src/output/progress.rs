//! Progress on stderr: one spinner line on a terminal, nothing when piped. A front end that
//! is not a terminal (the MCP server) can take the same reports through a [`ProgressSink`].

use fabsh_api::watch::{Wait, Waits};
use indicatif::{HumanBytes, ProgressBar, ProgressStyle};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Where progress goes besides the terminal: each report says how far the work is (steps
/// done, or an operation's percentage), out of how many when known, and what it is doing.
pub trait ProgressSink: Send + Sync {
    fn report(&self, done: f64, total: Option<f64>, message: String);
}

/// Hands out spinners; a no-op when stderr is not a terminal and no sink listens.
#[derive(Clone)]
pub struct Progress {
    enabled: bool,
    sink: Option<Arc<dyn ProgressSink>>,
    /// The one line every spinner of this command shares: waits made concurrently (a plan
    /// reading forty definitions) each drawing their own would leave a stale line apiece.
    line: Arc<Mutex<Line>>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Progress")
            .field("enabled", &self.enabled)
            .field("sink", &self.sink.is_some())
            .finish()
    }
}

/// The shared line: drawn while some wait is going on, cleared when the last one ends.
#[derive(Default)]
struct Line {
    bar: Option<ProgressBar>,
    /// The waits going on, oldest first, each with what it says now.
    waits: Vec<(u64, String)>,
    next_id: u64,
}

impl Line {
    /// Draws the newest wait's words, and how many others go on beside it.
    fn redraw(&self) {
        let (Some(bar), Some((_, newest))) = (&self.bar, self.waits.last()) else {
            return;
        };
        match self.waits.len() - 1 {
            0 => bar.set_message(newest.clone()),
            others => bar.set_message(format!("{newest} (+{others} more)")),
        }
    }
}

/// One wait shown on the shared line; finishing (or dropping) it takes it off, and the line
/// is cleared when no other wait is left.
pub struct Spinner {
    label: String,
    /// This wait's id on the shared line, when it is drawn there.
    place: Option<(u64, Arc<Mutex<Line>>)>,
    /// A counting bar's own line (bulk work, which runs its calls without spinners).
    counter: Option<ProgressBar>,
    sink: Option<Arc<dyn ProgressSink>>,
    /// Reports made (polls, or steps done), for the sink: its progress must grow each time.
    polls: AtomicU64,
    total: Option<u64>,
}

impl Progress {
    /// Progress that draws only when `enabled`.
    pub fn new(enabled: bool) -> Self {
        Progress {
            enabled,
            sink: None,
            line: Arc::default(),
        }
    }

    /// Progress that never draws.
    pub fn hidden() -> Self {
        Progress::new(false)
    }

    /// Progress that draws nothing and reports everything to `sink`.
    pub fn reporting_to(sink: Arc<dyn ProgressSink>) -> Self {
        Progress {
            sink: Some(sink),
            ..Progress::hidden()
        }
    }

    /// A message the user must act on while the command waits (a sign-in code): shown on
    /// stderr even where spinners are not.
    pub fn announce(&self, message: &str) {
        self.above_the_line(message);
    }

    /// A remark about how the command read its input (`note: ...`), shown on stderr even
    /// where spinners are not, so a pipe's reader still learns it.
    pub fn note(&self, message: &str) {
        self.above_the_line(&format!("note: {message}"));
    }

    /// Prints `message` on stderr; a spinner's line is lifted out of the way and drawn again
    /// below it, so it never leaves a copy of itself above.
    fn above_the_line(&self, message: &str) {
        let line = lock(&self.line);
        match &line.bar {
            Some(bar) => bar.suspend(|| eprintln!("{message}")),
            None => eprintln!("{message}"),
        }
    }

    /// A spinner for waiting on something (a long-running operation, a job's run).
    pub fn spinner(&self, label: String) -> Spinner {
        let place = self.enabled.then(|| {
            let mut line = lock(&self.line);
            let id = line.next_id;
            line.next_id += 1;
            line.waits.push((id, label.clone()));
            line.bar.get_or_insert_with(new_spinner_bar);
            line.redraw();
            (id, self.line.clone())
        });
        self.indicator(label, place, None, None)
    }

    /// A bar counting `total` steps (bulk work, whose calls wait without spinners).
    pub fn bar(&self, total: u64, label: String) -> Spinner {
        let counter = self.enabled.then(|| {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({elapsed})")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar.set_message(label.clone());
            bar
        });
        self.indicator(label, None, counter, Some(total))
    }

    /// A bar for files being copied: files done of `files`, and the bytes sent so far.
    pub fn transfer(&self, files: u64, bytes: Option<u64>, label: String) -> TransferBar {
        let bar = self.enabled.then(|| {
            // Filled by bytes when their total is known (a large file moves the bar too),
            // else by files.
            // The label is one of the commands' own words, never braces.
            let (length, template) = match bytes {
                Some(total) => (
                    total,
                    format!(
                        "{label} [{{wide_bar}}] {{bytes}}/{{total_bytes}} {{binary_bytes_per_sec}}, {{prefix}} ({{eta}})"
                    ),
                ),
                None => (
                    files,
                    format!("{label} [{{wide_bar}}] {{prefix}}, {{msg}} ({{elapsed}})"),
                ),
            };
            let bar = ProgressBar::new(length);
            bar.set_style(
                ProgressStyle::with_template(&template)
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar.set_message(HumanBytes(0).to_string());
            bar.set_prefix(format!("0/{files} files"));
            bar
        });
        TransferBar {
            bar,
            by_bytes: bytes.is_some(),
            files,
            steps: self.indicator(label, None, None, Some(files)),
            bytes: AtomicU64::new(0),
            done: AtomicU64::new(0),
        }
    }

    fn indicator(
        &self,
        label: String,
        place: Option<(u64, Arc<Mutex<Line>>)>,
        counter: Option<ProgressBar>,
        total: Option<u64>,
    ) -> Spinner {
        Spinner {
            label,
            place,
            counter,
            sink: self.sink.clone(),
            polls: AtomicU64::new(0),
            total,
        }
    }
}

fn new_spinner_bar() -> ProgressBar {
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {wide_msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// The line, even when a thread panicked holding it: a spinner's words are not worth a
/// second panic.
fn lock(line: &Mutex<Line>) -> MutexGuard<'_, Line> {
    line.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Spinner {
    /// Shows a status and, when known, a percentage.
    pub fn update(&self, status: &str, percent: Option<u64>) {
        let message = match percent {
            Some(percent) => format!("{}: {status} {percent}%", self.label),
            None => format!("{}: {status}", self.label),
        };
        if let Some(sink) = &self.sink {
            // A poll without a percentage still counts as a step.
            let polls = self.polls.fetch_add(1, Ordering::Relaxed) + 1;
            match percent {
                Some(percent) => sink.report(percent as f64, Some(100.0), message.clone()),
                None => sink.report(polls as f64, None, message.clone()),
            }
        }
        if let Some((me, line)) = &self.place {
            let mut line = lock(line);
            if let Some(wait) = line.waits.iter_mut().find(|(id, _)| id == me) {
                wait.1 = message;
            }
            line.redraw();
        }
    }

    /// Advances a bar by one step.
    pub fn step(&self) {
        let done = self.polls.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(sink) = &self.sink {
            sink.report(
                done as f64,
                self.total.map(|total| total as f64),
                format!("{}: {done}", self.label),
            );
        }
        if let Some(bar) = &self.counter {
            bar.inc(1);
        }
    }

    /// Takes this wait off the line (the last one clears it), or clears a bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.counter {
            bar.finish_and_clear();
        }
        let Some((me, line)) = &self.place else {
            return;
        };
        let mut line = lock(line);
        line.waits.retain(|(id, _)| id != me);
        if line.waits.is_empty() {
            if let Some(bar) = line.bar.take() {
                bar.finish_and_clear();
            }
        } else {
            line.redraw();
        }
    }
}

/// Files being copied: a bar on a terminal (files done, bytes so far), steps to a sink.
pub struct TransferBar {
    bar: Option<ProgressBar>,
    /// The bar is filled by bytes (their total known), not files.
    by_bytes: bool,
    files: u64,
    /// The files done, as a sink hears of them.
    steps: Spinner,
    bytes: AtomicU64,
    done: AtomicU64,
}

impl TransferBar {
    /// Counts `bytes` more sent or received.
    pub fn add_bytes(&self, bytes: u64) {
        let total = self.bytes.fetch_add(bytes, Ordering::Relaxed) + bytes;
        match &self.bar {
            Some(bar) if self.by_bytes => bar.inc(bytes),
            Some(bar) => bar.set_message(HumanBytes(total).to_string()),
            None => {}
        }
    }

    /// Counts one more file done (copied, failed or stopped).
    pub fn file_done(&self) {
        self.steps.step();
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(bar) = &self.bar {
            bar.set_prefix(format!("{done}/{} files", self.files));
            if !self.by_bytes {
                bar.inc(1);
            }
        }
    }
}

impl Drop for TransferBar {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The HTTP core's waits (long-running operations) and notes, shown as this progress shows them.
impl Waits for Progress {
    fn spinner(&self, label: String) -> Box<dyn Wait> {
        Box::new(Progress::spinner(self, label))
    }

    fn note(&self, message: &str) {
        Progress::note(self, message);
    }

    fn announce(&self, message: &str) {
        Progress::announce(self, message);
    }
}

impl Wait for Spinner {
    fn update(&self, status: &str, percent: Option<u64>) {
        Spinner::update(self, status, percent);
    }

    fn finish(&self) {
        Spinner::finish(self);
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.finish();
    }
}
