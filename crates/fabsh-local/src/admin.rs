//! Principal management straight on the store, for `fabsh local principal ...` (no server
//! needed) and for the `/_local/principals` routes.

use super::api_error::ApiError;
use super::auth::secret_digest;
use super::authority;
use super::clock::now_nanos;
use super::private_files;
use super::seed::{self, ADMIN_NAME};
use super::store::principals::{self, Principal, Role};
use super::store::sign_in::{self, CredentialKind};
use super::store::{DB_FILE, Db, identities, new_id, workspaces};
use axum::http::StatusCode;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use std::path::Path;

/// Role given when a workspace is named without a role.
const DEFAULT_ROLE: Role = Role::Contributor;

/// Opens (creating and seeding if needed) the store in `data_dir`; refuses a store other users
/// can read (it holds the key that signs every token).
pub(crate) fn open_store(data_dir: &Path) -> crate::Result<(Db, seed::StoreFacts)> {
    private_files::create_dir(data_dir).map_err(|e| {
        crate::Error::failed(format!("cannot create {}", data_dir.display())).with_cause(e)
    })?;
    private_files::check_store(data_dir)?;
    let db_file = data_dir.join(DB_FILE);
    private_files::create_file(&db_file).map_err(|e| {
        crate::Error::failed(format!("cannot create {}", db_file.display())).with_cause(e)
    })?;
    let db = Db::open(data_dir).map_err(|e| {
        crate::Error::failed(format!(
            "cannot open the local Fabric store in {}",
            data_dir.display()
        ))
        .with_cause(e)
    })?;
    let facts = seed::prepare(&db)?;
    Ok((db, facts))
}

fn new_secret() -> String {
    let mut bytes = [0u8; 30];
    rand::fill(&mut bytes[..]);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// What `local principal add` asks for.
#[derive(Debug, Clone, Default)]
pub struct NewPrincipal<'a> {
    /// Unique display name.
    pub name: &'a str,
    /// Workspace id or name to give a role in.
    pub workspace: Option<&'a str>,
    /// The role there (Contributor when only a workspace is given).
    pub role: Option<&'a str>,
    /// PEM text holding a certificate whose key may sign client assertions.
    pub certificate_pem: Option<&'a str>,
    /// A subject of the local OIDC issuer trusted as a federated credential.
    pub federated_subject: Option<&'a str>,
    /// The tenant to add it to: `default` (when absent), `second`, or a tenant id.
    pub tenant: Option<&'a str>,
    /// A managed identity: no secret; its tokens come from the identity endpoints.
    pub managed_identity: bool,
    /// The VM's identity, the one the metadata endpoint serves (implies `managed_identity`);
    /// there is one, so choosing another takes it over.
    pub vm_identity: bool,
}

/// The tenant id `default`, `second` or an id names, refused when unknown.
fn tenant_for(tx: &rusqlite::Connection, wanted: Option<&str>) -> Result<String, ApiError> {
    let ids = principals::tenant_ids(tx)?;
    let unknown = |text: &str| {
        ApiError::bad_request(
            "InvalidInput",
            format!("Unknown tenant '{text}': give default, second or a tenant id"),
        )
    };
    let found = match wanted.map(str::trim) {
        None | Some("") => ids.first(),
        Some(text) if text.eq_ignore_ascii_case("default") => ids.first(),
        Some(text) if text.eq_ignore_ascii_case("second") => ids.get(1),
        Some(text) => ids.iter().find(|id| id.eq_ignore_ascii_case(text)),
    };
    found
        .cloned()
        // No name given: the error names an empty one, and lists those there are.
        .ok_or_else(|| unknown(wanted.unwrap_or_default()))
}

/// The first certificate of a PEM text, when it is an X.509 certificate with an RSA key (the
/// kind whose key may sign client assertions); the CLI checks a file with it before sending.
pub fn rsa_certificate_in_pem(pem: &str) -> Option<Vec<u8>> {
    let der = authority::certificates_in_pem(pem).into_iter().next()?;
    authority::is_rsa_certificate(&der).then_some(der)
}

