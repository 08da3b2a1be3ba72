//! Errors of `POST /workspaces/{ws}/roleAssignments` (swagger platform/swagger.json
//! `Workspaces_AddWorkspaceRoleAssignment`) for principals the tenant does not have: 400
//! `PrincipalNotFound` as the service answered it in 2025-09 (tests/recordings/acls, MIT): the
//! workspace in `relatedResource`, the principal in a `moreDetails` entry of its own, in the
//! top-level shape of swagger `ErrorResponse` (tests/fixtures/fabric-rest-api-specs/common/
//! definitions.json). Swagger `PrincipalType` lists `Group` and
//! `ServicePrincipalProfile` besides users and service principals; a profile names its parent
//! in `servicePrincipalProfileDetails.parentPrincipal` (`ServicePrincipalProfilePrincipal`).

use crate::auth::add_app;
use crate::support::{Server, http};
use serde_json::{Value, json};
use std::path::Path;

fn swagger_definitions() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fabric-rest-api-specs/common/definitions.json");
    let text = std::fs::read_to_string(path).expect("common/definitions.json");
    serde_json::from_str::<Value>(&text).expect("JSON")["definitions"].clone()
}

/// The properties and required keys of a swagger definition, `allOf` parents included.
fn schema_of(definitions: &Value, name: &str) -> (Vec<String>, Vec<String>) {
    let definition = &definitions[name];
    let mut properties: Vec<String> = definition["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let mut required: Vec<String> = definition["required"]
        .as_array()
        .map(|r| r.iter().map(|k| k.as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    for parent in definition["allOf"].as_array().into_iter().flatten() {
        let reference = parent["$ref"].as_str().expect("$ref");
        let (more, also) = schema_of(definitions, reference.rsplit('/').next().unwrap());
        properties.extend(more);
        required.extend(also);
    }
    (properties, required)
}

/// Asserts that `value` has every required key of the definition and no other keys than its
/// properties.
fn conforms(definitions: &Value, name: &str, value: &Value) {
    let (properties, required) = schema_of(definitions, name);
    let object = value
        .as_object()
        .unwrap_or_else(|| panic!("{name}: {value}"));
    for key in &required {
        assert!(object.contains_key(key), "{name} requires {key}: {value}");
    }
    for key in object.keys() {
        assert!(properties.contains(key), "{name} has no {key}: {value}");
    }
}

fn add_role(server: &Server, ws_path: &str, principal: Value) -> (u16, Value) {
    add_role_body(
        server,
        ws_path,
        &json!({"principal": principal, "role": "Viewer"}),
    )
}

fn add_role_body(server: &Server, ws_path: &str, body: &Value) -> (u16, Value) {
    let auth = server.bearer();
    let body = body.to_string();
    let (status, text) = http(
        &server.origin(),
        "POST",
        ws_path,
        Some(&body),
        &[
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ],
    );
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// Asserts a 400 `PrincipalNotFound` about `id`, shaped as the service answers it (recorded
/// 2025-09, tests/recordings/acls): the workspace in `relatedResource`, the principal (type
/// `Principal`) in the one `moreDetails` entry, which carries nothing else.
fn assert_principal_not_found(answer: (u16, Value), ws_id: &str, id: &str) {
    let (status, error) = answer;
    assert_eq!(status, 400, "{error}");
    conforms(&swagger_definitions(), "ErrorResponse", &error);
    assert_eq!(error["errorCode"], "PrincipalNotFound", "{error}");
    assert_eq!(error["message"], "The provided principal was not found");
    assert!(error["requestId"].is_string(), "{error}");
    assert_eq!(
        error["relatedResource"],
        json!({"resourceId": ws_id, "resourceType": "Workspace"})
    );
    assert_eq!(
        error["moreDetails"],
        json!([{"relatedResource": {"resourceId": id, "resourceType": "Principal"}}])
    );
}

/// The Demo workspace's id, from a `/v1/workspaces/{id}/...` path.
fn workspace_of(path: &str) -> String {
    path.split('/')
        .nth(3)
        .expect("a workspace path")
        .to_string()
}

/// Every role-assignment POST of the recording, replayed on the Demo workspace: the same
/// status, error code, message and body keys, ids mapped to the replay's workspace.
#[test]
fn recorded_role_assignment_errors_are_answered_alike() {
    let server = Server::session(module_path!());
    let path = server.demo_path("/roleAssignments");
    let ws_id = workspace_of(&path);
    let recording =
        crate::replay::cassette("acls/test_acls_set_workspace_invalid_identity_failure.yaml");
    let mut replayed = 0;
    for interaction in recording.interactions {
        let request = &interaction.request;
        if request.method != "POST" || !request.uri.ends_with("/roleAssignments") {
            continue;
        }
        let recorded_ws = request.uri.split('/').nth(5).expect("workspace id");
        let body: Value =
            serde_json::from_str(request.body.as_deref().expect("a body")).expect("JSON");
        let (status, answer) = add_role_body(&server, &path, &body);
        let response = &interaction.response;
        let expected: Value = serde_json::from_str(
            &response
                .body
                .string
                .as_deref()
                .expect("a body")
                .replace(recorded_ws, &ws_id),
        )
        .expect("JSON");
        assert_eq!(status, response.status.code, "{body}: {answer}");
        for key in ["errorCode", "message", "relatedResource", "moreDetails"] {
            assert_eq!(answer[key], expected[key], "{key} for {body}: {answer}");
        }
        let keys = |v: &Value| {
            v.as_object()
                .map(|o| o.keys().cloned().collect::<std::collections::BTreeSet<_>>())
        };
        assert_eq!(keys(&answer), keys(&expected), "{answer}");
        replayed += 1;
    }
    assert_eq!(replayed, 4, "the recording's four requests");
}

#[test]
fn an_unknown_principal_of_any_type_is_principal_not_found() {
    let server = Server::session(module_path!());
    let path = server.demo_path("/roleAssignments");
    let ws = workspace_of(&path);
    for kind in ["User", "ServicePrincipal", "Group"] {
        let id = uuid::Uuid::new_v4().to_string();
        let answer = add_role(&server, &path, json!({"id": id, "type": kind}));
        assert_principal_not_found(answer, &ws, &id);
    }
    // A service principal named as a user is no user the tenant has.
    let app = add_app(&server, &["--name", "app"]);
    let app_id = app["objectId"].as_str().expect("objectId");
    let answer = add_role(&server, &path, json!({"id": app_id, "type": "User"}));
    assert_principal_not_found(answer, &ws, app_id);
    // Named as what it is, it gets the role.
    let (status, body) = add_role(
        &server,
        &path,
        json!({"id": app_id, "type": "ServicePrincipal"}),
    );
    assert_eq!(status, 201, "{body}");
}

#[test]
fn a_service_principal_profile_names_its_parent() {
    let server = Server::session(module_path!());
    let path = server.demo_path("/roleAssignments");
    let ws = workspace_of(&path);
    let profile = uuid::Uuid::new_v4().to_string();
    let (status, error) = add_role(
        &server,
        &path,
        json!({"id": profile, "type": "ServicePrincipalProfile"}),
    );
    assert_eq!(status, 400, "{error}");
    conforms(&swagger_definitions(), "ErrorResponse", &error);
    assert_eq!(
        error["errorCode"], "WorkspaceRoleNotAllowedForServicePrincipalProfile",
        "{error}"
    );

    let with_parent = |parent: &str| {
        json!({
            "id": profile,
            "type": "ServicePrincipalProfile",
            "servicePrincipalProfileDetails": {
                "parentPrincipal": {"id": parent, "type": "ServicePrincipal"}
            }
        })
    };
    let unknown_parent = uuid::Uuid::new_v4().to_string();
    let answer = add_role(&server, &path, with_parent(&unknown_parent));
    assert_principal_not_found(answer, &ws, &unknown_parent);
    // A real parent: the profile itself is then the principal not found.
    let app = add_app(&server, &["--name", "parent"]);
    let parent = app["objectId"].as_str().expect("objectId");
    let answer = add_role(&server, &path, with_parent(parent));
    assert_principal_not_found(answer, &ws, &profile);
}

/// Add Workspace Role Assignment's documented permissions: "The caller must have member or
/// higher role on the workspace. Members can add members or others with lower permissions."
/// Changing an assignment needs Admin (Update Workspace Role Assignment).
#[test]
fn a_member_may_give_member_or_lower_roles_but_not_admin() {
    let server = Server::session(module_path!());
    let path = server.demo_path("/roleAssignments");
    let (_, member) = crate::support::principal_with_token(
        &server,
        "Member app",
        &["--workspace", server.demo.as_str(), "--role", "Member"],
    );
    let (_, contributor) = crate::support::principal_with_token(
        &server,
        "Contributor app",
        &["--workspace", server.demo.as_str(), "--role", "Contributor"],
    );
    let give = |token: &str, name: &str, role: &str| {
        let (target, _) = crate::support::principal_with_token(&server, name, &[]);
        let body = json!({
            "principal": {"id": target["objectId"], "type": "ServicePrincipal"},
            "role": role,
        })
        .to_string();
        let bearer = format!("Bearer {token}");
        let (status, text) = http(
            &server.origin(),
            "POST",
            &path,
            Some(&body),
            &[
                ("Authorization", bearer.as_str()),
                ("Content-Type", "application/json"),
            ],
        );
        (
            status,
            serde_json::from_str::<Value>(&text).unwrap_or(Value::Null),
            target,
        )
    };
    for role in ["Viewer", "Contributor", "Member"] {
        let (status, answer, _) = give(&member, &format!("Given {role}"), role);
        assert_eq!(status, 201, "a Member gives {role}: {answer}");
        assert_eq!(answer["role"], role);
    }
    let (status, answer, _) = give(&member, "Given Admin", "Admin");
    assert_eq!(status, 403, "{answer}");
    assert_eq!(answer["errorCode"], "InsufficientWorkspaceRole", "{answer}");
    let (status, answer, _) = give(&contributor, "Given Viewer by a contributor", "Viewer");
    assert_eq!(status, 403, "{answer}");
    assert_eq!(answer["errorCode"], "InsufficientWorkspaceRole", "{answer}");

    // A Member may not change an existing assignment.
    let (_, _, target) = give(&server.token, "Changed later", "Viewer");
    let bearer = format!("Bearer {member}");
    let (status, text) = http(
        &server.origin(),
        "PATCH",
        &format!("{path}/{}", target["objectId"].as_str().expect("objectId")),
        Some(r#"{"role": "Contributor"}"#),
        &[
            ("Authorization", bearer.as_str()),
            ("Content-Type", "application/json"),
        ],
    );
    assert_eq!(status, 403, "{text}");
}
