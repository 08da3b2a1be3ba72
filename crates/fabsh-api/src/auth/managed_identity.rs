//! Managed identity: a token from the machine's identity endpoint, App Service's
//! (`IDENTITY_ENDPOINT` + `IDENTITY_HEADER`) or the VM metadata service's. The metadata
//! service is never probed unasked: it is used when `auth login --managed-identity` chose it,
//! or when `FABSH_IMDS_ENDPOINT` names it (which is also how tests point it at local Fabric).

use super::{Resource, Secret, TokenSet};
use crate::config::env_text;
use crate::error::{Error, Result};
use crate::watch::Tracer;
use serde_json::Value;
use std::time::Instant;

/// The VM metadata service's token URL.
const IMDS_URL: &str = "http://169.254.169.254/metadata/identity/oauth2/token";
/// App Service's token URL for the process's identities.
pub const IDENTITY_ENDPOINT_VAR: &str = "IDENTITY_ENDPOINT";
/// The per-host secret App Service's endpoint wants in `X-IDENTITY-HEADER`.
pub const IDENTITY_HEADER_VAR: &str = "IDENTITY_HEADER";
/// Names another metadata-service token URL.
pub const IMDS_VAR: &str = "FABSH_IMDS_ENDPOINT";

/// Where the identity's tokens come from.
#[derive(Debug, Clone)]
pub enum IdentityEndpoint {
    /// App Service, Functions, Container Apps: a URL and a per-process header secret.
    AppService { url: String, header: Secret },
    /// The VM metadata service.
    Imds { url: String },
}

impl IdentityEndpoint {
    /// The endpoint the environment names, if it names one.
    pub fn from_env() -> Option<IdentityEndpoint> {
        if let (Some(url), Some(header)) = (
            env_text(IDENTITY_ENDPOINT_VAR),
            env_text(IDENTITY_HEADER_VAR),
        ) {
            return Some(IdentityEndpoint::AppService {
                url,
                header: Secret::new(header),
            });
        }
        env_text(IMDS_VAR).map(|url| IdentityEndpoint::Imds { url })
    }

    /// The environment's endpoint, else the VM metadata service (for an explicit choice).
    pub fn from_env_or_imds() -> IdentityEndpoint {
        Self::from_env().unwrap_or_else(|| IdentityEndpoint::Imds {
            url: IMDS_URL.to_string(),
        })
    }

    /// The token URL.
    pub fn url(&self) -> &str {
        match self {
            IdentityEndpoint::AppService { url, .. } | IdentityEndpoint::Imds { url } => url,
        }
    }

    /// The variable that named the endpoint, or `None` for the VM metadata service at its
    /// own address.
    pub fn named_by(&self) -> Option<&'static str> {
        match self {
            IdentityEndpoint::AppService { .. } => Some(IDENTITY_ENDPOINT_VAR),
            IdentityEndpoint::Imds { url } if url == IMDS_URL => None,
            IdentityEndpoint::Imds { .. } => Some(IMDS_VAR),
        }
    }

    /// A token for `resource`; `client_id` picks a user-assigned identity.
    pub async fn token(
        &self,
        client_id: Option<&str>,
        resource: Resource,
        tracer: Option<Tracer>,
    ) -> Result<TokenSet> {
        let (url, api_version) = match self {
            IdentityEndpoint::AppService { url, .. } => (url, "2019-08-01"),
            IdentityEndpoint::Imds { url } => (url, "2018-02-01"),
        };
        let http = fabsh_http::client(url.starts_with("http://"))?;
        let mut query = vec![("api-version", api_version), ("resource", resource.uri())];
        if let Some(client_id) = client_id {
            query.push(("client_id", client_id));
        }
        let mut request = http.get(url).query(&query);
        request = match self {
            IdentityEndpoint::AppService { header, .. } => {
                request.header("X-IDENTITY-HEADER", header.expose())
            }
            IdentityEndpoint::Imds { .. } => request.header("Metadata", "true"),
        };
        let started = Instant::now();
        let sent = request.send().await;
        if let Some(tracer) = tracer {
            let status = sent.as_ref().ok().map(|r| r.status().as_u16());
            tracer.exchange(&reqwest::Method::GET, url, status, started.elapsed());
        }
        let response = sent.map_err(|err| {
            Error::auth(format!("cannot reach the managed identity endpoint {url}"))
                .with_cause(err)
                .with_hint("managed identity works on Azure hosts; elsewhere choose another sign-in method")
        })?;
        let status = response.status();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        if !status.is_success() {
            let said = body["error_description"]
                .as_str()
                .or(body["error"].as_str())
                .unwrap_or("no reason given");
            return Err(Error::auth(format!(
                "the managed identity endpoint refused (HTTP {})",
                status.as_u16()
            ))
            .with_cause(said));
        }
        let access_token = body["access_token"]
            .as_str()
            .ok_or_else(|| Error::auth("the managed identity endpoint gave no access token"))?;
        Ok(TokenSet {
            access_token: Secret::new(access_token),
            expires_on: expiry(&body),
            refresh_token: None,
        })
    }
}

/// `expires_on` (Unix seconds, a string on both services), else `expires_in`, else an hour.
fn expiry(body: &Value) -> i64 {
    let number = |key: &str| match &body[key] {
        Value::String(text) => text.parse::<i64>().ok(),
        value => value.as_i64(),
    };
    number("expires_on")
        .or_else(|| number("expires_in").map(|secs| super::now_secs() + secs))
        .unwrap_or_else(|| super::now_secs() + 3600)
}
