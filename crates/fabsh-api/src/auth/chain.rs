//! The credential chain: which source gives this process its tokens.
//!
//! `FABSH_TOKEN` always wins. Then the method the environment or profile names
//! (`auth-method`, set by `auth login`), and only that one. Without one, the first source
//! present: the profile's cached sign-in, a service principal from `FABSH_*` variables, a
//! managed identity whose endpoint the environment names, the Azure CLI.
//!
//! `FABSH_TOKEN` and a cached sign-in belong to one endpoint, and the other sources to where
//! their issuer's tokens go ([`super::binding`]): chosen while another endpoint is in use,
//! they refuse to give tokens, so nothing is sent there.

use super::binding::{Bound, InUse};
use super::cache::{Login, TokenCache};
use super::credential::{Acquire, CredentialProvider};
use super::managed_identity::IdentityEndpoint;
use super::oauth::Authority;
use super::{
    Method, NoCredentials, Refusing, Resource, Secret, StaticToken, TokenProvider, azure_cli,
};
use crate::config::{DEFAULT_PROFILE, STORAGE_TOKEN_VAR, Settings, TOKEN_VAR, env_text};
use crate::error::{Error, Result};
use crate::watch::Tracer;
use std::path::PathBuf;
use std::sync::Arc;

/// The public client device-code sign-ins use unless `--client-id` names another: the
/// Fabric CLI's registration, which Entra already trusts for Fabric's delegated scopes.
pub const PUBLIC_CLIENT_ID: &str = "5814bfb4-2705-4994-b8d6-39aabeb5eaeb";
/// The tenant of a user sign-in when none is configured: the user's home tenant.
pub const ANY_ORGANIZATION: &str = "organizations";
/// A service principal's secret.
pub const CLIENT_SECRET_VAR: &str = "FABSH_CLIENT_SECRET";
/// A service principal's certificate file (PEM or PFX).
pub const CLIENT_CERTIFICATE_VAR: &str = "FABSH_CLIENT_CERTIFICATE";
/// The PFX password.
pub const CLIENT_CERTIFICATE_PASSWORD_VAR: &str = "FABSH_CLIENT_CERTIFICATE_PASSWORD";
/// A federated (workload identity) token file.
pub const FEDERATED_TOKEN_FILE_VAR: &str = "FABSH_FEDERATED_TOKEN_FILE";

/// The chosen source.
pub struct Chosen {
    /// Gives the tokens.
    pub provider: Arc<dyn TokenProvider>,
    /// The method, or `None` for `FABSH_TOKEN` and when nothing is configured.
    pub method: Option<Method>,
    /// For Fabric tokens: where they may go, and the endpoint in use. When that is not one of
    /// them, `provider` refuses.
    pub bound: Option<Bound>,
}

/// `fabsh auth login`, with `--profile` when the profile is not the default.
pub fn login_command(profile: &str) -> String {
    if profile == DEFAULT_PROFILE {
        "fabsh auth login".to_string()
    } else {
        format!("fabsh --profile {profile} auth login")
    }
}

/// An authority for `tenant` at the configured host.
pub fn authority(settings: &Settings, tenant: &str, tracer: Option<Tracer>) -> Result<Authority> {
    Authority::new(&settings.authority_host().0, tenant, tracer)
}

/// Picks the source of Fabric tokens for these settings. Reads the cache, never the network.
pub fn choose(settings: &Settings, tracer: Option<Tracer>) -> Result<Chosen> {
    choose_for(settings, Resource::Fabric, tracer)
}

