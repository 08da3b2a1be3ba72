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
    let server = Server::session(module_path!());
    let loaded = server.home.dir.path().join("loaded.rhai");
    std::fs::write(
        &loaded,
        "print(\"loaded\");\nfn loaded_twice(x) { x * 2 }\n",
    )
    .expect("file");
    let session = SESSION.replace("LOADED", &loaded.to_string_lossy());
    let output = piped_repl(&server, &[], &session);
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
    let server = Server::session(module_path!());
    for args in [&[][..], &["repl"][..]] {
        let output = piped_repl(&server, args, "40 + 2\n");
        assert_eq!(output.status.code(), Some(0));
        assert_eq!(String::from_utf8_lossy(&output.stdout), "42\n");
    }
}

/// Runs fabsh with `args` (none, or `repl`) on `server`, `input` piped in.
fn piped_repl(server: &Server, args: &[&str], input: &str) -> std::process::Output {
    let mut child = server
        .command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the REPL");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    child.wait_with_output().expect("output")
}

/// Runs `input` through a REPL on `server`; stdout and stderr.
fn repl_session(server: &Server, input: &str) -> (String, String) {
    let output = piped_repl(server, &["repl"], input);
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn near_misses_are_answered_with_what_was_meant() {
    let server = Server::session(module_path!());
    let (_, stderr) = repl_session(
        &server,
        "items list -w Demo\nworkspce list\nitem::shw(\"Demo\", \"Welcome\")\nitme list -w Demo\n",
    );
    assert!(
        stderr.contains("did you mean `item list -w Demo`?"),
        "{stderr}"
    );
    // Two letters swapped is one slip, as `itme`.
    assert!(stderr.contains("no command group `itme`"), "{stderr}");
    assert!(
        stderr.contains("did you mean `workspace list`?"),
        "{stderr}"
    );
    assert!(stderr.contains("did you mean item::show?"), "{stderr}");
    assert!(!stderr.contains("syntax error"), "{stderr}");
    assert_eq!(server.request_count(), 0, "nothing was sent");
    // Off the REPL, an unknown function is a usage error.
    let run = server.fabsh(&["-e", "item::shw(\"Demo\", \"Welcome\")"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean item::show?"),
        "{}",
        run.stderr
    );
}

#[test]
fn help_exit_and_quit_work_as_words_unless_a_variable_has_the_name() {
    let server = Server::session(module_path!());
    let (stdout, stderr) = repl_session(
        &server,
        "help\nhelp item list\nlet quit = 41\nquit + 1\nexit\nprint(\"after exit\")\n",
    );
    assert!(stdout.contains("REPL commands:"), "{stdout}");
    assert!(stdout.contains("Usage: fabsh item list"), "{stdout}");
    assert!(
        stdout.contains("42"),
        "a variable named quit is still read: {stdout}"
    );
    assert!(
        !stdout.contains("after exit"),
        "exit did not leave: {stdout}"
    );
    assert!(!stderr.contains("Variable not found"), "{stderr}");
}

#[test]
fn args_is_there_in_the_repl_and_in_inline_code_so_scripts_load() {
    let server = Server::session(module_path!());
    let dir = tempfile::tempdir().expect("dir");
    let script = dir.path().join("greet.rhai");
    std::fs::write(
        &script,
        "let who = if ARGS.len() > 0 { ARGS[0] } else { \"nobody\" };\nprint(`hello ${who}`);\n",
    )
    .expect("write");
    let (stdout, stderr) = repl_session(
        &server,
        &format!(":load {}\nARGS.len()\n", script.display()),
    );
    assert_eq!(stdout, "hello nobody\n0\n", "{stderr}");
    let inline = server.fabsh(&["-e", "ARGS"]);
    assert_eq!(inline.ok_json(), serde_json::json!([]));
    let ran = server.fabsh(&["run", &script.to_string_lossy(), "--", "Ada"]);
    assert_eq!(ran.stdout, "hello Ada\n", "{}", ran.stderr);
}

#[test]
fn a_command_that_takes_over_the_terminal_is_refused_in_the_repl_with_the_way_that_works() {
    let server = Server::session(module_path!());
    let (_, stderr) = repl_session(&server, "mcp serve\nrun x.rhai\n");
    let lines: Vec<&str> = stderr.lines().collect();
    let at = |command: &str| {
        lines
            .iter()
            .position(|line| line.contains(&format!("`{command}` takes over the terminal")))
            .unwrap_or_else(|| panic!("{command} refused:\n{stderr}"))
    };
    let (mcp, run) = (at("mcp serve"), at("run"));
    // A script can be run in the REPL after all; a server cannot.
    assert!(lines[run + 1].contains(":load FILE"), "{stderr}");
    assert!(!lines[mcp + 1].contains(":load"), "{stderr}");
}
