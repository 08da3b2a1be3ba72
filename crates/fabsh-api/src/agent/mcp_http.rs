//! The HTTP under rmcp's streamable HTTP client. rmcp does the protocol (JSON-RPC messages,
//! the handshake, the session, matching answers to requests, reading server-sent events);
//! every POST it makes goes through fabsh's own HTTP core ([`ApiClient::send`]), so it gets
//! the same token (sent only where the sign-in is bound), retries, rate limiter,
//! `--dry-run` record and `--verbose` traces as every other request.

use crate::api::{ApiClient, Req};
use crate::error::Error;
use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, GetExtensions, RequestId, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::{Sse, SseStream};
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

/// Without `text/event-stream` here the service fails the request.
const ACCEPT: &str = "application/json, text/event-stream";

type HttpResult<T> = Result<T, StreamableHttpError<Error>>;

/// How one request goes out: through which call's client (its `--dry-run`, its progress),
/// with which limit per attempt, and whether a failed send may be sent again. A request
/// carries its own in its extensions, which rmcp hands to the transport but never sends.
#[derive(Clone)]
pub(crate) struct Route {
    pub api: ApiClient,
    pub timeout: Duration,
    /// Only a call that reads may be sent twice (a SQL statement that writes never is).
    pub resendable: bool,
}

/// The transport's client: messages rmcp makes itself (the handshake, a re-handshake after
/// the server forgot the session) go by the route of the call that opened the session.
#[derive(Clone)]
pub(crate) struct McpHttp {
    pub handshake: Route,
}

impl McpHttp {
    fn route_of<'a>(&'a self, message: &'a ClientJsonRpcMessage) -> &'a Route {
        match message {
            ClientJsonRpcMessage::Request(request) => request.request.extensions().get::<Route>(),
            _ => None,
        }
        .unwrap_or(&self.handshake)
    }
}

impl StreamableHttpClient for McpHttp {
    type Error = Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        _auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<StreamableHttpPostResponse> {
        let route = self.route_of(&message);
        let mut req = Req::post(uri.to_string(), serde_json::to_value(&message)?)
            .header("Accept", ACCEPT)
            .timeout(route.timeout);
        if route.resendable {
            req = req.read_only();
        }
        // The protocol version rmcp negotiated (`MCP-Protocol-Version`).
        for (name, value) in &custom_headers {
            if let Ok(value) = value.to_str() {
                req = req.header(name.as_str(), value);
            }
        }
        if let Some(id) = &session_id {
            req = req.header("Mcp-Session-Id", id.to_string());
        }
        let resp = match route.api.send(req).await {
            Ok(resp) => resp,
            // The server forgot the session: rmcp starts a new one and sends the message
            // once more (the server did not act on it).
            Err(err) if session_id.is_some() && err.status == Some(404) => {
                return Err(StreamableHttpError::SessionExpired);
            }
            Err(err) => return Err(StreamableHttpError::Client(err)),
        };
        let issued = resp.header("mcp-session-id").map(String::from);
        if !matches!(message, ClientJsonRpcMessage::Request(_)) || resp.status == 202 {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        let content_type = resp.header("content-type").unwrap_or("application/json");
        if content_type.contains("text/event-stream") {
            return Ok(StreamableHttpPostResponse::Sse(events(resp.body), issued));
        }
        let answer: ServerJsonRpcMessage = serde_json::from_slice(&resp.body).map_err(|err| {
            StreamableHttpError::Client(Error::runtime(format!(
                "the MCP server answered with invalid JSON: {err}"
            )))
        })?;
        // rmcp would wait for ever on a request whose one answer is about another.
        if let ClientJsonRpcMessage::Request(request) = &message
            && answered_id(&answer) != Some(&request.id)
        {
            return Err(StreamableHttpError::Client(Error::runtime(format!(
                "the MCP server's answer holds no response to request {}",
                request.id
            ))));
        }
        Ok(StreamableHttpPostResponse::Json(answer, issued))
    }

    /// Nothing to end: fabsh keeps no session open on the server (the service's are
    /// stateless), and sends nothing the user did not ask for.
    async fn delete_session(
        &self,
        _uri: Arc<str>,
        _session_id: Arc<str>,
        _auth_header: Option<String>,
        _custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<()> {
        Ok(())
    }

    /// fabsh only asks and reads the answer: no stream of the server's own messages is
    /// opened, so no GET goes out (the service answers POST only).
    async fn get_stream(
        &self,
        _uri: Arc<str>,
        _session_id: Option<Arc<str>>,
        _last_event_id: Option<String>,
        _auth_header: Option<String>,
        _custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<BoxStream<'static, Result<Sse, SseError>>> {
        Err(StreamableHttpError::ServerDoesNotSupportSse)
    }
}

fn answered_id(answer: &ServerJsonRpcMessage) -> Option<&RequestId> {
    match answer {
        ServerJsonRpcMessage::Response(response) => Some(&response.id),
        ServerJsonRpcMessage::Error(error) => error.id.as_ref(),
        _ => None,
    }
}

/// The events of an answer already read whole by the HTTP core.
fn events(body: Bytes) -> BoxStream<'static, Result<Sse, SseError>> {
    SseStream::from_bytes_stream(futures::stream::once(
        async move { Ok::<_, Infallible>(body) },
    ))
    .boxed()
}
