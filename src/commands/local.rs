//! `fabsh local ...`: run local Fabric as a server, and manage its principals and tables,
//! either straight on its store (`--data-dir`) or through the running server that
//! `FABSH_ENDPOINT` names.

use super::{reset, serve};
use crate::connect::local_error;
use fabsh_api::api::{ApiClient, Req};
use fabsh_api::auth::binding::{Bound, InUse};
use fabsh_api::auth::{Secret, StaticToken};
use fabsh_api::config::{ENDPOINT_VAR, Settings, TOKEN_VAR, env_text};
use fabsh_client::commands::args::FileArg;
use fabsh_client::commands::spec::CERTIFICATE_FILE_CAP;
use fabsh_client::commands::typed::{Command, handler, typed_args};
use fabsh_client::commands::{
    ArgKind, ArgSpec, CommandSpec, Example, Group, Handler, HandlerFuture, Needs, Traits,
};
use fabsh_client::context::Ctx;
use fabsh_client::error::{Error, Result};
use fabsh_client::output::Progress;
use fabsh_client::reply::Reply;
use fabsh_model::roles::ROLE_NAMES;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;

/// `fabsh local ...`.
pub const LOCAL: Group = Group {
    name: "local",
    summary: "Local Fabric: a wire-compatible Fabric server built into fabsh",
    commands: COMMANDS,
};

static COMMANDS: &[CommandSpec] = &[
    serve::SERVE,
    serve::STOP,
    reset::RESET,
    PRINCIPAL_ADD,
    PRINCIPAL_LIST,
    PRINCIPAL_REMOVE,
    APPROVE,
    LOAD_TABLE,
];

const DATA_DIR: ArgSpec = ArgSpec::opt(
    "data-dir",
    ArgKind::Str,
    "Work on the store in this directory (default: the server FABSH_ENDPOINT names, else the store in the user data dir)",
);
const ADMIN: Traits = Traits::MUTATE.needs(Needs::LocalFabric);

const PRINCIPAL_NAME: ArgSpec = ArgSpec::req("name", ArgKind::Str, "Display name");
const PRINCIPAL_WORKSPACE: ArgSpec = ArgSpec::opt(
    "workspace",
    ArgKind::Str,
    "Workspace to give a role in (id or name)",
)
.short('w');
const ROLE: ArgSpec = ArgSpec::opt("role", ArgKind::Enum(ROLE_NAMES), "Role in --workspace");
const CERTIFICATE: ArgSpec = ArgSpec::opt(
    "certificate",
    ArgKind::File,
    "PEM file with a certificate whose key may sign client assertions",
)
.max_bytes(CERTIFICATE_FILE_CAP);
const FEDERATED_SUBJECT: ArgSpec = ArgSpec::opt(
    "federated-subject",
    ArgKind::Str,
    "Trust tokens of the local OIDC issuer for this subject (workload identity)",
);
const TENANT: ArgSpec = ArgSpec::opt(
    "tenant",
    ArgKind::Str,
    "Tenant to add it to: default, second (for cross-tenant tests such as external data sharing) or a tenant id",
);
const MANAGED_IDENTITY: ArgSpec = ArgSpec::opt(
    "managed-identity",
    ArgKind::Bool,
    "Make it a managed identity: no secret; tokens from /msi/token with the server's IDENTITY_HEADER",
);
const VM_IDENTITY: ArgSpec = ArgSpec::opt(
    "vm-identity",
    ArgKind::Bool,
    "Make it the VM's managed identity, which the metadata endpoint serves and /msi/token gives without a client id; there is one, so choosing another moves it (the earlier one stays a managed identity)",
);
const NAME_OR_ID: ArgSpec = ArgSpec::req("name", ArgKind::Str, "Name or object id");
const USER_CODE: ArgSpec =
    ArgSpec::positional("user-code", ArgKind::Str, "The code the sign-in printed");
const LOAD_WORKSPACE: ArgSpec =
    ArgSpec::req("workspace", ArgKind::Str, "Workspace id or name").short('w');
