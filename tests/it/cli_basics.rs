//! The command line itself: version, help, docs snapshot, completions, --local, and
//! `local serve` stopping on Ctrl-C.

use crate::support::{Home, Server};
use std::path::Path;

#[test]
fn version_and_help() {
    let home = Home::new();
    let version = home.run(&["--version"]);
    assert_eq!(version.code, 0);
    assert_eq!(
        version.stdout.trim(),
        format!("fabsh {}", env!("CARGO_PKG_VERSION"))
    );
    let help = home.run(&["item", "create", "--help"]);
    assert_eq!(help.code, 0);
    assert!(
        help.stdout.contains("Examples:") && help.stdout.contains("--dry-run"),
        "{}",
        help.stdout
    );
    let bad = home.run(&["item", "frobnicate"]);
    assert_eq!(bad.code, 2);
}

/// `fabsh docs` is compared with `tests/snapshots/docs.md`; set `FABSH_UPDATE_SNAPSHOTS=1`
/// to rewrite the snapshot after an intended change.
#[test]
fn docs_match_the_snapshot() {
    let home = Home::new();
    let docs = home.run(&["docs"]);
    assert_eq!(docs.code, 0, "{}", docs.stderr);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/docs.md");
    if std::env::var_os("FABSH_UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
        std::fs::write(&path, &docs.stdout).expect("write snapshot");
    }
    let expected = std::fs::read_to_string(&path)
        .expect("tests/snapshots/docs.md (run with FABSH_UPDATE_SNAPSHOTS=1)");
    assert_eq!(
        docs.stdout, expected,
        "docs changed; review and update the snapshot"
    );
    assert!(docs.stdout.contains("### `fabsh item list`"));
}

#[test]
fn docs_prints_one_command_or_one_group() {
    let home = Home::new();
    let one = home.run(&["docs", "item", "create"]);
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert!(
        one.stdout.starts_with("### `fabsh item create`"),
        "{}",
        one.stdout
    );
    // The flags the spec gives `item create`, and no other command.
    for flag in ["--workspace", "--name", "--type", "--definition"] {
        assert!(one.stdout.contains(flag), "{flag}: {}", one.stdout);
    }
    assert_eq!(one.stdout.matches("### `fabsh").count(), 1);
    let nested = home.run(&["docs", "local", "principal", "add"]);
    assert!(nested.stdout.starts_with("### `fabsh local principal add`"));
    let group = home.run(&["docs", "folder"]);
    assert!(group.stdout.starts_with("## folder"), "{}", group.stdout);
    assert!(group.stdout.contains("### `fabsh folder create`"));
    assert!(!group.stdout.contains("### `fabsh item"));
    let unknown = home.run(&["docs", "item", "craete"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stderr.contains("no command `item craete`"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn completions_for_every_shell() {
    let home = Home::new();
    for shell in ["powershell", "elvish"] {
        let run = home.run(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        assert!(
            run.stdout.contains("item") && run.stdout.contains("hard-delete"),
            "{shell} completions name commands and flags"
        );
    }
    // bash, zsh and fish ask `fabsh __complete` on each Tab, which names them.
    for shell in ["bash", "zsh", "fish"] {
        let run = home.run(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        assert!(run.stdout.contains("__complete"), "{shell}: {}", run.stdout);
    }
    let groups = home.run(&["__complete", "--", "it"]);
    assert_eq!(groups.stdout, "item\n");
    let flags = home.run(&["__complete", "--", "item", "delete", "--hard"]);
    assert_eq!(flags.stdout, "--hard-delete\n");
}

#[test]
fn local_starts_in_process_with_the_demo_workspace() {
    let home = Home::new();
    let run = home.run(&[
        "--local",
        "item",
        "list",
        "-w",
        "Demo",
        "-q",
        "[].displayName",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let names = run.json();
    assert!(
        names
            .as_array()
            .expect("array")
            .iter()
            .any(|n| n == "Welcome"),
        "{names}"
    );
    // The state lives in the user's data dir and persists between runs.
    let created = home.run(&[
        "--local", "item", "create", "-w", "Demo", "--name", "Kept", "--type", "Notebook",
    ]);
    assert_eq!(created.code, 0, "{}", created.stderr);
    let again = home.run(&[
        "--local", "item", "exists", "-w", "Demo", "--id", "Kept", "-q", "exists",
    ]);
    assert_eq!(again.stdout.trim(), "true", "{}", again.stderr);
}

#[test]
fn local_serve_stops_cleanly_on_ctrl_c_as_soon_as_it_has_printed_its_endpoint() {
    // The endpoint lines tell a reader the server is up; a Ctrl-C sent the moment they arrive
    // must take the same clean way out as a later one (exit 0), not the signal's default.
    let server = Server::start();
    let (home, data_dir) = server.interrupt();
    let again = Server::on_data_dir(home, data_dir, &[]);
    let shown = again.fabsh(&["workspace", "show", "-w", "Demo", "-q", "displayName"]);
    assert_eq!(shown.ok_json(), "Demo");
}