/// Picks the source of tokens for `resource`: the same source as Fabric's, except that
/// `FABSH_TOKEN` holds a Fabric token only and is passed over for other resources, and
/// `FABSH_STORAGE_TOKEN` holds a Storage token for the OneLake of the same endpoint.
pub fn choose_for(
    settings: &Settings,
    resource: Resource,
    tracer: Option<Tracer>,
) -> Result<Chosen> {
    // Fabric tokens go to the endpoint, and Storage tokens to its OneLake (a function of the
    // endpoint, so bound as the endpoint is); Cognitive Services tokens go to the model the
    // user names.
    let in_use = match resource {
        Resource::Fabric | Resource::Storage => Some(InUse::of(settings)?),
        Resource::CognitiveServices => None,
    };
    let static_var = match resource {
        Resource::Fabric => Some(TOKEN_VAR),
        Resource::Storage => Some(STORAGE_TOKEN_VAR),
        Resource::CognitiveServices => None,
    };
    let static_token = static_var.and_then(|var| Some((var, env_text(var)?)));
    if let (Some((var, token)), Some(in_use)) = (static_token, in_use.clone()) {
        let bound = Bound::env_token(in_use, var)?;
        let provider = StaticToken::new(Secret::new(token), var);
        return Ok(Chosen {
            provider: guarded(provider, Some(&bound)),
            method: None,
            bound: Some(bound),
        });
    }
    let profile = settings.profile_name();
    let cache = TokenCache::open();
    let explicit = settings.auth_method()?;
    let login = cache.load(&profile)?;
    if let Some(login) = login.filter(|l| explicit.is_none_or(|m| m == l.method)) {
        let method = login.method;
        let bound = match in_use {
            Some(in_use) => Some(Bound::sign_in(&profile, &login, in_use)?),
            None => None,
        };
        let provider = from_login(settings, cache, &profile, login, resource, tracer)?;
        return Ok(Chosen {
            provider: guarded(provider, bound.as_ref()),
            method: Some(method),
            bound,
        });
    }
    let service_principal = service_principal_from_env(settings, tracer)?;
    let identity = IdentityEndpoint::from_env();
    let provider = match explicit {
        Some(Method::DeviceCode) => {
            let refusing = Refusing::new(
                format!("the signed-in user of profile `{profile}`"),
                Error::auth(format!("profile `{profile}` is not signed in"))
                    .with_hint(format!("sign in with `{}`", login_command(&profile))),
            );
            return Ok(Chosen {
                provider: Arc::new(refusing),
                method: explicit,
                bound: None,
            });
        }
        Some(Method::ServicePrincipal) => service_principal.ok_or_else(|| {
            Error::auth("the service principal has no credentials").with_hint(format!(
                "set FABSH_TENANT_ID, FABSH_CLIENT_ID and one of {CLIENT_SECRET_VAR}, {CLIENT_CERTIFICATE_VAR}, {FEDERATED_TOKEN_FILE_VAR}, or run `{} --service-principal`",
                login_command(&profile)
            ))
        })?,
        Some(Method::ManagedIdentity) => {
            managed_identity(settings, IdentityEndpoint::from_env_or_imds(), None, tracer)
        }
        Some(Method::AzureCli) => azure_cli_provider(settings, tracer),
        None => match (service_principal, identity) {
            (Some(provider), _) => provider,
            (None, Some(endpoint)) => managed_identity(settings, endpoint, None, tracer),
            (None, None) if azure_cli::find().is_some() => azure_cli_provider(settings, tracer),
            (None, None) => {
                return Ok(Chosen {
                    provider: Arc::new(NoCredentials),
                    method: None,
                    bound: None,
                });
            }
        },
    };
    let method = explicit.unwrap_or_else(|| provider.method());
    let bound = match in_use {
        Some(in_use) => Some(Bound::source(&provider, settings, in_use)?),
        None => None,
    };
    Ok(Chosen {
        provider: guarded(provider.for_resource(resource), bound.as_ref()),
        method: Some(method),
        bound,
    })
}

/// `provider`, or, when the endpoint in use may not get its tokens, a source that refuses
/// with the reason before anything is sent.
fn guarded(
    provider: impl TokenProvider + 'static,
    bound: Option<&Bound>,
) -> Arc<dyn TokenProvider> {
    match bound {
        Some(bound) if !bound.holds() => {
            Arc::new(Refusing::new(provider.source().into(), bound.refusal()))
        }
        _ => Arc::new(provider),
    }
}

