//! The chain's order and the token cache's permissions.

use super::{Session, add_app, fake_azure_cli};
use crate::support::{Server, principal_token};

#[test]
fn sources_are_tried_in_order() {
    let server = Server::start();
    let app = add_app(
        &server,
        &["--name", "app", "-w", "Demo", "--role", "Viewer"],
    );
    let identity = add_app(
        &server,
        &[
            "--name",
            "identity",
            "--managed-identity",
            "-w",
            "Demo",
            "--role",
            "Viewer",
        ],
    );
    let cli_token = principal_token(&server, "cli-user", "Demo", "Viewer");
    let mut session = Session::new(&server);
    session.secret(&cli_token);
    session.secret(app["clientSecret"].as_str().unwrap());
    session.secret(&server.identity_header);
    // No real Azure CLI may answer: the PATH holds nothing.
    session.set("PATH", "/nonexistent");
    let source = |session: &mut Session, extra: &[(&str, &str)]| {
        let run = session.run_env(&["auth", "status", "--check"], extra);
        if run.code != 0 {
            return format!("exit {}: {}", run.code, run.stderr);
        }
        run.json()["source"].as_str().unwrap().to_string()
    };
    let nothing = source(&mut session, &[]);
    assert!(
        nothing.starts_with("exit 3") && nothing.contains("fabsh auth login"),
        "{nothing}"
    );

    let az = fake_azure_cli(server.home.dir.path(), &cli_token);
    // The Azure CLI's tokens are Entra's, for the public cloud's endpoints: it is the source
    // chosen, and it refuses this server (see token_binding.rs).
    let azure_cli = |chosen: String| {
        assert!(
            chosen.starts_with("exit 3") && chosen.contains("the Azure CLI gets tokens from Entra"),
            "{chosen}"
        );
    };
    azure_cli(source(&mut session, &[("PATH", &az)]));

    let msi = format!("{}/msi/token", server.origin());
    let identity_id = identity["clientId"].as_str().unwrap();
    let identity_env = [
        ("IDENTITY_ENDPOINT", msi.as_str()),
        ("IDENTITY_HEADER", server.identity_header.as_str()),
        ("PATH", &az),
    ];
    let mut with_identity = identity_env.to_vec();
    with_identity.push(("FABSH_CLIENT_ID", identity_id));
    assert_eq!(
        source(&mut session, &with_identity),
        format!("managed identity {identity_id}")
    );

    let app_id = app["clientId"].as_str().unwrap();
    let mut with_app = identity_env.to_vec();
    with_app.extend([
        ("FABSH_TENANT_ID", app["tenantId"].as_str().unwrap()),
        ("FABSH_CLIENT_ID", app_id),
        ("FABSH_CLIENT_SECRET", app["clientSecret"].as_str().unwrap()),
    ]);
    let app_source = format!("service principal {app_id} (FABSH_CLIENT_* variables)");
    assert_eq!(source(&mut session, &with_app), app_source);

    assert_eq!(session.device_code_login(&[]).code, 0);
    assert_eq!(
        source(&mut session, &with_app),
        "the signed-in user of profile `default`"
    );
    // A method named by the environment is the only one tried.
    let mut chosen = with_app.clone();
    chosen.push(("FABSH_AUTH_METHOD", "azure-cli"));
    azure_cli(source(&mut session, &chosen));
    let mut first = with_app.clone();
    first.push(("FABSH_TOKEN", &server.token));
    assert_eq!(source(&mut session, &first), "FABSH_TOKEN");
    session.assert_no_secret_shown();
}

#[test]
fn the_cache_is_private_and_a_readable_one_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let server = Server::start();
    let app = add_app(
        &server,
        &["--name", "app", "-w", "Demo", "--role", "Viewer"],
    );
    let mut session = Session::new(&server);
    let login = session.run_with_stdin(
        &[
            "auth",
            "login",
            "--service-principal",
            "--tenant",
            app["tenantId"].as_str().unwrap(),
            "--client-id",
            app["clientId"].as_str().unwrap(),
            "--client-secret",
        ],
        app["clientSecret"].as_str().unwrap(),
    );
    assert_eq!(login.code, 0, "{}", login.stderr);
    let path = session.cache_path();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    assert_eq!(session.run(&["workspace", "list"]).code, 0);

    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let refused = session.run(&["workspace", "list"]);
    // The rule of every file fabsh keeps: refused before anything is sent (exit 2).
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("chmod 600"), "{}", refused.stderr);
    assert!(
        refused.stderr.contains(path.to_str().unwrap()),
        "{}",
        refused.stderr
    );
    session.assert_no_secret_shown();
}