/// Creates a service principal in the default tenant (or the one `new.tenant` names),
/// optionally with a workspace role, a certificate and a federated credential, or as a
/// managed identity (without a secret).
pub(crate) fn add_principal_in(db: &Db, new: &NewPrincipal<'_>) -> Result<Value, ApiError> {
    let (workspace, role) = (new.workspace, new.role);
    let certificate = match new.certificate_pem {
        Some(pem) => match rsa_certificate_in_pem(pem) {
            Some(der) => Some(der),
            None => {
                return Err(ApiError::bad_request(
                    "InvalidInput",
                    "The certificate must be a PEM file with an RSA certificate",
                ));
            }
        },
        None => None,
    };
    let federated_subject = new
        .federated_subject
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let managed = new.managed_identity || new.vm_identity;
    if managed && (certificate.is_some() || federated_subject.is_some()) {
        return Err(ApiError::bad_request(
            "InvalidInput",
            "A managed identity has no credentials of its own: its tokens come from the identity endpoints",
        ));
    }
    let name = new.name.trim();
    if name.is_empty() {
        return Err(ApiError::bad_request(
            "InvalidInput",
            "A principal needs a name",
        ));
    }
    let role = match (workspace, role) {
        (None, Some(_)) => {
            return Err(ApiError::bad_request(
                "InvalidInput",
                "A role needs a workspace",
            ));
        }
        (_, Some(text)) => Some(Role::parse(text).ok_or_else(|| {
            ApiError::bad_request("InvalidInput", format!("Unknown role '{text}'"))
        })?),
        (Some(_), None) => Some(DEFAULT_ROLE),
        (None, None) => None,
    };
    let secret = (!managed).then(new_secret);
    let tenant_id = db.read(|c| tenant_for(c, new.tenant))?;
    let principal = Principal {
        id: new_id(),
        tenant_id,
        kind: "ServicePrincipal".into(),
        display_name: name.to_string(),
        user_principal_name: None,
        client_id: Some(new_id()),
    };
    db.write(|tx| {
        if principals::find_principal(tx, name)?.is_some() {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "PrincipalAlreadyExists",
                format!("A principal named '{name}' already exists"),
            ));
        }
        let target = match workspace {
            Some(key) => {
                Some(workspaces::find(tx, key)?.ok_or_else(|| ApiError::workspace_not_found(key))?)
            }
            None => None,
        };
        let digest = secret.as_deref().map(secret_digest);
        principals::insert_principal(tx, &principal, digest.as_deref(), now_nanos())?;
        if managed {
            identities::register(tx, &principal.id, new.vm_identity)?;
        }
        if let (Some(ws), Some(role)) = (target, role) {
            principals::set_role(tx, &ws.id, &principal.id, role)?;
        }
        if let Some(der) = &certificate {
            sign_in::insert_credential(tx, &principal.id, CredentialKind::Certificate, der)?;
        }
        if let Some(subject) = federated_subject {
            let kind = CredentialKind::FederatedSubject;
            sign_in::insert_credential(tx, &principal.id, kind, subject.as_bytes())?;
        }
        Ok(())
    })?;
    let mut created = json!({
        "tenantId": principal.tenant_id,
        "clientId": principal.client_id,
        "objectId": principal.id,
        "displayName": principal.display_name,
    });
    match secret {
        Some(secret) => created["clientSecret"] = json!(secret),
        None => identity_flags(&mut created, Some(new.vm_identity)),
    }
    Ok(created)
}

/// `managedIdentity: true` (and `vmIdentity: true` for the VM's) on a principal's entry.
fn identity_flags(entry: &mut Value, kind: Option<bool>) {
    if let Some(vm) = kind {
        entry["managedIdentity"] = json!(true);
        if vm {
            entry["vmIdentity"] = json!(true);
        }
    }
}

/// Every principal with its roles (never secrets).
pub(crate) fn list_principals_in(db: &Db) -> Result<Value, ApiError> {
    db.read(|conn| {
        let mut out = Vec::new();
        for p in principals::list_principals(conn)? {
            let roles: Vec<Value> = principals::roles_of(conn, &p.id)?
                .into_iter()
                .map(|(id, name, role)| json!({"workspaceId": id, "workspaceName": name, "role": role}))
                .collect();
            let mut entry = json!({
                "objectId": p.id,
                "displayName": p.display_name,
                "type": p.kind,
                "tenantId": p.tenant_id,
            });
            if let Some(client_id) = &p.client_id {
                entry["clientId"] = json!(client_id);
            }
            if let Some(upn) = &p.user_principal_name {
                entry["userPrincipalName"] = json!(upn);
            }
            identity_flags(&mut entry, identities::kind_of(conn, &p.id)?);
            entry["roles"] = Value::Array(roles);
            out.push(entry);
        }
        Ok(Value::Array(out))
    })
}

