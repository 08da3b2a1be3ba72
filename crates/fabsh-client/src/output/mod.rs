//! The only place that writes to stdout and stderr: command results in json, table, tsv, csv or
//! yaml (with an optional JMESPath query), errors, notes, progress, and `--verbose` traces.

mod csv_rows;
mod errors;
mod format;
mod json_stream;
mod progress;
mod table;
pub(crate) mod trace;

pub use errors::SourceSpot;
pub use format::Format;
pub use progress::{Progress, ProgressSink, Spinner, TransferBar};
pub use trace::{Tracer, install as trace_to_stderr};

use crate::error::{Error, Result};
use crate::reply::{Body, Reply, TableDiff};
use futures::StreamExt;
use serde_json::Value;
use std::io::{BufWriter, IsTerminal, Write};

/// Renders replies and messages for one process (CLI, REPL or script run).
#[derive(Debug, Clone)]
pub struct Printer {
    format: Option<Format>,
    query: Option<String>,
    color: bool,
    stdout_tty: bool,
    /// `text` goes to stderr (see [`Printer::beside_output`]).
    text_to_stderr: bool,
}

impl Printer {
    /// A printer; `format` forces an output format, `query` is checked now (a bad JMESPath
    /// expression is a usage error before anything is sent).
    pub fn new(format: Option<Format>, query: Option<String>, no_color: bool) -> Result<Printer> {
        if let Some(query) = &query {
            jmespath::compile(query)
                .map_err(|err| Error::usage(format!("invalid --query: {err}")))?;
        }
        let color = !no_color
            && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
            && std::io::stderr().is_terminal();
        Ok(Printer {
            format,
            query,
            color,
            stdout_tty: std::io::stdout().is_terminal(),
            text_to_stderr: false,
        })
    }

    /// Changes the forced output format (the REPL's `:output`).
    pub fn set_format(&mut self, format: Option<Format>) {
        self.format = format;
    }

    /// The output format asked for, if any.
    pub fn format(&self) -> Option<Format> {
        self.format
    }

    /// True when a `--query` was given.
    pub fn has_query(&self) -> bool {
        self.query.is_some()
    }

    /// True when stdout is a terminal (`auth token` refuses to print there).
    pub fn stdout_is_terminal(&self) -> bool {
        self.stdout_tty
    }

    /// Progress reporting for long work (shown only when stderr is a terminal).
    pub fn progress(&self) -> Progress {
        Progress::new(std::io::stderr().is_terminal())
    }

    /// Writes a reply's body to stdout and then its notes to stderr, so summaries follow the
    /// table they sum up. Lists are tables on a terminal and JSON otherwise; pages stream as
    /// they arrive when the format allows it.
    pub async fn render(&self, mut reply: Reply, columns: &[&str]) -> Result<()> {
        let notes = std::mem::take(&mut reply.notes);
        let written = self.render_body(reply, columns).await;
        for note in &notes {
            self.note(note);
        }
        written
    }

    async fn render_body(&self, mut reply: Reply, columns: &[&str]) -> Result<()> {
        if self.format == Some(Format::Html) {
            let make = reply.html.take().ok_or_else(|| {
                Error::usage("-o html: this command makes no page")
                    .with_hint("use -o json, table, wide, tsv, csv or yaml")
            })?;
            let data = match &reply.body {
                Body::Json(data) => data,
                _ => &Value::Null,
            };
            return self.text(&make(data)?);
        }
        if let Some(text) = &reply.text
            && self.format.is_none()
            && self.query.is_none()
            && self.stdout_tty
        {
            return self.text(text);
        }
        let table_rows = reply.table_rows;
        let table_diffs = std::mem::take(&mut reply.table_diffs);
        let columns: Vec<&str> = if reply.extra_columns.is_empty() {
            columns.to_vec()
        } else {
            columns
                .iter()
                .copied()
                .chain(reply.extra_columns.iter().map(String::as_str))
                .collect()
        };
        let columns = columns.as_slice();
        let is_list = matches!(reply.body, Body::Page { .. } | Body::Stream(_))
            || matches!(&reply.body, Body::Json(Value::Array(_)))
            || (table_rows.is_some() && matches!(&reply.body, Body::Json(Value::Object(_))));
        let format = self.format.unwrap_or(if is_list && self.stdout_tty {
            Format::Table
        } else {
            Format::Json
        });
        // Buffered: serde and the table writers write a line at a time, a syscall each
        // unbuffered. Stream writers flush each page themselves.
        let mut out = BufWriter::new(std::io::stdout().lock());
        let written = match reply.body {
            Body::Empty => Ok(()),
            Body::Text(text) if self.query.is_none() => out.write_all(text.as_bytes()),
            Body::Stream(mut pages) if self.query.is_none() && format.streams() => {
                let mut writer = format.list_writer(&mut out, columns);
                while let Some(page) = pages.next().await {
                    if let Err(err) = writer.page(&page?) {
                        return finish_write(Err(err));
                    }
                }
                writer.finish()
            }
            Body::Page {
                items,
                continuation_token,
            } => {
                let written = self
                    .write_value(&mut out, Value::Array(items), format, columns)
                    .and_then(|()| out.flush());
                if let Some(token) = continuation_token {
                    self.note(&format!(
                        "more results: add --all, or continue with --continuation-token {token}"
                    ));
                    if self.query.is_some() {
                        self.warn("--query saw only this first page; add --all (or --limit N) to query the whole list");
                    }
                }
                written
            }
            body => {
                let mut value = Reply::from_body(body).into_value().await?;
                if let Some(key) = table_rows
                    && self.query.is_none()
                    && format.is_rows()
                {
                    value = value.get(key).cloned().unwrap_or(Value::Null);
                }
                let written = self.write_value(&mut out, value, format, columns);
                if self.query.is_none() && format.is_table() {
                    written.and_then(|()| self.write_diffs(&mut out, &table_diffs))
                } else {
                    written
                }
            }
        };
        finish_write(written.and_then(|()| out.flush()))
    }

