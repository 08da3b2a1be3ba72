//! A workspace's restorable deleted SQL databases
//! (`GET …/sqlDatabases/restorableDeletedDatabases`), as the service's recording (vendored
//! under tests/fixtures/fabric-cli-recordings, 2026-07-01) lists them.

use crate::agreement_routes::{keys, recorded_interaction};
use crate::agreement_shared_names::created_id;
use crate::service_bodies::{call, get_json};
use crate::support::Server;
use serde_json::Value;

const RECORDING: &str = "mkdir__test_mkdir_sqldatabase_restore_and_restore_deleted_with_creation_payload_success__restorable.yaml";

/// Checks an entry's names and times have the shape the service gives them: the display name
/// `<name>-<id>`, the restore name `<display name>,<18-digit FILETIME>`, seven-digit `Z` times.
fn assert_named_as_the_service_names(entry: &Value, name: &str) {
    let shown = entry["displayName"].as_str().expect("displayName");
    let id = shown
        .strip_prefix(&format!("{name}-"))
        .unwrap_or_else(|| panic!("{shown} is not {name}-<id>"));
    assert_eq!(id.len(), 36, "{shown}");
    let properties = &entry["properties"];
    let restore = properties["restorableDeletedDatabaseName"]
        .as_str()
        .expect("restorableDeletedDatabaseName");
    let file_time = restore
        .strip_prefix(&format!("{shown},"))
        .unwrap_or_else(|| panic!("{restore}"));
    assert!(
        file_time.len() == 18 && file_time.bytes().all(|b| b.is_ascii_digit()),
        "{restore}"
    );
    for key in [
        "earliestRestorePoint",
        "latestRestorePoint",
        "deletionTimestamp",
    ] {
        let time = properties[key].as_str().expect("a time");
        let (seconds, fraction) = time.split_once('.').unwrap_or_else(|| panic!("{time}"));
        assert_eq!(seconds.len(), 19, "{time}");
        assert!(fraction.len() == 8 && fraction.ends_with('Z'), "{time}");
    }
    assert_eq!(
        properties["latestRestorePoint"],
        properties["deletionTimestamp"]
    );
}

#[test]
fn deleted_sql_databases_are_listed_as_recorded() {
    let create = recorded_interaction(RECORDING, 0);
    let delete = recorded_interaction(RECORDING, 1);
    let listed = recorded_interaction(RECORDING, 2);
    let theirs = listed.answer["value"].as_array().expect("a list").clone();
    // The recording's own entries pass the same checks; it deleted fabcli000002, then
    // fabcli000001, and lists the latest deleted first.
    assert_named_as_the_service_names(&theirs[0], "fabcli000001");
    assert_named_as_the_service_names(&theirs[1], "fabcli000002");

    let server = Server::session(module_path!());
    let workspace = server.demo_path("");
    let collection = format!("{workspace}/sqlDatabases");
    let mut made = Vec::new();
    for name in ["fabcli000001", "fabcli000002"] {
        let mut request = create.request.clone().expect("a create's body");
        request["displayName"] = name.into();
        let (status, head, answer) = call(&server, "POST", &collection, Some(&request));
        assert_eq!(u64::from(status), create.status, "{answer}");
        made.push(created_id(&server, status, &head, &answer));
    }
    for id in made.iter().rev() {
        let (status, _, answer) = call(&server, "DELETE", &format!("{workspace}/items/{id}"), None);
        assert_eq!(u64::from(status), delete.status, "{answer}");
    }
    let ours = get_json(&server, &format!("{collection}/restorableDeletedDatabases"));
    assert_eq!(keys(&ours), keys(&listed.answer), "{ours}");
    let ours = ours["value"].as_array().expect("a list");
    assert_eq!(ours.len(), theirs.len(), "{ours:?}");
    for (entry, (name, id)) in ours
        .iter()
        .zip(["fabcli000001", "fabcli000002"].iter().zip(&made))
    {
        assert_eq!(keys(entry), keys(&theirs[0]), "{entry}");
        assert_eq!(
            keys(&entry["properties"]),
            keys(&theirs[0]["properties"]),
            "{entry}"
        );
        assert_named_as_the_service_names(entry, name);
        assert_eq!(entry["displayName"], format!("{name}-{id}"));
    }
}
