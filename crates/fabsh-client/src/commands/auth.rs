//! `fabsh auth login|status|logout|token`. Tokens never reach the terminal, except through
//! `auth token` into a pipe (or with `--show`); a secret is never a flag value.

use crate::api::normalize_endpoint;
use crate::auth::binding::MadeFor;
use crate::auth::cache::{Login, TokenCache};
use crate::auth::chain::{self, ANY_ORGANIZATION, PUBLIC_CLIENT_ID};
use crate::auth::credential::Acquire;
use crate::auth::managed_identity::IdentityEndpoint;
use crate::auth::oauth::Authority;
use crate::auth::{Method, Resource, Secret, TokenProvider, TokenSet, claims};
use crate::commands::args::Args;
use crate::commands::spec::{
    ArgKind, ArgSpec, CERTIFICATE_FILE_CAP, CommandSpec, Example, Handler, HandlerFuture, Needs,
    SECRET_FILE_CAP, Traits,
};
use crate::config::{ConfigFile, Settings, config_path, env_text};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::output::Tracer;
use crate::reply::Reply;
use serde_json::{Value, json};
use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};

/// Sign-ins and the token cache change; nothing is sent to the Fabric API.
const SIGN_IN: Traits = Traits::MUTATE.needs(Needs::Nothing);
const METHODS: &[&str] = &[
    "device-code",
    "service-principal",
    "managed-identity",
    "azure-cli",
];

/// Every `auth` command.
pub static COMMANDS: &[CommandSpec] = &[LOGIN, STATUS, LOGOUT, TOKEN];

const LOGIN: CommandSpec = CommandSpec {
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
        ArgSpec::opt(
            "device-code",
            ArgKind::Bool,
            "Sign in as a user with a code entered in a browser (default)",
        ),
        ArgSpec::opt(
            "service-principal",
            ArgKind::Bool,
            "Sign in as an app (needs --tenant and --client-id)",
        ),
        ArgSpec::opt(
            "managed-identity",
            ArgKind::Bool,
            "Use this machine's managed identity",
        ),
        ArgSpec::opt(
            "azure-cli",
            ArgKind::Bool,
            "Use whoever is signed in to the Azure CLI",
        ),
        ArgSpec::opt(
            "tenant",
            ArgKind::Str,
            "Tenant id or domain (default: the profile's tenant)",
        ),
        ArgSpec::opt(
            "client-id",
            ArgKind::Str,
            "App id: the service principal, a user-assigned identity, or the public client of a device-code sign-in",
        ),
        ArgSpec::opt(
            "client-secret",
            ArgKind::Bool,
            "Read the service principal's secret from stdin (else FABSH_CLIENT_SECRET is used)",
        ),
        ArgSpec::opt(
            "certificate",
            ArgKind::File,
            "Service principal certificate: PEM with its key, or PFX (password in FABSH_CLIENT_CERTIFICATE_PASSWORD)",
        )
        .max_bytes(CERTIFICATE_FILE_CAP),
        ArgSpec::opt(
            "federated-token-file",
            ArgKind::File,
            "File holding a federated (workload identity) token",
        )
        .max_bytes(SECRET_FILE_CAP),
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
    handler: Handler::Data(login),
};

const STATUS: CommandSpec = CommandSpec {
    group: "auth",
    name: "status",
    summary: "Show the credential source in effect, its tenant, principal and expiry (never the token)",
    about: "Signed out is an answer, not a failure (signedIn: false, exit 0), unless --check asks \
            for the exit code to tell. The answer is for the endpoint in use: a credential whose \
            tokens are not for it (a sign-in or FABSH_TOKEN for another endpoint; a service \
            principal, managed identity or the Azure CLI whose tokens are for another cloud or \
            server) is signedIn: false, with signedInFor naming where they go.",
    args: &[ArgSpec::opt(
        "check",
        ArgKind::Bool,
        "Exit non-zero (3) when not signed in, for scripts",
    )],
    traits: Traits::READ.needs(Needs::Nothing),
    columns: &[],
    examples: &[Example {
        command: "auth status",
        about: "where the credentials come from, for whom and until when",
    }],
    handler: Handler::Data(status),
};

const LOGOUT: CommandSpec = CommandSpec {
    group: "auth",
    name: "logout",
    summary: "Forget the profile's cached sign-in and tokens",
    about: "",
    args: &[],
    traits: SIGN_IN.void(),
    columns: &[],
    examples: &[Example {
        command: "auth logout",
        about: "forget the default profile's sign-in; the other credential sources still apply",
    }],
    handler: Handler::Data(logout),
};

