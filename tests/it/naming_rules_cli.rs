//! fabsh refuses a name the service's rules refuse before sending it (issue 48; DESIGN §5: bad
//! input gets a clear error naming the flag and exit 2 before any request is sent). The names
//! are the ones naming_rules.rs shows local Fabric refusing, each against the rule that
//! refuses it there.

use crate::bad_input::assert_rejected;
use crate::support::Server;

const WS: &str = "11111111-1111-1111-1111-111111111111";
const ITEM: &str = "22222222-2222-2222-2222-222222222222";

#[test]
fn a_create_with_a_refused_name_sends_nothing() {
    let server = Server::session(module_path!());
    let long = "x".repeat(257);
    let create = |kind: &'static str, name: &'static str| {
        vec!["item", "create", "-w", WS, "--type", kind, "--name", name]
    };
    let cases: Vec<(Vec<&str>, &str)> = vec![
        // Learn's lakehouse rule; the name the service refused.
        (create("Lakehouse", "lh-demo"), "Lakehouse names hold only"),
        (create("Lakehouse", "Lake 0"), "' ' is not allowed"),
        // The swagger's AppBackend rules.
        (create("AppBackend", "tempdb"), "reserved AppBackend name"),
        (
            create("AppBackend", "a;b"),
            "AppBackend names may not hold ';'",
        ),
        // The swagger's eventhouse and KQL database rules.
        (
            create("Eventhouse", "with space"),
            "Eventhouse names hold only",
        ),
        (create("KQLDatabase", "a/b"), "KQLDatabase names hold only"),
        // The swagger's digital twin builder rule; Learn's SQL database rule.
        (
            create("DigitalTwinBuilder", "9lives"),
            "begin with a letter",
        ),
        (
            create("SQLDatabase", "db(1)"),
            "SQLDatabase names may not hold",
        ),
        (
            vec![
                "item", "create", "-w", WS, "--type", "Notebook", "--name", &long,
            ],
            "at most 256",
        ),
        (
            vec!["workspace", "create", "--name", "Admin monitoring"],
            "reserved workspace name",
        ),
        (
            vec!["workspace", "create", "--name", &long],
            "workspace names have at most 256",
        ),
        (
            vec!["folder", "create", "-w", WS, "--name", "Q3/Q4"],
            "folder names may not hold '/'",
        ),
        (
            vec!["folder", "create", "-w", WS, "--name", " Q3"],
            "may not begin or end with a space",
        ),
        (
            vec!["data-agent", "create", "-w", WS, "--name", &long],
            "at most 256",
        ),
        // A name too long for any type needs no look at the item's.
        (
            vec!["item", "update", "-w", WS, "--id", ITEM, "--name", &long],
            "at most 256",
        ),
        (
            vec![
                "data-agent",
                "update",
                "-w",
                WS,
                "--id",
                ITEM,
                "--name",
                &long,
            ],
            "at most 256",
        ),
    ];
    for (args, says) in cases {
        assert_rejected(&server, &args, says);
        let run = server.fabsh(&args);
        assert!(
            run.stderr.contains("--name"),
            "{args:?} names the flag:\n{}",
            run.stderr
        );
    }
    // A bulk create is checked item by item, nothing sent either.
    let items = r#"[{"displayName": "Ok_1", "type": "Lakehouse"}, {"displayName": "lh-demo", "type": "Lakehouse"}]"#;
    assert_rejected(
        &server,
        &["item", "bulk-create", "-w", WS, "--content", items],
        "item 1 (lh-demo): --name",
    );
}

#[test]
fn a_rename_some_types_refuse_is_checked_against_the_items_type() {
    let server = Server::session(module_path!());
    let lakehouse = server.create_demo_item("Renamed_lake", "Lakehouse");
    let notebook = server.create_demo_item("Renamed notebook", "Notebook");
    let before = server.request_count();
    let run = server.fabsh(&[
        "item",
        "update",
        "-w",
        &server.demo,
        "--id",
        &lakehouse,
        "--name",
        "lh-demo",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("--name") && run.stderr.contains("Lakehouse names hold only"),
        "{}",
        run.stderr
    );
    // The item was read to learn its type; nothing was changed.
    let log = server.requests();
    let methods: Vec<&str> = log["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .filter_map(|r| r["method"].as_str())
        .collect();
    assert!(!methods.contains(&"PATCH"), "{methods:?}");
    assert!(server.request_count() > before, "the item's type was read");
    // The same name suits a notebook, which has no such rule.
    let renamed = server
        .fabsh(&[
            "item",
            "update",
            "-w",
            &server.demo,
            "--id",
            &notebook,
            "--name",
            "lh-demo",
        ])
        .ok_json();
    assert_eq!(renamed["displayName"], "lh-demo");
}
