//! Bad input the sweep cannot generate, because it takes a file's content or the command's
//! meaning to see: definitions with duplicate parts or a bad `.platform`, bulk-create items,
//! folders holding FIFOs, `--dir ""`, misspelt item types. Each is refused with exit 2
//! before anything is sent.

use crate::bad_input::assert_rejected;
use crate::support::Server;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::json;
use std::process::Stdio;

const WS: &str = "11111111-1111-1111-1111-111111111111";
const ITEM: &str = "22222222-2222-2222-2222-222222222222";

fn part(path: &str, text: &str) -> serde_json::Value {
    json!({"path": path, "payload": STANDARD.encode(text), "payloadType": "InlineBase64"})
}

#[test]
fn a_definition_update_definition_refuses_is_refused_by_create_too() {
    let server = Server::session(module_path!());
    let duplicate = json!({"parts": [
        part("notebook-content.py", "# one"),
        part("notebook-content.py", "# two"),
    ]})
    .to_string();
    // A .platform without metadata.type, displayName or logicalId.
    let bad_platform = json!({"parts": [
        part("notebook-content.py", "# one"),
        part(".platform", r#"{"metadata": {}}"#),
    ]})
    .to_string();
    for (definition, says) in [
        (&duplicate, "DuplicatePath"),
        (&bad_platform, "InvalidPlatform"),
    ] {
        let create = [
            "item",
            "create",
            "-w",
            WS,
            "--name",
            "n",
            "--type",
            "Notebook",
            "--definition",
            definition,
        ];
        assert_rejected(&server, &create, says);
        assert_rejected(&server, &create, "--definition");
        let update = [
            "item",
            "update-definition",
            "-w",
            WS,
            "--id",
            ITEM,
            "--yes",
            "--definition",
            definition,
        ];
        assert_rejected(&server, &update, says);
    }
}

#[test]
fn bulk_create_checks_every_item_as_create_would_before_any_lookup() {
    let server = Server::session(module_path!());
    let items = json!([
        {"displayName": "fine", "type": "Notebook"},
        {"displayName": "wordy", "type": "Notebook", "description": "x".repeat(257)},
        {"displayName": "typo", "type": "Notebok"},
        {"displayName": "", "type": "Notebook"},
        {"displayName": "dupes", "type": "Notebook", "definition": {"parts": [
            part("notebook-content.py", "# one"),
            part("notebook-content.py", "# two"),
        ]}},
    ])
    .to_string();
    let args = [
        "item",
        "bulk-create",
        "-w",
        server.demo.as_str(),
        "--content",
        &items,
    ];
    for says in [
        "--content: 4 of 5 items would be refused",
        "item 1 (wordy): --description is 257 characters; the limit is 256",
        "item 2 (typo): --type: \"Notebok\" is not an item type; did you mean Notebook?",
        "item 3 (): --name is empty",
        "item 4 (dupes): --definition: the definition has 1 error(s)",
    ] {
        assert_rejected(&server, &args, says);
    }
}

#[test]
fn a_folder_holding_a_fifo_or_a_socket_is_refused_without_opening_it() {
    let server = Server::session(module_path!());
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("notebook-content.py"), "# hi").expect("write");
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let folder = dir.path().to_string_lossy().into_owned();
    // Nothing writes to the FIFO: a command that opened it would wait forever.
    let validate = ["item", "validate-definition", "--dir", &folder];
    assert_rejected(&server, &validate, "pipe is not a regular file");
    let update = [
        "item",
        "update-definition",
        "-w",
        WS,
        "--id",
        ITEM,
        "--yes",
        "--dir",
        &folder,
    ];
    assert_rejected(&server, &update, "--dir:");

    std::fs::remove_file(&fifo).expect("remove");
    let _socket =
        std::os::unix::net::UnixListener::bind(dir.path().join("socket")).expect("socket");
    assert_rejected(&server, &validate, "socket is not a regular file");
}

#[test]
fn an_empty_dir_is_not_the_current_folder() {
    let server = Server::session(module_path!());
    let cwd = tempfile::tempdir().expect("cwd");
    std::fs::write(cwd.path().join("keep.txt"), "mine").expect("write");
    for args in [
        &[
            "item",
            "get-definition",
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
            "--dir",
            "",
        ][..],
        &["item", "validate-definition", "--dir", ""][..],
    ] {
        let before = server.request_count();
        let run = server
            .command(args)
            .current_dir(cwd.path())
            .stdin(Stdio::null())
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("--dir is empty"), "{stderr}");
        assert_eq!(server.request_count(), before, "{args:?} sent a request");
    }
    let names: Vec<_> = std::fs::read_dir(cwd.path())
        .expect("cwd")
        .map(|entry| entry.expect("entry").file_name())
        .collect();
    assert_eq!(names, ["keep.txt"], "nothing was written beside it");
}

#[test]
fn a_misspelt_item_type_is_refused_and_an_unknown_one_is_passed_on() {
    let server = Server::session(module_path!());
    for (args, says) in [
        (
            &[
                "item", "create", "-w", WS, "--name", "n", "--type", "Notebok",
            ][..],
            "--type: \"Notebok\" is not an item type; did you mean Notebook?",
        ),
        (
            &["item", "list", "-w", WS, "--type", "semantic model"][..],
            "did you mean SemanticModel?",
        ),
        (
            &[
                "item",
                "validate-definition",
                "--type",
                "Lakehose",
                "--definition",
                "{}",
            ][..],
            "did you mean Lakehouse?",
        ),
    ] {
        assert_rejected(&server, args, says);
    }
    // A type fabsh does not know may be one the service added: it is the service's to judge.
    let before = server.request_count();
    let run = server.fabsh(&[
        "item",
        "create",
        "-w",
        server.demo.as_str(),
        "--name",
        "n",
        "--type",
        "QuantumLedger",
    ]);
    assert_ne!(run.code, 2, "{}", run.stderr);
    let log = server.requests();
    let sent = log["requests"].as_array().expect("requests");
    assert!(server.request_count() > before);
    assert!(
        sent.iter()
            .any(|r| r["method"] == "POST"
                && r["path"].as_str().is_some_and(|p| p.ends_with("/items"))),
        "the create was sent: {log}"
    );
}
