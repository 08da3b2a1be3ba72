//! `fabsh auth login`: the sign-in methods, where an app's credential comes from, and what is
//! remembered of a sign-in (the token cache and the profile).

use super::{SIGN_IN, merge, not_local};
use crate::commands::args::FileArg;
use crate::commands::spec::{
    ArgKind, ArgSpec, CERTIFICATE_FILE_CAP, CommandSpec, Example, Handler, HandlerFuture,
    SECRET_FILE_CAP,
};
use crate::commands::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::output::Tracer;
use crate::reply::Reply;
use fabsh_api::api::normalize_endpoint;
use fabsh_api::auth::binding::MadeFor;
use fabsh_api::auth::cache::{Login, TokenCache};
use fabsh_api::auth::chain::{self, ANY_ORGANIZATION, PUBLIC_CLIENT_ID};
use fabsh_api::auth::credential::Acquire;
use fabsh_api::auth::managed_identity::IdentityEndpoint;
use fabsh_api::auth::oauth::Authority;
use fabsh_api::auth::{Method, Resource, Secret, TokenSet, claims};
use fabsh_api::config::{ConfigFile, Settings, config_path, env_text};
use serde_json::{Value, json};
use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};

const DEVICE_CODE: ArgSpec = ArgSpec::opt(
    "device-code",
    ArgKind::Bool,
    "Sign in as a user with a code entered in a browser (default)",
);
const SERVICE_PRINCIPAL: ArgSpec = ArgSpec::opt(
    "service-principal",
    ArgKind::Bool,
    "Sign in as an app (needs --tenant and --client-id)",
);
const MANAGED_IDENTITY: ArgSpec = ArgSpec::opt(
    "managed-identity",
    ArgKind::Bool,
    "Use this machine's managed identity",
);
const AZURE_CLI: ArgSpec = ArgSpec::opt(
    "azure-cli",
    ArgKind::Bool,
    "Use whoever is signed in to the Azure CLI",
);
const TENANT: ArgSpec = ArgSpec::opt(
    "tenant",
    ArgKind::Str,
    "Tenant id or domain (default: the profile's tenant)",
);
const CLIENT_ID: ArgSpec = ArgSpec::opt(
    "client-id",
    ArgKind::Str,
    "App id: the service principal, a user-assigned identity, or the public client of a device-code sign-in",
);
const CLIENT_SECRET: ArgSpec = ArgSpec::opt(
    "client-secret",
    ArgKind::Bool,
    "Read the service principal's secret from stdin (else FABSH_CLIENT_SECRET is used)",
);
const CERTIFICATE: ArgSpec = ArgSpec::opt(
    "certificate",
    ArgKind::File,
    "Service principal certificate: PEM with its key, or PFX (password in FABSH_CLIENT_CERTIFICATE_PASSWORD)",
)
.max_bytes(CERTIFICATE_FILE_CAP);
const FEDERATED_TOKEN_FILE: ArgSpec = ArgSpec::opt(
    "federated-token-file",
    ArgKind::File,
    "File holding a federated (workload identity) token",
)
.max_bytes(SECRET_FILE_CAP);
pub(super) const LOGIN: CommandSpec = CommandSpec {
    group: "auth",
    name: "login",
    summary: "Sign in and remember it for the profile (device code unless another method is given)",
    about: "The sign-in's refresh token (or how to get tokens again) is cached in the user \
state dir, mode 0600; the method, tenant and client id go to the profile. A service \
principal's secret is read from stdin with --client-secret (never a flag value), else from \
FABSH_CLIENT_SECRET. The sign-in is for the endpoint in use (--endpoint, FABSH_ENDPOINT or the \
profile's endpoint) and its authority: its tokens go to that endpoint only (and to the hosts of \
its Fabric cloud), and any other endpoint is refused (exit 3) until it is signed in to.",
    args: &[
        DEVICE_CODE,
        SERVICE_PRINCIPAL,
        MANAGED_IDENTITY,
        AZURE_CLI,
        TENANT,
        CLIENT_ID,
        CLIENT_SECRET,
        CERTIFICATE,
        FEDERATED_TOKEN_FILE,
    ],
    traits: SIGN_IN,
    columns: &[],
    examples: &[
        Example {
            command: "auth login",
            about: "a user, with a device code",
        },
        Example {
            command: "auth login --service-principal --tenant \"$TENANT_ID\" --client-id \"$CLIENT_ID\" --client-secret < secret.txt",
            about: "an app, its secret on stdin",
        },
    ],
    handler: Handler::Data(handler::<SignIn>),
};

