//! `fabsh local reset`: `--local` keeps its state in the user data dir between runs; reset
//! removes it (with consent), so the next run starts from the seeded demo data again, and
//! refuses while a server runs on the store.

use crate::support::{Home, Server};

fn workspace_names(home: &Home) -> Vec<String> {
    let listed = home.run(&["--local", "workspace", "list", "-q", "[].displayName"]);
    serde_json::from_value(listed.ok_json()).expect("names")
}

#[test]
fn reset_starts_local_fabric_over_from_the_demo_data() {
    let home = Home::new();
    let created = home.run(&["--local", "workspace", "create", "--name", "Scratch"]);
    assert_eq!(created.code, 0, "{}", created.stderr);
    // The state persists between runs, in the user data dir.
    assert_eq!(workspace_names(&home), ["Demo", "Scratch"]);
    let store = home
        .dir
        .path()
        .join("data/fabsh/local/local-fabric.sqlite3");
    assert!(store.is_file(), "{}", store.display());

    // Off a terminal, a reset needs consent; nothing is removed without it.
    let refused = home.run(&["local", "reset"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("--yes"), "{}", refused.stderr);
    assert!(store.is_file());

    let reset = home.run(&["local", "reset", "--yes"]);
    assert_eq!(reset.code, 0, "{}", reset.stderr);
    assert_eq!(reset.stdout, "", "nothing on stdout");
    assert!(
        reset.stderr.contains("data/fabsh/local"),
        "{}",
        reset.stderr
    );
    assert!(!store.exists());
    // The seed has one workspace, Demo.
    assert_eq!(workspace_names(&home), ["Demo"]);

    assert_eq!(home.run(&["local", "reset", "--yes"]).code, 0);
    let again = home.run(&["local", "reset", "--yes"]);
    assert_eq!(again.code, 0);
    assert!(
        again.stderr.contains("no local Fabric state"),
        "{}",
        again.stderr
    );
}

#[test]
fn reset_refuses_while_a_server_runs_on_the_store() {
    let server = Server::start();
    let dir = server.data_dir().to_string_lossy().into_owned();
    let refused = server.fabsh(&["local", "reset", "--yes", "--data-dir", &dir]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("local stop"), "{}", refused.stderr);
    // The server still has its data.
    let listed = server.fabsh(&["workspace", "list", "-q", "[].displayName"]);
    assert_eq!(listed.ok_json(), serde_json::json!(["Demo"]));
}
