//! `fabsh auth login|status|logout|token`. Tokens never reach the terminal, except through
//! `auth token` into a pipe (or with `--show`).

use clap::{Arg, ArgAction, ArgGroup, ArgMatches, Command};
use fabsh_client::auth::cache::{Login, TokenCache};
use fabsh_client::auth::chain::{self, ANY_ORGANIZATION, PUBLIC_CLIENT_ID};
use fabsh_client::auth::credential::Acquire;
use fabsh_client::auth::managed_identity::IdentityEndpoint;
use fabsh_client::auth::oauth::Authority;
use fabsh_client::auth::{Method, Secret, TokenSet, claims};
use fabsh_client::bridge::Bridge;
use fabsh_client::config::{ConfigFile, Settings, config_path};
use fabsh_client::error::{Error, Result};
use fabsh_client::output::{Printer, Tracer};
use serde_json::{Value, json};
use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;

fn flag(name: &'static str, help: &'static str) -> Arg {
    Arg::new(name)
        .long(name)
        .action(ArgAction::SetTrue)
        .help(help)
}

fn value(name: &'static str, value_name: &'static str, help: &'static str) -> Arg {
    Arg::new(name).long(name).value_name(value_name).help(help)
}

/// The `auth` command tree.
pub fn command() -> Command {
    let login = Command::new("login")
        .about("Sign in and remember it for the profile (device code unless another method is given)")
        .arg(flag("device-code", "Sign in as a user with a code entered in a browser (default)"))
        .arg(flag("service-principal", "Sign in as an app (needs --tenant and --client-id)"))
        .arg(flag("managed-identity", "Use this machine's managed identity"))
        .arg(flag("azure-cli", "Use whoever is signed in to the Azure CLI"))
        .group(
            ArgGroup::new("method")
                .args(["device-code", "service-principal", "managed-identity", "azure-cli"])
                .multiple(false),
        )
        .arg(value("tenant", "TENANT", "Tenant id or domain (default: the profile's tenant)"))
        .arg(value(
            "client-id",
            "ID",
            "App id: the service principal, a user-assigned identity, or the public client of a device-code sign-in",
        ))
        .arg(flag(
            "client-secret",
            "Read the service principal's secret from stdin (else FABSH_CLIENT_SECRET is used)",
        ))
        .arg(
            value("certificate", "PATH", "Service principal certificate: PEM with its key, or PFX (password in FABSH_CLIENT_CERTIFICATE_PASSWORD)")
                .value_hint(clap::ValueHint::FilePath),
        )
        .arg(
            value("federated-token-file", "PATH", "File holding a federated (workload identity) token")
                .value_hint(clap::ValueHint::FilePath),
        )
        .after_help(
            "Examples:\n  fabsh auth login\n  printf %s \"$SECRET\" | fabsh auth login --service-principal --tenant T --client-id C --client-secret\n  fabsh --profile ci auth login --service-principal --tenant T --client-id C --federated-token-file $TOKEN_FILE",
        );
    Command::new("auth")
        .about("Sign in to Fabric, and see or end the sign-in")
        .subcommand_required(true)
        .subcommand(login)
        .subcommand(Command::new("status").about(
            "Show the credential source in effect, its tenant, principal and expiry (never the token)",
        ))
        .subcommand(Command::new("logout").about("Forget the profile's cached sign-in and tokens"))
        .subcommand(
            Command::new("token")
                .about("Print a bearer token for other tools (only into a pipe, unless --show)")
                .arg(flag("show", "Print the token even to a terminal"))
                .after_help("Example: curl -H \"Authorization: Bearer $(fabsh auth token)\" https://api.fabric.microsoft.com/v1/workspaces"),
        )
}

/// Runs `auth ...`.
pub fn run(
    matches: &ArgMatches,
    settings: &Settings,
    printer: &Printer,
    bridge: &Bridge,
) -> Result<ExitCode> {
    if settings.local {
        return Err(Error::usage(
            "--local signs in as local Fabric's admin by itself; `auth` is for other endpoints",
        )
        .with_hint("run `fabsh local serve` and point FABSH_ENDPOINT at it to sign in to it"));
    }
    match matches.subcommand() {
        Some(("login", sub)) => login(sub, settings, printer, bridge)?,
        Some(("status", _)) => status(settings, printer, bridge)?,
        Some(("logout", _)) => logout(settings, printer)?,
        Some(("token", sub)) => token(sub, settings, printer, bridge)?,
        _ => return Err(Error::usage("see `fabsh auth --help`")),
    }
    Ok(ExitCode::SUCCESS)
}

fn login(sub: &ArgMatches, settings: &Settings, printer: &Printer, bridge: &Bridge) -> Result<()> {
    let method = if sub.get_flag("service-principal") {
        Method::ServicePrincipal
    } else if sub.get_flag("managed-identity") {
        Method::ManagedIdentity
    } else if sub.get_flag("azure-cli") {
        Method::AzureCli
    } else {
        Method::DeviceCode
    };
    let text = |name: &str| sub.get_one::<String>(name).cloned();
    let tracer = settings.verbose.then_some(Tracer);
    let profile = settings.profile_name();
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
            bridge.cancel_on_ctrl_c();
            bridge.block_on(async {
                let code = authority.start_device_code(&client_id).await?;
                printer.note(&Authority::device_code_message(&code));
                authority.finish_device_code(&client_id, &code).await
            })?
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
            app_credential(sub, &mut login)?;
            let authority = chain::authority(settings, &tenant, tracer)?;
            let acquire = chain::app_acquire(authority, client_id, &login)?;
            bridge.block_on(acquire.run(None, tracer))?
        }
        Method::ManagedIdentity => {
            login.client_id = text("client-id").or_else(|| settings.value("client-id"));
            let acquire = Acquire::ManagedIdentity {
                endpoint: IdentityEndpoint::from_env_or_imds(),
                client_id: login.client_id.clone(),
            };
            bridge.block_on(acquire.run(None, tracer))?
        }
        Method::AzureCli => {
            let acquire = Acquire::AzureCli {
                tenant: login.tenant.clone(),
            };
            bridge.block_on(acquire.run(None, tracer))?
        }
    };
    let summary = remember(&profile, login, set, sub, settings)?;
    printer.print_value(summary, &[])
}

