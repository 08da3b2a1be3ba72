//! Routes local Fabric answers as the service does (issue 28, "What a deployment library
//! meets"): paths with a trailing slash, which fabric-cicd 1.4.0 sends
//! (`GET /v1/workspaces/{id}/environments/`, answered 200 by the service).

use crate::support::{http, shared};
use serde_json::Value;

#[test]
fn a_trailing_slash_is_answered_as_the_route_without_it() {
    let server = shared(module_path!());
    let auth = server.bearer();
    let headers = [("Authorization", auth.as_str())];
    for rest in ["/environments", "/items", "/lakehouses", "/folders", ""] {
        let path = server.demo_path(rest);
        let (plain_status, plain) = http(&server.origin(), "GET", &path, None, &headers);
        let (slash_status, slashed) =
            http(&server.origin(), "GET", &format!("{path}/"), None, &headers);
        assert_eq!(plain_status, 200, "{path}: {plain}");
        assert_eq!(slash_status, 200, "{path}/: {slashed}");
        let plain: Value = serde_json::from_str(&plain).expect("JSON");
        let slashed: Value = serde_json::from_str(&slashed).expect("JSON");
        assert_eq!(plain, slashed, "{path}");
    }
    // With a query, and on a write.
    let path = server.demo_path("/items/?type=Lakehouse");
    let (status, body) = http(&server.origin(), "GET", &path, None, &headers);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"Lakehouse\""), "{body}");
    let create = server.demo_path("/notebooks/");
    let auth_json = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    let (status, body) = http(
        &server.origin(),
        "POST",
        &create,
        Some(r#"{"displayName": "Made through a slash"}"#),
        &auth_json,
    );
    assert_eq!(status, 201, "{body}");
}
