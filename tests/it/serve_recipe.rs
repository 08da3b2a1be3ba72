//! The README's server recipe: `eval "$(fabsh local serve --detach)"` returns once the
//! server listens and points the shell at it; `fabsh local stop` stops it.

use crate::support::{Home, bin};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs a shell line in `home` with fabsh on PATH; returns (exit code, stdout, stderr).
fn shell(home: &Home, line: &str) -> (i32, String, String) {
    let dir = std::path::Path::new(bin()).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new("sh")
        .args(["-c", line])
        .env_clear()
        .env("PATH", path)
        .env("HOME", home.dir.path())
        .env("XDG_DATA_HOME", home.dir.path().join("data"))
        .env("XDG_STATE_HOME", home.dir.path().join("state"))
        .env("XDG_CONFIG_HOME", home.dir.path().join("config"))
        .current_dir(home.dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("sh");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_detached_server_is_reached_through_eval_and_stopped_with_local_stop() {
    let home = Home::new();
    let started = Instant::now();
    let (code, out, err) = shell(
        &home,
        r#"eval "$(fabsh local serve --detach --data-dir ./fabric)" && fabsh workspace list -o json -q "[].displayName" && echo "$FABSH_ENDPOINT""#,
    );
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    // The command substitution returned: the server runs detached, not in the foreground.
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(out.contains("\"Demo\""), "{out}");
    let endpoint = out.lines().last().expect("endpoint line").to_string();
    let address = endpoint
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_string();
    assert!(
        TcpStream::connect(&address).is_ok(),
        "nothing listens at {address}"
    );

    let (code, _, err) = shell(&home, "fabsh local stop --data-dir ./fabric");
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("stopped"), "{err}");
    assert!(
        TcpStream::connect(&address).is_err(),
        "{address} still answers"
    );

    let (code, _, err) = shell(&home, "fabsh local stop --data-dir ./fabric");
    assert_ne!(code, 0, "a second stop has nothing to stop: {err}");

    // The endpoint still exported, as after `local stop` in the same shell: one attempt
    // (a refused connection on loopback is not retried), and the error says why.
    let (code, _, err) = shell(
        &home,
        &format!("FABSH_ENDPOINT={endpoint} FABSH_TOKEN=t fabsh -v workspace list"),
    );
    assert_ne!(code, 0, "{err}");
    assert_eq!(err.matches("< no response").count(), 1, "{err}");
    assert!(
        err.contains("a local Fabric server there is not running"),
        "{err}"
    );
}
