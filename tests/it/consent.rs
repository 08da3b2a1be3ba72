//! Destruction needs consent: off a terminal a destructive command without --yes is refused
//! before anything is sent; at a terminal "n" is a refusal (exit 1), not a Ctrl-C; and a
//! workspace is never deleted because a profile names it as the default.

use crate::support::{Server, bin};
use std::io::Write;
use std::process::Stdio;

/// Methods and paths of the requests the server saw.
fn writes(server: &Server) -> Vec<String> {
    server.requests()["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .filter(|r| r["method"] != "GET")
        .map(|r| format!("{} {}", r["method"], r["path"]))
        .collect()
}

#[test]
fn off_a_terminal_a_delete_without_yes_is_refused_before_anything_is_sent() {
    let server = Server::session(module_path!());
    let before = writes(&server);
    let run = server.fabsh(&[
        "item",
        "delete",
        "-w",
        server.demo.as_str(),
        "--id",
        "Welcome",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--yes"), "{}", run.stderr);
    assert_eq!(writes(&server), before, "nothing was sent");
    let still = server.fabsh(&[
        "item",
        "exists",
        "-w",
        server.demo.as_str(),
        "--id",
        "Welcome",
    ]);
    assert_eq!(still.ok_json()["exists"], true);
}

#[test]
fn a_default_workspace_is_never_the_target_of_workspace_delete() {
    let server = Server::session(module_path!());
    let created = server.fabsh(&["workspace", "create", "--name", "Keep"]);
    assert_eq!(created.code, 0, "{}", created.stderr);
    let run = server.fabsh_env(
        &["workspace", "delete", "--yes"],
        &[("FABSH_WORKSPACE", "Keep")],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--id"), "{}", run.stderr);
    let listed = server.fabsh(&["workspace", "list", "-o", "json", "-q", "[].displayName"]);
    assert!(
        listed
            .ok_json()
            .as_array()
            .expect("names")
            .contains(&"Keep".into())
    );
}

#[test]
fn answering_no_at_the_prompt_exits_1_not_confirmed() {
    let server = Server::session(module_path!());
    // `script` gives fabsh a terminal, as a user's shell would; "n" is typed at the prompt.
    let line = format!("{} item delete -w {} --id Welcome", bin(), server.demo);
    let mut child = server
        .at_terminal(&line)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("script");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"n\n")
        .expect("answer");
    let output = child.wait_with_output().expect("wait");
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(shown.contains("Continue?"), "{shown}");
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("not confirmed"), "{shown}");
    let still = server.fabsh(&[
        "item",
        "exists",
        "-w",
        server.demo.as_str(),
        "--id",
        "Welcome",
    ]);
    assert_eq!(still.ok_json()["exists"], true);
}
