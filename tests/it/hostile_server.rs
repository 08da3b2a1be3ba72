//! Local Fabric's lifecycle and its tokens under hostile conditions (issues 26 and 27): one
//! data dir has one server, a repeated `serve --detach` hands out the live one's export
//! lines, `local stop` sends nothing secret to whatever holds a crashed server's port, the
//! managed-identity endpoints answer only this machine (judged by the socket, not `Host`),
//! and an empty folder made for the store is made private and used.

use crate::support::{Home, Run, Server, http};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const IMDS: &str = "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https%3A%2F%2Fapi.fabric.microsoft.com";

/// Runs `command` to its end, or kills it after `bound` (a server that starts where it should
/// have been refused would otherwise run for ever): the run, exit -1 when killed.
fn run_bounded(mut command: Command, bound: Duration) -> Run {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start fabsh");
    let deadline = Instant::now() + bound;
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code().unwrap_or(-1);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break -1;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (mut stdout, mut stderr) = (String::new(), String::new());
    let _ = child
        .stdout
        .take()
        .expect("out")
        .read_to_string(&mut stdout);
    let _ = child
        .stderr
        .take()
        .expect("err")
        .read_to_string(&mut stderr);
    Run {
        code,
        stdout,
        stderr,
    }
}

/// The value of `export NAME=value` in a server's output.
fn exported(stdout: &str, name: &str) -> String {
    let prefix = format!("export {name}=");
    stdout
        .lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {name} in {stdout}"))
        .to_string()
}

fn serve_record(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("serve.json")).expect("serve.json");
    serde_json::from_str(&text).expect("serve.json is JSON")
}

/// A program that takes over a port and remembers every request it is sent, answering each
/// with an empty 200: what may hold a crashed server's port.
struct Impostor {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
    done: Arc<AtomicBool>,
}

impl Impostor {
    fn on(port: u16) -> Impostor {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("take over the port");
        listener.set_nonblocking(true).expect("nonblocking");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let done = Arc::new(AtomicBool::new(false));
        let (log, stop) = (seen.clone(), done.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => log.lock().expect("log").push(answer(stream)),
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Impostor { port, seen, done }
    }

    fn requests(&self) -> Vec<String> {
        self.seen.lock().expect("log").clone()
    }
}

impl Drop for Impostor {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
    }
}

/// Reads a request's head (and what body came with it) and answers 200.
fn answer(mut stream: TcpStream) -> String {
    stream.set_nonblocking(false).expect("blocking");
    stream
        .set_read_timeout(Some(Duration::from_millis(500)))
        .expect("timeout");
    let mut request = Vec::new();
    let mut buffer = [0u8; 4096];
    while let Ok(n) = stream.read(&mut buffer) {
        if n == 0 {
            break;
        }
        request.extend_from_slice(&buffer[..n]);
        if request.windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
    }
    let _ =
        stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}");
    String::from_utf8_lossy(&request).into_owned()
}

fn port_of(endpoint: &str) -> u16 {
    endpoint
        .trim_end_matches("/v1")
        .rsplit(':')
        .next()
        .and_then(|port| port.parse().ok())
        .expect("port")
}

fn stop(home: &Home, dir: &Path) -> Run {
    home.run(&["local", "stop", "--data-dir", &dir.to_string_lossy()])
}

fn assert_sent_nothing_secret(impostor: &Impostor) {
    for request in impostor.requests() {
        let lower = request.to_ascii_lowercase();
        assert!(
            !lower.contains("authorization") && !lower.contains("bearer"),
            "a secret went to the impostor:\n{request}"
        );
    }
}

#[test]
fn local_stop_after_a_crash_sends_nothing_to_what_now_holds_the_port() {
    let server = Server::start();
    let port = port_of(&server.endpoint);
    // Killed outright: its record stays behind.
    let (home, dir) = server.stop();
    assert!(dir.join("serve.json").exists(), "the crash left no record");
    let impostor = Impostor::on(port);
    let run = stop(&home, &dir);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("is gone"), "{}", run.stderr);
    assert_sent_nothing_secret(&impostor);
    assert!(
        !dir.join("serve.json").exists(),
        "the stale record was kept"
    );
    assert_eq!(impostor.port, port);
}

#[test]
fn local_stop_checks_the_servers_identity_before_sending_the_token() {
    let server = Server::start();
    // The record names another port, held by an impostor; the pid is the real server's.
    let spare = TcpListener::bind("127.0.0.1:0").expect("spare port");
    let port = spare.local_addr().expect("addr").port();
    drop(spare);
    let impostor = Impostor::on(port);
    let mut record = serve_record(server.data_dir());
    record["endpoint"] = Value::String(format!("http://127.0.0.1:{port}/v1"));
    std::fs::write(server.data_dir().join("serve.json"), record.to_string()).expect("write");
    let run = stop(&server.home, server.data_dir());
    // A server holds the store, but not the recorded one: reported, and the record kept.
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("is not that server") && run.stderr.contains("left as it is"),
        "{}",
        run.stderr
    );
    assert_sent_nothing_secret(&impostor);
    assert_eq!(
        serve_record(server.data_dir()),
        record,
        "the record was changed"
    );
    // The real server was not stopped.
    server.fabsh(&["workspace", "list"]).ok_json();
    // A detached serve on the dir says the same at once, rather than wait for a record.
    let dir = server.data_dir().to_string_lossy().into_owned();
    let mut again = server
        .home
        .command(&["local", "serve", "--detach", "--data-dir", &dir]);
    again.env_remove("FABSH_ENDPOINT");
    let run = run_bounded(again, Duration::from_secs(8));
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("is not that server"), "{}", run.stderr);
    assert_sent_nothing_secret(&impostor);
}

