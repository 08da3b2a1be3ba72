//! External data shares and their invitations end to end against local Fabric: the provider's
//! round trip, accepting from the second tenant, accepting in the provider's own tenant
//! refused, and the per-API quota.

use crate::support::{Run, Server, http, principal_with_token};
use serde_json::Value;

const GUID: &str = "6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

fn text(value: &Value, key: &str) -> String {
    value[key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key} in {value}"))
        .to_string()
}

/// The id of the Demo workspace's lakehouse.
fn lakehouse(server: &Server) -> String {
    text(&server.demo_lakehouse(), "id")
}

/// `item create-external-data-share -w Demo --id LAKEHOUSE` with these flags.
fn share(server: &Server, lakehouse: &str, flags: &[&str]) -> Value {
    let mut args = vec![
        "item",
        "create-external-data-share",
        "-w",
        server.demo.as_str(),
        "--id",
        lakehouse,
    ];
    args.extend_from_slice(flags);
    server.fabsh(&args).ok_json()
}

/// `item COMMAND -w Demo --id LAKEHOUSE --share-id SHARE` (`--yes` for the destructive ones).
fn on_share(server: &Server, command: &str, lakehouse: &str, share_id: &str) -> Run {
    let mut args = vec![
        "item",
        command,
        "-w",
        server.demo.as_str(),
        "--id",
        lakehouse,
        "--share-id",
        share_id,
    ];
    if command != "show-external-data-share" {
        args.push("--yes");
    }
    server.fabsh(&args)
}

#[test]
fn share_create_list_show_revoke_delete_round_trip() {
    let server = Server::session(module_path!());
    let lakehouse = lakehouse(&server);
    let created = share(
        &server,
        &lakehouse,
        &[
            "--paths",
            "Tables/orders,Files/raw",
            "--recipient-email",
            "lisa@fabrikam.com",
            "--recipient-tenant-id",
            GUID,
        ],
    );
    assert_eq!(created["status"], "Pending");
    assert_eq!(created["paths"][1], "Files/raw");
    assert_eq!(created["recipient"]["type"], "User");
    assert_eq!(
        created["recipient"]["userPrincipalName"],
        "lisa@fabrikam.com"
    );
    assert_eq!(created["recipient"]["tenantId"], GUID);
    let share_id = text(&created, "id");

    let listed = server
        .fabsh(&[
            "item",
            "list-external-data-shares",
            "-w",
            server.demo.as_str(),
            "--id",
            &lakehouse,
        ])
        .ok_json();
    assert_eq!(listed.as_array().expect("list").len(), 1);
    assert_eq!(listed[0]["id"], share_id.as_str());
    let shown = server
        .fabsh(&[
            "item",
            "show-external-data-share",
            "-w",
            server.demo.as_str(),
            "--id",
            &lakehouse,
            "--share-id",
            &share_id,
        ])
        .ok_json();
    assert_eq!(shown["invitationUrl"], created["invitationUrl"]);

    let revoked = on_share(&server, "revoke-external-data-share", &lakehouse, &share_id).ok_json();
    assert_eq!(revoked["status"], "Revoked");
    let deleted = on_share(&server, "delete-external-data-share", &lakehouse, &share_id);
    assert_eq!(deleted.code, 0, "{}", deleted.stderr);
    assert_eq!(deleted.stdout, "");
    let listed = server
        .fabsh(&[
            "item",
            "list-external-data-shares",
            "-w",
            server.demo.as_str(),
            "--id",
            &lakehouse,
        ])
        .ok_json();
    assert_eq!(listed, serde_json::json!([]));
    let gone = on_share(&server, "show-external-data-share", &lakehouse, &share_id);
    assert_eq!(gone.code, 4, "{}", gone.stderr);
}

