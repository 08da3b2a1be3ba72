//! `fabsh local serve` keeps its connections and request bodies in bounds (issue 13): silent,
//! slow and idle connections are closed, held connections cannot crowd out a request, bodies
//! over their cap are refused before they are read (or cut off at the cap when streamed), and
//! an unauthenticated request is answered without its body being read. Raw sockets, so the
//! tests decide exactly what is sent and when.

use crate::support::Server;
use serde_json::Value;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// How long a test waits for the server before calling it stuck (a guard against hanging,
/// not a measure: what is asserted happens in a fraction of it).
const PATIENCE: Duration = Duration::from_secs(30);

/// Short timeouts for the timeout tests, the other one so long it cannot be what closed a
/// connection.
const SHORT: &str = "300";
const LONG: &str = "600000";

fn connect(server: &Server) -> TcpStream {
    let stream =
        TcpStream::connect(server.origin().trim_start_matches("http://")).expect("connect");
    stream.set_read_timeout(Some(PATIENCE)).expect("timeout");
    stream
}

/// True when the server closes the connection (end of stream or reset); false when it is
/// still open after `PATIENCE`.
fn closed_by_server(stream: &mut TcpStream) -> bool {
    let mut byte = [0u8; 1];
    match stream.read(&mut byte) {
        Ok(0) => true,
        Ok(_) => panic!("the server sent data on a connection that asked for nothing"),
        Err(err) if matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => false,
        Err(_) => true,
    }
}

/// A request head (no body) with the admin token unless `token` is false.
fn head(server: &Server, method: &str, path: &str, token: bool, extra: &[&str]) -> String {
    let host = server.origin().trim_start_matches("http://").to_string();
    let mut text = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\n");
    if token {
        text.push_str(&format!("Authorization: {}\r\n", server.bearer()));
    }
    for line in extra {
        text.push_str(line);
        text.push_str("\r\n");
    }
    text.push_str("\r\n");
    text
}

/// Reads one response: (status, body); the body by `Content-Length`, else to the end.
fn response(stream: &mut TcpStream) -> (u16, String) {
    let mut received = Vec::new();
    let mut chunk = [0u8; 8192];
    let (head_len, length) = loop {
        let n = stream.read(&mut chunk).expect("a response");
        assert!(n > 0, "the connection closed before a response");
        received.extend_from_slice(&chunk[..n]);
        if let Some(end) = received.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&received[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .and_then(|value| value.trim().parse::<usize>().ok());
            break (end + 4, length);
        }
    };
    match length {
        Some(length) => {
            while received.len() < head_len + length {
                let n = stream.read(&mut chunk).expect("the body");
                assert!(n > 0, "the connection closed inside the body");
                received.extend_from_slice(&chunk[..n]);
            }
        }
        None => {
            let _ = stream.read_to_end(&mut received);
        }
    }
    let text = String::from_utf8_lossy(&received).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    (status, text[head_len..].to_string())
}

/// Asserts a Fabric-shaped 413.
fn assert_too_large(status: u16, body: &str, what: &str) {
    assert_eq!(status, 413, "{what}: {body}");
    let error: Value = serde_json::from_str(body).expect("an error body");
    assert_eq!(
        error["errorCode"], "RequestEntityTooLarge",
        "{what}: {body}"
    );
    assert!(error["requestId"].is_string(), "{what}: {body}");
}

#[test]
fn a_connection_that_sends_no_whole_head_is_closed_after_the_header_timeout() {
    let server = Server::with_env(&[
        ("FABSH_LOCAL_HEADER_TIMEOUT_MS", SHORT),
        ("FABSH_LOCAL_IDLE_TIMEOUT_MS", LONG),
    ]);
    let mut silent = connect(&server);
    let mut half = connect(&server);
    half.write_all(b"GET /v1/work")
        .expect("half a request line");
    assert!(
        closed_by_server(&mut silent),
        "a silent connection stayed open"
    );
    assert!(
        closed_by_server(&mut half),
        "half a request line kept it open"
    );
}

#[test]
fn an_idle_kept_alive_connection_is_closed_after_the_idle_timeout() {
    let server = Server::with_env(&[
        ("FABSH_LOCAL_HEADER_TIMEOUT_MS", LONG),
        ("FABSH_LOCAL_IDLE_TIMEOUT_MS", SHORT),
    ]);
    let mut stream = connect(&server);
    let request = head(&server, "GET", "/v1/workspaces", true, &[]);
    for _ in 0..2 {
        stream.write_all(request.as_bytes()).expect("request");
        let (status, body) = response(&mut stream);
        assert_eq!(status, 200, "{body}");
    }
    assert!(
        closed_by_server(&mut stream),
        "the idle connection stayed open"
    );
}

/// Opens `count` connections that send nothing.
fn hold(server: &Server, count: usize) -> Vec<TcpStream> {
    (0..count).map(|_| connect(server)).collect()
}

/// `GET /v1/workspaces` on a new connection.
fn list_workspaces(server: &Server) -> (u16, String) {
    let mut stream = connect(server);
    let request = head(
        server,
        "GET",
        "/v1/workspaces",
        true,
        &["Connection: close"],
    );
    stream.write_all(request.as_bytes()).expect("request");
    response(&mut stream)
}