#[test]
fn a_second_foreground_serve_names_the_running_server() {
    let server = Server::start();
    let pid = serve_record(server.data_dir())["pid"]
        .as_u64()
        .expect("pid");
    let dir = server.data_dir().to_string_lossy().into_owned();
    let second = server.home.command(&[
        "local",
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        &dir,
    ]);
    let run = run_bounded(second, Duration::from_secs(60));
    assert_ne!(run.code, 0, "a second server started: {}", run.stdout);
    assert_ne!(run.code, -1, "a second server kept running: {}", run.stdout);
    assert!(
        run.stderr.contains(&format!("pid {pid}")) && run.stderr.contains(&server.endpoint),
        "the refusal names neither the pid nor the endpoint: {}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "printed a token: {}", run.stdout);
    assert_eq!(serve_record(server.data_dir())["pid"].as_u64(), Some(pid));
}

/// Stops a detached server a test started, whatever the test's outcome.
struct Detached<'a> {
    home: &'a Home,
    dir: PathBuf,
}

impl Drop for Detached<'_> {
    fn drop(&mut self) {
        if self.dir.join("serve.json").exists() {
            let _ = stop(self.home, &self.dir);
        }
    }
}

#[test]
fn a_repeated_detached_serve_prints_the_live_servers_export_lines() {
    let home = Home::new();
    let dir = home.dir.path().join("fabric");
    let _cleanup = Detached {
        home: &home,
        dir: dir.clone(),
    };
    let data = dir.to_string_lossy().into_owned();
    let detach = || {
        let command = home.command(&[
            "local",
            "serve",
            "--detach",
            "--addr",
            "127.0.0.1:0",
            "--data-dir",
            &data,
        ]);
        run_bounded(command, Duration::from_secs(120))
    };
    let first = detach();
    assert_eq!(first.code, 0, "{}", first.stderr);
    let pid = serve_record(&dir)["pid"].as_u64().expect("pid");
    let second = detach();
    assert_eq!(second.code, 0, "{}", second.stderr);
    let endpoint = exported(&first.stdout, "FABSH_ENDPOINT");
    assert_eq!(exported(&second.stdout, "FABSH_ENDPOINT"), endpoint);
    assert_eq!(
        exported(&second.stdout, "IDENTITY_HEADER"),
        exported(&first.stdout, "IDENTITY_HEADER")
    );
    assert_eq!(
        serve_record(&dir)["pid"].as_u64(),
        Some(pid),
        "a second server"
    );
    // The token the second run printed works on the one server.
    let token = exported(&second.stdout, "FABSH_TOKEN");
    let listed = home.run_env(
        &["workspace", "list", "-q", "[].displayName"],
        &[("FABSH_ENDPOINT", &endpoint), ("FABSH_TOKEN", &token)],
    );
    assert!(listed.ok_json().to_string().contains("Demo"));
    let stopped = stop(&home, &dir);
    assert_eq!(stopped.code, 0, "{}", stopped.stderr);
    assert!(stopped.stderr.contains("stopped"), "{}", stopped.stderr);
    let origin = endpoint
        .trim_end_matches("/v1")
        .trim_start_matches("http://");
    assert!(
        TcpStream::connect(origin).is_err(),
        "a server still answers at {origin} after `local stop`"
    );
    let again = stop(&home, &dir);
    assert_eq!(again.code, 4, "{}", again.stderr);
}

#[cfg(unix)]
#[test]
fn an_empty_folder_made_for_the_store_is_made_private_and_used() {
    use std::os::unix::fs::PermissionsExt;
    let home = Home::new();
    let dir = home.dir.path().join("fabric");
    std::fs::create_dir(&dir).expect("mkdir");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let server = Server::on_data_dir(home, dir.clone(), &[]);
    server.fabsh(&["workspace", "list"]).ok_json();
    let mode = std::fs::metadata(&dir).expect("dir").permissions().mode() & 0o777;
    assert_eq!(mode, 0o700);
    // A folder with something in it that others can read is still refused.
    let shared = server.home.dir.path().join("shared");
    std::fs::create_dir(&shared).expect("mkdir");
    std::fs::write(shared.join("notes.txt"), "x").expect("write");
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let refused = server.home.command(&[
        "local",
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        &shared.to_string_lossy(),
    ]);
    let run = run_bounded(refused, Duration::from_secs(60));
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("lets other users read it"),
        "{}",
        run.stderr
    );
}

