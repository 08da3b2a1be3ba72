//! A request as the resource functions describe it, and the response they get back.

use crate::error::{Error, Result};
use bytes::Bytes;
use reqwest::Method;
use reqwest::header::HeaderMap;
use serde_json::Value;

/// How safe a request is to send again, or to send at all during `--dry-run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Safety {
    /// Reads: retried freely, and sent even during `--dry-run` (name lookups need them).
    Read,
    /// Changes state, but sending it twice has the same effect as once (PATCH a name,
    /// DELETE): retried on 5xx and connection errors.
    Idempotent,
    /// Creates something: never resent after an ambiguous failure; the caller checks first.
    Create,
}

/// One HTTP request to the Fabric API.
#[derive(Debug, Clone)]
pub struct Req {
    pub method: Method,
    /// A path under the endpoint (`/workspaces/...`) or an absolute URL (LRO and paging links).
    pub target: String,
    pub query: Vec<(String, String)>,
    pub body: Option<Value>,
    /// A JSON body already serialized, sent instead of `body`: large bodies (a bulk import
    /// assembled from files) are built straight into bytes rather than held twice.
    pub raw_body: Option<Bytes>,
    pub safety: Safety,
    /// Headers beyond auth and content type (`Accept`, `Mcp-Session-Id`).
    pub headers: Vec<(String, String)>,
    /// A limit for this request alone, instead of the client's.
    pub timeout: Option<std::time::Duration>,
}

impl Req {
    /// A request with the safety its method implies (POST is a create until said otherwise).
    pub fn new(method: Method, target: impl Into<String>) -> Self {
        let safety = match method {
            Method::GET | Method::HEAD | Method::OPTIONS => Safety::Read,
            Method::POST => Safety::Create,
            _ => Safety::Idempotent,
        };
        Req {
            method,
            target: target.into(),
            query: Vec::new(),
            body: None,
            raw_body: None,
            safety,
            headers: Vec::new(),
            timeout: None,
        }
    }

    /// GET `target`.
    pub fn get(target: impl Into<String>) -> Self {
        Self::new(Method::GET, target)
    }

    /// POST `target` with a JSON body.
    pub fn post(target: impl Into<String>, body: Value) -> Self {
        Self::new(Method::POST, target).body(body)
    }

    /// PATCH `target` with a JSON body.
    pub fn patch(target: impl Into<String>, body: Value) -> Self {
        Self::new(Method::PATCH, target).body(body)
    }

    /// DELETE `target`.
    pub fn delete(target: impl Into<String>) -> Self {
        Self::new(Method::DELETE, target)
    }

    /// Adds a query parameter.
    pub fn query(mut self, key: &str, value: impl Into<String>) -> Self {
        self.query.push((key.to_string(), value.into()));
        self
    }

    /// Adds a query parameter when `value` is set.
    pub fn query_opt(self, key: &str, value: Option<impl Into<String>>) -> Self {
        match value {
            Some(value) => self.query(key, value),
            None => self,
        }
    }

    /// Adds a request header.
    pub fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_string(), value.into()));
        self
    }

    /// Gives up on this request after `timeout` (each attempt).
    pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets the JSON body.
    pub fn body(mut self, body: Value) -> Self {
        self.body = Some(body);
        self
    }

    /// Sets a JSON body that is already serialized.
    pub fn raw_json_body(mut self, bytes: Bytes) -> Self {
        self.raw_body = Some(bytes);
        self
    }

    /// The body as JSON bytes, ready to send: the raw body as is, else `body` serialized.
    pub fn body_bytes(&self) -> Result<Option<Bytes>> {
        Ok(match (&self.raw_body, &self.body) {
            (Some(raw), _) => Some(raw.clone()),
            (None, Some(body)) => Some(Bytes::from(serde_json::to_vec(body)?)),
            (None, None) => None,
        })
    }

    /// Marks a POST that only reads (getDefinition): retried, and sent during `--dry-run`.
    pub fn read_only(mut self) -> Self {
        self.safety = Safety::Read;
        self
    }

    /// Marks a request that may be resent safely.
    pub fn idempotent(mut self) -> Self {
        self.safety = Safety::Idempotent;
        self
    }

    /// True when the request changes state.
    pub fn mutates(&self) -> bool {
        self.safety != Safety::Read
    }
}

pub use fabsh_model::limits::serialized_len;

/// A successful response.
#[derive(Debug, Clone)]
pub struct Resp {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Resp {
    /// The body as JSON; an empty body (or a literal `null`) is `Value::Null`.
    pub fn json(&self) -> Result<Value> {
        if self.body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Value::Null);
        }
        serde_json::from_slice(&self.body)
            .map_err(|err| Error::runtime(format!("the service answered with invalid JSON: {err}")))
    }

    /// A header as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }
}
