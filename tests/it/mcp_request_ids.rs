//! A client that reuses a JSON-RPC id while a call with it is in flight (issue 25, "Reused
//! request ids") gets an answer for every call: the duplicate is refused with its id and
//! its stream closes, the call in flight is answered. Local Fabric answers slowly here, so
//! the first call is still running when the second arrives.

use crate::support::{Server, http_with_head};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::time::Duration;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const CALL_5: &str = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"item_list","arguments":{"workspace":"Demo"}}}"#;
const CALL_6: &str = r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"item_list","arguments":{"workspace":"Demo"}}}"#;

/// A bound on any one read, so a call left unanswered fails the test instead of hanging it.
const UNANSWERED: Duration = Duration::from_secs(60);

fn slow_server() -> Server {
    Server::with(&[("latency-ms", "300")])
}

/// Asserts the two answers for id 5: the call in flight answered with its result, the
/// duplicate refused naming the id.
fn assert_one_result_one_refusal(answers: &[Value]) {
    assert_eq!(answers.len(), 2, "{answers:?}");
    let results = answers.iter().filter(|a| a["result"].is_object()).count();
    let refused: Vec<&Value> = answers.iter().filter(|a| a["error"].is_object()).collect();
    assert_eq!(results, 1, "{answers:?}");
    assert_eq!(refused.len(), 1, "{answers:?}");
    assert!(
        refused[0]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("request id 5") && m.contains("in flight")),
        "{answers:?}"
    );
}

#[test]
fn over_stdio_a_reused_id_is_refused_and_the_call_in_flight_answered() {
    let server = slow_server();
    let mut child = server
        .command(&["mcp", "serve"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start mcp serve");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    // Read on a thread, so that an answer that never comes ends the wait.
    let (sender, answers) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(message) = serde_json::from_str::<Value>(&line)
                && message.get("id").is_some()
                && sender.send(message).is_err()
            {
                break;
            }
        }
    });
    let mut send = |line: &str| {
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    };
    send(INITIALIZE);
    let initialized = answers.recv_timeout(UNANSWERED).expect("initialize answer");
    assert_eq!(initialized["id"], 1);
    send(INITIALIZED);
    send(CALL_5);
    send(CALL_5);
    send(CALL_6);
    let mut by_five = Vec::new();
    let mut six = None;
    while by_five.len() < 2 || six.is_none() {
        let answer = answers
            .recv_timeout(UNANSWERED)
            .unwrap_or_else(|_| panic!("a call was never answered: {by_five:?} {six:?}"));
        match answer["id"].as_i64() {
            Some(5) => by_five.push(answer),
            Some(6) => six = Some(answer),
            _ => {}
        }
    }
    assert_one_result_one_refusal(&by_five);
    // Another id goes on as usual.
    assert!(six.expect("6")["result"].is_object());
    let _ = child.kill();
    let _ = child.wait();
}

/// POSTs `body` to the MCP endpoint and reads the answering stream to its end (bounded).
fn post_until_closed(origin: &str, token: &str, session: &str, body: &str) -> String {
    let host = origin.trim_start_matches("http://");
    let mut stream = TcpStream::connect(host).expect("connect");
    stream.set_read_timeout(Some(UNANSWERED)).expect("timeout");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nAuthorization: Bearer {token}\r\n\
         Mcp-Session-Id: {session}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("write");
    let mut response = Vec::new();
    match stream.read_to_end(&mut response) {
        Ok(_) => String::from_utf8_lossy(&response).into_owned(),
        Err(err) => panic!(
            "the stream stayed open without an answer ({err}): {}",
            String::from_utf8_lossy(&response)
        ),
    }
}

/// The JSON-RPC messages of an SSE body (its `data:` lines).
fn messages(body: &str) -> Vec<Value> {
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect()
}

#[test]
fn over_http_a_reused_id_is_refused_and_both_streams_close() {
    let server = slow_server();
    let mut child = server
        .command(&["mcp", "serve", "--http", "127.0.0.1:0"])
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
    let origin = next("FABSH_MCP_URL=").trim_end_matches("/mcp").to_string();
    let token = next("FABSH_MCP_TOKEN=");
    let bearer = format!("Bearer {token}");
    let headers = [
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
        ("Authorization", bearer.as_str()),
    ];
    let (status, head, _) = http_with_head(&origin, "POST", "/mcp", Some(INITIALIZE), &headers);
    assert_eq!(status, 200, "{head}");
    let session = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_string())
        })
        .expect("Mcp-Session-Id");
    let mut with_session = headers.to_vec();
    with_session.push(("Mcp-Session-Id", session.as_str()));
    http_with_head(&origin, "POST", "/mcp", Some(INITIALIZED), &with_session);
    let calls: Vec<_> = (0..2)
        .map(|_| {
            let (origin, token, session) = (origin.clone(), token.clone(), session.clone());
            std::thread::spawn(move || post_until_closed(&origin, &token, &session, CALL_5))
        })
        .collect();
    let answers: Vec<Value> = calls
        .into_iter()
        .flat_map(|call| messages(&call.join().expect("call")))
        .filter(|message| message["id"] == 5)
        .collect();
    assert_one_result_one_refusal(&answers);
    let _ = child.kill();
    let _ = child.wait();
}
