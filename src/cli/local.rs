//! `fabsh local ...`: run local Fabric as a server and manage its principals.

use crate::connect::local_error;
use clap::{Arg, ArgMatches, Command};
use fabsh_client::api::{ApiClient, Req};
use fabsh_client::auth::{Secret, StaticToken};
use fabsh_client::bridge::Bridge;
use fabsh_client::config::{ENDPOINT_VAR, Settings, TOKEN_VAR, env_text};
use fabsh_client::error::{Error, Result};
use fabsh_client::output::{Printer, Progress};
use fabsh_local::{self as local, Faults, KNOBS, LocalServer, ServeOptions};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

const ROLES: &[&str] = &["Admin", "Member", "Contributor", "Viewer"];

/// The `local` command tree; `serve`'s fault flags come from the knob table.
pub fn command() -> Command {
    let data_dir = Arg::new("data-dir")
        .long("data-dir")
        .value_name("DIR")
        .help("Where local Fabric keeps its state (default: the user data dir)");
    let mut serve = Command::new("serve")
        .about("Run local Fabric as a server; prints FABSH_ENDPOINT=... and FABSH_TOKEN=... first")
        .arg(
            Arg::new("addr")
                .long("addr")
                .value_name("HOST:PORT")
                .default_value("127.0.0.1:0")
                .help("Address to listen on (port 0 picks a free one)"),
        )
        .arg(data_dir.clone())
        .after_help("Example: eval \"$(fabsh local serve --data-dir /tmp/fabric | head -2)\"");
    for knob in KNOBS {
        serve = serve.arg(
            Arg::new(knob.flag)
                .long(knob.flag)
                .value_name("VALUE")
                .allow_negative_numbers(true)
                .help(format!(
                    "{} (default {}; env {})",
                    knob.help, knob.default, knob.env
                )),
        );
    }
    let principal = Command::new("principal")
        .about("Manage local Fabric's principals (users and apps)")
        .subcommand_required(true)
        .subcommand(
            Command::new("add")
                .about(
                    "Add a service principal; prints {tenantId, clientId, clientSecret, objectId}",
                )
                .arg(
                    Arg::new("name")
                        .long("name")
                        .required(true)
                        .help("Display name"),
                )
                .arg(
                    Arg::new("workspace")
                        .long("workspace")
                        .short('w')
                        .help("Workspace to give a role in"),
                )
                .arg(
                    Arg::new("role")
                        .long("role")
                        .value_parser(clap::builder::PossibleValuesParser::new(ROLES))
                        .help("Role in --workspace"),
                )
                .arg(
                    Arg::new("certificate")
                        .long("certificate")
                        .value_name("PEM")
                        .value_hint(clap::ValueHint::FilePath)
                        .help("PEM file with a certificate whose key may sign client assertions"),
                )
                .arg(
                    Arg::new("federated-subject")
                        .long("federated-subject")
                        .value_name("SUBJECT")
                        .help("Trust tokens of the local OIDC issuer for this subject (workload identity)"),
                )
                .arg(
                    Arg::new("tenant")
                        .long("tenant")
                        .value_name("TENANT")
                        .help("Tenant to add it to: default, second (for cross-tenant tests such as external data sharing) or a tenant id"),
                )
                .arg(data_dir.clone()),
        )
        .subcommand(
            Command::new("list")
                .about("List principals")
                .arg(data_dir.clone()),
        )
        .subcommand(
            Command::new("remove")
                .about("Remove a principal")
                .arg(
                    Arg::new("name")
                        .long("name")
                        .required(true)
                        .help("Name or object id"),
                )
                .arg(data_dir.clone()),
        );
    let approve = Command::new("approve")
        .about("Approve a pending device-code sign-in (`fabsh auth login`) as the local admin user")
        .arg(
            Arg::new("user-code")
                .required(true)
                .value_name("USER_CODE")
                .help("The code the sign-in printed"),
        )
        .arg(data_dir.clone())
        .after_help("Example: fabsh local approve BCDF2345G");
    let text_arg = |name: &'static str, help: &'static str| {
        Arg::new(name).long(name).required(true).help(help)
    };
    let load_table = Command::new("load-table")
        .about("Load a CSV file into a table of a lakehouse or warehouse (column types are inferred)")
        .arg(text_arg("workspace", "Workspace id or name").short('w'))
        .arg(text_arg("lakehouse", "Lakehouse (or warehouse) id or name"))
        .arg(text_arg("table", "Table name; an existing table is replaced"))
        .arg(
            text_arg("file", "CSV file with a header row")
                .value_name("FILE")
                .value_hint(clap::ValueHint::FilePath),
        )
        .arg(data_dir.clone())
        .after_help("Example: fabsh local load-table -w Demo --lakehouse SalesLakehouse --table returns --file returns.csv");
    Command::new("local")
        .about("Local Fabric: a wire-compatible Fabric server built into fabsh")
        .subcommand_required(true)
        .subcommand(serve)
        .subcommand(principal)
        .subcommand(approve)
        .subcommand(load_table)
}