#[test]
fn an_invitation_is_accepted_from_the_second_tenant() {
    let server = Server::session(module_path!());
    let lakehouse = lakehouse(&server);
    let inbox = server.own_name("Inbox");
    server
        .fabsh(&["workspace", "create", "--name", inbox.as_str()])
        .ok_json();
    let (partner, token) = principal_with_token(
        &server,
        "partner",
        &[
            "--tenant",
            "second",
            "--workspace",
            inbox.as_str(),
            "--role",
            "Contributor",
        ],
    );
    let auth = server.bearer();
    let (_, tenants) = http(
        &server.origin(),
        "GET",
        "/_local/tenants",
        None,
        &[("Authorization", &auth)],
    );
    let tenants: Value = serde_json::from_str(&tenants).expect("tenants");
    assert_eq!(partner["tenantId"], tenants["secondTenantId"]);
    let created = share(
        &server,
        &lakehouse,
        &[
            "--paths",
            "Tables/orders,Files/raw",
            "--recipient-type",
            "ServicePrincipal",
            "--recipient-id",
            &text(&partner, "objectId"),
            "--recipient-tenant-id",
            &text(&partner, "tenantId"),
        ],
    );
    let share_id = text(&created, "id");
    let provider = text(&tenants, "defaultTenantId");

    let invitation = server
        .fabsh_as(
            &token,
            &[
                "item",
                "get-invitation",
                "--invitation-id",
                &share_id,
                "--provider-tenant-id",
                &provider,
            ],
        )
        .ok_json();
    assert_eq!(
        invitation["providerTenantDetails"]["tenantId"],
        provider.as_str()
    );
    let kinds: Vec<&str> = invitation["pathsDetails"]
        .as_array()
        .expect("paths")
        .iter()
        .map(|p| p["type"].as_str().expect("type"))
        .collect();
    assert_eq!(kinds, ["Table", "Folder"]);

    // The invitation URL carries the provider's tenant, so it alone identifies the invitation.
    let accept = [
        "item",
        "accept-invitation",
        "--invitation-id",
        created["invitationUrl"].as_str().expect("url"),
        "-w",
        inbox.as_str(),
        "--name",
        "FromDemo",
    ];
    let accepted = server.fabsh_as(&token, &accept).ok_json();
    assert_eq!(accepted["created"], true);
    assert_eq!(accepted["item"]["type"], "Lakehouse");
    assert_eq!(accepted["item"]["displayName"], "FromDemo");
    let names: Vec<&str> = accepted["shortcuts"]
        .as_array()
        .expect("shortcuts")
        .iter()
        .map(|s| s["path"].as_str().expect("path"))
        .collect();
    assert_eq!(names, ["Files/orders", "Files/raw"]);
    let definition = server
        .fabsh_as(
            &token,
            &[
                "item",
                "get-definition",
                "-w",
                inbox.as_str(),
                "--id",
                &text(&accepted["item"], "id"),
                "--decode",
            ],
        )
        .ok_json();
    let shortcuts = crate::definitions::decoded(&definition, "shortcuts.metadata.json");
    assert!(shortcuts.contains(&share_id), "{shortcuts}");

    let shown = on_share(&server, "show-external-data-share", &lakehouse, &share_id).ok_json();
    assert_eq!(shown["status"], "Active");
    assert_eq!(shown["acceptedByTenantId"], partner["tenantId"]);
    let again = server.fabsh_as(&token, &accept);
    assert_eq!(again.code, 1, "accepted twice: {}", again.stderr);
    assert!(again.stderr.contains("EntityConflict"), "{}", again.stderr);

    on_share(&server, "revoke-external-data-share", &lakehouse, &share_id).ok_json();
    let revoked = server.fabsh_as(
        &token,
        &[
            "item",
            "get-invitation",
            "--invitation-id",
            &share_id,
            "--provider-tenant-id",
            &provider,
        ],
    );
    assert_eq!(
        revoked.code, 4,
        "a revoked invitation is gone: {}",
        revoked.stderr
    );
}

#[test]
fn accepting_in_the_providers_own_tenant_is_refused() {
    let server = Server::session(module_path!());
    let lakehouse = lakehouse(&server);
    let created = share(
        &server,
        &lakehouse,
        &[
            "--paths",
            "Tables/orders",
            "--recipient-email",
            "lisa@fabrikam.com",
        ],
    );
    let run = server.fabsh(&[
        "item",
        "accept-invitation",
        "--invitation-id",
        created["invitationUrl"].as_str().expect("url"),
        "-w",
        server.demo.as_str(),
        "--name",
        "Mine",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("ExternalDataShareCannotBeAcceptedInTheSameTenant"),
        "{}",
        run.stderr
    );
    let left = server
        .fabsh(&[
            "item",
            "list",
            "-w",
            server.demo.as_str(),
            "-q",
            "[?type=='Lakehouse'].displayName",
        ])
        .ok_json();
    assert_eq!(
        left,
        serde_json::json!(["SalesLakehouse"]),
        "the lakehouse made for it is gone"
    );
    let shown = on_share(
        &server,
        "show-external-data-share",
        &lakehouse,
        &text(&created, "id"),
    )
    .ok_json();
    assert_eq!(shown["status"], "Pending");
}

#[test]
fn share_requests_beyond_the_per_api_quota_get_429() {
    let server = Server::with(&[("per-api-quotas", "true")]);
    let lakehouse = lakehouse(&server);
    let path = server.demo_path(&format!("/items/{lakehouse}/externalDataShares"));
    let auth = server.bearer();
    let headers = [("Authorization", auth.as_str())];
    for i in 0..10 {
        let (status, body) = http(&server.origin(), "GET", &path, None, &headers);
        assert_eq!(status, 200, "request {i}: {body}");
    }
    let (status, body) = http(&server.origin(), "GET", &path, None, &headers);
    assert_eq!(status, 429, "{body}");
    assert!(body.contains("RequestBlocked"), "{body}");
    let (status, _) = http(&server.origin(), "GET", "/v1/workspaces", None, &headers);
    assert_eq!(status, 200, "other APIs keep their own quota");
}

#[test]
fn the_recorded_create_and_export_bodies_are_accepted() {
    let server = Server::session(module_path!());
    let lakehouse = lakehouse(&server);
    let auth = server.bearer();
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    // fabric-cli's body: lower-case keys, no recipient type (User by default).
    let recorded = r#"{"paths": ["Files/images/taxi_zone_map_bronx.jpg"], "recipient": {"userprincipalname": "lisa@fabrikam.com", "tenantid": "c51dc03f-268a-4da0-a879-25f24947ab8b"}}"#;
    let path = server.demo_path(&format!("/items/{lakehouse}/externalDataShares"));
    let (status, body) = http(&server.origin(), "POST", &path, Some(recorded), &headers);
    assert_eq!(status, 201, "{body}");
    let share: Value = serde_json::from_str(&body).expect("share");
    assert_eq!(share["recipient"]["type"], "User");
    assert_eq!(
        share["recipient"]["tenantId"],
        "c51dc03f-268a-4da0-a879-25f24947ab8b"
    );
    assert_eq!(share["status"], "Pending");

    let export = server.demo_path("/items/bulkExportDefinitions?beta=true");
    let (status, body) = http(
        &server.origin(),
        "POST",
        &export,
        Some(r#"{"items": [], "mode": "All"}"#),
        &headers,
    );
    assert_eq!(status, 202, "{body}");
    assert_eq!(body, "null");
}