const LAKEHOUSE: ArgSpec = ArgSpec::req(
    "lakehouse",
    ArgKind::Str,
    "Lakehouse (or warehouse) id or name",
);
const TABLE: ArgSpec = ArgSpec::req(
    "table",
    ArgKind::Str,
    "Table name; an existing table is replaced",
);
// Loaded into local Fabric's store, never sent to the service: a larger cap.
const CSV_FILE: ArgSpec =
    ArgSpec::req("file", ArgKind::File, "CSV file with a header row").max_bytes(1 << 30);

const PRINCIPAL_ADD: CommandSpec = CommandSpec {
    group: "local",
    name: "principal add",
    summary: "Add a service principal; prints {tenantId, clientId, clientSecret, objectId}",
    about: "A managed identity (--managed-identity, --vm-identity) gets no secret: its tokens \
come from local Fabric's identity endpoints, /msi/token for a caller that sends the server's \
IDENTITY_HEADER (`local serve` prints it) and, for the VM identity only, the metadata \
endpoint /metadata/identity/oauth2/token.",
    args: &[
        PRINCIPAL_NAME,
        PRINCIPAL_WORKSPACE,
        ROLE,
        CERTIFICATE,
        FEDERATED_SUBJECT,
        TENANT,
        MANAGED_IDENTITY,
        VM_IDENTITY,
        DATA_DIR,
    ],
    traits: ADMIN,
    columns: &[],
    examples: &[
        Example {
            command: "local principal add --name ci-bot -w Demo --role Contributor",
            about: "an app with a role in Demo",
        },
        Example {
            command: "local principal add --name vm --vm-identity -w Demo --role Viewer",
            about: "the VM's managed identity, a Viewer of Demo",
        },
    ],
    handler: Handler::Data(handler::<PrincipalAdd>),
};

const PRINCIPAL_LIST: CommandSpec = CommandSpec {
    group: "local",
    name: "principal list",
    summary: "List principals",
    about: "",
    args: &[DATA_DIR],
    traits: Traits::READ.needs(Needs::LocalFabric).unpaged_list(),
    columns: &[],
    examples: &[Example {
        command: "local principal list",
        about: "users and apps",
    }],
    handler: Handler::Data(handler::<PrincipalList>),
};

const PRINCIPAL_REMOVE: CommandSpec = CommandSpec {
    group: "local",
    name: "principal remove",
    summary: "Remove a principal",
    about: "",
    args: &[NAME_OR_ID, DATA_DIR],
    traits: Traits::DESTRUCTIVE.needs(Needs::LocalFabric).void(),
    columns: &[],
    examples: &[Example {
        command: "local principal remove --name deploy-bot --yes",
        about: "the app and its roles are gone",
    }],
    handler: Handler::Data(handler::<PrincipalRemove>),
};

const APPROVE: CommandSpec = CommandSpec {
    group: "local",
    name: "approve",
    summary: "Approve a pending device-code sign-in (`fabsh auth login`) as the local admin user",
    about: "",
    args: &[USER_CODE, DATA_DIR],
    traits: ADMIN,
    columns: &[],
    examples: &[Example {
        command: "local approve \"$USER_CODE\"",
        about: "the sign-in that printed this code goes on",
    }],
    handler: Handler::Data(handler::<Approve>),
};

const LOAD_TABLE: CommandSpec = CommandSpec {
    group: "local",
    name: "load-table",
    summary: "Load a CSV file into a table of a lakehouse or warehouse (column types are inferred)",
    about: "Straight into local Fabric's store, without OneLake: for a warehouse, or a store that is not served (--data-dir). For a lakehouse, `fabsh lakehouse load-table` does the same through the service's load-table operation, on local Fabric and on Fabric alike.",
    args: &[LOAD_WORKSPACE, LAKEHOUSE, TABLE, CSV_FILE, DATA_DIR],
    traits: ADMIN,
    columns: &[],
    examples: &[Example {
        command: "local load-table -w Demo --lakehouse SalesLakehouse --table returns --file returns.csv",
        about: "a returns table beside the demo data",
    }],
    handler: Handler::Data(handler::<LoadTable>),
};

typed_args! {
    /// `--data-dir`: the store to work on, when not the running server's.
    struct Store {
        data_dir: Option<String> = DATA_DIR,
    }
}

