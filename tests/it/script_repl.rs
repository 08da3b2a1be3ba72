//! The REPL driven through a pipe: Rhai lines and command lines in one session, multi-line
//! input, `:` commands (`:load` among them), and a history file without the lines that
//! carry secrets.

use crate::support::Server;
use std::io::Write;
use std::process::Stdio;

const SESSION: &str = r#"let ws = "Demo";
fn names(w) {
    item::list(w, #{all: true}).map(|item| item.displayName)
}
names(ws).contains("Welcome")
item list -w Demo --type Notebook -o json -q "[].displayName"
:output json
[1, 2]
let token = "not-a-real-token";
:help item show
item show -w Demo
item::show(ws, "nope")
:load LOADED
loaded_twice(21)
print(`still here in ${ws}`)
:quit
print("after quit")
"#;

#[test]
fn a_piped_session_keeps_state_runs_command_lines_and_skips_secrets_in_history() {
    let server = Server::start();
    let loaded = server.home.dir.path().join("loaded.rhai");
    std::fs::write(
        &loaded,
        "print(\"loaded\");\nfn loaded_twice(x) { x * 2 }\n",
    )
    .expect("file");
    let session = SESSION.replace("LOADED", &loaded.to_string_lossy());
    let mut child = server
        .home
        .command(&[])
        .env("FABSH_ENDPOINT", &server.endpoint)
        .env("FABSH_TOKEN", &server.token)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the REPL");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(session.as_bytes())
        .expect("write the session");
    let output = child.wait_with_output().expect("REPL output");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "stderr:\n{stderr}");
    let expected_in_order = [
        "true\n",
        "[\n  \"Welcome\"\n]\n",
        "[\n  1,\n  2\n]\n",
        "item::show(workspace, id)\n",
        "loaded\n",
        "42\n",
        "still here in Demo\n",
    ];
    let mut rest: &str = &stdout;
    for expected in expected_in_order {
        let at = rest
            .find(expected)
            .unwrap_or_else(|| panic!("{expected:?} missing (in order) from:\n{stdout}"));
        rest = &rest[at + expected.len()..];
    }
    assert!(!stdout.contains("after quit"), ":quit ends the session");
    assert!(
        stderr.contains("--id <ID|NAME>"),
        "clap's usage error: {stderr}"
    );
    assert!(stderr.contains("no item named \"nope\""), "{stderr}");
    assert!(
        stderr.contains("<repl>:1:"),
        "errors show their place: {stderr}"
    );

    let history = std::fs::read_to_string(
        server
            .home
            .dir
            .path()
            .join("state")
            .join("fabsh")
            .join("history"),
    )
    .expect("history file");
    assert!(history.contains("item list -w Demo --type Notebook"));
    assert!(history.contains("names(ws).contains"));
    assert!(!history.contains("not-a-real-token"), "{history}");
}

#[test]
fn no_command_and_repl_start_the_same_repl() {
    let server = Server::start();
    for args in [&[][..], &["repl"][..]] {
        let mut child = server
            .home
            .command(args)
            .env("FABSH_ENDPOINT", &server.endpoint)
            .env("FABSH_TOKEN", &server.token)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the REPL");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(b"40 + 2\n")
            .expect("write");
        let output = child.wait_with_output().expect("output");
        assert_eq!(output.status.code(), Some(0));
        assert_eq!(String::from_utf8_lossy(&output.stdout), "42\n");
    }
}
