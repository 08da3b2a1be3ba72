//! A question cannot stop the server (issue 13): an agent's SQL runs within a time budget
//! (`--query-seconds`, here 1 s) and a size cap, off the threads that answer other requests.
//! The budget is set through `FABSH_LOCAL_QUERY_SECONDS`, which a server without the knob
//! ignores, so these tests show the hang there instead of failing to start.
//!
//! The time margins below are wide on purpose: they tell an answer from a hang, they do not
//! measure speed (bench/local_server.sh does).

use crate::data_agent_query::published_on;
use crate::data_agents::AgentFixture;
use crate::support::Server;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// The budget the servers here run with, in seconds.
const BUDGET: u64 = 1;
/// How long past the budget an answer may take before the test calls it a hang.
const MARGIN: Duration = Duration::from_secs(15);
/// How long `GET /workspaces` may take before the test calls the server stuck.
const STUCK: Duration = Duration::from_secs(5);

const COUNTING: &str = "How many numbers are there?";
/// Counts forever: only the budget ends it.
const RUNAWAY: &str =
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c";

fn budget_server() -> Server {
    Server::with_env(&[("FABSH_LOCAL_QUERY_SECONDS", "1")])
}

/// `data-agent query --prompt QUESTION` started in the background.
fn ask(fx: &AgentFixture, question: &str) -> Child {
    let args = [
        "data-agent",
        "query",
        "-w",
        &fx.workspace,
        "--id",
        &fx.agent,
        "--prompt",
        question,
    ];
    fx.server
        .home
        .command(&args)
        .env("FABSH_ENDPOINT", &fx.server.endpoint)
        .env("FABSH_TOKEN", &fx.server.token)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start fabsh data-agent query")
}

/// The answer of a finished query, or `None` while it still runs.
fn answered(child: &mut Child) -> Option<String> {
    child.try_wait().expect("wait for fabsh").map(|status| {
        let mut out = String::new();
        let mut err = String::new();
        let _ = child.stdout.take().map(|mut s| s.read_to_string(&mut out));
        let _ = child.stderr.take().map(|mut s| s.read_to_string(&mut err));
        assert!(status.success(), "query failed: {err}\n{out}");
        let value: Value = serde_json::from_str(&out).expect("query JSON");
        value["answer"].as_str().expect("answer").to_string()
    })
}

/// `GET /v1/workspaces`, giving up after [`STUCK`]: its status, or `None` when no answer came.
fn list_workspaces(server: &Server) -> Option<u16> {
    let origin = server.origin();
    let host = origin.trim_start_matches("http://");
    let mut stream = TcpStream::connect(host).expect("connect");
    stream.set_read_timeout(Some(STUCK)).expect("timeout");
    let request = format!(
        "GET /v1/workspaces HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nAuthorization: {}\r\n\r\n",
        server.bearer()
    );
    stream.write_all(request.as_bytes()).expect("write");
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).ok()?;
    String::from_utf8_lossy(&head[9..12]).parse().ok()
}

/// Asks every question at once and, until all are answered, keeps checking that
/// `GET /workspaces` is answered; returns the answers, in order.
fn ask_while_listing(fx: &AgentFixture, questions: &[&str]) -> Vec<String> {
    let started = Instant::now();
    let mut children: Vec<Child> = questions.iter().map(|q| ask(fx, q)).collect();
    let mut answers: Vec<Option<String>> = vec![None; children.len()];
    let mut listed = 0;
    while answers.iter().any(Option::is_none) {
        if started.elapsed() > Duration::from_secs(BUDGET) + MARGIN {
            for child in &mut children {
                let _ = child.kill();
            }
            panic!(
                "no answer {} s after asking ({listed} lists answered meanwhile)",
                started.elapsed().as_secs()
            );
        }
        let status = list_workspaces(&fx.server);
        assert_eq!(
            status,
            Some(200),
            "GET /workspaces was not answered while questions ran ({listed} were before)"
        );
        listed += 1;
        for (child, answer) in children.iter_mut().zip(&mut answers) {
            if answer.is_none() {
                *answer = answered(child);
            }
        }
        sleep(Duration::from_millis(50));
    }
    assert!(
        listed > 1,
        "the questions ended before the server was asked"
    );
    answers.into_iter().flatten().collect()
}

#[test]
fn a_runaway_query_is_stopped_at_its_budget_while_the_server_answers_others() {
    let fx = published_on(budget_server(), &[(COUNTING, RUNAWAY)]);
    // As many as the bench asks at once: more than the server has async threads here.
    let answers = ask_while_listing(&fx, &[COUNTING; 4]);
    for answer in answers {
        assert!(
            answer.contains("stopped") && answer.contains("1 s"),
            "the answer should say the query was stopped at its 1 s budget: {answer}"
        );
    }
    // The server still answers a question that fits.
    fx.ok(
        "add-fewshot",
        &[
            "--datasource",
            "SalesLakehouse",
            "--question",
            "How many orders are there?",
            "--sql",
            "SELECT COUNT(*) FROM orders",
        ],
    );
    fx.ok("publish", &["--description", "Sales questions"]);
    let out = fx.ok("query", &["--prompt", "How many orders are there?"]);
    assert!(
        out["answer"]
            .as_str()
            .is_some_and(|a| a.starts_with("The answer is ")),
        "{out}"
    );
}

#[test]
fn a_query_that_builds_a_huge_value_is_stopped_at_the_size_cap() {
    let question = "How long is a very long blob?";
    let fx = published_on(
        budget_server(),
        &[(question, "SELECT length(randomblob(900000000))")],
    );
    let answers = ask_while_listing(&fx, &[question]);
    assert!(
        answers[0].contains("stopped") && answers[0].contains("MB"),
        "the answer should say the query was stopped at the size cap: {}",
        answers[0]
    );
}
