//! The OAuth 2.0 grants against an Entra-compatible authority (Entra itself, or local
//! Fabric's): device code, refresh token and client credentials. The `oauth2` crate builds
//! the requests, parses the answers and runs the device-code polling loop; requests go out
//! through fabsh's own HTTP client so they share its TLS set-up and `--verbose` traces.

use super::{Resource, Secret, TokenSet};
use crate::error::{Error, Result};
use crate::watch::Tracer;
use futures::future::BoxFuture;
use oauth2::basic::{BasicClient, BasicTokenResponse};
use oauth2::{
    AuthType, ClientId, ClientSecret, DeviceAuthorizationResponse, DeviceAuthorizationUrl,
    EndpointNotSet, EndpointSet, ErrorResponseType, ExtraDeviceAuthorizationFields, RefreshToken,
    RequestTokenError, Scope, StandardErrorResponse, TokenResponse, TokenUrl,
};
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Asks for a refresh token alongside a user's access token.
const OFFLINE_ACCESS: &str = "offline_access";
/// The `client_assertion_type` of certificate and federated assertions.
const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// Entra's device-code answer carries a ready-made `message` for the user.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EntraDeviceFields {
    #[serde(default)]
    message: Option<String>,
}

impl ExtraDeviceAuthorizationFields for EntraDeviceFields {}

/// A started device-code sign-in.
pub type DeviceCode = DeviceAuthorizationResponse<EntraDeviceFields>;

/// A client with only its token endpoint set.
type TokenClient =
    BasicClient<EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>;

/// How an app proves itself.
pub enum ClientProof {
    /// A client secret.
    Secret(Secret),
    /// A signed JWT: a certificate assertion or a federated token.
    Assertion(Secret),
}

/// One tenant of an authority.
#[derive(Clone)]
pub struct Authority {
    http: reqwest::Client,
    host: String,
    tenant: String,
    tracer: Option<Tracer>,
}

impl Authority {
    /// The authority at `host` (`https://login.microsoftonline.com`) for `tenant`.
    pub fn new(host: &str, tenant: &str, tracer: Option<Tracer>) -> Result<Authority> {
        let host = host.trim_end_matches('/').to_string();
        let http = fabsh_http::client(host.starts_with("http://"))?;
        Ok(Authority {
            http,
            host,
            tenant: tenant.to_string(),
            tracer,
        })
    }

    /// Where the authority is (`https://login.microsoftonline.com`).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The token endpoint; also the audience of certificate assertions.
    pub fn token_url(&self) -> String {
        format!("{}/{}/oauth2/v2.0/token", self.host, self.tenant)
    }

    fn client(&self, client_id: &str) -> Result<TokenClient> {
        let token_url = TokenUrl::new(self.token_url())
            .map_err(|err| Error::usage(format!("invalid authority host {}: {err}", self.host)))?;
        Ok(BasicClient::new(ClientId::new(client_id.to_string()))
            // Entra wants the client id and secret in the form, not in Basic auth.
            .set_auth_type(AuthType::RequestBody)
            .set_token_uri(token_url))
    }

