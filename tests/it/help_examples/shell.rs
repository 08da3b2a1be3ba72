//! A command line run as a user's shell runs it: `sh -c "fabsh ..."` in a work directory,
//! with the test's fabsh first on PATH, HOME and the XDG dirs in one copy of the world, and
//! the variables a user would have set. Also the two ways a user ends a command that does
//! not end by itself: approving the device code it prints, and Ctrl-C.

use crate::support::{bin, home_env};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

/// A safety net, not a measurement: an example that hangs must fail the test, not hang it.
const GIVE_UP: Duration = Duration::from_secs(120);

/// How one command line ended.
#[derive(Debug)]
pub(super) struct Outcome {
    /// The exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    /// The outcome of a command line that could not even be run as planned.
    pub(super) fn broken(why: String, stdout: String, stderr: String) -> Outcome {
        Outcome {
            code: None,
            stdout,
            stderr: format!("{stderr}\n(test: {why})"),
        }
    }
}

/// Where and with what a command line runs.
pub(super) struct Shell {
    /// The home: HOME and the XDG dirs point inside it.
    pub root: PathBuf,
    /// The working directory, holding the files the examples name.
    pub work: PathBuf,
    /// Variables on top of the home's: the endpoint and token, the examples' ids.
    pub env: Vec<(String, String)>,
}

impl Shell {
    /// `sh -c "fabsh LINE"`, in its own process group so a hang can be ended whole.
    fn command(&self, line: &str) -> Command {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("fabsh {line}"))
            .current_dir(&self.work)
            .env_clear()
            .env("PATH", path_with_fabsh_first())
            .envs(home_env(&self.root))
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(lang) = std::env::var_os("LANG") {
            command.env("LANG", lang);
        }
        command
    }

    /// Runs the line to its end.
    pub(super) fn run(&self, line: &str) -> Outcome {
        let mut child = self.command(line).spawn().expect("start sh");
        let _deadline = Deadline::new(&child);
        let (stdout, stderr) = take_pipes(&mut child);
        finish(child, Drain::start(stdout), Drain::start(stderr), "", "")
    }

    /// Runs the line to its end with `input` on its stdin.
    pub(super) fn run_with_input(&self, line: &str, input: &str) -> Outcome {
        let mut child = self
            .command(line)
            .stdin(Stdio::piped())
            .spawn()
            .expect("start sh");
        let _deadline = Deadline::new(&child);
        let mut stdin = child.stdin.take().expect("stdin");
        let written = stdin.write_all(input.as_bytes());
        // Closing stdin ends the session.
        drop(stdin);
        let (stdout, stderr) = take_pipes(&mut child);
        let outcome = finish(child, Drain::start(stdout), Drain::start(stderr), "", "");
        match written {
            Ok(()) => outcome,
            Err(err) => Outcome::broken(
                format!("cannot write stdin: {err}"),
                outcome.stdout,
                outcome.stderr,
            ),
        }
    }

    /// Runs `line`, then `after` (which cleans up after it): the outcome of `line`, unless
    /// `after` failed.
    pub(super) fn run_then(&self, line: &str, after: &str) -> Outcome {
        let outcome = self.run(line);
        let cleanup = self.run(after);
        if outcome.code == Some(0) && cleanup.code != Some(0) {
            let why = format!("`fabsh {after}` failed: {}", cleanup.stderr);
            return Outcome::broken(why, outcome.stdout, outcome.stderr);
        }
        outcome
    }

    /// Runs `before` (which sets up what `line` needs), then `line`.
    pub(super) fn run_after(&self, before: &str, line: &str) -> Outcome {
        let setup = self.run(before);
        if setup.code != Some(0) {
            let why = format!("`fabsh {before}` failed: {}", setup.stderr);
            return Outcome::broken(why, setup.stdout, setup.stderr);
        }
        self.run(line)
    }

    /// Runs a `local serve` line: once it has printed its endpoint, stops it with Ctrl-C as
    /// a terminal would, which it must take as the normal way to end (exit 0).
    pub(super) fn run_server(&self, line: &str) -> Outcome {
        let mut child = self.command(line).spawn().expect("start sh");
        let _deadline = Deadline::new(&child);
        let (stdout, stderr) = take_pipes(&mut child);
        let stderr = Drain::start(stderr);
        let mut stdout = BufReader::new(stdout);
        let mut first = String::new();
        let _ = stdout.read_line(&mut first);
        // `local serve` prints its endpoint first, `mcp serve --http` its URL.
        if first.starts_with("export FABSH_ENDPOINT=") || first.starts_with("FABSH_MCP_URL=") {
            // A terminal sends Ctrl-C to the foreground job, fabsh; sh (which does not exec
            // its last command) waits and ends as fabsh does.
            if let Err(why) = interrupt_child_of(child.id()) {
                let _ = kill_group(child.id(), "KILL");
                let _ = child.wait();
                return Outcome::broken(why, first, stderr.text());
            }
        }
        finish(child, Drain::start(stdout), stderr, &first, "")
    }

    /// Runs an `auth login` line that signs in with a device code: the code it prints is
    /// approved from a second process with `fabsh local approve CODE`, as the user would
    /// with the page it names, and the sign-in then goes on to its end.
    pub(super) fn run_device_code_login(&self, line: &str) -> Outcome {
        let mut child = self.command(line).spawn().expect("start sh");
        let _deadline = Deadline::new(&child);
        let (stdout, stderr) = take_pipes(&mut child);
        let stdout = Drain::start(stdout);
        let mut stderr = BufReader::new(stderr);
        let mut prompt = String::new();
        let code = loop {
            let mut next = String::new();
            if stderr.read_line(&mut next).unwrap_or(0) == 0 {
                break None;
            }
            prompt.push_str(&next);
            if let Some((_, rest)) = next.split_once("enter the code ") {
                break rest.split_whitespace().next().map(str::to_string);
            }
        };
        let Some(code) = code else {
            let _ = child.wait();
            return Outcome::broken("no device code was printed".into(), stdout.text(), prompt);
        };
        let approved = self.run(&format!("local approve {code}"));
        if approved.code != Some(0) {
            let _ = kill_group(child.id(), "KILL");
            let _ = child.wait();
            let why = format!("local approve {code} failed: {}", approved.stderr);
            return Outcome::broken(why, stdout.text(), prompt);
        }
        finish(child, stdout, Drain::start(stderr), "", &prompt)
    }
}