    /// Writes `diffs` after a table: each under its title, every line whole (a table cuts
    /// cells to the terminal's width), added and removed lines coloured when colour is on.
    fn write_diffs(&self, out: &mut dyn Write, diffs: &[TableDiff]) -> std::io::Result<()> {
        // Colour is decided for stderr; these lines go to stdout, which must be a terminal too.
        let paint = |text: &str, ansi: &str| {
            if self.stdout_tty {
                self.paint(text, ansi)
            } else {
                text.to_string()
            }
        };
        for diff in diffs {
            writeln!(out, "\n{}", paint(&diff.title, "1"))?;
            if diff.diff.is_empty() {
                writeln!(out, "(binary part: no diff shown)")?;
                continue;
            }
            for line in diff.diff.lines() {
                let ansi = if line.starts_with("+++") || line.starts_with("---") {
                    "1"
                } else if line.starts_with('+') {
                    "32"
                } else if line.starts_with('-') {
                    "31"
                } else if line.starts_with("@@") {
                    "36"
                } else {
                    ""
                };
                if ansi.is_empty() {
                    writeln!(out, "{line}")?;
                } else {
                    writeln!(out, "{}", paint(line, ansi))?;
                }
            }
        }
        Ok(())
    }

    /// Writes one value in the chosen format after applying `--query`.
    pub fn print_value(&self, value: Value, columns: &[&str]) -> Result<()> {
        let format = self
            .format
            .unwrap_or(if value.is_array() && self.stdout_tty {
                Format::Table
            } else {
                Format::Json
            });
        let mut out = BufWriter::new(std::io::stdout().lock());
        let written = self.write_value(&mut out, value, format, columns);
        finish_write(written.and_then(|()| out.flush()))
    }

    fn write_value(
        &self,
        out: &mut dyn Write,
        value: Value,
        format: Format,
        columns: &[&str],
    ) -> std::io::Result<()> {
        match &self.query {
            // The query's result has shapes of its own: its keys are the columns, and a list
            // of plain values is one column; the command's declared columns no longer apply.
            Some(query) => {
                let value = apply_query(query, &value).map_err(std::io::Error::other)?;
                format.write(out, &value, &[])
            }
            None => format.write(out, &value, columns),
        }
    }

    /// Writes text as is to stdout (docs, completions, `local serve`'s variables).
    pub fn text(&self, text: &str) -> Result<()> {
        if self.text_to_stderr {
            let mut out = std::io::stderr().lock();
            return finish_write(out.write_all(text.as_bytes()).and_then(|()| out.flush()));
        }
        let mut out = std::io::stdout().lock();
        finish_write(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
    }

    /// A remark on stderr: `note: ...`.
    pub fn note(&self, message: &str) {
        eprintln!("{} {message}", self.paint("note:", "1;36"));
    }

    /// A warning on stderr: `warning: ...`.
    pub fn warn(&self, message: &str) {
        eprintln!("{} {message}", self.paint("warning:", "1;33"));
    }

    /// Asks a yes/no question on the terminal; anything but y/yes is no.
    pub fn confirm(&self, question: &str) -> bool {
        eprint!("{question} [y/N] ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        if std::io::stdin().read_line(&mut answer).is_err() {
            return false;
        }
        matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
    }

    fn paint(&self, text: &str, ansi: &str) -> String {
        if self.color {
            format!("\x1b[{ansi}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// Asks a yes/no question when a person is at the terminal (stdin and stderr both one):
/// `Some(true)` for y/yes, `Some(false)` for anything else, `None` when nobody can be asked.
/// Blocks while it waits for the answer; callers on the runtime hand it to a blocking thread.
pub fn ask_at_terminal(question: &str) -> Option<bool> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return None;
    }
    eprint!("\n{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer).ok()?;
    Some(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// Applies a JMESPath expression to JSON.
pub fn apply_query(query: &str, value: &Value) -> std::result::Result<Value, String> {
    let expression = jmespath::compile(query).map_err(|err| err.to_string())?;
    let result = expression.search(value).map_err(|err| err.to_string())?;
    serde_json::to_value(&*result).map_err(|err| err.to_string())
}

/// A closed pipe (`fabsh ... | head`) is not an error.
fn finish_write(result: std::io::Result<()>) -> Result<()> {
    match result {
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(Error::from),
    }
}

impl Printer {
    /// A printer with the defaults, for errors found before the flags were read.
    pub fn plain() -> Printer {
        Printer {
            format: None,
            query: None,
            color: false,
            stdout_tty: false,
            text_to_stderr: false,
        }
    }

    /// The printer of a stdlib function a command runs: its `print` goes to stderr, beside
    /// the command's output and never into it (a JSON reply, or an MCP server's stdout,
    /// which is the protocol).
    pub fn beside_output() -> Printer {
        Printer {
            text_to_stderr: true,
            ..Printer::plain()
        }
    }
}