    /// What the `oauth2` crate sends its requests with. It owns what it uses, so the futures
    /// it makes borrow nothing and stay `Send` for the multi-threaded runtime.
    fn transport(
        &self,
    ) -> impl Fn(
        oauth2::HttpRequest,
    )
        -> BoxFuture<'static, std::result::Result<oauth2::HttpResponse, reqwest::Error>> {
        let http = self.http.clone();
        let tracer = self.tracer;
        move |request| Box::pin(exchange(http.clone(), tracer, request))
    }

    /// Starts a device-code sign-in for a public client.
    pub async fn start_device_code(&self, client_id: &str) -> Result<DeviceCode> {
        let url = format!("{}/{}/oauth2/v2.0/devicecode", self.host, self.tenant);
        let url = DeviceAuthorizationUrl::new(url)
            .map_err(|err| Error::usage(format!("invalid authority host: {err}")))?;
        let client = self.client(client_id)?.set_device_authorization_url(url);
        let http = self.transport();
        client
            .exchange_device_code()
            .add_scope(Scope::new(Resource::Fabric.scope()))
            .add_scope(Scope::new(OFFLINE_ACCESS.into()))
            .request_async(&http)
            .await
            .map_err(|err| self.refused("starting the device-code sign-in", err))
    }

    /// The text that tells the user where to enter the code.
    pub fn device_code_message(code: &DeviceCode) -> String {
        code.extra_fields().message.clone().unwrap_or_else(|| {
            format!(
                "To sign in, open {} and enter the code {}",
                code.verification_uri().as_str(),
                code.user_code().secret()
            )
        })
    }

    /// Polls until the user approves the device code (or it expires).
    pub async fn finish_device_code(&self, client_id: &str, code: &DeviceCode) -> Result<TokenSet> {
        let client = self.client(client_id)?;
        let http = self.transport();
        let answer = client
            .exchange_device_access_token(code)
            .request_async(&http, tokio::time::sleep, None)
            .await
            .map_err(|err| self.refused("the device-code sign-in", err))?;
        Ok(token_set(&answer))
    }

    /// Redeems a refresh token for a new access token for `resource` (and a rotated refresh
    /// token: Entra's refresh tokens serve every resource the client may reach).
    pub async fn refresh(
        &self,
        client_id: &str,
        refresh_token: &Secret,
        resource: Resource,
    ) -> Result<TokenSet> {
        let client = self.client(client_id)?;
        let http = self.transport();
        let refresh = RefreshToken::new(refresh_token.expose().to_string());
        let answer = client
            .exchange_refresh_token(&refresh)
            .add_scope(Scope::new(resource.scope()))
            .add_scope(Scope::new(OFFLINE_ACCESS.into()))
            .request_async(&http)
            .await
            .map_err(|err| self.refused("refreshing the sign-in", err))?;
        Ok(token_set(&answer))
    }

    /// The client-credentials grant for an app, for `resource`.
    pub async fn client_credentials(
        &self,
        client_id: &str,
        proof: &ClientProof,
        resource: Resource,
    ) -> Result<TokenSet> {
        let mut client = self.client(client_id)?;
        if let ClientProof::Secret(secret) = proof {
            client = client.set_client_secret(ClientSecret::new(secret.expose().to_string()));
        }
        let http = self.transport();
        let mut request = client
            .exchange_client_credentials()
            .add_scope(Scope::new(resource.scope()));
        if let ClientProof::Assertion(assertion) = proof {
            request = request
                .add_extra_param("client_assertion_type", JWT_BEARER)
                .add_extra_param("client_assertion", assertion.expose().to_string());
        }
        let answer = request
            .request_async(&http)
            .await
            .map_err(|err| self.refused("the service principal sign-in", err))?;
        Ok(token_set(&answer))
    }

    /// An error for a failed grant. The authority's own words (`error_description`, with its
    /// AADSTS code) are passed on; bodies that did not parse are not, since they may hold
    /// tokens.
    fn refused<T: ErrorResponseType + std::fmt::Display + 'static>(
        &self,
        what: &str,
        err: RequestTokenError<reqwest::Error, StandardErrorResponse<T>>,
    ) -> Error {
        match err {
            RequestTokenError::ServerResponse(answer) => {
                let code = answer.error().to_string();
                let mut error = Error::auth(format!("{what} failed: {code}")).with_code(code);
                if let Some(description) = answer.error_description() {
                    error = error.with_cause(description);
                }
                error
            }
            RequestTokenError::Request(err) => {
                Error::runtime(format!("{what} failed: cannot reach {}", self.host))
                    .with_cause(err)
                    .with_hint("check the authority host (FABSH_AUTHORITY_HOST) and your network")
            }
            RequestTokenError::Parse(_, _) => Error::auth(format!(
                "{what} failed: {} gave an answer that is not a token",
                self.host
            )),
            RequestTokenError::Other(message) => {
                Error::auth(format!("{what} failed")).with_cause(message)
            }
        }
    }
}

/// The tokens of a successful grant.
fn token_set(answer: &BasicTokenResponse) -> TokenSet {
    let lifetime = answer.expires_in().map_or(3600, |d| d.as_secs() as i64);
    TokenSet {
        access_token: Secret::new(answer.access_token().secret().clone()),
        expires_on: super::now_secs() + lifetime,
        refresh_token: answer
            .refresh_token()
            .map(|token| Secret::new(token.secret().clone())),
    }
}

/// Sends one request of a grant through fabsh's HTTP client.
async fn exchange(
    http: reqwest::Client,
    tracer: Option<Tracer>,
    request: oauth2::HttpRequest,
) -> std::result::Result<oauth2::HttpResponse, reqwest::Error> {
    let (parts, body) = request.into_parts();
    let url = parts.uri.to_string();
    let started = Instant::now();
    let sent = http
        .request(parts.method.clone(), &url)
        .headers(parts.headers)
        .body(body)
        .send()
        .await;
    if let Some(tracer) = &tracer {
        let status = sent.as_ref().ok().map(|r| r.status().as_u16());
        tracer.exchange(&parts.method, &url, status, started.elapsed());
    }
    let response = sent?;
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.bytes().await?;
    let mut answer = oauth2::HttpResponse::new(body.to_vec());
    *answer.status_mut() = status;
    *answer.headers_mut() = headers;
    Ok(answer)
}