/// Runs `local serve` or `local principal ...`.
pub fn run(
    matches: &ArgMatches,
    settings: &Settings,
    printer: &Printer,
    bridge: &Bridge,
) -> Result<ExitCode> {
    match matches.subcommand() {
        Some(("serve", sub)) => serve(sub, printer, bridge),
        Some(("principal", sub)) => principal(sub, settings, printer, bridge),
        Some(("approve", sub)) => approve(sub, settings, printer, bridge),
        Some(("load-table", sub)) => load_table(sub, settings, printer, bridge),
        _ => Err(Error::usage("see `fabsh local --help`")),
    }
    .map(|()| ExitCode::SUCCESS)
}

fn serve(matches: &ArgMatches, printer: &Printer, bridge: &Bridge) -> Result<()> {
    let addr: SocketAddr = matches
        .get_one::<String>("addr")
        .map_or("127.0.0.1:0", String::as_str)
        .parse()
        .map_err(|err| Error::usage(format!("--addr: {err}")))?;
    let mut faults = Faults::from_env().map_err(Error::usage)?;
    for knob in KNOBS {
        if let Some(value) = matches.get_one::<String>(knob.flag) {
            faults
                .set(knob.flag, value)
                .map_err(|err| Error::usage(format!("--{}: {err}", knob.flag)))?;
        }
    }
    let options = ServeOptions {
        addr,
        data_dir: data_dir(matches),
        faults,
    };
    let server =
        bridge.block_on(async { LocalServer::start(options).await.map_err(local_error) })?;
    printer.text(&format!(
        "{ENDPOINT_VAR}={}\n{TOKEN_VAR}={}\n",
        server.base_url(),
        server.admin_token()
    ))?;
    printer.note("local Fabric is running; Ctrl-C stops it");
    bridge.cancel_on_ctrl_c();
    match bridge.block_on(async { server.wait().await.map_err(local_error) }) {
        Err(err) if err.kind == fabsh_client::ErrorKind::Cancelled => Ok(()),
        other => other,
    }
}

fn data_dir(matches: &ArgMatches) -> PathBuf {
    matches
        .get_one::<String>("data-dir")
        .map_or_else(local::default_data_dir, PathBuf::from)
}

