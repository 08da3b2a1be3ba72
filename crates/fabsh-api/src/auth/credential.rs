//! A token provider that acquires tokens from one credential source, keeps the current token
//! until shortly before it expires, and writes sign-ins back to the token cache.

use super::cache::{Login, TokenCache};
use super::certificate::Certificate;
use super::managed_identity::IdentityEndpoint;
use super::oauth::{Authority, ClientProof};
use super::{Method, Resource, Secret, TokenProvider, TokenSet, azure_cli, now_secs};
use crate::error::{Error, ErrorKind, Result};
use crate::watch::Tracer;
use futures::future::BoxFuture;
use std::path::PathBuf;
use tokio::sync::Mutex;

/// A token this close to expiry is replaced before use, so it cannot expire in flight.
const EXPIRY_MARGIN_SECONDS: i64 = 120;

/// Where new tokens come from.
pub enum Acquire {
    /// A signed-in user's refresh token.
    Refresh {
        authority: Authority,
        client_id: String,
    },
    /// An app's secret.
    Secret {
        authority: Authority,
        client_id: String,
        secret: Secret,
    },
    /// An app's certificate, read at each sign-in.
    Certificate {
        authority: Authority,
        client_id: String,
        path: PathBuf,
        password: Option<Secret>,
    },
    /// A federated token file (workload identity), read at each sign-in.
    Federated {
        authority: Authority,
        client_id: String,
        file: PathBuf,
    },
    /// The machine's managed identity; a client id picks a user-assigned one.
    ManagedIdentity {
        endpoint: IdentityEndpoint,
        client_id: Option<String>,
    },
    /// The Azure CLI.
    AzureCli { tenant: Option<String> },
}

impl Acquire {
    /// The sign-in method this source belongs to.
    pub fn method(&self) -> Method {
        match self {
            Acquire::Refresh { .. } => Method::DeviceCode,
            Acquire::Secret { .. } | Acquire::Certificate { .. } | Acquire::Federated { .. } => {
                Method::ServicePrincipal
            }
            Acquire::ManagedIdentity { .. } => Method::ManagedIdentity,
            Acquire::AzureCli { .. } => Method::AzureCli,
        }
    }

    /// Gets a new token set for `resource`; `refresh_token` is the signed-in user's current
    /// one.
    pub async fn run(
        &self,
        refresh_token: Option<&Secret>,
        resource: Resource,
        tracer: Option<Tracer>,
    ) -> Result<TokenSet> {
        match self {
            Acquire::Refresh {
                authority,
                client_id,
            } => {
                let token = refresh_token.ok_or_else(|| Error::auth("not signed in"))?;
                authority.refresh(client_id, token, resource).await
            }
            Acquire::Secret {
                authority,
                client_id,
                secret,
            } => {
                let proof = ClientProof::Secret(secret.clone());
                authority
                    .client_credentials(client_id, &proof, resource)
                    .await
            }
            Acquire::Certificate {
                authority,
                client_id,
                path,
                password,
            } => {
                let certificate = Certificate::load(path, password.as_ref())?;
                let assertion = certificate.assertion(client_id, &authority.token_url())?;
                let proof = ClientProof::Assertion(assertion);
                authority
                    .client_credentials(client_id, &proof, resource)
                    .await
            }
            Acquire::Federated {
                authority,
                client_id,
                file,
            } => {
                let text = std::fs::read_to_string(file).map_err(|err| {
                    Error::auth(format!(
                        "cannot read the federated token file {}",
                        file.display()
                    ))
                    .with_cause(err)
                })?;
                let proof = ClientProof::Assertion(Secret::new(text.trim()));
                authority
                    .client_credentials(client_id, &proof, resource)
                    .await
            }
            Acquire::ManagedIdentity {
                endpoint,
                client_id,
            } => endpoint.token(client_id.as_deref(), resource, tracer).await,
            Acquire::AzureCli { tenant } => azure_cli::token(tenant.clone(), resource).await,
        }
    }
}

/// The token in hand, and the sign-in it belongs to when it is cached.
struct Held {
    access: Option<(Secret, i64)>,
    refresh: Option<Secret>,
    login: Option<Login>,
}

/// A refreshing token provider for one credential source.
pub struct CredentialProvider {
    acquire: Acquire,
    resource: Resource,
    source: String,
    hint: String,
    tracer: Option<Tracer>,
    cache: Option<(TokenCache, String)>,
    held: Mutex<Held>,
}

impl CredentialProvider {
    /// A provider that keeps its tokens in memory only.
    pub fn new(acquire: Acquire, source: String, hint: String, tracer: Option<Tracer>) -> Self {
        CredentialProvider {
            acquire,
            resource: Resource::Fabric,
            source,
            hint,
            tracer,
            cache: None,
            held: Mutex::new(Held {
                access: None,
                refresh: None,
                login: None,
            }),
        }
    }

    /// The same source giving tokens for `resource` instead of Fabric.
    pub fn for_resource(mut self, resource: Resource) -> Self {
        self.resource = resource;
        self
    }

    /// A provider for a cached sign-in: starts from its tokens and saves new ones to it. The
    /// cache holds Fabric access tokens only; another resource's provider starts from the
    /// refresh token alone and saves only rotated refresh tokens.
    pub fn cached(mut self, cache: TokenCache, profile: String, login: Login) -> Self {
        let fabric = self.resource == Resource::Fabric;
        let held = self.held.get_mut();
        if fabric {
            held.access = login.access_token.clone().zip(login.expires_on);
        }
        held.refresh.clone_from(&login.refresh_token);
        held.login = Some(login);
        self.cache = Some((cache, profile));
        self
    }

    /// The sign-in method of the source.
    pub fn method(&self) -> Method {
        self.acquire.method()
    }

    /// Where its tokens come from.
    pub fn acquire(&self) -> &Acquire {
        &self.acquire
    }

    async fn fresh_token(&self, refresh: bool) -> Result<Secret> {
        let mut held = self.held.lock().await;
        if !refresh
            && let Some((token, expires_on)) = &held.access
            && *expires_on - EXPIRY_MARGIN_SECONDS > now_secs()
        {
            return Ok(token.clone());
        }
        let set = self
            .acquire
            .run(held.refresh.as_ref(), self.resource, self.tracer)
            .await
            .map_err(|err| match err.kind {
                ErrorKind::Auth if !err.hints.contains(&self.hint) => {
                    err.with_hint(self.hint.clone())
                }
                _ => err,
            })?;
        held.access = Some((set.access_token.clone(), set.expires_on));
        if let Some(rotated) = &set.refresh_token {
            held.refresh = Some(rotated.clone());
        }
        let fabric = self.resource == Resource::Fabric;
        if let (Some((cache, profile)), Some(login)) = (&self.cache, held.login.as_mut()) {
            if fabric {
                login.access_token = Some(set.access_token.clone());
                login.expires_on = Some(set.expires_on);
            }
            if set.refresh_token.is_some() {
                login.refresh_token.clone_from(&set.refresh_token);
            }
            cache.store(profile, login)?;
        }
        Ok(set.access_token)
    }
}

impl TokenProvider for CredentialProvider {
    fn token(&self, refresh: bool) -> BoxFuture<'_, Result<Secret>> {
        Box::pin(self.fresh_token(refresh))
    }

    fn source(&self) -> &str {
        &self.source
    }

    fn sign_in_hint(&self) -> String {
        self.hint.clone()
    }
}
