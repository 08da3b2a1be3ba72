//! Requests sent to OneLake's Blob API by fabsh itself, for the calls object_store 0.12 does
//! not make: List Blobs with metadata (`inventory`) and the block calls of a resumable upload
//! (`blocks`). One place builds their URLs, signs them with a Storage token, sends them again
//! when the service is busy or failing, and tells a refusal as object_store's errors are told.

use super::{LakePath, OneLake};
use crate::error::{Error, Result};
use reqwest::{Client, RequestBuilder, StatusCode};

/// The Blob API version sent: the one object_store 0.12 sends, which local Fabric answers.
const BLOB_API_VERSION: &str = "2023-11-03";

/// Times a request is sent when the service is busy or failing (429, 5xx) or the connection
/// fails.
const ATTEMPTS: u32 = 4;

/// Characters escaped in a segment (container or blob name part) put in a URL path.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// The final answer to a request: its status and whole body (small: XML or nothing).
pub(super) struct Answer {
    pub status: StatusCode,
    pub body: bytes::Bytes,
}

impl Answer {
    /// The Azure error code of a refusal (`<Code>…</Code>`), empty when there is none.
    pub(super) fn code(&self) -> &str {
        // A body that is not text holds no code to read.
        let text = std::str::from_utf8(&self.body).unwrap_or_default();
        text.split_once("<Code>")
            .and_then(|(_, rest)| rest.split_once("</Code>"))
            .map_or("", |(code, _)| code)
    }

    /// A refusal as a user reads it, for `doing` (`listing`, `uploading`) `path`: refused
    /// token (exit 3), refused access (exit 3), not found (exit 4) or a failure naming the
    /// status and code.
    pub(super) fn refused(&self, doing: &str, path: &LakePath) -> Error {
        match self.status.as_u16() {
            401 => super::token_refused(path),
            403 => super::access_refused(path),
            404 => super::not_in_onelake(path),
            status => Error::runtime(format!(
                "OneLake: {doing} {path} failed with {status} {}",
                self.code()
            )),
        }
    }
}

impl OneLake {
    /// The URL of the workspace (container) of `path`.
    pub(super) fn container_url(&self, path: &LakePath) -> String {
        format!(
            "{}/{}",
            self.endpoint.as_str().trim_end_matches('/'),
            percent_encoding::utf8_percent_encode(&path.workspace, SEGMENT)
        )
    }

    /// The URL of the blob at `path`, each segment of its name escaped and none re-encoded
    /// otherwise (as `transfer::blob` names it for object_store).
    pub(super) fn blob_url(&self, path: &LakePath) -> String {
        let name: Vec<String> = path
            .in_workspace()
            .split('/')
            .map(|segment| percent_encoding::utf8_percent_encode(segment, SEGMENT).to_string())
            .collect();
        format!("{}/{}", self.container_url(path), name.join("/"))
    }

    /// Sends the request `build` makes of fabsh's client (built again for each attempt, so
    /// its body must be cheap to clone), with a Storage token and the API version; sent
    /// again on 429, 5xx and a failed connection, after the wait the service asks for or a
    /// backoff. `failed` says what could not be done when no answer came.
    pub(super) async fn send(
        &self,
        build: impl Fn(&Client) -> RequestBuilder,
        failed: impl Fn() -> String,
    ) -> Result<Answer> {
        let client = self.http()?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let token = self.tokens.token(false).await?;
            let sent = build(&client)
                .bearer_auth(token.expose())
                .header("x-ms-version", BLOB_API_VERSION)
                .send()
                .await;
            let response = match sent {
                Ok(response) => response,
                Err(_) if attempt < ATTEMPTS => {
                    tokio::time::sleep(fabsh_http::retry::backoff(attempt)).await;
                    continue;
                }
                Err(err) => return Err(Error::runtime(failed()).with_cause(err)),
            };
            let status = response.status();
            let busy = status.as_u16() == 429 || status.is_server_error();
            if busy && attempt < ATTEMPTS {
                let wait = fabsh_http::retry::retry_after(response.headers())
                    .unwrap_or_else(|| fabsh_http::retry::backoff(attempt));
                tokio::time::sleep(wait).await;
                continue;
            }
            let body = response
                .bytes()
                .await
                .map_err(|err| Error::runtime(failed()).with_cause(err))?;
            return Ok(Answer { status, body });
        }
    }
}
