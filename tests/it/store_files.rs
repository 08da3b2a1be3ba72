//! Local Fabric's store is private to its user: it holds the key that signs every token and
//! the tables' data. Its directories are 0700, its files (the database, its WAL and shared
//! memory, each item's tables) 0600, and a store other users can read is refused at start
//! with the `chmod` that makes it private.

#![cfg(unix)]

use crate::support::{Home, Run, Server};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

const DB: &str = "local-fabric.sqlite3";

#[test]
fn the_store_is_created_private() {
    let server = Server::start();
    let dir = server.data_dir().to_path_buf();
    // A demo table file is written on first read, and a loaded table into its own file.
    let csv = server.home.dir.path().join("returns.csv");
    std::fs::write(&csv, "return_id,reason\n1,Damaged\n").expect("write");
    let loaded = server.fabsh(&[
        "local",
        "load-table",
        "-w",
        "Demo",
        "--lakehouse",
        "SalesLakehouse",
        "--table",
        "returns",
        "--file",
        &csv.to_string_lossy(),
    ]);
    assert_eq!(loaded.ok_json()["table"], "returns");
    assert_eq!(mode(&dir), 0o700, "the data dir");
    // The server holds the database open in WAL mode, so all three files exist now.
    for file in [DB.to_string(), format!("{DB}-wal"), format!("{DB}-shm")] {
        assert_eq!(mode(&dir.join(&file)), 0o600, "{file}");
    }
    let tables = dir.join("tables");
    assert_eq!(mode(&tables), 0o700, "the tables dir");
    let files: Vec<_> = std::fs::read_dir(&tables)
        .expect("tables dir")
        .map(|entry| entry.expect("entry").path())
        .collect();
    assert!(!files.is_empty(), "a table file was written");
    for file in files {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
}

/// Asserts a refusal names `path` and the `chmod` that makes the store private.
fn assert_refused(run: &Run, path: &Path, data_dir: &Path) {
    assert_eq!(run.code, 2, "a usage error: {}", run.stderr);
    assert!(
        run.stderr.contains(&path.display().to_string())
            && run.stderr.contains("lets other users read it"),
        "{}",
        run.stderr
    );
    let hint = format!(
        "hint: make it private with `chmod -R go-rwx {}`",
        data_dir.display()
    );
    assert!(run.stderr.contains(&hint), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "no token printed: {}", run.stdout);
}

/// `local serve` on `data_dir`, which is expected to be refused: a server that starts instead
/// is stopped after a while, and the run fails the test's assertions.
fn serve(home: &Home, data_dir: &Path) -> Run {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = home
        .command(&[
            "local",
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--data-dir",
            &data_dir.to_string_lossy(),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start local serve");
    let deadline = Instant::now() + Duration::from_secs(60);
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
    let mut stdout = String::new();
    let mut stderr = String::new();
    let _ = child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut stdout);
    let _ = child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr);
    Run {
        code,
        stdout,
        stderr,
    }
}

#[test]
fn a_store_others_can_read_is_refused() {
    let server = Server::start();
    let (home, dir) = server.stop();
    set_mode(&dir, 0o755);
    assert_refused(&serve(&home, &dir), &dir, &dir);
    set_mode(&dir, 0o700);
    let db = dir.join(DB);
    set_mode(&db, 0o644);
    assert_refused(&serve(&home, &dir), &db, &dir);
    // Working on the store directly is refused alike.
    let listed = home.run(&[
        "local",
        "principal",
        "list",
        "--data-dir",
        &dir.to_string_lossy(),
    ]);
    assert_refused(&listed, &db, &dir);
    // The hint's command is enough.
    let status = std::process::Command::new("chmod")
        .args(["-R", "go-rwx"])
        .arg(&dir)
        .status()
        .expect("chmod");
    assert!(status.success());
    let restarted = Server::on_data_dir(home, dir, &[]);
    restarted.fabsh(&["workspace", "list"]).ok_json();
}

#[test]
fn fabsh_local_refuses_a_default_store_others_can_read() {
    let home = Home::new();
    home.run(&["--local", "workspace", "list"]).ok_json();
    let dir = home.dir.path().join("data").join("fabsh").join("local");
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join(DB)), 0o600);
    set_mode(&dir, 0o750);
    assert_refused(&home.run(&["--local", "workspace", "list"]), &dir, &dir);
}

#[test]
fn a_detached_server_creates_its_store_private() {
    let home = Home::new();
    let dir = home.dir.path().join("detached");
    let data_dir = dir.to_string_lossy().into_owned();
    let started = home.run(&[
        "local",
        "serve",
        "--detach",
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        &data_dir,
    ]);
    assert_eq!(started.code, 0, "{}", started.stderr);
    let stopped = home.run(&["local", "stop", "--data-dir", &data_dir]);
    assert_eq!(stopped.code, 0, "{}", stopped.stderr);
    assert_eq!(mode(&dir), 0o700, "the data dir");
    assert_eq!(mode(&dir.join("serve.log")), 0o600, "the server's log");
    // A detached server on a store others can read is refused before it is started.
    set_mode(&dir, 0o755);
    let refused = home.run(&[
        "local",
        "serve",
        "--detach",
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        &data_dir,
    ]);
    assert_refused(&refused, &dir, &dir);
}
