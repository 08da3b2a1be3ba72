//! Small HTTP servers for tests: a stub answering from an axum router, a proxy in front of
//! local Fabric that refuses chosen requests (to test what a command does when one step of
//! several fails), and a gateway in front of it whose answers link past it.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use std::thread::JoinHandle;
use tokio::sync::oneshot;

/// A server on an ephemeral loopback port, stopped when dropped.
pub(crate) struct Stub {
    /// `http://127.0.0.1:PORT/v1`, for `FABSH_ENDPOINT`.
    pub endpoint: String,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Stub {
    /// Serves `router` (built once the origin is known) on its own thread and runtime.
    pub(crate) fn start(router: impl FnOnce(String) -> Router + Send + 'static) -> Stub {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind");
                let origin = format!("http://{}", listener.local_addr().expect("addr"));
                let app = router(origin.clone());
                ready_tx.send(origin).expect("ready");
                axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stopped.await;
                    })
                    .await
                    .expect("serve");
            });
        });
        let origin = ready_rx.recv().expect("stub origin");
        Stub {
            endpoint: format!("{origin}/v1"),
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// A proxy to `upstream` (an origin) answering 403 to requests `refuse(method, path)`
    /// picks, without passing them on.
    pub(crate) fn refusing_proxy(upstream: &str, refuse: fn(&str, &str) -> bool) -> Stub {
        Self::proxy(upstream, refuse, true)
    }

    /// A gateway in front of `upstream` (an origin) that passes every request on and leaves
    /// the links in answers as the upstream wrote them, naming the upstream's own origin.
    pub(crate) fn gateway(upstream: &str) -> Stub {
        Self::proxy(upstream, |_, _| false, false)
    }

    /// A proxy to `upstream` that passes every request on and hands each JSON answer to
    /// `reshape(method, path, body)` (to answer as the service might where local Fabric
    /// does not).
    pub(crate) fn reshaping_proxy(upstream: &str, reshape: Reshape) -> Stub {
        Self::start_proxy(upstream, |_, _| false, true, Some(reshape))
    }

    fn proxy(upstream: &str, refuse: fn(&str, &str) -> bool, rewrite_links: bool) -> Stub {
        Self::start_proxy(upstream, refuse, rewrite_links, None)
    }

    fn start_proxy(
        upstream: &str,
        refuse: fn(&str, &str) -> bool,
        rewrite_links: bool,
        reshape: Option<Reshape>,
    ) -> Stub {
        let upstream = upstream.to_string();
        // reqwest's TLS backend needs a process-wide provider even for plain HTTP.
        let _ = rustls::crypto::ring::default_provider().install_default();
        Stub::start(move |origin| {
            let state = Arc::new(Proxy {
                upstream,
                origin,
                refuse,
                rewrite_links,
                reshape,
                client: reqwest::Client::new(),
            });
            Router::new().fallback(forward).with_state(state)
        })
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Rewrites a JSON answer: `(method, path, body) -> body`.
pub(crate) type Reshape = fn(&str, &str, serde_json::Value) -> serde_json::Value;

struct Proxy {
    upstream: String,
    origin: String,
    refuse: fn(&str, &str) -> bool,
    rewrite_links: bool,
    reshape: Option<Reshape>,
    client: reqwest::Client,
}

async fn forward(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    let method = request.method().clone();
    let path_and_query = request
        .uri()
        .path_and_query()
        .map(|p| p.as_str().to_string())
        .unwrap_or_default();
    if (proxy.refuse)(method.as_str(), request.uri().path()) {
        let body = r#"{"requestId":"00000000-0000-0000-0000-000000000000","errorCode":"InsufficientWorkspaceRole","message":"Refused by the test proxy"}"#;
        let mut response = (StatusCode::FORBIDDEN, body).into_response();
        response.headers_mut().insert(
            "x-ms-public-api-error-code",
            HeaderValue::from_static("InsufficientWorkspaceRole"),
        );
        return response;
    }
    let path = request.uri().path().to_string();
    let headers = request.headers().clone();
    let body: Bytes = axum::body::to_bytes(request.into_body(), usize::MAX)
        .await
        .expect("body");
    let mut outgoing = proxy
        .client
        .request(
            method.clone(),
            format!("{}{path_and_query}", proxy.upstream),
        )
        .body(body);
    // Everything the client sent (MCP needs its Accept and session headers), but what
    // belongs to this connection.
    for (name, value) in &headers {
        if !["host", "content-length", "connection", "transfer-encoding"].contains(&name.as_str()) {
            outgoing = outgoing.header(name, value);
        }
    }
    let answer = outgoing.send().await.expect("upstream");
    let status = answer.status();
    let mut out = HeaderMap::new();
    for (name, value) in answer.headers() {
        // Links name the upstream's origin; the client only follows links to its own.
        let text = value.to_str().unwrap_or_default();
        let text = if proxy.rewrite_links {
            text.replace(&proxy.upstream, &proxy.origin)
        } else {
            text.to_string()
        };
        if let Ok(value) = HeaderValue::from_str(&text) {
            out.insert(name.clone(), value);
        }
    }
    out.remove("content-length");
    out.remove("transfer-encoding");
    let mut bytes = answer.bytes().await.expect("upstream body");
    if let Some(reshape) = proxy.reshape
        && let Ok(value) = serde_json::from_slice(&bytes)
    {
        bytes = Bytes::from(reshape(method.as_str(), &path, value).to_string());
    }
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    *response.headers_mut() = out;
    response
}
