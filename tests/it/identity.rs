//! Item identity end to end against local Fabric: assigning it, and reading it back.

use crate::support::{Server, http};

#[test]
fn an_assigned_identity_shows_with_include_default_identity() {
    let server = Server::session(module_path!());
    let lakehouse = server.demo_lakehouse()["id"]
        .as_str()
        .expect("id")
        .to_string();
    let plain = server
        .fabsh(&[
            "item",
            "show",
            "-w",
            server.demo.as_str(),
            "--id",
            &lakehouse,
        ])
        .ok_json();
    assert!(plain.get("defaultIdentity").is_none());
    let assigned = server
        .fabsh(&[
            "item",
            "assign-identity",
            "-w",
            server.demo.as_str(),
            "--id",
            &lakehouse,
        ])
        .ok_json();
    let statuses = assigned["assignmentStatus"].as_array().expect("statuses");
    assert_eq!(
        statuses.len(),
        2,
        "the SQL endpoint is covered too: {assigned}"
    );
    assert!(statuses.iter().all(|s| s["status"] == "Succeeded"));
    assert_eq!(statuses[1]["parentItemId"], lakehouse.as_str());
    let shown = server
        .fabsh(&[
            "item",
            "show",
            "-w",
            server.demo.as_str(),
            "--id",
            &lakehouse,
            "--include",
            "DefaultIdentity",
        ])
        .ok_json();
    assert_eq!(shown["defaultIdentity"]["displayName"], "Local Admin");
    assert_eq!(shown["defaultIdentity"]["type"], "User");

    let path = server.demo_path(&format!("/items/{lakehouse}/identities/default/assign"));
    let auth = server.bearer();
    let (status, body) = http(
        &server.origin(),
        "POST",
        &path,
        Some(r#"{"assignmentType":"Caller"}"#),
        &[
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ],
    );
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("BetaParameterRequired"), "{body}");
}
