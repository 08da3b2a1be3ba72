//! `--verbose`: each request and response on stderr, with credentials redacted.

use fabsh_api::watch::Trace;
use reqwest::header::HeaderMap;
use reqwest::{Method, Url};
use serde_json::Value;
use std::time::Duration;

/// Longest body shown in a trace.
const MAX_BODY: usize = 4096;
/// Response headers worth showing.
const SHOWN_HEADERS: &[&str] = &[
    "content-type",
    "location",
    "retry-after",
    "x-ms-operation-id",
    "requestid",
    "x-ms-public-api-error-code",
    "www-authenticate",
];
/// JSON keys whose values are never shown.
const SECRET_KEYS: &[&str] = &[
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "clientSecret",
    "password",
    "token",
    "accessToken",
];

pub use fabsh_api::watch::Tracer;

/// Writes request/response traces to stderr: where `--verbose` sends them.
pub(crate) struct Stderr;

/// Sends the traces the HTTP core and sign-in make to stderr (once per process).
pub fn install() {
    fabsh_api::watch::install_trace(Box::new(Stderr));
}

impl Trace for Stderr {
    fn request(&self, method: &Method, url: &Url, query: &[(String, String)], body: Option<&[u8]>) {
        let mut url = url.clone();
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        let mut text = format!("> {method} {url}\n> authorization: Bearer (redacted)\n");
        if let Some(body) = body {
            text.push_str(&format!("> {}\n", shown_body(body)));
        }
        eprint!("{text}");
    }

    fn response(&self, status: u16, elapsed: Duration, headers: &HeaderMap, body: &[u8]) {
        let mut text = format!("< {status} ({} ms)\n", elapsed.as_millis());
        for name in SHOWN_HEADERS {
            if let Some(value) = headers.get(*name).and_then(|v| v.to_str().ok()) {
                text.push_str(&format!("< {name}: {value}\n"));
            }
        }
        if !body.is_empty() {
            text.push_str(&format!("< {}\n", shown_body(body)));
        }
        eprint!("{text}");
    }

    fn exchange(&self, method: &Method, url: &str, status: Option<u16>, elapsed: Duration) {
        let status = status.map_or_else(|| "no response".to_string(), |s| s.to_string());
        eprintln!(
            "> {method} {url} (credentials redacted)\n< {status} ({} ms, tokens redacted)",
            elapsed.as_millis()
        );
    }

    fn failure(&self, error: &str, elapsed: Duration) {
        eprintln!("< no response after {} ms: {error}", elapsed.as_millis());
    }
}

/// The body as shown: JSON with secret values replaced, cut to a readable length.
fn shown_body(body: &[u8]) -> String {
    let text = match serde_json::from_slice::<Value>(body) {
        Ok(mut value) => {
            redact(&mut value);
            value.to_string()
        }
        Err(_) => String::from_utf8_lossy(body).into_owned(),
    };
    if text.len() <= MAX_BODY {
        return text;
    }
    let mut end = MAX_BODY;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes)", &text[..end], text.len())
}

/// Replaces the values of secret-looking keys, at any depth.
pub(crate) fn redact(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                if SECRET_KEYS.contains(&key.as_str()) {
                    *inner = Value::String("(redacted)".into());
                } else {
                    redact(inner);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_values_never_show() {
        let shown =
            shown_body(br#"{"access_token":"abc","nested":[{"client_secret":"s"}],"ok":1}"#);
        assert!(
            !shown.contains("abc") && !shown.contains("\"s\""),
            "{shown}"
        );
        assert!(shown.contains("\"ok\":1"));
    }
}
