//! The one error type: a kind that decides the exit code, the Fabric error fields when the
//! service answered, and the `caused by:` / `hint:` lines the user sees.

use serde_json::{Map, Value, json};
use std::fmt;

/// What went wrong, coarsely; decides the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad input, rejected before any request was sent (exit 2).
    Usage,
    /// The service answered with an error (exit 1).
    Api,
    /// Credentials missing, rejected, or not allowed to do this (exit 3).
    Auth,
    /// The workspace, item or operation does not exist (exit 4).
    NotFound,
    /// A bulk command finished with some items failed (exit 5).
    Partial,
    /// The work was done but its result is below the bar set for it: `data-agent evaluate
    /// --min-pass-rate` (exit 6), so CI can tell a failed check from a failed service.
    BelowBar,
    /// `data-agent evaluate --fail-on-regression`: a question that passed in the baseline
    /// run now fails (exit 7), told apart from a pass rate below the bar.
    Regression,
    /// `deploy plan` found changes to make (exit 8, as `terraform plan -detailed-exitcode`
    /// tells them apart): not an error to scripts and tools, which read the plan.
    ChangesPending,
    /// `job run --wait`: the run ended Failed, Cancelled or Deduped (exit 9); its instance,
    /// with the failure reason, is the data.
    JobEnded,
    /// `job run --wait --timeout`: the run was still going when the time ran out (exit 10);
    /// it is left running (or cancelled with `--cancel-on-timeout`).
    JobTimeout,
    /// The user pressed Ctrl-C (exit 130).
    Cancelled,
    /// A long-running operation or request took longer than allowed (exit 1).
    Timeout,
    /// Anything else: I/O, network, unexpected responses (exit 1).
    Runtime,
}

impl ErrorKind {
    /// The process exit code for this kind (DESIGN §5).
    pub fn exit_code(self) -> u8 {
        match self {
            ErrorKind::Usage => 2,
            ErrorKind::Auth => 3,
            ErrorKind::NotFound => 4,
            ErrorKind::Partial => 5,
            ErrorKind::BelowBar => 6,
            ErrorKind::Regression => 7,
            ErrorKind::ChangesPending => 8,
            ErrorKind::JobEnded => 9,
            ErrorKind::JobTimeout => 10,
            ErrorKind::Cancelled => 130,
            ErrorKind::Api | ErrorKind::Timeout | ErrorKind::Runtime => 1,
        }
    }

    /// The lower-case name used in script error maps (`#{kind: "not_found"}`).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Usage => "usage",
            ErrorKind::Api => "api",
            ErrorKind::Auth => "auth",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Partial => "partial",
            ErrorKind::BelowBar => "below_bar",
            ErrorKind::Regression => "regression",
            ErrorKind::ChangesPending => "changes_pending",
            ErrorKind::JobEnded => "job_ended",
            ErrorKind::JobTimeout => "job_timeout",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Runtime => "runtime",
        }
    }

    /// Whether a reply failing with this kind still carries the answer asked for: scripts
    /// and MCP tools get the data (a plan with changes pending, a run that ended Failed)
    /// instead of an error, and read its status themselves.
    pub fn carries_answer(self) -> bool {
        matches!(self, ErrorKind::ChangesPending | ErrorKind::JobEnded)
    }

    /// The kind with this script name, if any (the inverse of [`ErrorKind::name`]).
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        [
            ErrorKind::Usage,
            ErrorKind::Api,
            ErrorKind::Auth,
            ErrorKind::NotFound,
            ErrorKind::Partial,
            ErrorKind::BelowBar,
            ErrorKind::Regression,
            ErrorKind::ChangesPending,
            ErrorKind::JobEnded,
            ErrorKind::JobTimeout,
            ErrorKind::Cancelled,
            ErrorKind::Timeout,
            ErrorKind::Runtime,
        ]
        .into_iter()
        .find(|kind| kind.name() == name)
    }
}

/// An error with everything needed to explain it. Boxed, so results stay small.
#[derive(Debug, Clone)]
pub struct Error(Box<ErrorDetails>);

/// What an [`Error`] carries; reached through `Deref`.
#[derive(Debug, Clone)]
pub struct ErrorDetails {
    pub kind: ErrorKind,
    pub message: String,
    /// HTTP status when the service answered.
    pub status: Option<u16>,
    /// Fabric `errorCode`.
    pub code: Option<String>,
    /// Fabric `requestId` (body or `RequestId` header).
    pub request_id: Option<String>,
    pub causes: Vec<String>,
    pub hints: Vec<String>,
    /// Extra structured detail (`moreDetails`, `relatedResource`, ...).
    pub details: Option<Value>,
    /// True when the request that failed may still have taken effect (its answer was lost and
    /// nothing could settle it), so a bulk report can say the outcome is unknown.
    pub outcome_unknown: bool,
}

/// The code of a call a bulk run never started because Ctrl-C stopped it first.
pub const NOT_STARTED: &str = "fabsh.NotStarted";
/// The code of a call Ctrl-C stopped while it was running.
pub const INTERRUPTED: &str = "fabsh.Interrupted";

