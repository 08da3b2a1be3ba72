//! `fabsh local serve` as a server other tools talk to: its `/_local/*` routes want the admin
//! token, a token is refused before its `nbf`, and only requests naming a loopback host or
//! the configured public host are served (a browser page cannot reach it by DNS rebinding).

use crate::support::{Server, http, principal_token};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

/// `GET path` with these headers: (status, body).
fn get(server: &Server, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    http(&server.origin(), "GET", path, None, headers)
}

#[test]
fn local_routes_want_the_admin_token() {
    let server = Server::start();
    server.fabsh(&["workspace", "list"]).ok_json();
    let admin = server.bearer();
    let viewer = format!(
        "Bearer {}",
        principal_token(&server, "viewer", "Demo", "Viewer")
    );
    for path in ["/_local/requests", "/_local/tenants", "/_local/principals"] {
        let (status, body) = get(&server, path, &[]);
        assert_eq!(status, 401, "{path} without a token: {body}");
        assert!(!body.contains("/v1/workspaces"), "{body}");
        let (status, body) = get(&server, path, &[("Authorization", &viewer)]);
        assert_eq!(status, 403, "{path} as a viewer: {body}");
        let (status, body) = get(&server, path, &[("Authorization", &admin)]);
        assert_eq!(status, 200, "{path} as the admin: {body}");
    }
    let (status, log) = get(&server, "/_local/requests", &[("Authorization", &admin)]);
    assert_eq!(status, 200);
    assert!(log.contains("/v1/workspaces"), "{log}");
    // What a browser opens during a device-code sign-in needs no token.
    let (status, page) = get(&server, "/_local/devicelogin", &[]);
    assert_eq!(status, 200, "{page}");
}

/// The admin token with `nbf` (and `iat`) moved `seconds` ahead, signed with the store's key.
fn not_yet_valid(server: &Server, seconds: i64) -> String {
    let store =
        rusqlite::Connection::open(server.data_dir().join("local-fabric.sqlite3")).expect("store");
    let key: Vec<u8> = store
        .query_row(
            "SELECT value FROM meta WHERE key = 'rsa_signing_key'",
            [],
            |r| r.get(0),
        )
        .expect("signing key");
    let payload = server.token.split('.').nth(1).expect("a JWT");
    let mut claims: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64")).expect("claims");
    let later = claims["nbf"].as_i64().expect("nbf") + seconds;
    claims["nbf"] = later.into();
    claims["iat"] = later.into();
    // The server's own header: RS256 and its key id.
    let header = jsonwebtoken::decode_header(&server.token).expect("a JWT header");
    jsonwebtoken::encode(
        &header,
        &claims,
        &jsonwebtoken::EncodingKey::from_rsa_der(&key),
    )
    .expect("signed")
}

#[test]
fn a_token_is_refused_before_its_not_before_time() {
    let server = Server::session(module_path!());
    let early = format!("Bearer {}", not_yet_valid(&server, 3600));
    let (status, body) = get(&server, "/v1/workspaces", &[("Authorization", &early)]);
    assert_eq!(status, 401, "{body}");
    let error: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(error["errorCode"], "Unauthorized", "{body}");
    assert!(
        error["message"]
            .as_str()
            .expect("message")
            .contains("not valid yet"),
        "{body}"
    );
    // The same claims valid now are accepted: only the time was wrong.
    let now = format!("Bearer {}", not_yet_valid(&server, 0));
    assert_eq!(
        get(&server, "/v1/workspaces", &[("Authorization", &now)]).0,
        200
    );
}

#[test]
fn only_loopback_names_or_the_public_host_reach_the_server() {
    let server = Server::start();
    let admin = server.bearer();
    let port = server
        .origin()
        .rsplit(':')
        .next()
        .expect("port")
        .to_string();
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        "localhost".to_string(),
        format!("[::1]:{port}"),
    ] {
        let headers = [("Authorization", admin.as_str()), ("Host", &host)];
        let (status, body) = get(&server, "/v1/workspaces", &headers);
        assert_eq!(status, 200, "Host {host}: {body}");
    }
    for host in [
        format!("attacker.example:{port}"),
        "fabric.test".to_string(),
        "192.168.1.10".to_string(),
    ] {
        // A page of another site, its name rebound to loopback, reaches no route at all.
        for path in ["/v1/workspaces", "/_local/devicelogin", "/msi/token"] {
            let headers = [("Authorization", admin.as_str()), ("Host", &host)];
            let (status, body) = get(&server, path, &headers);
            assert_eq!(status, 421, "Host {host} {path}: {body}");
            assert!(body.contains(&host), "{body}");
        }
    }

    let public = Server::with(&[("public-host", "fabric.test")]);
    let admin = public.bearer();
    for host in ["fabric.test", "fabric.test:443", "FABRIC.test", "localhost"] {
        let headers = [("Authorization", admin.as_str()), ("Host", host)];
        let (status, body) = get(&public, "/v1/workspaces", &headers);
        assert_eq!(status, 200, "Host {host}: {body}");
    }
    let headers = [("Authorization", admin.as_str()), ("Host", "other.test")];
    assert_eq!(get(&public, "/v1/workspaces", &headers).0, 421);
}