/// `--data-dir`, else the default data dir.
pub(super) fn store_dir(data_dir: Option<&str>) -> PathBuf {
    data_dir.map_or_else(fabsh_local::default_data_dir, PathBuf::from)
}

impl Store {
    /// The running server to manage: the one `FABSH_ENDPOINT` (or `--endpoint`) names,
    /// unless `--data-dir` asks for the store directly.
    fn running_server(&self, settings: &Settings) -> Result<Option<ApiClient>> {
        if self.data_dir.is_some() {
            return Ok(None);
        }
        let Some(endpoint) = settings.endpoint.clone().or_else(|| env_text(ENDPOINT_VAR)) else {
            return Ok(None);
        };
        let token = env_text(TOKEN_VAR).ok_or_else(|| {
            Error::auth(format!("{TOKEN_VAR} is not set"))
                .with_hint("use the token `local serve` printed, or pass --data-dir")
        })?;
        // The token goes only to the endpoint given with it: not to another named by --endpoint.
        Bound::env_token(InUse::of(settings)?, TOKEN_VAR)?.check()?;
        let auth = Arc::new(StaticToken::new(Secret::new(token), TOKEN_VAR));
        ApiClient::new(&endpoint, auth, None, Arc::new(Progress::hidden())).map(Some)
    }

    /// Runs `work` on the store in the data dir, off the async workers (SQLite blocks).
    async fn run(
        &self,
        work: impl FnOnce(PathBuf) -> fabsh_local::Result<Value> + Send + 'static,
    ) -> Result<Value> {
        let dir = store_dir(self.data_dir.as_deref());
        tokio::task::spawn_blocking(move || work(dir))
            .await
            .map_err(|err| Error::runtime("local Fabric's store failed").with_cause(err))?
            .map_err(local_error)
    }
}

/// Sends `req` (a path under the server's `/_local`) to the running server.
async fn on_server(api: &ApiClient, req: impl FnOnce(String) -> Req) -> Result<Value> {
    let origin = api.base().origin().ascii_serialization();
    api.json(req(format!("{origin}/_local"))).await
}

typed_args! {
    /// `local principal add`.
    struct PrincipalAdd {
        name: String = PRINCIPAL_NAME,
        workspace: Option<String> = PRINCIPAL_WORKSPACE,
        role: Option<String> = ROLE,
        certificate: Option<FileArg> = CERTIFICATE,
        federated_subject: Option<String> = FEDERATED_SUBJECT,
        tenant: Option<String> = TENANT,
        managed_identity: bool = MANAGED_IDENTITY,
        vm_identity: bool = VM_IDENTITY,
        store: Store,
    }
}

impl Command for PrincipalAdd {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let certificate = match &self.certificate {
                Some(file) => Some(certificate_pem(file)?),
                None => None,
            };
            let PrincipalAdd {
                name,
                workspace,
                role,
                federated_subject: subject,
                tenant,
                managed_identity: managed,
                vm_identity: vm,
                store,
                ..
            } = self;
            let value = match store.running_server(ctx.settings())? {
                Some(api) => {
                    let body = json!({
                        "name": name, "workspace": workspace, "role": role,
                        "certificate": certificate, "federatedSubject": subject, "tenant": tenant,
                        "managedIdentity": managed, "vmIdentity": vm,
                    });
                    on_server(&api, |base| Req::post(format!("{base}/principals"), body)).await?
                }
                None => {
                    store
                        .run(move |dir| {
                            let new = fabsh_local::admin::NewPrincipal {
                                name: &name,
                                workspace: workspace.as_deref(),
                                role: role.as_deref(),
                                certificate_pem: certificate.as_deref(),
                                federated_subject: subject.as_deref(),
                                tenant: tenant.as_deref(),
                                managed_identity: managed,
                                vm_identity: vm,
                            };
                            fabsh_local::admin::add_app(&dir, &new)
                        })
                        .await?
                }
            };
            Ok(Reply::json(value))
        })
    }
}