const TOKEN: CommandSpec = CommandSpec {
    group: "auth",
    name: "token",
    summary: "Print a bearer token for other tools (only into a pipe, unless --show)",
    about: "",
    args: &[ArgSpec::opt(
        "show",
        ArgKind::Bool,
        "Print the token even to a terminal",
    )],
    traits: Traits::READ.needs(Needs::Nothing).secret(),
    columns: &[],
    examples: &[Example {
        command: "auth token --show",
        about: "a token for curl: curl -H \"Authorization: Bearer $(fabsh auth token)\" ...",
    }],
    handler: Handler::Data(token),
};

/// `auth` signs in to endpoints other than the in-process local Fabric, which needs none.
fn not_local(settings: &Settings) -> Result<()> {
    if settings.local {
        return Err(Error::usage(
            "--local signs in as local Fabric's admin by itself; `auth` is for other endpoints",
        )
        .with_hint("run `fabsh local serve` and point FABSH_ENDPOINT at it to sign in to it"));
    }
    Ok(())
}

/// The flags that carry an app's credential only mean something to a service-principal
/// sign-in: ignored, they would start a device-code sign-in that waits for a person (forever,
/// in CI) while the caller meant to sign in as the app.
const APP_CREDENTIALS: &[&str] = &["certificate", "federated-token-file", "client-secret"];

fn app_credentials_need_service_principal(args: &Args, method: Method) -> Result<()> {
    if method == Method::ServicePrincipal {
        return Ok(());
    }
    let given = APP_CREDENTIALS
        .iter()
        .find(|flag| args.has(flag) && args.opt_bool(flag) != Some(false));
    let Some(given) = given else {
        return Ok(());
    };
    Err(Error::usage(format!(
        "--{given} is an app's credential: it needs --service-principal (with --tenant and --client-id)"
    ))
    .with_hint("add --service-principal, or leave the credential out to sign in as a user"))
}

