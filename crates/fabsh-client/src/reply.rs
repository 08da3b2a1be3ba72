//! What a command handler returns: data for the front end to render, never text.

use crate::error::{Error, Result};
use serde_json::Value;

/// Makes a command's page for `-o html` from the reply's JSON data (null for other bodies),
/// only when that format is asked for: the data is not copied for a page nobody asked for.
pub type HtmlPage = Box<dyn FnOnce(&Value) -> Result<String> + Send>;

/// Pages of list items arriving one request at a time (`--all`).
pub use fabsh_api::api::PageStream;

/// The data part of a reply.
pub enum Body {
    /// An object or an already-complete list.
    Json(Value),
    /// One page of a list; `continuation_token` is set when more pages exist.
    Page {
        items: Vec<Value>,
        continuation_token: Option<String>,
    },
    /// Every page, streamed as it arrives, so memory stays flat on long lists.
    Stream(PageStream),
    /// Text written as it is (a setting's value, a token, the docs); to scripts, a string
    /// without the final newline.
    Text(String),
    /// Nothing to show (void commands).
    Empty,
}

/// A handler's result: the body, plus an optional failure that still comes with data
/// (a bulk command where some items failed, a move whose delete step failed).
pub struct Reply {
    pub body: Body,
    /// When set, the body is shown and the process then exits with this error's code.
    pub failure: Option<Error>,
    /// Remarks for the user, shown on stderr (`note: ...`).
    pub notes: Vec<String>,
    /// Columns to show in tables beyond the command's declared ones (`--include`).
    pub extra_columns: Vec<String>,
    /// For an object body: the key of the list that tables show as rows (a bulk command's
    /// `results`), while JSON and YAML show the whole object.
    pub table_rows: Option<&'static str>,
    /// What a person at a terminal reads instead of the data (an agent's answer), when no
    /// format or query was asked for; scripts and pipes get the data.
    pub text: Option<String>,
    /// Under `--dry-run`, what the command would do to each thing it handles (a deploy's
    /// items), shown beside the requests, which leave out what needs no request.
    pub dry_run_items: Option<Value>,
    /// What `-o html` writes instead of the data (an evaluation's report page).
    pub html: Option<HtmlPage>,
    /// Unified diffs a table shows after its rows, whole (a plan's changed parts, which JSON
    /// and YAML carry in the data).
    pub table_diffs: Vec<TableDiff>,
}

/// A unified diff shown after a table's rows, under its title (`Hello.Notebook:
/// notebook-content.py`); empty for a binary part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDiff {
    pub title: String,
    pub diff: String,
}

impl Reply {
    /// A reply carrying a JSON value.
    pub fn json(value: Value) -> Self {
        Self::from_body(Body::Json(value))
    }

    /// A reply of text written as it is.
    pub fn text(text: impl Into<String>) -> Self {
        Self::from_body(Body::Text(text.into()))
    }

    /// A reply with nothing to show.
    pub fn empty() -> Self {
        Self::from_body(Body::Empty)
    }

    /// One page of a list.
    pub fn page(items: Vec<Value>, continuation_token: Option<String>) -> Self {
        Self::from_body(Body::Page {
            items,
            continuation_token,
        })
    }

    /// Every page, streamed.
    pub fn stream(pages: PageStream) -> Self {
        Self::from_body(Body::Stream(pages))
    }

    /// Nothing on stdout, so pipes stay clean; one line on stderr saying it was done
    /// (`deleted Notebook "Welcome" (id)`).
    pub fn done(message: impl Into<String>) -> Self {
        Self::empty().with_note(message)
    }

    /// A reply with this body.
    pub fn from_body(body: Body) -> Self {
        Reply {
            body,
            failure: None,
            notes: Vec::new(),
            extra_columns: Vec::new(),
            table_rows: None,
            text: None,
            dry_run_items: None,
            html: None,
            table_diffs: Vec::new(),
        }
    }

    /// Adds a note for the user.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Adds table columns beyond the command's declared ones.
    pub fn with_extra_columns(mut self, columns: Vec<String>) -> Self {
        self.extra_columns.extend(columns);
        self
    }

    /// Shows the list under `key` as the table's rows (the object stays whole in JSON).
    pub fn with_table_rows(mut self, key: &'static str) -> Self {
        self.table_rows = Some(key);
        self
    }

    /// Shows `text` to a person at a terminal instead of the data.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }

    /// Under `--dry-run`, adds `items` (what would happen to each) to the plan of requests.
    pub fn with_dry_run_items(mut self, items: Value) -> Self {
        self.dry_run_items = Some(items);
        self
    }

    /// Under `-o html`, writes the page `make` makes from the data instead of the data.
    pub fn with_html(
        mut self,
        make: impl FnOnce(&Value) -> Result<String> + Send + 'static,
    ) -> Self {
        self.html = Some(Box::new(make));
        self
    }

    /// Shows `diffs` after the rows of a table.
    pub fn with_table_diffs(mut self, diffs: Vec<TableDiff>) -> Self {
        self.table_diffs = diffs;
        self
    }

    /// Marks the reply as failed even though it carries data.
    pub fn with_failure(mut self, failure: Error) -> Self {
        self.failure = Some(failure);
        self
    }

    /// Collects the body into one JSON value (lists become arrays), for scripts and queries.
    pub async fn into_value(self) -> Result<Value> {
        use futures::StreamExt;
        Ok(match self.body {
            Body::Json(value) => value,
            Body::Page { items, .. } => Value::Array(items),
            Body::Stream(mut pages) => {
                let mut all = Vec::new();
                while let Some(page) = pages.next().await {
                    all.extend(page?);
                }
                Value::Array(all)
            }
            Body::Text(text) => Value::String(text.trim_end_matches('\n').to_string()),
            Body::Empty => Value::Null,
        })
    }
}

impl From<Value> for Reply {
    fn from(value: Value) -> Self {
        Reply::json(value)
    }
}