#[test]
fn connections_held_past_the_cap_cannot_crowd_out_a_request() {
    let server = Server::with_env(&[
        ("FABSH_LOCAL_MAX_CONNECTIONS", "8"),
        ("FABSH_LOCAL_HEADER_TIMEOUT_MS", LONG),
    ]);
    let mut held = hold(&server, 20);
    let (status, body) = list_workspaces(&server);
    assert_eq!(status, 200, "{body}");
    assert!(
        closed_by_server(&mut held[0]),
        "the longest-idle connection was kept"
    );
}

#[test]
fn connections_held_past_the_descriptor_limit_cannot_crowd_out_a_request() {
    let server = Server::with_descriptors(128, &[("FABSH_LOCAL_HEADER_TIMEOUT_MS", LONG)]);
    let _held = hold(&server, 160);
    let (status, body) = list_workspaces(&server);
    assert_eq!(status, 200, "{body}");
}

#[test]
fn a_declared_length_over_the_cap_is_refused_before_the_body_is_sent() {
    let server = Server::session(module_path!());
    let bulk_import = server.demo_path("/items/bulkImportDefinitions?beta=true");
    let cases = [
        ("POST", "/v1/workspaces", true, 100 << 20),
        ("POST", bulk_import.as_str(), true, 200 << 20),
        ("POST", "/organizations/oauth2/v2.0/token", false, 100_000),
        (
            "POST",
            "/organizations/oauth2/v2.0/devicecode",
            false,
            100_000,
        ),
    ];
    for (method, path, token, length) in cases {
        let mut stream = connect(&server);
        let length = format!("Content-Length: {length}");
        let request = head(&server, method, path, token, &[&length]);
        stream.write_all(request.as_bytes()).expect("head");
        let (status, body) = response(&mut stream);
        assert_too_large(status, &body, path);
    }
}

/// Sends a chunked body of `size` bytes of `filler` on another thread (until the server stops
/// reading), and returns the response.
fn send_chunked(server: &Server, path: &str, token: bool, size: usize) -> (u16, String) {
    let mut stream = connect(server);
    let request = head(server, "POST", path, token, &["Transfer-Encoding: chunked"]);
    stream.write_all(request.as_bytes()).expect("head");
    let mut writer = stream.try_clone().expect("clone");
    let sender = std::thread::spawn(move || {
        let chunk = vec![b'a'; 64 * 1024];
        let mut sent = 0;
        while sent < size {
            let framed = [format!("{:x}\r\n", chunk.len()).as_bytes(), &chunk, b"\r\n"].concat();
            if writer.write_all(&framed).is_err() {
                return;
            }
            sent += chunk.len();
        }
        let _ = writer.write_all(b"0\r\n\r\n");
    });
    let answer = response(&mut stream);
    drop(stream);
    let _ = sender.join();
    answer
}

#[test]
fn a_streamed_body_over_the_cap_is_cut_off_at_the_cap() {
    let server = Server::session(module_path!());
    let (status, body) = send_chunked(&server, "/v1/workspaces", true, 8 << 20);
    assert_too_large(status, &body, "an API body");
    let (status, body) = send_chunked(&server, "/organizations/oauth2/v2.0/token", false, 1 << 20);
    assert_too_large(status, &body, "a token request");
}

#[test]
fn an_unauthenticated_request_is_answered_without_its_body_being_read() {
    let server = Server::session(module_path!());
    // Only the head is sent: the answer cannot wait for the body.
    let mut stream = connect(&server);
    let request = head(
        &server,
        "POST",
        "/v1/workspaces",
        false,
        &["Content-Length: 3000000"],
    );
    stream.write_all(request.as_bytes()).expect("head");
    let (status, body) = response(&mut stream);
    assert_eq!(status, 401, "{body}");
    // The whole body is sent, more than the sockets buffer: the server does not read it, yet
    // its answer is not lost to a reset when it closes.
    let mut stream = connect(&server);
    let size = 3_000_000;
    let length = format!("Content-Length: {size}");
    let request = head(&server, "POST", "/v1/workspaces", false, &[&length]);
    stream.write_all(request.as_bytes()).expect("head");
    let mut writer = stream.try_clone().expect("clone");
    let sender = std::thread::spawn(move || {
        let _ = writer.write_all(&vec![b' '; size]);
    });
    let (status, body) = response(&mut stream);
    assert_eq!(status, 401, "{body}");
    drop(stream);
    let _ = sender.join();
}

#[test]
fn a_body_that_stops_arriving_is_given_up_on() {
    let server = Server::with_env(&[
        ("FABSH_LOCAL_HEADER_TIMEOUT_MS", SHORT),
        ("FABSH_LOCAL_IDLE_TIMEOUT_MS", LONG),
    ]);
    for (path, token) in [
        ("/v1/workspaces", true),
        ("/organizations/oauth2/v2.0/token", false),
    ] {
        let mut stream = connect(&server);
        let request = head(&server, "POST", path, token, &["Content-Length: 1000"]);
        stream.write_all(request.as_bytes()).expect("head");
        stream
            .write_all(b"grant_type=")
            .expect("the start of a body");
        let (status, body) = response(&mut stream);
        assert_eq!(status, 408, "{path}: {body}");
    }
}