/// The crate-wide result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of `kind` with a message and nothing else.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error(Box::new(ErrorDetails {
            kind,
            message: message.into(),
            status: None,
            code: None,
            request_id: None,
            causes: Vec::new(),
            hints: Vec::new(),
            details: None,
            outcome_unknown: false,
        }))
    }

    /// Bad input caught before anything was sent (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Usage, message)
    }

    /// A runtime failure (exit 1).
    pub fn runtime(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Runtime, message)
    }

    /// Something that does not exist (exit 4).
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }

    /// Missing or rejected credentials (exit 3).
    pub fn auth(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Auth, message)
    }

    /// Ctrl-C.
    pub fn cancelled() -> Self {
        Self::new(ErrorKind::Cancelled, "cancelled")
    }

    /// An error answered by the service. The kind follows the status.
    pub fn api(status: u16, code: Option<String>, message: impl Into<String>) -> Self {
        let kind = match status {
            401 | 403 => ErrorKind::Auth,
            404 => ErrorKind::NotFound,
            _ => ErrorKind::Api,
        };
        let mut err = Self::new(kind, message);
        err.status = Some(status);
        err.code = code;
        err
    }

    /// Adds a `hint:` line.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    /// Adds a `caused by:` line.
    pub fn with_cause(mut self, cause: impl fmt::Display) -> Self {
        self.causes.push(cause.to_string());
        self
    }

    /// Sets the Fabric (or fabsh) error code.
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// Marks the failure as one whose request may still have taken effect.
    pub fn with_outcome_unknown(mut self) -> Self {
        self.outcome_unknown = true;
        self
    }

    /// Sets the request id.
    pub fn with_request_id(mut self, request_id: Option<String>) -> Self {
        self.request_id = request_id;
        self
    }

    /// The exit code for this error.
    pub fn exit_code(&self) -> u8 {
        self.kind.exit_code()
    }

    /// True when the service said the thing does not exist.
    pub fn is_not_found(&self) -> bool {
        self.kind == ErrorKind::NotFound
    }

    /// True when the Fabric error code equals `code`.
    pub fn has_code(&self, code: &str) -> bool {
        self.code.as_deref() == Some(code)
    }

    /// The error as the map scripts catch: `{kind, status, code, message, request_id}`, plus
    /// `causes`, `hints` and `details` when there are any, and `outcome_unknown: true` when
    /// the request may have taken effect.
    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("kind".into(), json!(self.kind.name()));
        map.insert("status".into(), json!(self.status));
        map.insert("code".into(), json!(self.code));
        map.insert("message".into(), json!(self.message));
        map.insert("request_id".into(), json!(self.request_id));
        if !self.causes.is_empty() {
            map.insert("causes".into(), json!(self.causes));
        }
        if !self.hints.is_empty() {
            map.insert("hints".into(), json!(self.hints));
        }
        if let Some(details) = &self.details {
            map.insert("details".into(), details.clone());
        }
        if self.outcome_unknown {
            map.insert("outcome_unknown".into(), json!(true));
        }
        Value::Object(map)
    }
}

impl Error {
    /// The error an error map stands for (the inverse of [`Error::to_json`]); a map a script
    /// built keeps what it has, with kind `runtime` when it names none.
    pub fn from_json(value: &Value) -> Error {
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(String::from);
        let lines = |key: &str| -> Vec<String> {
            // An error body without details has none to show.
            let lines = value.get(key).and_then(Value::as_array);
            lines
                .into_iter()
                .flatten()
                .map(|line| line.as_str().map_or_else(|| line.to_string(), String::from))
                .collect()
        };
        let kind = text("kind")
            .and_then(|name| ErrorKind::from_name(&name))
            .unwrap_or(ErrorKind::Runtime);
        let mut err = Error::new(kind, text("message").unwrap_or_else(|| value.to_string()));
        err.status = value
            .get("status")
            .and_then(Value::as_u64)
            .and_then(|status| u16::try_from(status).ok());
        err.code = text("code");
        err.request_id = text("request_id");
        err.causes = lines("causes");
        err.hints = lines("hints");
        err.details = value
            .get("details")
            .filter(|details| !details.is_null())
            .cloned();
        err.outcome_unknown = value.get("outcome_unknown") == Some(&json!(true));
        err
    }
}

impl std::ops::Deref for Error {
    type Target = ErrorDetails;

    fn deref(&self) -> &ErrorDetails {
        &self.0
    }
}

impl std::ops::DerefMut for Error {
    fn deref_mut(&mut self) -> &mut ErrorDetails {
        &mut self.0
    }
}

impl fmt::Display for Error {
    /// One line: the message, then the Fabric code, status and request id when known.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        let mut extra = Vec::new();
        if let Some(code) = &self.code {
            extra.push(code.clone());
        }
        if let Some(status) = self.status {
            extra.push(format!("HTTP {status}"));
        }
        if let Some(id) = &self.request_id {
            extra.push(format!("requestId {id}"));
        }
        if !extra.is_empty() {
            write!(f, " ({})", extra.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Error::runtime(err.to_string())
    }
}

impl From<serde_json::Error> for Error {
    fn from(err: serde_json::Error) -> Self {
        Error::runtime(format!("invalid JSON: {err}"))
    }
}

impl From<fabsh_model::Problem> for Error {
    /// Input the model refused: a usage error, nothing was sent.
    fn from(problem: fabsh_model::Problem) -> Self {
        Error::from_problem(ErrorKind::Usage, problem)
    }
}

impl From<fabsh_http::Error> for Error {
    /// A model's or the HTTP layer's failure, by kind.
    fn from(failure: fabsh_http::Error) -> Self {
        let kind = match failure.kind {
            fabsh_http::ErrorKind::Invalid => ErrorKind::Usage,
            fabsh_http::ErrorKind::Auth => ErrorKind::Auth,
            fabsh_http::ErrorKind::Refused => ErrorKind::Api,
            fabsh_http::ErrorKind::Failed => ErrorKind::Runtime,
        };
        Error::from_problem(kind, failure.problem)
    }
}

impl Error {
    /// An error of `kind` telling a problem another crate reported.
    pub fn from_problem(kind: ErrorKind, problem: fabsh_model::Problem) -> Self {
        let mut err = Error::new(kind, problem.message);
        err.causes = problem.causes;
        err.hints = problem.hints;
        err
    }
}
