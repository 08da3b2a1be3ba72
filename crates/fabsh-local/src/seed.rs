//! First-start setup: the token signing key, two tenants, the local admin user and the Demo
//! workspace. Runs in one immediate transaction, so concurrent first starts seed once.
//! Later starts find it all there; a store from before RS256 gets its key on its first start.

use super::actions::{NewItem, create_item, store_parts};
use super::api_error::ApiError;
use super::clock::now_nanos;
use super::seed_content as content;
use super::signing_keys::{self, Keys};
use super::store::items::Part;
use super::store::principals::{self, Principal, Role};
use super::store::workspaces::{self, Workspace};
use super::store::{Db, new_id};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use fabsh_model::definition::platform::UNSET_LOGICAL_ID;
use rusqlite::Connection;

/// Facts fixed at first start and read on every start.
#[derive(Debug)]
pub(crate) struct StoreFacts {
    /// The keys every token is signed and checked with.
    pub keys: Keys,
    /// The secret App Service's managed-identity endpoint wants in `X-IDENTITY-HEADER`.
    pub identity_header: String,
    /// The tenant of the admin and of new principals.
    pub default_tenant: String,
    /// A second tenant for cross-tenant tests.
    pub second_tenant: String,
    /// Object id of the local admin user.
    pub admin_id: String,
}

/// Display name of the seeded admin user.
pub(crate) const ADMIN_NAME: &str = "Local Admin";
/// Name of the seeded workspace.
pub(crate) const DEMO_WORKSPACE: &str = "Demo";

/// The RSA private key tokens are signed with (PKCS#1 DER).
const KEY_SIGNING: &str = "rsa_signing_key";
/// The HMAC secret tokens were signed with before RS256; removed from older stores.
const KEY_OLD_HMAC: &str = "signing_key";
const KEY_IDENTITY_HEADER: &str = "identity_header";
const KEY_ADMIN: &str = "admin_principal_id";
const KEY_SEEDED: &str = "demo_seeded";

fn text(bytes: Option<Vec<u8>>) -> Option<String> {
    bytes.and_then(|b| String::from_utf8(b).ok())
}

/// Creates what is missing and returns the facts.
pub(crate) fn prepare(db: &Db) -> Result<StoreFacts, ApiError> {
    // Making a key takes a prime search (a tenth of a second, or more), so it is done before
    // the write transaction, which would keep another process starting on the store waiting.
    let new_key = match db.read(|c| principals::meta_get(c, KEY_SIGNING))? {
        Some(_) => None,
        None => Some(
            signing_keys::generate()
                .map_err(|e| ApiError::internal(format!("Cannot make a token signing key: {e}")))?,
        ),
    };
    db.write(|tx| {
        let now = now_nanos();
        // Another process may have stored a key since: the first one stored is the key.
        let signing_key = if let Some(key) = principals::meta_get(tx, KEY_SIGNING)? {
            key
        } else {
            let key =
                new_key.ok_or_else(|| ApiError::internal("The store lost its signing key"))?;
            principals::meta_set(tx, KEY_SIGNING, &key)?;
            key
        };
        // Tokens signed with the old secret must never pass again, and it has no use left.
        principals::meta_delete(tx, KEY_OLD_HMAC)?;
        // Kept, so a process given the header once keeps working across restarts.
        let identity_header =
            if let Some(secret) = text(principals::meta_get(tx, KEY_IDENTITY_HEADER)?) {
                secret
            } else {
                let mut bytes = [0u8; 32];
                rand::fill(&mut bytes[..]);
                let secret = URL_SAFE_NO_PAD.encode(bytes);
                principals::meta_set(tx, KEY_IDENTITY_HEADER, secret.as_bytes())?;
                secret
            };
        let mut tenants = principals::tenant_ids(tx)?;
        if tenants.is_empty() {
            let default_tenant = new_id();
            let second_tenant = new_id();
            principals::insert_tenant(tx, &default_tenant, "Local Fabric", true)?;
            principals::insert_tenant(tx, &second_tenant, "Local Fabric (second tenant)", false)?;
            tenants = vec![default_tenant, second_tenant];
        }
        let (default_tenant, second_tenant) = match tenants.as_slice() {
            [first, second, ..] => (first.clone(), second.clone()),
            _ => return Err(ApiError::internal("The store has fewer than two tenants")),
        };
        let admin_id = if let Some(id) = text(principals::meta_get(tx, KEY_ADMIN)?) {
            id
        } else {
            let admin = Principal {
                id: new_id(),
                tenant_id: default_tenant.clone(),
                kind: "User".into(),
                display_name: ADMIN_NAME.into(),
                user_principal_name: Some("admin@local.fabsh".into()),
                client_id: None,
            };
            principals::insert_principal(tx, &admin, None, now)?;
            principals::meta_set(tx, KEY_ADMIN, admin.id.as_bytes())?;
            admin.id
        };
        if principals::meta_get(tx, KEY_SEEDED)?.is_none() {
            seed_demo(tx, &admin_id, now)?;
            principals::meta_set(tx, KEY_SEEDED, b"1")?;
        }
        super::seed_links::seed(tx)?;
        let keys = Keys::from_private_der(&signing_key).map_err(|e| {
            ApiError::internal(format!("The store's token signing key is unreadable: {e}"))
        })?;
        Ok(StoreFacts {
            keys,
            identity_header,
            default_tenant,
            second_tenant,
            admin_id,
        })
    })
}

