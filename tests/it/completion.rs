//! Completion for a new user (issue 27): the hidden `fabsh __complete` that the bash, zsh and
//! fish scripts of `fabsh completions` call on Tab, offering commands, flags and the
//! workspace and item names of local Fabric's demo data (Demo: SalesLakehouse, Welcome,
//! Sales Model, Sales Report), plus a data agent each test makes.

use crate::support::Server;
use std::process::{Command, Stdio};

/// A server whose Demo workspace also holds the data agent "Sales agent".
fn server_with_agent() -> Server {
    let server = Server::start();
    server
        .fabsh(&[
            "data-agent",
            "create",
            "-w",
            "Demo",
            "--name",
            "Sales agent",
        ])
        .ok_json();
    server
}

/// What `fabsh __complete -- WORDS` offers, one candidate a line.
fn offered(server: &Server, words: &[&str]) -> Vec<String> {
    let mut args = vec!["__complete", "--"];
    args.extend_from_slice(words);
    let run = server.fabsh(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout.lines().map(String::from).collect()
}

#[test]
fn tab_after_id_offers_every_matching_item_of_the_workspace() {
    let server = server_with_agent();
    let found = offered(&server, &["item", "show", "-w", "Demo", "--id", "Sal"]);
    assert_eq!(
        found,
        [
            "Sales Model",
            "Sales Report",
            "Sales agent",
            "SalesLakehouse"
        ],
    );
    // A data-agent command offers data agents only.
    let agents = offered(&server, &["data-agent", "show", "-w", "Demo", "--id", ""]);
    assert_eq!(agents, ["Sales agent"]);
    // Workspaces after -w, instead of file names.
    assert_eq!(offered(&server, &["item", "list", "-w", "De"]), ["Demo"]);
}

#[test]
fn tab_completes_the_workspace_item_form() {
    let server = Server::start();
    assert_eq!(offered(&server, &["item", "show", "De"]), ["Demo/"]);
    assert_eq!(
        offered(&server, &["item", "show", "Demo/We"]),
        ["Demo/Welcome"]
    );
    // Commands and flags need no connection.
    assert!(offered(&server, &["item", "sh"]).contains(&"show".to_string()));
    assert!(offered(&server, &["it"]).contains(&"item".to_string()));
}

#[test]
fn a_second_tab_within_a_minute_takes_names_from_the_cache_without_a_listing() {
    let server = Server::start();
    let words = ["item", "show", "-w", "Demo", "--id", "W"];
    assert_eq!(offered(&server, &words), ["Welcome"]);
    let listings = |server: &Server| {
        server
            .request_paths()
            .iter()
            .filter(|path| path.ends_with("/items") || path.ends_with("/workspaces"))
            .count()
    };
    let before = listings(&server);
    assert!(before >= 1, "{:?}", server.request_paths());
    assert_eq!(offered(&server, &words), ["Welcome"]);
    assert_eq!(listings(&server), before, "{:?}", server.request_paths());
}

/// The bash script, sourced in bash, answers a Tab through `fabsh __complete`.
#[test]
fn the_bash_script_completes_names_through_the_hidden_command() {
    let server = Server::start();
    let script = server.fabsh(&["completions", "bash"]);
    assert_eq!(script.code, 0, "{}", script.stderr);
    assert!(script.stdout.contains("__complete"), "{}", script.stdout);
    let env = server.command(&[]);
    let mut bash = Command::new("bash");
    bash.env_clear();
    for (key, value) in env.get_envs() {
        if let Some(value) = value {
            bash.env(key, value);
        }
    }
    let program = env.get_program().to_string_lossy().into_owned();
    let output = bash
        .arg("-c")
        .arg(
            "eval \"$SCRIPT\"; COMP_WORDS=(\"$FABSH\" item show -w Demo --id Sales); \
             COMP_CWORD=6; _fabsh; printf '%s\\n' \"${COMPREPLY[@]}\"",
        )
        .env("SCRIPT", &script.stdout)
        .env("FABSH", program)
        .stdin(Stdio::null())
        .output()
        .expect("run bash");
    let lines: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(
        lines,
        ["Sales\\ Model", "Sales\\ Report", "SalesLakehouse"],
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for shell in ["zsh", "fish"] {
        let script = server.fabsh(&["completions", shell]);
        assert!(
            script.stdout.contains("__complete"),
            "{shell}: {}",
            script.stdout
        );
    }
}

/// A Tab against a service that takes the connection and never answers: the shell gets its
/// prompt back (no candidates) instead of hanging on the listing. The bound here is a minute,
/// far beyond the short wait a Tab gives a listing and far below the HTTP client's own
/// five-minute timeout, so only a Tab that waited on the listing fails it.
#[test]
fn a_tab_against_a_service_that_never_answers_gives_the_prompt_back() {
    let home = crate::support::Home::new();
    // Accepted by the kernel, never read or answered.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let endpoint = format!("http://{}/v1", silent.local_addr().expect("addr"));
    let mut tab = home.command(&[
        "__complete",
        "--",
        "item",
        "show",
        "-w",
        "Demo",
        "--id",
        "W",
    ]);
    tab.env("FABSH_ENDPOINT", &endpoint)
        .env("FABSH_TOKEN", "a-token")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = tab.spawn().expect("start fabsh");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let output = child.wait_with_output().expect("output");
    let status = status.expect("a Tab against a silent service never returned");
    assert!(status.success(), "{status:?}");
    assert!(output.stdout.is_empty(), "{:?}", output.stdout);
    drop(silent);
}

#[test]
fn with_local_names_come_from_the_local_store_without_starting_it() {
    let home = crate::support::Home::new();
    let complete = |words: &[&str]| {
        let mut args = vec!["__complete", "--", "--local"];
        args.extend_from_slice(words);
        let run = home.run(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout.lines().map(String::from).collect::<Vec<_>>()
    };
    // No store yet: no names, and none is made for a Tab.
    assert!(complete(&["item", "show", "-w", ""]).is_empty());
    let store = home.dir.path().join("data/fabsh/local");
    assert!(!store.exists(), "a Tab made a store");
    home.run(&[
        "--local",
        "data-agent",
        "create",
        "-w",
        "Demo",
        "--name",
        "Sales agent",
    ])
    .ok_json();
    assert_eq!(complete(&["item", "show", "-w", "De"]), ["Demo"]);
    assert_eq!(
        complete(&["item", "show", "-w", "Demo", "--id", "Sal"]),
        [
            "Sales Model",
            "Sales Report",
            "Sales agent",
            "SalesLakehouse"
        ],
    );
    assert_eq!(
        complete(&["data-agent", "show", "-w", "Demo", "--id", ""]),
        ["Sales agent"]
    );
    assert_eq!(complete(&["item", "show", "Demo/We"]), ["Demo/Welcome"]);
}