typed_args! {
    /// `auth login`.
    struct SignIn {
        device_code: bool = DEVICE_CODE,
        service_principal: bool = SERVICE_PRINCIPAL,
        managed_identity: bool = MANAGED_IDENTITY,
        azure_cli: bool = AZURE_CLI,
        tenant: Option<String> = TENANT,
        client_id: Option<String> = CLIENT_ID,
        client_secret: bool = CLIENT_SECRET,
        certificate: Option<FileArg> = CERTIFICATE,
        federated_token_file: Option<FileArg> = FEDERATED_TOKEN_FILE,
    }
}

impl SignIn {
    /// The sign-in method the switches choose: device code when none is given; more than
    /// one is a usage error naming them.
    fn method(&self) -> Result<Method> {
        let chosen: Vec<&str> = [
            (DEVICE_CODE.long, self.device_code),
            (SERVICE_PRINCIPAL.long, self.service_principal),
            (MANAGED_IDENTITY.long, self.managed_identity),
            (AZURE_CLI.long, self.azure_cli),
        ]
        .into_iter()
        .filter_map(|(method, given)| given.then_some(method))
        .collect();
        match chosen.as_slice() {
            [] | ["device-code"] => Ok(Method::DeviceCode),
            ["service-principal"] => Ok(Method::ServicePrincipal),
            ["managed-identity"] => Ok(Method::ManagedIdentity),
            ["azure-cli"] => Ok(Method::AzureCli),
            _ => Err(Error::usage(format!(
                "give one sign-in method, not {}",
                chosen
                    .iter()
                    .map(|m| format!("--{m}"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ))),
        }
    }

    /// The flags that carry an app's credential only mean something to a service-principal
    /// sign-in: ignored, they would start a device-code sign-in that waits for a person
    /// (forever, in CI) while the caller meant to sign in as the app.
    fn app_credentials_need_service_principal(&self, method: Method) -> Result<()> {
        if method == Method::ServicePrincipal {
            return Ok(());
        }
        let given = [
            (CERTIFICATE.long, self.certificate.is_some()),
            (
                FEDERATED_TOKEN_FILE.long,
                self.federated_token_file.is_some(),
            ),
            (CLIENT_SECRET.long, self.client_secret),
        ]
        .into_iter()
        .find_map(|(flag, given)| given.then_some(flag));
        let Some(given) = given else {
            return Ok(());
        };
        Err(Error::usage(format!(
            "--{given} is an app's credential: it needs --service-principal (with --tenant and --client-id)"
        ))
        .with_hint("add --service-principal, or leave the credential out to sign in as a user"))
    }

    /// Where a service principal's secret, certificate or federated token comes from: the
    /// flags, else the `FABSH_CLIENT_*` variables. A secret is never a flag value (it would
    /// land in shell history): `--client-secret` reads it from stdin.
    fn app_credential(&self, login: &mut Login) -> Result<()> {
        use fabsh_api::auth::chain::{
            CLIENT_CERTIFICATE_PASSWORD_VAR, CLIENT_CERTIFICATE_VAR, CLIENT_SECRET_VAR,
            FEDERATED_TOKEN_FILE_VAR,
        };
        if self.client_secret {
            login.client_secret = Some(secret_from_stdin()?);
        } else if let Some(certificate) = &self.certificate {
            login.certificate = Some(absolute(&certificate.path)?);
            login.certificate_password = env_text(CLIENT_CERTIFICATE_PASSWORD_VAR).map(Secret::new);
        } else if let Some(file) = &self.federated_token_file {
            login.federated_token_file = Some(absolute(&file.path)?);
        } else if let Some(secret) = env_text(CLIENT_SECRET_VAR) {
            login.client_secret = Some(Secret::new(secret));
        } else if let Some(certificate) = env_text(CLIENT_CERTIFICATE_VAR) {
            login.certificate = Some(absolute(Path::new(&certificate))?);
            login.certificate_password = env_text(CLIENT_CERTIFICATE_PASSWORD_VAR).map(Secret::new);
        } else if let Some(file) = env_text(FEDERATED_TOKEN_FILE_VAR) {
            login.federated_token_file = Some(absolute(Path::new(&file))?);
        } else {
            return Err(Error::usage("the service principal needs a credential").with_hint(
                "pipe the secret into --client-secret, or give --certificate or --federated-token-file",
            ));
        }
        Ok(())
    }
}

impl Command for SignIn {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let settings = ctx.settings();
            not_local(settings)?;
            let method = self.method()?;
            self.app_credentials_need_service_principal(method)?;
            let tracer = settings.verbose.then_some(Tracer);
            let mut login = Login::new(method);
            login.tenant = self.tenant.clone().or_else(|| settings.value("tenant"));
            let set = match method {
                Method::DeviceCode => {
                    let tenant = login
                        .tenant
                        .clone()
                        .unwrap_or_else(|| ANY_ORGANIZATION.into());
                    let client_id = self
                        .client_id
                        .clone()
                        .unwrap_or_else(|| PUBLIC_CLIENT_ID.into());
                    login.client_id = self.client_id.clone();
                    let authority = chain::authority(settings, &tenant, tracer)?;
                    let code = authority.start_device_code(&client_id).await?;
                    ctx.api()
                        .progress()
                        .announce(&Authority::device_code_message(&code));
                    authority.finish_device_code(&client_id, &code).await?
                }
                Method::ServicePrincipal => {
                    let tenant = login.tenant.clone().ok_or_else(|| {
                        Error::usage(
                            "a service principal sign-in needs --tenant (or FABSH_TENANT_ID)",
                        )
                    })?;
                    let client_id = self.client_id.clone()
                    .or_else(|| settings.value("client-id"))
                    .ok_or_else(|| {
                        Error::usage(
                            "a service principal sign-in needs --client-id (or FABSH_CLIENT_ID)",
                        )
                    })?;
                    login.client_id = Some(client_id.clone());
                    self.app_credential(&mut login)?;
                    let authority = chain::authority(settings, &tenant, tracer)?;
                    let acquire = chain::app_acquire(authority, client_id, &login)?;
                    acquire.run(None, Resource::Fabric, tracer).await?
                }
                Method::ManagedIdentity => {
                    login.client_id = self
                        .client_id
                        .clone()
                        .or_else(|| settings.value("client-id"));
                    let acquire = Acquire::ManagedIdentity {
                        endpoint: IdentityEndpoint::from_env_or_imds(),
                        client_id: login.client_id.clone(),
                    };
                    acquire.run(None, Resource::Fabric, tracer).await?
                }
                Method::AzureCli => {
                    let acquire = Acquire::AzureCli {
                        tenant: login.tenant.clone(),
                    };
                    acquire.run(None, Resource::Fabric, tracer).await?
                }
            };
            let given = (self.tenant.as_deref(), self.client_id.as_deref());
            Ok(Reply::json(remember(login, set, given, settings)?))
        })
    }
}