/// The provider for a cached sign-in.
fn from_login(
    settings: &Settings,
    cache: TokenCache,
    profile: &str,
    login: Login,
    resource: Resource,
    tracer: Option<Tracer>,
) -> Result<CredentialProvider> {
    let again = format!("sign in again with `{}`", login_command(profile));
    let tenant = login
        .tenant
        .clone()
        .unwrap_or_else(|| ANY_ORGANIZATION.into());
    // A sign-in stored without a client id (older versions) refreshes with none named.
    let client_id = login.client_id.clone().unwrap_or_default();
    // Refresh tokens and app credentials go back to the authority that signed in; entries of
    // versions that did not record it use the configured one, as those versions did.
    let issuer = || match login
        .made_for
        .as_ref()
        .and_then(|m| m.authority_host.as_ref())
    {
        Some(host) => Authority::new(host, &tenant, tracer),
        None => authority(settings, &tenant, tracer),
    };
    let provider = match login.method {
        Method::DeviceCode => {
            let acquire = Acquire::Refresh {
                authority: issuer()?,
                client_id: if client_id.is_empty() {
                    PUBLIC_CLIENT_ID.into()
                } else {
                    client_id
                },
            };
            let source = format!("the signed-in user of profile `{profile}`");
            CredentialProvider::new(acquire, source, again, tracer)
        }
        Method::ServicePrincipal => {
            let acquire = app_acquire(issuer()?, client_id.clone(), &login)?;
            let source = format!("service principal {client_id} of profile `{profile}`");
            CredentialProvider::new(acquire, source, again, tracer)
        }
        Method::ManagedIdentity => {
            let endpoint = IdentityEndpoint::from_env_or_imds();
            let client_id = login.client_id.clone();
            managed_identity(settings, endpoint, client_id, tracer)
        }
        Method::AzureCli => azure_cli_provider(settings, tracer),
    };
    Ok(provider
        .for_resource(resource)
        .cached(cache, profile.to_string(), login))
}

/// How a service principal proves itself, from what a sign-in holds.
pub fn app_acquire(authority: Authority, client_id: String, login: &Login) -> Result<Acquire> {
    if let Some(secret) = &login.client_secret {
        return Ok(Acquire::Secret {
            authority,
            client_id,
            secret: secret.clone(),
        });
    }
    if let Some(path) = &login.certificate {
        return Ok(Acquire::Certificate {
            authority,
            client_id,
            path: path.clone(),
            password: login.certificate_password.clone(),
        });
    }
    match &login.federated_token_file {
        Some(file) => Ok(Acquire::Federated {
            authority,
            client_id,
            file: file.clone(),
        }),
        None => Err(Error::auth(
            "the cached service principal has no credential",
        )),
    }
}

/// A service principal from `FABSH_*` variables, when one of its credentials is set.
fn service_principal_from_env(
    settings: &Settings,
    tracer: Option<Tracer>,
) -> Result<Option<CredentialProvider>> {
    let mut login = Login::new(Method::ServicePrincipal);
    login.client_secret = env_text(CLIENT_SECRET_VAR).map(Secret::new);
    login.certificate = env_text(CLIENT_CERTIFICATE_VAR).map(PathBuf::from);
    login.certificate_password = env_text(CLIENT_CERTIFICATE_PASSWORD_VAR).map(Secret::new);
    login.federated_token_file = env_text(FEDERATED_TOKEN_FILE_VAR).map(PathBuf::from);
    if login.client_secret.is_none()
        && login.certificate.is_none()
        && login.federated_token_file.is_none()
    {
        return Ok(None);
    }
    let (Some(tenant), Some(client_id)) = (settings.value("tenant"), settings.value("client-id"))
    else {
        return Err(Error::usage(
            "a service principal credential is set, but not its tenant and client id",
        )
        .with_hint("set FABSH_TENANT_ID and FABSH_CLIENT_ID too"));
    };
    let acquire = app_acquire(
        authority(settings, &tenant, tracer)?,
        client_id.clone(),
        &login,
    )?;
    Ok(Some(CredentialProvider::new(
        acquire,
        format!("service principal {client_id} (FABSH_CLIENT_* variables)"),
        "check FABSH_TENANT_ID, FABSH_CLIENT_ID and the client credential variables".into(),
        tracer,
    )))
}

fn managed_identity(
    settings: &Settings,
    endpoint: IdentityEndpoint,
    client_id: Option<String>,
    tracer: Option<Tracer>,
) -> CredentialProvider {
    let client_id = client_id.or_else(|| settings.value("client-id"));
    let source = match &client_id {
        Some(id) => format!("managed identity {id}"),
        None => "managed identity".to_string(),
    };
    CredentialProvider::new(
        Acquire::ManagedIdentity {
            endpoint,
            client_id,
        },
        source,
        "check that the managed identity exists here and may use Fabric".into(),
        tracer,
    )
}

fn azure_cli_provider(settings: &Settings, tracer: Option<Tracer>) -> CredentialProvider {
    CredentialProvider::new(
        Acquire::AzureCli {
            tenant: settings.value("tenant"),
        },
        "the Azure CLI".into(),
        "sign in with `az login`".into(),
        tracer,
    )
}
