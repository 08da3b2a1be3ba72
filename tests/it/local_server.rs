//! Wire behaviour of local Fabric, driven over HTTP against an in-process server on an
//! ephemeral loopback port with a temporary data directory.

mod auth;
mod faults;
mod folders;
mod items;
mod operations;
mod signing_keys;
mod wire_definitions;
mod workspaces;

use fabsh_local::{Faults, LocalServer, ServeOptions};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;
use tempfile::TempDir;

/// A running server, its data directory, and an admin-authenticated client.
pub(crate) struct Env {
    pub server: LocalServer,
    pub dir: TempDir,
    pub http: reqwest::Client,
    pub token: String,
}

/// A response read to the end.
pub(crate) struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Reply {
    /// The body as JSON (`null` for an empty body).
    pub(crate) fn json(&self) -> Value {
        if self.text.is_empty() {
            return Value::Null;
        }
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    /// A header as text.
    pub(crate) fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
    }

    /// The Fabric `errorCode`, also checking the header repeats it.
    pub(crate) fn error_code(&self) -> String {
        let code = self.json()["errorCode"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        assert_eq!(
            self.header("x-ms-public-api-error-code").as_deref(),
            Some(code.as_str()),
            "error header must repeat the body code"
        );
        code
    }
}

/// Faults with every LRO-capable call answered inline.
pub(crate) fn inline() -> Faults {
    Faults {
        async_ratio: Some(0.0),
        ..Faults::default()
    }
}

/// Faults with every LRO-capable call answered 202, creates without a definition too (which
/// the service answers inline by default).
pub(crate) fn lro_always() -> Faults {
    Faults {
        async_ratio: Some(1.0),
        ..Faults::default()
    }
}

pub(crate) async fn start_in(dir: &Path, faults: Faults) -> LocalServer {
    let _ = rustls::crypto::ring::default_provider().install_default();
    LocalServer::start(ServeOptions {
        addr: "127.0.0.1:0".parse().unwrap(),
        data_dir: dir.to_path_buf(),
        faults,
        public_hosts: Vec::new(),
        public_url: None,
        llm: None,
    })
    .await
    .expect("server starts")
}

/// A temporary data dir, private to the user as local Fabric wants its store (a plain
/// temporary dir has the umask's mode, which other users can read).
pub(crate) fn store_dir() -> TempDir {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tempfile::Builder::new()
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .unwrap()
    }
    #[cfg(not(unix))]
    tempfile::tempdir().unwrap()
}

/// A fresh server with `faults`.
pub(crate) async fn start(faults: Faults) -> Env {
    let dir = store_dir();
    let server = start_in(dir.path(), faults).await;
    let token = server.admin_token();
    Env {
        server,
        dir,
        http: reqwest::Client::new(),
        token,
    }
}

impl Env {
    /// An absolute URL for a path under `/v1` (or an absolute URL unchanged).
    pub(crate) fn url(&self, path: &str) -> String {
        if path.starts_with("http") {
            path.to_string()
        } else {
            format!("{}{}", self.server.base_url(), path)
        }
    }

    /// The server origin (`http://127.0.0.1:PORT`).
    pub(crate) fn origin(&self) -> String {
        self.server.base_url().trim_end_matches("/v1").to_string()
    }