/// Cached paths are absolute, so later commands find them from any directory.
fn absolute(path: &Path) -> Result<PathBuf> {
    std::path::absolute(path)
        .map_err(|err| Error::usage(format!("bad path {}", path.display())).with_cause(err))
}

fn secret_from_stdin() -> Result<Secret> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        // Typed at a terminal, the secret would be echoed; a pipe keeps it off the screen.
        return Err(
            Error::usage("--client-secret reads the secret from a pipe, not a terminal").with_hint(
                "printf %s \"$SECRET\" | fabsh auth login --service-principal ... --client-secret",
            ),
        );
    }
    let mut line = String::new();
    stdin.lock().read_line(&mut line)?;
    let secret = line.trim_end_matches(['\r', '\n']);
    if secret.is_empty() {
        return Err(Error::usage("no client secret on stdin"));
    }
    Ok(Secret::new(secret))
}

/// Saves the sign-in to the cache and its method to the profile, with the `--tenant` and
/// `--client-id` given; returns what to show.
fn remember(
    mut login: Login,
    set: TokenSet,
    (tenant, client_id): (Option<&str>, Option<&str>),
    settings: &Settings,
) -> Result<Value> {
    let profile = settings.profile_name();
    let described = claims::describe(set.access_token.expose());
    let endpoint = normalize_endpoint(&settings.endpoint())?;
    // Managed identities and the Azure CLI get tokens from sources of their own.
    let authority_host = matches!(login.method, Method::DeviceCode | Method::ServicePrincipal)
        .then(|| settings.authority_host().0);
    login.made_for = Some(MadeFor {
        endpoint: endpoint.to_string(),
        authority_host,
        audience: Resource::Fabric.uri().to_string(),
    });
    login.access_token = Some(set.access_token);
    login.expires_on = Some(set.expires_on);
    login.refresh_token = set.refresh_token;
    TokenCache::open().store(&profile, &login)?;
    let path = config_path();
    let mut file = ConfigFile::load(&path)?;
    file.set(&profile, "auth-method", login.method.as_str());
    if let Some(tenant) = tenant {
        file.set(&profile, "tenant", tenant);
    }
    if login.method != Method::DeviceCode
        && let Some(client_id) = client_id
    {
        file.set(&profile, "client-id", client_id);
    }
    file.save(&path)?;
    let mut summary = json!({
        "profile": profile,
        "method": login.method.as_str(),
        "endpoint": endpoint.as_str(),
        "authorityHost": settings.authority_host().0,
    });
    merge(&mut summary, described);
    Ok(summary)
}