/// Removes a principal by name, object id or client id (never the local admin).
pub(crate) fn remove_principal_in(db: &Db, admin_id: &str, key: &str) -> Result<(), ApiError> {
    db.write(|tx| {
        let found = principals::find_principal(tx, key)?.ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                "PrincipalNotFound",
                format!("No principal '{key}'"),
            )
        })?;
        if found.id == admin_id {
            return Err(ApiError::bad_request(
                "InvalidInput",
                "The local admin cannot be removed",
            ));
        }
        principals::delete_principal(tx, &found.id)?;
        Ok(())
    })
}

/// Adds a service principal; returns `{tenantId, clientId, clientSecret, objectId,
/// displayName}`. `workspace` is an id or name; `role` defaults to Contributor.
pub fn add_principal(
    data_dir: &Path,
    name: &str,
    workspace: Option<&str>,
    role: Option<&str>,
) -> crate::Result<Value> {
    add_app(
        data_dir,
        &NewPrincipal {
            name,
            workspace,
            role,
            ..NewPrincipal::default()
        },
    )
}

/// Adds a service principal with any of its options (certificate, federated subject,
/// managed identity).
pub fn add_app(data_dir: &Path, new: &NewPrincipal<'_>) -> crate::Result<Value> {
    let (db, _) = open_store(data_dir)?;
    add_principal_in(&db, new).map_err(crate::Error::from)
}

/// Approves a pending device-code sign-in as the local admin user.
pub(crate) fn approve_device_code_in(
    db: &Db,
    admin_id: &str,
    user_code: &str,
) -> Result<Value, ApiError> {
    let now = now_nanos() / 1_000_000_000;
    let approved = db.write(|tx| sign_in::approve_device_code(tx, user_code, admin_id, now))?;
    if !approved {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "DeviceCodeNotFound",
            format!(
                "No pending sign-in has the code '{}' (it may have expired or been approved already)",
                user_code.trim()
            ),
        ));
    }
    Ok(json!({"userCode": user_code.trim().to_uppercase(), "approvedFor": ADMIN_NAME}))
}

/// Approves a pending device-code sign-in, straight on the store.
pub fn approve_device_code(data_dir: &Path, user_code: &str) -> crate::Result<Value> {
    let (db, facts) = open_store(data_dir)?;
    approve_device_code_in(&db, &facts.admin_id, user_code).map_err(crate::Error::from)
}

/// A bearer token for the local admin user, valid `seconds`, minted from the store (so a
/// process with access to the data dir can administer the server running on it).
pub fn admin_token(data_dir: &Path, seconds: i64) -> crate::Result<String> {
    let (db, facts) = open_store(data_dir)?;
    let admin = db
        .read(|c| principals::get_principal(c, &facts.admin_id))?
        .ok_or_else(|| crate::Error::failed("the local Fabric store has no admin user"))?;
    Ok(crate::auth::issue(&facts.keys, &admin, seconds))
}

/// A token for the local admin user and OneLake's Storage audience, valid for `seconds`.
pub fn admin_storage_token(data_dir: &Path, seconds: i64) -> crate::Result<String> {
    let (db, facts) = open_store(data_dir)?;
    let admin = db
        .read(|c| principals::get_principal(c, &facts.admin_id))?
        .ok_or_else(|| crate::Error::failed("the local Fabric store has no admin user"))?;
    Ok(crate::auth::issue_for(
        &facts.keys,
        &admin,
        seconds,
        crate::auth::STORAGE_AUDIENCE,
    ))
}

/// Lists principals with their workspace roles.
pub fn list_principals(data_dir: &Path) -> crate::Result<Value> {
    let (db, _) = open_store(data_dir)?;
    list_principals_in(&db).map_err(crate::Error::from)
}

/// Removes a principal by name or id (its role assignments go with it).
pub fn remove_principal(data_dir: &Path, name_or_id: &str) -> crate::Result<()> {
    let (db, facts) = open_store(data_dir)?;
    remove_principal_in(&db, &facts.admin_id, name_or_id).map_err(crate::Error::from)
}