/// Principals are managed in the data dir directly, or through the running server named by
/// FABSH_ENDPOINT when no --data-dir is given.
fn principal(
    matches: &ArgMatches,
    settings: &Settings,
    printer: &Printer,
    bridge: &Bridge,
) -> Result<()> {
    let (name, sub) = matches
        .subcommand()
        .ok_or_else(|| Error::usage("see `fabsh local principal --help`"))?;
    let text = |key: &str| sub.get_one::<String>(key).map(String::as_str);
    let server = running_server(sub, settings)?;
    let dir = data_dir(sub);
    let certificate_pem = match text("certificate") {
        Some(path) => Some(std::fs::read_to_string(path).map_err(|err| {
            Error::usage(format!("cannot read the certificate {path}")).with_cause(err)
        })?),
        None => None,
    };
    let new = local::admin::NewPrincipal {
        name: text("name").unwrap_or_default(),
        workspace: text("workspace"),
        role: text("role"),
        certificate_pem: certificate_pem.as_deref(),
        federated_subject: text("federated-subject"),
        tenant: text("tenant"),
    };
    let value = match (name, server) {
        ("add", None) => local::admin::add_app(&dir, &new).map_err(local_error)?,
        ("list", None) => local::admin::list_principals(&dir).map_err(local_error)?,
        ("remove", None) => {
            local::admin::remove_principal(&dir, text("name").unwrap_or_default())
                .map_err(local_error)?;
            Value::Null
        }
        (command, Some(api)) => bridge.block_on(async {
            let url = |path: &str| format!("{}/_local/principals{path}", origin(&api));
            let req = match command {
                "add" => Req::post(
                    url(""),
                    json!({
                        "name": new.name,
                        "workspace": new.workspace,
                        "role": new.role,
                        "certificate": new.certificate_pem,
                        "federatedSubject": new.federated_subject,
                        "tenant": new.tenant,
                    }),
                ),
                "list" => Req::get(url("")),
                _ => Req::delete(url(&format!("/{}", text("name").unwrap_or_default()))),
            };
            api.json(req).await
        })?,
        _ => return Err(Error::usage("see `fabsh local principal --help`")),
    };
    if value.is_null() {
        return Ok(());
    }
    printer.print_value(value, &[])
}

/// The running server to manage: the one `FABSH_ENDPOINT` (or `--endpoint`) names, unless
/// `--data-dir` asks for the store directly.
fn running_server(matches: &ArgMatches, settings: &Settings) -> Result<Option<ApiClient>> {
    if matches.get_one::<String>("data-dir").is_some() {
        return Ok(None);
    }
    match settings.endpoint.clone().or_else(|| env_text(ENDPOINT_VAR)) {
        Some(endpoint) => Ok(Some(server_client(&endpoint)?)),
        None => Ok(None),
    }
}

/// `local approve USER_CODE`: on the running server, or in the store with `--data-dir`.
fn approve(
    matches: &ArgMatches,
    settings: &Settings,
    printer: &Printer,
    bridge: &Bridge,
) -> Result<()> {
    let code = matches
        .get_one::<String>("user-code")
        .map_or("", String::as_str);
    let value = match running_server(matches, settings)? {
        Some(api) => bridge.block_on(async {
            let url = format!("{}/_local/devicecodes/approve", origin(&api));
            api.json(Req::post(url, json!({"userCode": code}))).await
        })?,
        None => local::admin::approve_device_code(&data_dir(matches), code).map_err(local_error)?,
    };
    printer.print_value(value, &[])
}

/// `local load-table`: into the store with `--data-dir`, else through the running server.
fn load_table(
    matches: &ArgMatches,
    settings: &Settings,
    printer: &Printer,
    bridge: &Bridge,
) -> Result<()> {
    let text = |key: &str| matches.get_one::<String>(key).map_or("", String::as_str);
    let path = text("file");
    let csv = std::fs::read(path)
        .map_err(|err| Error::usage(format!("--file: cannot read {path}")).with_cause(err))?;
    let (workspace, item, table) = (text("workspace"), text("lakehouse"), text("table"));
    let value = match running_server(matches, settings)? {
        Some(api) => {
            let csv = String::from_utf8(csv)
                .map_err(|_| Error::usage(format!("--file: {path} is not UTF-8 text")))?;
            bridge.block_on(async {
                let url = format!("{}/_local/tables", origin(&api));
                let body =
                    json!({"workspace": workspace, "item": item, "table": table, "csv": csv});
                api.json(Req::post(url, body)).await
            })?
        }
        None => local::load_table::load_table(&data_dir(matches), workspace, item, table, &csv)
            .map_err(local_error)?,
    };
    printer.print_value(value, &[])
}

fn server_client(endpoint: &str) -> Result<ApiClient> {
    let token = env_text(TOKEN_VAR).ok_or_else(|| {
        Error::auth(format!("{TOKEN_VAR} is not set"))
            .with_hint("use the token `local serve` printed, or pass --data-dir")
    })?;
    ApiClient::new(
        endpoint,
        Arc::new(StaticToken::new(Secret::new(token), TOKEN_VAR)),
        None,
        Progress::hidden(),
    )
}

/// The server's origin: the endpoint without `/v1`.
fn origin(api: &ApiClient) -> String {
    api.base().origin().ascii_serialization()
}
