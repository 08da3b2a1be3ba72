//! Absolute URLs a server behind a TLS terminator writes: with `--public-url` every
//! `continuationUri` (and `Location`) names the public origin; without it, the scheme a
//! proxy reports in `X-Forwarded-Proto` or `Forwarded` is kept. (The service writes its own
//! https origin in both: see `continuationUri` in the recordings under
//! ../shared/recordings/fabric-cli.)

use crate::support::{Home, Server, http};
use serde_json::Value;

/// A server with these knobs, workspaces one per page, and two of them.
fn paged(knobs: &[(&str, &str)]) -> Server {
    let mut knobs = knobs.to_vec();
    knobs.push(("page-size", "1"));
    let server = Server::with(&knobs);
    server
        .fabsh(&["workspace", "create", "--name", "Second"])
        .ok_json();
    server
}

/// The `continuationUri` of the first page of workspaces.
fn next_page(server: &Server, headers: &[(&str, &str)]) -> String {
    let admin = server.bearer();
    let mut headers = headers.to_vec();
    headers.push(("Authorization", &admin));
    let (status, body) = http(&server.origin(), "GET", "/v1/workspaces", None, &headers);
    assert_eq!(status, 200, "{body}");
    let page: Value = serde_json::from_str(&body).expect("JSON");
    page["continuationUri"]
        .as_str()
        .unwrap_or_else(|| panic!("a next page: {body}"))
        .to_string()
}

#[test]
fn links_name_the_public_url() {
    let server = paged(&[("public-url", "https://fabric.test:8443/")]);
    let uri = next_page(&server, &[]);
    assert!(
        uri.starts_with("https://fabric.test:8443/v1/workspaces?continuationToken="),
        "{uri}"
    );
    // Its host is the public host: a request naming it is served.
    assert!(next_page(&server, &[("Host", "fabric.test:8443")]).starts_with("https://fabric.test"));
}

#[test]
fn links_keep_the_scheme_a_proxy_reports() {
    let server = paged(&[]);
    let host = server.origin().trim_start_matches("http://").to_string();
    assert!(next_page(&server, &[]).starts_with(&format!("http://{host}/")));
    for header in [
        ("X-Forwarded-Proto", "https"),
        ("Forwarded", "for=192.0.2.1;proto=https"),
    ] {
        let uri = next_page(&server, &[header]);
        assert!(
            uri.starts_with(&format!("https://{host}/v1/workspaces?")),
            "{header:?}: {uri}"
        );
    }
}

#[test]
fn a_public_url_that_is_not_an_origin_is_refused() {
    let home = Home::new();
    for bad in ["fabric.test", "https://fabric.test/v1", "ftp://fabric.test"] {
        let run = home.run(&["local", "serve", "--public-url", bad]);
        assert_eq!(run.code, 2, "{bad}: {}", run.stderr);
        assert!(run.stderr.contains("--public-url"), "{}", run.stderr);
    }
}