    /// Sends a request with an optional bearer and JSON body.
    pub(crate) async fn send_as(
        &self,
        token: Option<&str>,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Reply {
        let mut request = self.http.request(method, self.url(path));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("request sent");
        Reply {
            status: response.status(),
            headers: response.headers().clone(),
            text: response.text().await.unwrap(),
        }
    }

    pub(crate) async fn get(&self, path: &str) -> Reply {
        self.send_as(Some(&self.token.clone()), Method::GET, path, None)
            .await
    }

    pub(crate) async fn post(&self, path: &str, body: Value) -> Reply {
        self.send_as(Some(&self.token.clone()), Method::POST, path, Some(body))
            .await
    }

    pub(crate) async fn patch(&self, path: &str, body: Value) -> Reply {
        self.send_as(Some(&self.token.clone()), Method::PATCH, path, Some(body))
            .await
    }

    pub(crate) async fn delete(&self, path: &str) -> Reply {
        self.send_as(Some(&self.token.clone()), Method::DELETE, path, None)
            .await
    }

    /// The seeded Demo workspace's id.
    pub(crate) async fn demo(&self) -> String {
        let list = self.get("/workspaces").await.json();
        list["value"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["displayName"] == "Demo")
            .map(|w| w["id"].as_str().unwrap().to_string())
            .expect("Demo workspace")
    }

    /// Creates an empty workspace owned by the admin.
    pub(crate) async fn workspace(&self, name: &str) -> String {
        let reply = self.post("/workspaces", json!({"displayName": name})).await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
        reply.json()["id"].as_str().unwrap().to_string()
    }

    /// Creates an item and returns it, following a 202 to its result.
    pub(crate) async fn create_item(&self, ws: &str, body: Value) -> Value {
        let reply = self.post(&format!("/workspaces/{ws}/items"), body).await;
        match reply.status {
            StatusCode::CREATED => reply.json(),
            StatusCode::ACCEPTED => {
                let location = reply.header("location").unwrap();
                let (state, headers) = self.wait(&location).await;
                assert_eq!(state["status"], "Succeeded", "{state}");
                let result = headers
                    .get("location")
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_string();
                self.get(&result).await.json()
            }
            other => panic!("create failed with {other}: {}", reply.text),
        }
    }

    /// Polls an operation until it ends; returns its state and last headers.
    pub(crate) async fn wait(&self, location: &str) -> (Value, reqwest::header::HeaderMap) {
        for _ in 0..500 {
            let reply = self.get(location).await;
            assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
            let state = reply.json();
            if state["status"] == "Succeeded" || state["status"] == "Failed" {
                return (state, reply.headers);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("operation {location} never finished");
    }

    /// Every value of a paged list, following `continuationUri`; also returns the page count.
    pub(crate) async fn collect(&self, path: &str) -> (Vec<Value>, usize) {
        let mut values = Vec::new();
        let mut next = Some(path.to_string());
        let mut pages = 0;
        while let Some(url) = next {
            let reply = self.get(&url).await;
            assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
            let page = reply.json();
            values.extend(page["value"].as_array().unwrap().iter().cloned());
            next = page["continuationUri"].as_str().map(str::to_string);
            assert_eq!(
                next.is_some(),
                page.get("continuationToken").is_some(),
                "token and URI come together"
            );
            pages += 1;
        }
        (values, pages)
    }

    /// The number of API requests the server has seen.
    pub(crate) async fn request_count(&self) -> u64 {
        let log = self
            .get(&format!("{}/_local/requests", self.origin()))
            .await;
        log.json()["count"].as_u64().unwrap()
    }

    /// Adds a service principal with a role in a workspace and gets it a token from the token
    /// endpoint (client credentials).
    pub(crate) async fn principal_token(
        &self,
        name: &str,
        workspace: Option<&str>,
        role: Option<&str>,
    ) -> (Value, String) {
        let creds =
            fabsh_local::admin::add_principal(self.dir.path(), name, workspace, role).unwrap();
        let tenant = creds["tenantId"].as_str().unwrap();
        let reply = self
            .http
            .post(format!("{}/{tenant}/oauth2/v2.0/token", self.origin()))
            .form(&[
                ("grant_type", "client_credentials"),
                ("client_id", creds["clientId"].as_str().unwrap()),
                ("client_secret", creds["clientSecret"].as_str().unwrap()),
                ("scope", "https://api.fabric.microsoft.com/.default"),
            ])
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), StatusCode::OK);
        let body: Value = reply.json().await.unwrap();
        assert_eq!(body["token_type"], "Bearer");
        assert_eq!(body["expires_in"], 3599);
        let token = body["access_token"].as_str().unwrap().to_string();
        (creds, token)
    }
}

/// A definition part from text.
pub(crate) fn part(path: &str, text: &str) -> Value {
    use base64::Engine;
    json!({
        "path": path,
        "payload": base64::engine::general_purpose::STANDARD.encode(text),
        "payloadType": "InlineBase64",
    })
}

/// Decoded parts of a `{definition}` body as `(path, text)`.
pub(crate) fn parts_of(body: &Value) -> Vec<(String, String)> {
    use base64::Engine;
    body["definition"]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(p["payload"].as_str().unwrap())
                .unwrap();
            (
                p["path"].as_str().unwrap().to_string(),
                String::from_utf8(bytes).unwrap(),
            )
        })
        .collect()
}
