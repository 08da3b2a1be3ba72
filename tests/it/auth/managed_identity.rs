//! Managed identities: tokens only for principals registered as managed identities, from
//! App Service's endpoint only with the server's identity header, and from the VM metadata
//! service's only for the one identity chosen as the VM's.

use super::{Session, add_app, workspace_names};
use crate::support::{Server, http};
use serde_json::Value;

const RESOURCE: &str = "resource=https%3A%2F%2Fapi.fabric.microsoft.com";
const APP_SERVICE: &str = "/msi/token?api-version=2019-08-01";
const IMDS: &str = "/metadata/identity/oauth2/token?api-version=2018-02-01";

fn text(value: &Value, key: &str) -> String {
    value[key].as_str().expect(key).to_string()
}

/// Asks an identity endpoint (`APP_SERVICE` or `IMDS`) for a token: (status, body).
fn ask(
    server: &Server,
    endpoint: &str,
    client_id: Option<&str>,
    header: (&str, &str),
) -> (u16, Value) {
    let mut path = format!("{endpoint}&{RESOURCE}");
    if let Some(client_id) = client_id {
        path.push_str(&format!("&client_id={client_id}"));
    }
    let (status, body) = http(&server.origin(), "GET", &path, None, &[header]);
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// The display name of the principal a token is for, as the server sees it.
fn whose(server: &Server, token: &Value) -> String {
    let run = server.fabsh_as(text(token, "access_token").as_str(), &["auth", "status"]);
    text(&run.ok_json()["principal"], "displayName")
}

#[test]
fn only_registered_identities_get_tokens_and_only_with_the_header() {
    let server = Server::start();
    let secret = server.identity_header.clone();
    let app = add_app(
        &server,
        &["--name", "app", "-w", "Demo", "--role", "Viewer"],
    );
    let app_id = text(&app, "clientId");
    // An ordinary app is no managed identity, whatever header a local process sends.
    let (status, body) = ask(
        &server,
        APP_SERVICE,
        Some(&app_id),
        ("X-IDENTITY-HEADER", "any"),
    );
    assert_eq!(status, 401, "{body}");
    let (status, body) = ask(
        &server,
        APP_SERVICE,
        Some(&app_id),
        ("X-IDENTITY-HEADER", &secret),
    );
    assert_eq!(status, 400, "{body}");
    let (status, body) = ask(&server, IMDS, Some(&app_id), ("Metadata", "true"));
    assert_eq!(status, 400, "{body}");
    assert!(body.get("access_token").is_none(), "{body}");

    let web = add_app(
        &server,
        &[
            "--name",
            "web",
            "--managed-identity",
            "-w",
            "Demo",
            "--role",
            "Viewer",
        ],
    );
    assert!(web.get("clientSecret").is_none(), "{web}");
    assert_eq!(web["managedIdentity"], true, "{web}");
    let web_id = text(&web, "clientId");
    let (status, body) = ask(
        &server,
        APP_SERVICE,
        Some(&web_id),
        ("X-IDENTITY-HEADER", "wrong"),
    );
    assert_eq!(status, 401, "{body}");
    let (status, token) = ask(
        &server,
        APP_SERVICE,
        Some(&web_id),
        ("X-IDENTITY-HEADER", &secret),
    );
    assert_eq!(status, 200, "{token}");
    assert_eq!(whose(&server, &token), "web");
    // Not the VM's identity: the metadata service, which asks no secret, does not serve it.
    let (status, body) = ask(&server, IMDS, Some(&web_id), ("Metadata", "true"));
    assert_eq!(status, 400, "{body}");
    let (status, body) = ask(&server, IMDS, None, ("Metadata", "true"));
    assert_eq!(status, 400, "no VM identity chosen yet: {body}");

    add_app(
        &server,
        &[
            "--name",
            "vm",
            "--vm-identity",
            "-w",
            "Demo",
            "--role",
            "Viewer",
        ],
    );
    let (status, token) = ask(&server, IMDS, None, ("Metadata", "true"));
    assert_eq!(status, 200, "{token}");
    assert_eq!(whose(&server, &token), "vm");
    let (status, token) = ask(&server, APP_SERVICE, None, ("X-IDENTITY-HEADER", &secret));
    assert_eq!(status, 200, "{token}");
    assert_eq!(whose(&server, &token), "vm");
    // A second VM identity takes over; the first stays a managed identity.
    let vm2 = add_app(&server, &["--name", "vm2", "--vm-identity"]);
    let (_, token) = ask(&server, IMDS, None, ("Metadata", "true"));
    assert_eq!(whose(&server, &token), "vm2");
    let listed = server.fabsh(&["local", "principal", "list"]).ok_json();
    let flags: Vec<(String, Value, Value)> = listed
        .as_array()
        .expect("principals")
        .iter()
        .map(|p| {
            (
                text(p, "displayName"),
                p["managedIdentity"].clone(),
                p["vmIdentity"].clone(),
            )
        })
        .collect();
    for (name, managed, vm) in flags {
        let expected = match name.as_str() {
            "web" | "vm" => (Value::Bool(true), Value::Null),
            "vm2" => (Value::Bool(true), Value::Bool(true)),
            _ => (Value::Null, Value::Null),
        };
        assert_eq!((managed, vm), expected, "{name}");
    }
    let vm2_id = text(&vm2, "clientId");
    let (status, _) = ask(&server, IMDS, Some(&vm2_id), ("Metadata", "true"));
    assert_eq!(status, 200);
}

#[test]
fn the_identity_header_is_printed_for_eval_and_survives_a_restart() {
    let server = Server::start();
    let identity = add_app(
        &server,
        &[
            "--name",
            "web",
            "--managed-identity",
            "-w",
            "Demo",
            "--role",
            "Viewer",
        ],
    );
    let secret = server.identity_header.clone();
    assert!(secret.len() >= 32, "{secret}");
    let endpoint = format!("{}/msi/token", server.origin());
    let client_id = text(&identity, "clientId");
    let mut session = Session::new(&server);
    session.secret(&secret);
    let env = [
        ("IDENTITY_ENDPOINT", endpoint.as_str()),
        ("IDENTITY_HEADER", secret.as_str()),
        ("FABSH_CLIENT_ID", client_id.as_str()),
    ];
    assert_eq!(
        workspace_names(&session.run_env(&["workspace", "list"], &env)),
        ["Demo"]
    );
    let wrong = [
        ("IDENTITY_ENDPOINT", endpoint.as_str()),
        ("IDENTITY_HEADER", "guessed"),
        ("FABSH_CLIENT_ID", client_id.as_str()),
    ];
    let refused = session.run_env(&["workspace", "list"], &wrong);
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    session.assert_no_secret_shown();

    let (home, data_dir) = server.stop();
    let again = Server::on_data_dir(home, data_dir, &[]);
    assert_eq!(again.identity_header, secret);
}

#[test]
fn a_managed_identity_answers_in_both_endpoint_shapes() {
    let server = Server::start();
    let identity = add_app(
        &server,
        &[
            "--name",
            "vm-identity",
            "--vm-identity",
            "-w",
            "Demo",
            "--role",
            "Viewer",
        ],
    );
    let client_id = text(&identity, "clientId");
    let header = server.identity_header.clone();
    let mut session = Session::new(&server);
    session.secret(&header);
    let app_service = format!("{}/msi/token", server.origin());
    let listed = session.run_env(
        &["workspace", "list"],
        &[
            ("IDENTITY_ENDPOINT", &app_service),
            ("IDENTITY_HEADER", &header),
            ("FABSH_CLIENT_ID", &client_id),
        ],
    );
    assert_eq!(workspace_names(&listed), ["Demo"]);

    // The VM shape, chosen by `auth login --managed-identity` for a user-assigned identity.
    let imds = format!("{}/metadata/identity/oauth2/token", server.origin());
    session.set("FABSH_IMDS_ENDPOINT", &imds);
    let login = session.run(&[
        "auth",
        "login",
        "--managed-identity",
        "--client-id",
        &client_id,
    ]);
    assert_eq!(login.code, 0, "{}", login.stderr);
    assert_eq!(login.json()["method"], "managed-identity");
    let status = session.run(&["auth", "status"]).ok_json();
    assert_eq!(status["source"], format!("managed identity {client_id}"));
    assert_eq!(
        workspace_names(&session.run(&["workspace", "list"])),
        ["Demo"]
    );

    // Without a client id, the machine's own (system-assigned) identity: the VM identity.
    let system = session.run_env(
        &["--profile", "machine", "auth", "status"],
        &[
            ("IDENTITY_ENDPOINT", &app_service),
            ("IDENTITY_HEADER", &header),
        ],
    );
    let system = system.ok_json();
    assert_eq!(system["source"], "managed identity");
    assert_eq!(system["principal"]["displayName"], "vm-identity");
    session.assert_no_secret_shown();
}
