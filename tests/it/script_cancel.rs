//! Ctrl-C (SIGINT) stops a running script, whatever `try` blocks it is in, with exit 130;
//! in the REPL it cancels the running input and the session goes on.

use crate::support::Home;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A safety net, not a measurement: a broken build must fail, not hang the suite.
const GIVE_UP: Duration = Duration::from_secs(120);

fn interrupt(child: &Child) {
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
}

/// Reads stdout lines until `marker`, returning what was read.
fn read_until(reader: &mut impl BufRead, marker: &str) -> String {
    let mut seen = String::new();
    loop {
        let mut line = String::new();
        let read = reader.read_line(&mut line).expect("read stdout");
        assert!(read > 0, "stdout ended before {marker:?}: {seen}");
        seen.push_str(&line);
        if line.trim_end() == marker {
            return seen;
        }
    }
}

/// Waits for the child, killing it if it outlives [`GIVE_UP`].
fn wait(mut child: Child) -> (Option<i32>, String) {
    let (done, timeout) = mpsc::channel();
    let id = child.id();
    std::thread::spawn(move || {
        if timeout.recv_timeout(GIVE_UP).is_err() {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &id.to_string()])
                .status();
        }
    });
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_string(&mut stderr);
    }
    let status = child.wait().expect("wait");
    let _ = done.send(());
    (status.code(), stderr)
}

#[test]
fn ctrl_c_stops_a_script_and_try_cannot_catch_it() {
    let home = Home::new();
    let script = home.dir.path().join("spin.rhai");
    std::fs::write(
        &script,
        "print(\"started\");\ntry {\n    loop { }\n} catch {\n    print(\"caught\");\n}\nprint(\"after\");\n",
    )
    .expect("script");
    let mut child = home
        .command(&["run", &script.to_string_lossy()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    read_until(&mut stdout, "started");
    interrupt(&child);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("rest of stdout");
    let (code, stderr) = wait(child);
    assert_eq!(code, Some(130), "stderr:\n{stderr}");
    assert_eq!(rest, "", "nothing runs after Ctrl-C");
    assert!(stderr.contains("cancelled"), "{stderr}");
}

#[test]
fn ctrl_c_ends_a_sleep() {
    let home = Home::new();
    let mut child = home
        .command(&["-e", "print(\"started\"); sleep(600); print(\"woke\")"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    read_until(&mut stdout, "started");
    interrupt(&child);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("rest");
    let (code, _) = wait(child);
    assert_eq!(code, Some(130));
    assert_eq!(rest, "");
}

#[test]
fn ctrl_c_in_the_repl_cancels_the_input_and_the_session_goes_on() {
    let home = Home::new();
    let mut child = home
        .command(&["repl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    stdin
        .write_all(b"print(\"started\"); loop { }\n")
        .expect("write");
    read_until(&mut stdout, "started");
    interrupt(&child);
    stdin.write_all(b"print(\"after\")\n").expect("write");
    drop(stdin);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).expect("rest");
    let (code, stderr) = wait(child);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(rest, "after\n");
    assert!(stderr.contains("cancelled"), "{stderr}");
}