/// PATH with the directory of the fabsh under test first, so `fabsh` in a line is it.
fn path_with_fabsh_first() -> std::ffi::OsString {
    let dir = Path::new(bin())
        .parent()
        .expect("the binary has a directory");
    let rest = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&rest));
    std::env::join_paths(dirs).expect("PATH")
}

fn take_pipes(child: &mut Child) -> (ChildStdout, ChildStderr) {
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    (stdout, stderr)
}

/// Waits for the line to end and collects what it printed after what was read already.
fn finish(
    mut child: Child,
    stdout: Drain,
    stderr: Drain,
    stdout_head: &str,
    stderr_head: &str,
) -> Outcome {
    let status = child.wait().expect("wait for sh");
    Outcome {
        code: status.code(),
        stdout: format!("{stdout_head}{}", stdout.text()),
        stderr: format!("{stderr_head}{}", stderr.text()),
    }
}

/// A pipe read to its end on a thread of its own, so a full pipe never blocks the child.
struct Drain(JoinHandle<String>);

impl Drain {
    fn start(mut pipe: impl Read + Send + 'static) -> Drain {
        Drain(std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        }))
    }

    fn text(self) -> String {
        self.0.join().unwrap_or_default()
    }
}

/// Kills the line's process group if it outlives [`GIVE_UP`]; dropping it calls that off.
struct Deadline(Option<mpsc::Sender<()>>);

impl Deadline {
    fn new(child: &Child) -> Deadline {
        let (done, wait) = mpsc::channel::<()>();
        let group = child.id();
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(GIVE_UP) {
                let _ = kill_group(group, "KILL");
            }
        });
        Deadline(Some(done))
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        if let Some(done) = self.0.take() {
            let _ = done.send(());
        }
    }
}

/// Sends `signal` to every process of the group `group` (the sh a line started leads it).
fn kill_group(group: u32, signal: &str) -> std::io::Result<()> {
    Command::new("kill")
        .args([format!("-{signal}"), "--".into(), format!("-{group}")])
        .status()
        .map(drop)
}

/// Sends SIGINT to the one child of process `parent`.
fn interrupt_child_of(parent: u32) -> Result<(), String> {
    let list = format!("/proc/{parent}/task/{parent}/children");
    let children = std::fs::read_to_string(&list).map_err(|err| format!("{list}: {err}"))?;
    let [child] = children.split_whitespace().collect::<Vec<_>>()[..] else {
        return Err(format!("expected one child of sh, found {children:?}"));
    };
    let status = Command::new("kill")
        .args(["-INT", child])
        .status()
        .map_err(|err| format!("kill: {err}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("kill -INT {child} failed"))
    }
}
