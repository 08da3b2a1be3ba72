//! Apps and machines: client secret, certificate (PEM and PFX), federated token file,
//! `FABSH_TOKEN` (managed identities: `managed_identity.rs`).

use super::{Session, add_app, federated_token, fixture, workspace_names};
use crate::support::Server;

fn text(value: &serde_json::Value, key: &str) -> String {
    value[key].as_str().expect(key).to_string()
}

#[test]
fn a_client_secret_from_the_environment_or_stdin_signs_in() {
    let server = Server::start();
    let app = add_app(&server, &["--name", "ci", "-w", "Demo", "--role", "Viewer"]);
    let mut session = Session::new(&server);
    session.secret(&text(&app, "clientSecret"));
    let from_env = [
        ("FABSH_TENANT_ID", text(&app, "tenantId")),
        ("FABSH_CLIENT_ID", text(&app, "clientId")),
        ("FABSH_CLIENT_SECRET", text(&app, "clientSecret")),
    ];
    let env: Vec<(&str, &str)> = from_env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let listed = session.run_env(&["--verbose", "workspace", "list"], &env);
    assert_eq!(workspace_names(&listed), ["Demo"]);
    let status = session.run_env(&["auth", "status"], &env).ok_json();
    assert_eq!(status["method"], "service-principal");
    assert_eq!(status["principal"]["appId"], app["clientId"]);

    // The same app signed in for a profile, the secret piped in.
    let login = session.run_with_stdin(
        &[
            "--profile",
            "ci",
            "auth",
            "login",
            "--service-principal",
            "--tenant",
            &text(&app, "tenantId"),
            "--client-id",
            &text(&app, "clientId"),
            "--client-secret",
        ],
        &format!("{}\n", text(&app, "clientSecret")),
    );
    assert_eq!(login.code, 0, "{}", login.stderr);
    let listed = session.run(&["--profile", "ci", "workspace", "list"]);
    assert_eq!(workspace_names(&listed), ["Demo"]);
    session.assert_no_secret_shown();

    let wrong = session.run_env(
        &["workspace", "list"],
        &[
            ("FABSH_TENANT_ID", &text(&app, "tenantId")),
            ("FABSH_CLIENT_ID", &text(&app, "clientId")),
            ("FABSH_CLIENT_SECRET", "not-the-secret"),
        ],
    );
    assert_eq!(wrong.code, 3, "{}", wrong.stderr);
    assert!(wrong.stderr.contains("AADSTS7000215"), "{}", wrong.stderr);
}

#[test]
fn a_certificate_in_pem_or_pfx_signs_in() {
    let server = Server::start();
    let app = add_app(
        &server,
        &[
            "--name",
            "signed",
            "-w",
            "Demo",
            "--role",
            "Viewer",
            "--certificate",
            &fixture("app-certificate.pem"),
        ],
    );
    let mut session = Session::new(&server);
    session.set("FABSH_TENANT_ID", &text(&app, "tenantId"));
    session.set("FABSH_CLIENT_ID", &text(&app, "clientId"));
    let pem = session.run_env(
        &["workspace", "list"],
        &[("FABSH_CLIENT_CERTIFICATE", &fixture("app.pem"))],
    );
    assert_eq!(workspace_names(&pem), ["Demo"]);
    let pfx = [
        ("FABSH_CLIENT_CERTIFICATE", fixture("app.pfx")),
        (
            "FABSH_CLIENT_CERTIFICATE_PASSWORD",
            "fabsh-test".to_string(),
        ),
    ];
    let pfx: Vec<(&str, &str)> = pfx.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert_eq!(
        workspace_names(&session.run_env(&["workspace", "list"], &pfx)),
        ["Demo"]
    );

    let unregistered = session.run_env(
        &["workspace", "list"],
        &[("FABSH_CLIENT_CERTIFICATE", &fixture("other.pem"))],
    );
    assert_eq!(unregistered.code, 3, "{}", unregistered.stderr);
    assert!(
        unregistered.stderr.contains("AADSTS700027"),
        "{}",
        unregistered.stderr
    );
    let bad_password = session.run_env(
        &["workspace", "list"],
        &[
            ("FABSH_CLIENT_CERTIFICATE", &fixture("app.pfx")),
            ("FABSH_CLIENT_CERTIFICATE_PASSWORD", "wrong"),
        ],
    );
    assert_eq!(bad_password.code, 2, "{}", bad_password.stderr);
    assert!(
        bad_password
            .stderr
            .contains("FABSH_CLIENT_CERTIFICATE_PASSWORD")
    );

    let login = session.run(&[
        "auth",
        "login",
        "--service-principal",
        "--certificate",
        &fixture("app.pem"),
    ]);
    assert_eq!(login.code, 0, "{}", login.stderr);
    assert_eq!(
        session.cache()["profiles"]["default"]["certificate"],
        fixture("app.pem")
    );
    session.assert_no_secret_shown();
}

#[test]
fn a_federated_token_file_signs_in_for_its_subject_only() {
    let server = Server::session(module_path!());
    let subject = "repo:contoso/deploy:ref:refs/heads/main";
    let app = add_app(
        &server,
        &[
            "--name",
            "pipeline",
            "-w",
            server.demo.as_str(),
            "--role",
            "Contributor",
            "--federated-subject",
            subject,
        ],
    );
    let mut session = Session::new(&server);
    session.set("FABSH_TENANT_ID", &text(&app, "tenantId"));
    session.set("FABSH_CLIENT_ID", &text(&app, "clientId"));
    let file = server.home.dir.path().join("federated-token");
    let token = federated_token(&server, subject);
    session.secret(&token);
    std::fs::write(&file, &token).unwrap();
    let file = file.to_string_lossy().into_owned();
    let listed = session.run_env(
        &["workspace", "list"],
        &[("FABSH_FEDERATED_TOKEN_FILE", &file)],
    );
    assert_eq!(workspace_names(&listed), [server.demo.as_str()]);

    let stranger = federated_token(&server, "repo:someone/else:ref:refs/heads/main");
    session.secret(&stranger);
    std::fs::write(&file, &stranger).unwrap();
    let refused = session.run_env(
        &["workspace", "list"],
        &[("FABSH_FEDERATED_TOKEN_FILE", &file)],
    );
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert!(refused.stderr.contains("AADSTS70021"), "{}", refused.stderr);
    session.assert_no_secret_shown();
}

#[test]
fn fabsh_token_is_sent_as_is() {
    let server = Server::start();
    let mut session = Session::new(&server);
    session.set("FABSH_TOKEN", &server.token.clone());
    let status = session.run(&["auth", "status"]).ok_json();
    assert_eq!(status["source"], "FABSH_TOKEN");
    assert_eq!(status["principal"]["displayName"], "Local Admin");
    assert!(workspace_names(&session.run(&["workspace", "list"])).contains(&"Demo".to_string()));
    let piped = session.server.home.run_env(
        &["auth", "token"],
        &[
            ("FABSH_TOKEN", &server.token),
            ("FABSH_ENDPOINT", &server.endpoint),
        ],
    );
    assert_eq!(
        piped.stdout.trim(),
        server.token,
        "auth token prints into a pipe"
    );
    session.assert_no_secret_shown();
}
