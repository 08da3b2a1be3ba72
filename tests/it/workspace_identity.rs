//! Workspace identity: `POST /workspaces/{ws}/provisionIdentity` and `/deprovisionIdentity`
//! (swagger platform/swagger.json `Workspaces_ProvisionIdentity`,
//! `Workspaces_DeprovisionIdentity`: LROs, the caller an Admin of the workspace) and
//! `workspaceIdentity` on GET workspace, as
//! recordings/fabric-cli/mkdir__test_mkdir_managed_identity_success.yaml shows them: 202 with a
//! `null` body, a provision result of `{applicationId, servicePrincipalId}`, the same object on
//! the workspace until deprovisioned, and no result for deprovisioning.

use crate::support::{Server, http, principal_token};
use serde_json::Value;

fn call(server: &Server, token: &str, method: &str, path: &str) -> (u16, String) {
    let auth = format!("Bearer {token}");
    http(
        &server.origin(),
        method,
        &format!("/v1{path}"),
        None,
        &[("Authorization", auth.as_str())],
    )
}

fn demo(server: &Server) -> String {
    let id = server.fabsh(&["workspace", "show", "-w", server.demo.as_str(), "-q", "id"]);
    id.ok_json().as_str().expect("id").to_string()
}

/// GET workspace, as JSON.
fn workspace(server: &Server, ws: &str) -> Value {
    let (status, body) = call(server, &server.token, "GET", &format!("/workspaces/{ws}"));
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).expect("workspace")
}

/// The statuses the request log holds for POSTs to `path`.
fn logged_statuses(server: &Server, path: &str) -> Vec<u64> {
    server.requests()["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .filter(|r| r["method"] == "POST" && r["path"].as_str() == Some(path))
        .map(|r| r["status"].as_u64().expect("status"))
        .collect()
}

fn principals(server: &Server) -> Value {
    let dir = server.data_dir().to_string_lossy().into_owned();
    let run = server
        .home
        .run(&["local", "principal", "list", "--data-dir", &dir]);
    run.ok_json()
}

#[test]
fn a_provisioned_identity_is_a_service_principal_until_deprovisioned() {
    let server = Server::session(module_path!());
    let ws = demo(&server);
    assert!(workspace(&server, &ws).get("workspaceIdentity").is_none());

    let provision = format!("/workspaces/{ws}/provisionIdentity");
    let run = server.fabsh(&["api", "POST", &provision]);
    let identity = run.ok_json();
    let keys: Vec<&String> = identity.as_object().expect("object").keys().collect();
    assert_eq!(keys, ["applicationId", "servicePrincipalId"], "{identity}");
    for key in keys {
        let id = identity[key].as_str().expect(key);
        assert!(uuid::Uuid::parse_str(id).is_ok(), "{key}: {id}");
    }
    assert_eq!(logged_statuses(&server, &format!("/v1{provision}")), [202]);
    assert_eq!(workspace(&server, &ws)["workspaceIdentity"], identity);
    // Provisioning again answers the same identity (reference/fabric-rest.md §2.16).
    let again = server.fabsh(&["api", "POST", &provision]).ok_json();
    assert_eq!(again, identity);

    // A service principal of local Fabric, signing in as a managed identity by its app id.
    let listed = principals(&server);
    let entry = listed
        .as_array()
        .expect("principals")
        .iter()
        .find(|p| p["objectId"] == identity["servicePrincipalId"])
        .unwrap_or_else(|| panic!("the identity among {listed}"));
    assert_eq!(entry["type"], "ServicePrincipal");
    assert_eq!(entry["clientId"], identity["applicationId"]);
    assert_eq!(
        entry["displayName"],
        server.demo.as_str(),
        "named after its workspace"
    );
    let msi = format!(
        "/msi/token?api-version=2019-08-01&resource=https%3A%2F%2Fapi.fabric.microsoft.com&client_id={}",
        identity["applicationId"].as_str().unwrap()
    );
    let header = ("X-IDENTITY-HEADER", server.identity_header.as_str());
    let (status, token) = http(&server.origin(), "GET", &msi, None, &[header]);
    assert_eq!(status, 200, "{token}");

    let deprovision = format!("/workspaces/{ws}/deprovisionIdentity");
    let run = server.fabsh(&["api", "POST", &deprovision]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        logged_statuses(&server, &format!("/v1{deprovision}")),
        [202]
    );
    assert!(workspace(&server, &ws).get("workspaceIdentity").is_none());
    let listed = principals(&server);
    assert!(
        !listed
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["objectId"] == identity["servicePrincipalId"]),
        "{listed}"
    );
    let (status, body) = http(&server.origin(), "GET", &msi, None, &[header]);
    assert_ne!(
        status, 200,
        "a deprovisioned identity gets no token: {body}"
    );
}

#[test]
fn only_an_admin_provisions_or_deprovisions() {
    // Both swagger operations: "The caller must have an *admin* role in the workspace."
    let server = Server::session(module_path!());
    let ws = demo(&server);
    let member = principal_token(&server, "member", &server.demo, "Member");
    for op in ["provisionIdentity", "deprovisionIdentity"] {
        let (status, body) = call(&server, &member, "POST", &format!("/workspaces/{ws}/{op}"));
        assert_eq!(status, 403, "{op}: {body}");
        let error: Value = serde_json::from_str(&body).expect("error");
        assert_eq!(error["errorCode"], "InsufficientWorkspaceRole", "{body}");
    }
    assert!(workspace(&server, &ws).get("workspaceIdentity").is_none());
    let (status, body) = call(
        &server,
        &server.token,
        "POST",
        &format!("/workspaces/{}/provisionIdentity", uuid::Uuid::new_v4()),
    );
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("WorkspaceNotFound"), "{body}");
}
