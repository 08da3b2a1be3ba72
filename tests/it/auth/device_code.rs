//! The signed-in user: device code with approval from a second process, silent refresh,
//! expired refresh tokens, a rejected refresh, logout.

use super::{Session, workspace_names};
use crate::support::Server;

#[test]
fn a_device_code_sign_in_approved_elsewhere_is_used_by_later_commands() {
    let server = Server::start();
    let mut session = Session::new(&server);
    let login = session.device_code_login(&[]);
    assert_eq!(login.code, 0, "{}", login.stderr);
    assert!(login.stderr.contains("local approve"), "{}", login.stderr);
    let summary = login.json();
    assert_eq!(summary["method"], "device-code");
    assert_eq!(
        summary["principal"]["userPrincipalName"],
        "admin@local.fabsh"
    );
    assert!(workspace_names(&session.run(&["workspace", "list"])).contains(&"Demo".to_string()));
    let status = session.run(&["auth", "status"]).ok_json();
    assert_eq!(status["method"], "device-code");
    assert_eq!(status["source"], "the signed-in user of profile `default`");
    assert!(status["tenant"].is_string() && status["expiresOn"].is_string());
    assert!(session.cache()["profiles"]["default"]["refreshToken"].is_string());
    session.assert_no_secret_shown();

    let logout = session.run(&["auth", "logout"]);
    assert_eq!(logout.code, 0, "{}", logout.stderr);
    assert!(!session.cache_path().exists(), "the only sign-in is gone");
    let after = session.run(&["workspace", "list"]);
    assert_eq!(after.code, 3, "{}", after.stderr);
    assert!(
        after.stderr.contains("fabsh auth login"),
        "{}",
        after.stderr
    );
    // Signed out again: `auth status` answers as before any sign-in (exit 0, signedIn false),
    // and only --check makes it an error.
    let status = session.run(&["auth", "status"]);
    assert_eq!(status.ok_json()["signedIn"], false);
    assert!(status.stderr.contains("not signed in"), "{}", status.stderr);
    assert_eq!(session.run(&["auth", "status", "--check"]).code, 3);
}

#[test]
fn an_expired_access_token_is_renewed_with_the_refresh_token() {
    // Sign in, then age the cached access token past its expiry: the next command must
    // refresh before sending anything. (The sign-in belongs to this server's address, so the
    // server is not restarted on another port to make its tokens expire.)
    let server = Server::start();
    let mut session = Session::new(&server);
    assert_eq!(session.device_code_login(&[]).code, 0);
    let first_refresh = session.cache()["profiles"]["default"]["refreshToken"].clone();
    let mut cache = session.cache();
    cache["profiles"]["default"]["expiresOn"] = serde_json::json!(0);
    std::fs::write(session.cache_path(), cache.to_string()).expect("age the cached token");
    session.assert_no_secret_shown();
    let before = server.request_count();
    let listed = session.run(&["-v", "workspace", "list"]);
    assert!(workspace_names(&listed).contains(&"Demo".to_string()));
    assert!(
        listed.stderr.contains("(credentials redacted)"),
        "{}",
        listed.stderr
    );
    let log = server.requests();
    let new = (log["count"].as_u64().unwrap() - before) as usize;
    let requests = log["requests"].as_array().unwrap();
    let paths: Vec<&str> = requests[requests.len() - new..]
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert!(paths[0].ends_with("/oauth2/v2.0/token"), "{paths:?}");
    assert_eq!(paths[1], "/v1/workspaces");
    let rotated = session.cache()["profiles"]["default"]["refreshToken"].clone();
    assert_ne!(rotated, first_refresh, "refresh tokens rotate");
    session.secret(first_refresh.as_str().unwrap());
    session.assert_no_secret_shown();
}

#[test]
fn an_expired_refresh_token_exits_3_asking_to_sign_in_again() {
    let server = Server::with(&[("token-seconds", "-60"), ("refresh-token-seconds", "-60")]);
    let mut session = Session::new(&server);
    assert_eq!(session.device_code_login(&[]).code, 0);
    let run = session.run(&["workspace", "list"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("invalid_grant"), "{}", run.stderr);
    assert!(run.stderr.contains("AADSTS700082"), "{}", run.stderr);
    assert!(
        run.stderr.contains("sign in again with `fabsh auth login`"),
        "{}",
        run.stderr
    );
    session.assert_no_secret_shown();
}

#[test]
fn a_token_rejected_after_its_refresh_is_an_auth_error_naming_the_source() {
    // Every access token is born expired: the refresh on 401 TokenExpired happens once, and
    // the second 401 is reported with the source and how to sign in again.
    let server = Server::with(&[("token-seconds", "-60")]);
    let mut session = Session::new(&server);
    assert_eq!(session.device_code_login(&["--profile", "work"]).code, 0);
    let run = session.run(&["--profile", "work", "workspace", "list"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("TokenExpired"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("the credentials from the signed-in user of profile `work` were rejected"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("fabsh --profile work auth login"),
        "{}",
        run.stderr
    );
    let unauthorized = server.requests()["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == 401)
        .count();
    assert_eq!(unauthorized, 2, "one retry after one refresh");
    session.assert_no_secret_shown();
}
