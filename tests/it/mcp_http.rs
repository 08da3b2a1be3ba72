//! `fabsh mcp serve --http`: a web page on another site cannot drive the server, whatever
//! Origin its browser sends, unless the person allowed that Origin by name.

use crate::support::{self, http};
use std::io::{BufRead, BufReader};
use std::process::Stdio;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;

/// Starts `mcp serve --http 127.0.0.1:0 FLAGS`: the child, its origin and its token.
fn serve(flags: &[&str]) -> (std::process::Child, String, String) {
    let server = support::shared(module_path!());
    let mut args = vec!["mcp", "serve", "--http", "127.0.0.1:0"];
    args.extend_from_slice(flags);
    let mut child = server
        .command(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut next = |prefix: &str| {
        let line = lines.next().expect("a line").expect("utf8");
        line.strip_prefix(prefix)
            .unwrap_or_else(|| panic!("{line}"))
            .to_string()
    };
    let url = next("FABSH_MCP_URL=");
    let token = next("FABSH_MCP_TOKEN=");
    (child, url.trim_end_matches("/mcp").to_string(), token)
}

fn initialize(origin: &str, token: &str, page: Option<&str>) -> u16 {
    let bearer = format!("Bearer {token}");
    let mut headers = vec![
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
        ("Authorization", bearer.as_str()),
    ];
    if let Some(page) = page {
        headers.push(("Origin", page));
    }
    http(origin, "POST", "/mcp", Some(INITIALIZE), &headers).0
}

#[test]
fn only_loopback_origins_or_those_allowed_by_name_are_served() {
    let (mut child, origin, token) = serve(&[]);
    assert_eq!(
        initialize(&origin, &token, None),
        200,
        "a client that is no browser"
    );
    for page in [
        "http://localhost:3000",
        "http://127.0.0.1:8080",
        "http://[::1]:5173",
    ] {
        assert_eq!(initialize(&origin, &token, Some(page)), 200, "{page}");
    }
    for page in [
        "http://evil.example",
        "null",
        "https://localhost.evil.example",
        "http://127.0.0.1.evil.example",
    ] {
        assert_eq!(initialize(&origin, &token, Some(page)), 403, "{page}");
    }
    let _ = child.kill();
    let _ = child.wait();
    let (mut child, origin, token) = serve(&["--allow-origin", "https://app.example"]);
    assert_eq!(
        initialize(&origin, &token, Some("https://app.example")),
        200
    );
    assert_eq!(
        initialize(&origin, &token, Some("https://other.example")),
        403
    );
    let _ = child.kill();
    let _ = child.wait();
}