fn login(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let settings = ctx.settings();
        not_local(settings)?;
        let chosen: Vec<&str> = METHODS.iter().copied().filter(|m| args.flag(m)).collect();
        let method = match chosen.as_slice() {
            [] | ["device-code"] => Method::DeviceCode,
            ["service-principal"] => Method::ServicePrincipal,
            ["managed-identity"] => Method::ManagedIdentity,
            ["azure-cli"] => Method::AzureCli,
            _ => {
                return Err(Error::usage(format!(
                    "give one sign-in method, not {}",
                    chosen
                        .iter()
                        .map(|m| format!("--{m}"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                )));
            }
        };
        app_credentials_need_service_principal(&args, method)?;
        let text = |name: &str| args.opt_str(name).map(String::from);
        let tracer = settings.verbose.then_some(Tracer);
        let mut login = Login::new(method);
        login.tenant = text("tenant").or_else(|| settings.value("tenant"));
        let set = match method {
            Method::DeviceCode => {
                let tenant = login
                    .tenant
                    .clone()
                    .unwrap_or_else(|| ANY_ORGANIZATION.into());
                let client_id = text("client-id").unwrap_or_else(|| PUBLIC_CLIENT_ID.into());
                login.client_id = text("client-id");
                let authority = chain::authority(settings, &tenant, tracer)?;
                let code = authority.start_device_code(&client_id).await?;
                ctx.api()
                    .progress()
                    .announce(&Authority::device_code_message(&code));
                authority.finish_device_code(&client_id, &code).await?
            }
            Method::ServicePrincipal => {
                let tenant = login.tenant.clone().ok_or_else(|| {
                    Error::usage("a service principal sign-in needs --tenant (or FABSH_TENANT_ID)")
                })?;
                let client_id = text("client-id")
                    .or_else(|| settings.value("client-id"))
                    .ok_or_else(|| {
                        Error::usage(
                            "a service principal sign-in needs --client-id (or FABSH_CLIENT_ID)",
                        )
                    })?;
                login.client_id = Some(client_id.clone());
                app_credential(&args, &mut login)?;
                let authority = chain::authority(settings, &tenant, tracer)?;
                let acquire = chain::app_acquire(authority, client_id, &login)?;
                acquire.run(None, Resource::Fabric, tracer).await?
            }
            Method::ManagedIdentity => {
                login.client_id = text("client-id").or_else(|| settings.value("client-id"));
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
        Ok(Reply::json(remember(login, set, &args, settings)?))
    })
}

/// Where a service principal's secret, certificate or federated token comes from: the
/// flags, else the `FABSH_CLIENT_*` variables. A secret is never a flag value (it would land
/// in shell history): `--client-secret` reads it from stdin.
fn app_credential(args: &Args, login: &mut Login) -> Result<()> {
    use crate::auth::chain::{
        CLIENT_CERTIFICATE_PASSWORD_VAR, CLIENT_CERTIFICATE_VAR, CLIENT_SECRET_VAR,
        FEDERATED_TOKEN_FILE_VAR,
    };
    let path = |name: &str| args.file(name).map(|file| file.path.clone());
    if args.flag("client-secret") {
        login.client_secret = Some(secret_from_stdin()?);
    } else if let Some(certificate) = path("certificate") {
        login.certificate = Some(absolute(&certificate)?);
        login.certificate_password = env_text(CLIENT_CERTIFICATE_PASSWORD_VAR).map(Secret::new);
    } else if let Some(file) = path("federated-token-file") {
        login.federated_token_file = Some(absolute(&file)?);
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

/// Saves the sign-in to the cache and its method to the profile; returns what to show.
fn remember(mut login: Login, set: TokenSet, args: &Args, settings: &Settings) -> Result<Value> {
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
    if let Some(tenant) = args.opt_str("tenant") {
        file.set(&profile, "tenant", tenant);
    }
    if login.method != Method::DeviceCode
        && let Some(client_id) = args.opt_str("client-id")
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

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(into), Value::Object(from)) = (into, from) {
        into.extend(from);
    }
}

/// The credential in effect and a token from it.
async fn current(settings: &Settings) -> Result<(chain::Chosen, Secret)> {
    not_local(settings)?;
    let chosen = chain::choose(settings, settings.verbose.then_some(Tracer))?;
    let token = chosen.provider.token(false).await?;
    Ok((chosen, token))
}

fn status(ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        let settings = ctx.settings();
        not_local(settings)?;
        let chosen = chain::choose(settings, settings.verbose.then_some(Tracer))?;
        if chosen.provider.source() == crate::auth::NoCredentials.source() {
            let signed_out = json!({
                "profile": settings.profile_name(),
                "signedIn": false,
                "endpoint": settings.endpoint(),
            });
            if args.flag("check") {
                return Err(chosen
                    .provider
                    .token(false)
                    .await
                    .err()
                    .unwrap_or_else(|| Error::auth("not signed in")));
            }
            return Ok(Reply::json(signed_out).with_note(
                "not signed in: sign in with `fabsh auth login`, set FABSH_TOKEN to a bearer \
                 token, or use `fabsh --local ...` for local Fabric",
            ));
        }
        let mut out = json!({
            "profile": settings.profile_name(),
            "signedIn": true,
            "source": chosen.provider.source(),
            "method": chosen.method.map(Method::as_str),
            "endpoint": normalize_endpoint(&settings.endpoint())?.as_str(),
            "authorityHost": settings.authority_host().0,
        });
        if let Some(bound) = &chosen.bound {
            out["signedInFor"] = json!(bound.made_for());
            if let Some(host) = bound.authority_host() {
                out["authorityHost"] = json!(host);
            }
            if !bound.holds() {
                // Not signed in for this endpoint: nothing is asked of the credential.
                if args.flag("check") {
                    return Err(bound.refusal());
                }
                out["signedIn"] = json!(false);
                let refusal = bound.refusal();
                let mut note = refusal.message.clone();
                for hint in &refusal.hints {
                    note.push_str(&format!("; {hint}"));
                }
                return Ok(Reply::json(out).with_note(note));
            }
        }
        let token = match chosen.provider.token(false).await {
            Ok(token) => token,
            // Signed out (after `auth logout` the profile still names its method), or a
            // sign-in that no longer gives tokens: the same answer as never signed in, with
            // the reason; an error only under --check.
            Err(err) if err.kind == ErrorKind::Auth && !args.flag("check") => {
                out["signedIn"] = json!(false);
                let mut note = format!("not signed in: {}", err.message);
                for hint in &err.hints {
                    note.push_str(&format!("; {hint}"));
                }
                return Ok(Reply::json(out).with_note(note));
            }
            Err(err) => return Err(err),
        };
        merge(&mut out, claims::describe(token.expose()));
        Ok(Reply::json(out))
    })
}

fn logout(ctx: Ctx, _args: Args) -> HandlerFuture {
    Box::pin(async move {
        let settings = ctx.settings();
        not_local(settings)?;
        let profile = settings.profile_name();
        let note = if TokenCache::open().remove(&profile)? {
            format!("signed out of profile `{profile}`; its cached tokens are gone")
        } else {
            format!("profile `{profile}` was not signed in")
        };
        Ok(Reply::empty().with_note(note))
    })
}

/// The token as text; front ends write it only into a pipe unless `--show` (the command's
/// `secret` trait).
fn token(ctx: Ctx, _args: Args) -> HandlerFuture {
    Box::pin(async move {
        let (_, token) = current(ctx.settings()).await?;
        Ok(Reply::text(format!("{}\n", token.expose())))
    })
}