/// Where a service principal's secret, certificate or federated token comes from: the
/// flags, else the `FABSH_CLIENT_*` variables. A secret is never a flag value (it would land
/// in shell history): `--client-secret` reads it from stdin.
fn app_credential(sub: &ArgMatches, login: &mut Login) -> Result<()> {
    use fabsh_client::auth::chain::{
        CLIENT_CERTIFICATE_PASSWORD_VAR, CLIENT_CERTIFICATE_VAR, CLIENT_SECRET_VAR,
        FEDERATED_TOKEN_FILE_VAR,
    };
    use fabsh_client::config::env_text;
    let path = |name: &str| sub.get_one::<String>(name).map(PathBuf::from);
    if sub.get_flag("client-secret") {
        login.client_secret = Some(secret_from_stdin()?);
    } else if let Some(certificate) = path("certificate") {
        login.certificate = Some(absolute(certificate)?);
        login.certificate_password = env_text(CLIENT_CERTIFICATE_PASSWORD_VAR).map(Secret::new);
    } else if let Some(file) = path("federated-token-file") {
        login.federated_token_file = Some(absolute(file)?);
    } else if let Some(secret) = env_text(CLIENT_SECRET_VAR) {
        login.client_secret = Some(Secret::new(secret));
    } else if let Some(certificate) = env_text(CLIENT_CERTIFICATE_VAR) {
        login.certificate = Some(absolute(PathBuf::from(certificate))?);
        login.certificate_password = env_text(CLIENT_CERTIFICATE_PASSWORD_VAR).map(Secret::new);
    } else if let Some(file) = env_text(FEDERATED_TOKEN_FILE_VAR) {
        login.federated_token_file = Some(absolute(PathBuf::from(file))?);
    } else {
        return Err(Error::usage("the service principal needs a credential").with_hint(
            "pipe the secret into --client-secret, or give --certificate or --federated-token-file",
        ));
    }
    Ok(())
}

/// Cached paths are absolute, so later commands find them from any directory.
fn absolute(path: PathBuf) -> Result<PathBuf> {
    std::path::absolute(&path)
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
fn remember(
    profile: &str,
    mut login: Login,
    set: TokenSet,
    sub: &ArgMatches,
    settings: &Settings,
) -> Result<Value> {
    let described = claims::describe(set.access_token.expose());
    login.access_token = Some(set.access_token);
    login.expires_on = Some(set.expires_on);
    login.refresh_token = set.refresh_token;
    TokenCache::open().store(profile, &login)?;
    let path = config_path();
    let mut file = ConfigFile::load(&path)?;
    file.set(profile, "auth-method", login.method.as_str());
    if let Some(tenant) = sub.get_one::<String>("tenant") {
        file.set(profile, "tenant", tenant);
    }
    if login.method != Method::DeviceCode
        && let Some(client_id) = sub.get_one::<String>("client-id")
    {
        file.set(profile, "client-id", client_id);
    }
    file.save(&path)?;
    let mut summary = json!({
        "profile": profile,
        "method": login.method.as_str(),
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

fn status(settings: &Settings, printer: &Printer, bridge: &Bridge) -> Result<()> {
    let tracer = settings.verbose.then_some(Tracer);
    let chosen = chain::choose(settings, tracer)?;
    let token = bridge.block_on(chosen.provider.token(false))?;
    let mut out = json!({
        "profile": settings.profile_name(),
        "source": chosen.provider.source(),
        "method": chosen.method.map(Method::as_str),
        "endpoint": settings.endpoint(),
        "authorityHost": settings.authority_host().0,
    });
    merge(&mut out, claims::describe(token.expose()));
    printer.print_value(out, &[])
}

fn logout(settings: &Settings, printer: &Printer) -> Result<()> {
    let profile = settings.profile_name();
    if TokenCache::open().remove(&profile)? {
        printer.note(&format!(
            "signed out of profile `{profile}`; its cached tokens are gone"
        ));
    } else {
        printer.note(&format!("profile `{profile}` was not signed in"));
    }
    Ok(())
}

fn token(sub: &ArgMatches, settings: &Settings, printer: &Printer, bridge: &Bridge) -> Result<()> {
    if printer.stdout_is_terminal() && !sub.get_flag("show") {
        return Err(Error::usage("refusing to print a token to the terminal")
            .with_hint("pipe it into another program, or add --show"));
    }
    let tracer = settings.verbose.then_some(Tracer);
    let chosen = chain::choose(settings, tracer)?;
    let token = bridge.block_on(chosen.provider.token(false))?;
    printer.text(&format!("{}\n", token.expose()))
}
