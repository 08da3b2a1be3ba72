//! What the layer that talks to Fabric reports as it works, for a front end to show: each
//! exchange with the service (`--verbose`), and the waits on long-running operations. This
//! crate prints nothing; the front end's output implements these traits.

use reqwest::header::HeaderMap;
use reqwest::{Method, Url};
use std::sync::OnceLock;
use std::time::Duration;

/// Where the traces of exchanges go.
pub trait Trace: Send + Sync {
    /// An outgoing request. The bearer token is never passed in.
    fn request(&self, method: &Method, url: &Url, query: &[(String, String)], body: Option<&[u8]>);
    /// The response to the last request.
    fn response(&self, status: u16, elapsed: Duration, headers: &HeaderMap, body: &[u8]);
    /// A sign-in exchange: method, URL and status only, since its form and answer are made
    /// of secrets.
    fn exchange(&self, method: &Method, url: &str, status: Option<u16>, elapsed: Duration);
    /// A request that got no answer.
    fn failure(&self, error: &str, elapsed: Duration);
}

/// The process's trace sink, installed once by the front end (as a logger is): traces are
/// asked for per call by handing out a [`Tracer`], and written wherever the front end said.
static SINK: OnceLock<Box<dyn Trace>> = OnceLock::new();

/// Installs where traces go; the first call wins, later ones change nothing.
pub fn install_trace(sink: Box<dyn Trace>) {
    let _ = SINK.set(sink);
}

/// Asks for traces of the calls it is given to (only with `--verbose`): each report goes to
/// the installed sink, and nowhere when none is installed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tracer;

impl Tracer {
    pub fn request(
        &self,
        method: &Method,
        url: &Url,
        query: &[(String, String)],
        body: Option<&[u8]>,
    ) {
        if let Some(sink) = SINK.get() {
            sink.request(method, url, query, body);
        }
    }

    pub fn response(&self, status: u16, elapsed: Duration, headers: &HeaderMap, body: &[u8]) {
        if let Some(sink) = SINK.get() {
            sink.response(status, elapsed, headers, body);
        }
    }

    pub fn exchange(&self, method: &Method, url: &str, status: Option<u16>, elapsed: Duration) {
        if let Some(sink) = SINK.get() {
            sink.exchange(method, url, status, elapsed);
        }
    }

    pub fn failure(&self, error: &str, elapsed: Duration) {
        if let Some(sink) = SINK.get() {
            sink.failure(error, elapsed);
        }
    }
}

/// Where the waits on long-running operations are shown, and notes said along the way.
pub trait Waits: Send + Sync + std::fmt::Debug {
    /// A wait begins; it is shown until the returned [`Wait`] finishes or is dropped.
    fn spinner(&self, label: String) -> Box<dyn Wait>;
    /// A remark made while work goes on (shown above any wait).
    fn note(&self, message: &str);
    /// Something a person must act on now (a device code), shown even where progress is not.
    fn announce(&self, message: &str);
}

/// One wait as shown.
pub trait Wait: Send + Sync {
    /// The operation's status, and its percentage when the service gives one.
    fn update(&self, status: &str, percent: Option<u64>);
    /// The wait is over.
    fn finish(&self);
}

/// Waits shown nowhere.
#[derive(Debug, Default)]
pub struct Unshown;

impl Waits for Unshown {
    fn spinner(&self, _label: String) -> Box<dyn Wait> {
        Box::new(Unshown)
    }
    fn note(&self, _message: &str) {}
    fn announce(&self, _message: &str) {}
}

impl Wait for Unshown {
    fn update(&self, _status: &str, _percent: Option<u64>) {}
    fn finish(&self) {}
}