/// An address of this machine other than loopback (the one its default route leaves from),
/// found without sending anything: connecting a UDP socket only picks the source address.
fn outward_address() -> Option<std::net::IpAddr> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("192.0.2.1:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

#[test]
fn the_metadata_endpoint_answers_only_this_machine_whatever_host_a_caller_names() {
    let home = Home::new();
    let dir = home.dir.path().join("fabric");
    let data = dir.to_string_lossy().into_owned();
    let vm = home.run(&[
        "local",
        "principal",
        "add",
        "--name",
        "vm",
        "--vm-identity",
        "-w",
        "Demo",
        "--role",
        "Contributor",
        "--data-dir",
        &data,
    ]);
    vm.ok_json();
    let mut child = KilledOnDrop(
        home.command(&["local", "serve", "--addr", "0.0.0.0:0", "--data-dir", &data])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start local serve"),
    );
    let mut stdout = child.0.stdout.take().expect("stdout");
    let mut head = String::new();
    let mut byte = [0u8; 1];
    while head.lines().count() < 3 && stdout.read(&mut byte).expect("read") == 1 {
        head.push(byte[0] as char);
    }
    let endpoint = exported(&head, "FABSH_ENDPOINT");
    let port = port_of(&endpoint);
    let loopback = format!("http://127.0.0.1:{port}");
    let host = format!("127.0.0.1:{port}");
    let headers = [("Metadata", "true"), ("Host", host.as_str())];
    let (status, body) = http(&loopback, "GET", IMDS, None, &headers);
    assert_eq!(
        status, 200,
        "this machine gets the VM identity's token: {body}"
    );
    // Through a proxy, it is refused as the VM metadata service refuses it.
    let forwarded = [("Metadata", "true"), ("X-Forwarded-For", "203.0.113.7")];
    let (status, body) = http(&loopback, "GET", IMDS, None, &forwarded);
    assert_eq!(status, 403, "a forwarded request got a token: {body}");
    match outward_address() {
        Some(ip) => {
            // From this machine's outward address the peer is not loopback, as a caller from
            // another machine's is not; it names loopback in Host all the same.
            let outward = format!("http://{ip}:{port}");
            let (status, body) = http(&outward, "GET", IMDS, None, &headers);
            assert_eq!(status, 403, "a caller from afar got a token: {body}");
        }
        None => eprintln!("no address but loopback here: the peer check was not exercised"),
    }
    let stderr = child.stop();
    assert!(
        stderr.contains("warning:")
            && stderr.contains("0.0.0.0")
            && stderr.contains("beyond this machine"),
        "a bind beyond loopback says nothing: {stderr}"
    );
}

/// A server process that a failing assertion (a panic) does not leave running: it is killed
/// when this guard is dropped, whatever ends the test.
struct KilledOnDrop(std::process::Child);

impl KilledOnDrop {
    /// Kills the process and returns what it wrote to stderr.
    fn stop(&mut self) -> String {
        let _ = self.0.kill();
        let _ = self.0.wait();
        let mut stderr = String::new();
        if let Some(mut pipe) = self.0.stderr.take() {
            let _ = pipe.read_to_string(&mut stderr);
        }
        stderr
    }
}

impl Drop for KilledOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_local_run_beside_local_serve_goes_through_that_server() {
    // `local serve` on the data dir `--local` uses by default in this home.
    let home = Home::new();
    let dir = crate::support::home_env(home.dir.path())
        .into_iter()
        .find(|(var, _)| *var == "XDG_DATA_HOME")
        .map(|(_, data)| data.join("fabsh").join("local"))
        .expect("XDG_DATA_HOME");
    let server = Server::on_data_dir(home, dir.clone(), &[]);
    let before = server.request_count();
    let run = server
        .home
        .run(&["--local", "workspace", "create", "--name", "Written once"]);
    assert_eq!(run.code, 0, "{run:?}");
    // The running server took the request (no second server wrote its store)...
    let seen = server.requests()["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .any(|r| r["method"] == "POST" && r["path"] == "/v1/workspaces");
    assert!(
        seen && server.request_count() > before,
        "not through the server"
    );
    // ...and answers with what was written.
    let (_, listed) = server.get_json("/v1/workspaces");
    assert!(listed.to_string().contains("Written once"), "{listed}");
}

#[test]
fn concurrent_local_runs_on_one_store_take_turns_and_all_succeed() {
    let home = Home::new();
    // Started together, before any is waited for.
    let children: Vec<_> = (0..3)
        .map(|n| {
            home.command(&[
                "--local",
                "workspace",
                "create",
                "--name",
                &format!("Turn {n}"),
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let listed = home
        .run(&["--local", "workspace", "list", "-q", "[].displayName"])
        .ok_json();
    for n in 0..3 {
        assert!(
            listed.to_string().contains(&format!("Turn {n}")),
            "{listed}"
        );
    }
}