/// The `--certificate` file's PEM text, checked here so that a file that is not a certificate
/// is a usage error before anything reaches the server or the store.
fn certificate_pem(file: &FileArg) -> Result<String> {
    let not_one = || {
        Error::usage(format!(
            "--certificate: {} is not a PEM file with an RSA certificate",
            file.path.display()
        ))
        .with_hint("give the certificate (-----BEGIN CERTIFICATE-----), not only its key")
    };
    let pem = String::from_utf8(file.bytes.to_vec()).map_err(|_| not_one())?;
    fabsh_local::admin::rsa_certificate_in_pem(&pem).ok_or_else(not_one)?;
    Ok(pem)
}

typed_args! {
    /// `local principal list`.
    struct PrincipalList {
        store: Store,
    }
}

impl Command for PrincipalList {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let value = if let Some(api) = self.store.running_server(ctx.settings())? {
                on_server(&api, |base| Req::get(format!("{base}/principals"))).await?
            } else {
                let list = fabsh_local::admin::list_principals;
                self.store.run(move |dir| list(&dir)).await?
            };
            Ok(Reply::json(value))
        })
    }
}

typed_args! {
    /// `local principal remove`.
    struct PrincipalRemove {
        name: String = NAME_OR_ID,
        store: Store,
    }
}

impl Command for PrincipalRemove {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let name = self.name;
            match self.store.running_server(ctx.settings())? {
                Some(api) => {
                    let path = |base: String| Req::delete(format!("{base}/principals/{name}"));
                    on_server(&api, path).await?;
                }
                None => {
                    self.store
                        .run(move |dir| {
                            fabsh_local::admin::remove_principal(&dir, &name).map(|()| Value::Null)
                        })
                        .await?;
                }
            }
            Ok(Reply::empty())
        })
    }
}

typed_args! {
    /// `local approve`.
    struct Approve {
        code: String = USER_CODE,
        store: Store,
    }
}

impl Command for Approve {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let code = self.code;
            let value = match self.store.running_server(ctx.settings())? {
                Some(api) => {
                    let body = json!({"userCode": code});
                    on_server(&api, |base| {
                        Req::post(format!("{base}/devicecodes/approve"), body)
                    })
                    .await?
                }
                None => {
                    self.store
                        .run(move |dir| fabsh_local::admin::approve_device_code(&dir, &code))
                        .await?
                }
            };
            Ok(Reply::json(value))
        })
    }
}

typed_args! {
    /// `local load-table`.
    struct LoadTable {
        workspace: String = LOAD_WORKSPACE,
        item: String = LAKEHOUSE,
        table: String = TABLE,
        file: Option<FileArg> = CSV_FILE,
        store: Store,
    }
}

impl Command for LoadTable {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let file = self
                .file
                .ok_or_else(|| Error::usage("--file is required"))?;
            // The CSV needs a header row at least; an empty file is a usage error, not the
            // server's.
            let text = file
                .bytes
                .strip_prefix(b"\xEF\xBB\xBF")
                .unwrap_or(&file.bytes);
            if text.iter().all(u8::is_ascii_whitespace) {
                return Err(Error::usage(format!(
                    "--file: {} is empty; it needs a header row (the column names)",
                    file.path.display()
                )));
            }
            let (workspace, item, table) = (self.workspace, self.item, self.table);
            use fabsh_local::load_table::{LoadProblem, check_csv};
            check_csv(&table, &file.bytes).map_err(|problem| match problem {
                LoadProblem::Table(why) => Error::usage(format!("--table: {why}")),
                LoadProblem::File(why) => {
                    Error::usage(format!("--file: {}: {why}", file.path.display()))
                }
            })?;
            let value = match self.store.running_server(ctx.settings())? {
                Some(api) => {
                    let csv = String::from_utf8(file.bytes.to_vec()).map_err(|_| {
                        Error::usage(format!("--file: {} is not UTF-8 text", file.path.display()))
                    })?;
                    let body =
                        json!({"workspace": workspace, "item": item, "table": table, "csv": csv});
                    on_server(&api, |base| Req::post(format!("{base}/tables"), body)).await?
                }
                None => {
                    self.store
                        .run(move |dir| {
                            fabsh_local::load_table::load_table(
                                &dir,
                                &workspace,
                                &item,
                                &table,
                                &file.bytes,
                            )
                        })
                        .await?
                }
            };
            Ok(Reply::json(value))
        })
    }
}