fn part(path: &str, text: &str) -> Part {
    Part {
        path: path.into(),
        payload: text.as_bytes().to_vec(),
    }
}

fn seed_demo(tx: &Connection, admin_id: &str, now: i64) -> Result<(), ApiError> {
    // A user may already have made a workspace called Demo; then the tour uses theirs.
    if workspaces::find(tx, DEMO_WORKSPACE)?.is_some() {
        return Ok(());
    }
    seed_demo_named(tx, admin_id, now, DEMO_WORKSPACE).map(drop)
}

/// A copy of the Demo workspace called `name`, as first start seeds it (its lakehouse holds
/// the demo dataset of its own, its items link as Demo's do), for tests that change what
/// they work on while sharing one server. Refuses a name a workspace already has.
pub(crate) fn demo_copy(db: &Db, admin_id: &str, name: &str) -> Result<Workspace, ApiError> {
    db.write(|tx| {
        if workspaces::find(tx, name)?.is_some() {
            return Err(ApiError::new(
                axum::http::StatusCode::CONFLICT,
                "WorkspaceNameAlreadyExists",
                format!("A workspace called '{name}' exists"),
            ));
        }
        let ws = seed_demo_named(tx, admin_id, now_nanos(), name)?;
        super::seed_links::seed_demo_links(tx, name)?;
        Ok(ws)
    })
}

fn seed_demo_named(
    tx: &Connection,
    admin_id: &str,
    now: i64,
    name: &str,
) -> Result<Workspace, ApiError> {
    let ws = Workspace {
        seq: 0,
        id: new_id(),
        display_name: name.into(),
        description: "Sample items seeded by local Fabric".into(),
        capacity_id: None,
    };
    workspaces::insert(tx, &ws, now)?;
    principals::set_role(tx, &ws.id, admin_id, Role::Admin)?;

    let item =
        |item_type: &str, name: &str, description: &str, format: Option<&str>, parts: Vec<Part>| {
            NewItem {
                id: new_id(),
                workspace_id: ws.id.clone(),
                item_type: item_type.into(),
                display_name: name.into(),
                description: Some(description.into()),
                folder_id: None,
                logical_id: UNSET_LOGICAL_ID.to_string(),
                sensitivity_label_id: None,
                format: format.map(str::to_string),
                parts: store_parts(&parts),
                creation_payload: None,
            }
        };
    let lakehouse = item(
        "Lakehouse",
        "SalesLakehouse",
        "Orders and customers",
        None,
        vec![part("lakehouse.metadata.json", "{}")],
    );
    create_item(tx, &lakehouse, now)?;
    // Its tables (the demo dataset) are generated when first read, keeping first start fast.
    super::tables::mark_demo(tx, &lakehouse.id)?;
    let notebook = item(
        "Notebook",
        "Welcome",
        "A first look at the sales data",
        None,
        vec![part("notebook-content.py", content::WELCOME_NOTEBOOK)],
    );
    create_item(tx, &notebook, now)?;
    let model = item(
        "SemanticModel",
        "Sales Model",
        "Total sales by customer",
        Some("TMDL"),
        vec![
            part("definition.pbism", &content::semantic_model_pbism()),
            part("definition/database.tmdl", content::DATABASE_TMDL),
            part("definition/model.tmdl", content::MODEL_TMDL),
            part("definition/tables/Orders.tmdl", content::ORDERS_TMDL),
        ],
    );
    create_item(tx, &model, now)?;
    let report = item(
        "Report",
        "Sales Report",
        "Sales overview",
        Some("PBIR-Legacy"),
        vec![
            part(
                "definition.pbir",
                &content::report_pbir(name, &model.display_name, &model.id),
            ),
            part("report.json", &content::report_json()),
        ],
    );
    create_item(tx, &report, now)?;
    Ok(ws)
}
