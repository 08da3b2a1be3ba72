//! OneLake's files: the Blob API of OneLake through object_store's Azure backend, and through
//! fabsh's own requests for what object_store cannot do (`blob_api`: a listing with metadata,
//! resumable blocks), with Storage tokens from fabsh's credential chain. A workspace is a container; an item and the
//! path inside it are the blob's name (`SalesLakehouse.Lakehouse/Files/raw/orders.csv`).
//! The OneLake of the Fabric service is `onelake.blob.fabric.microsoft.com` (per cloud); that
//! of any other endpoint, local Fabric's, is `{origin}/onelake`.

mod blob_api;
mod blocks;
mod inventory;
mod path;
mod tokens;
mod transfer;

pub use inventory::{SHA256_KEY, Stored, sha256_hex};
pub use path::{ITEM_ROOTS, LakePath};
pub use transfer::{Entry, Sending, blocks_at_once, check_upload_size};

use crate::api::trusted_hosts::cloud_of;
use crate::auth::TokenProvider;
use crate::error::{Error, ErrorKind, Result};
use object_store::ObjectStore;
use object_store::azure::MicrosoftAzureBuilder;
use reqwest::Url;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// OneLake for one Fabric endpoint: a store per workspace, made when first used.
pub struct OneLake {
    endpoint: Url,
    tokens: Arc<dyn TokenProvider>,
    stores: Mutex<HashMap<String, Arc<dyn ObjectStore>>>,
    /// fabsh's HTTP client, for the requests object_store cannot make (a listing with
    /// metadata, `inventory`; resumable blocks, `blocks`); made when first needed.
    http: OnceLock<reqwest::Client>,
}

impl OneLake {
    /// The OneLake of the Fabric endpoint `api_base` (`…/v1`), with Storage tokens from
    /// `tokens`.
    pub fn new(api_base: &Url, tokens: Arc<dyn TokenProvider>) -> OneLake {
        OneLake {
            endpoint: endpoint_of(api_base),
            tokens,
            stores: Mutex::default(),
            http: OnceLock::new(),
        }
    }

    /// fabsh's HTTP client for this endpoint.
    fn http(&self) -> Result<reqwest::Client> {
        if let Some(client) = self.http.get() {
            return Ok(client.clone());
        }
        let client = fabsh_http::client(self.endpoint.scheme() == "http")?;
        // Two callers racing both build one; either is the same client.
        Ok(self.http.get_or_init(|| client).clone())
    }

    /// The Blob API endpoint in use.
    pub fn endpoint(&self) -> &Url {
        &self.endpoint
    }

    /// The store of `workspace` (its id or name).
    pub(crate) fn store(&self, workspace: &str) -> Result<Arc<dyn ObjectStore>> {
        let mut stores = self
            .stores
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(store) = stores.get(workspace) {
            return Ok(Arc::clone(store));
        }
        let store: Arc<dyn ObjectStore> = Arc::new(
            MicrosoftAzureBuilder::new()
                .with_account("onelake")
                .with_container_name(workspace)
                .with_endpoint(self.endpoint.to_string().trim_end_matches('/').to_string())
                .with_allow_http(self.endpoint.scheme() == "http")
                .with_credentials(Arc::new(tokens::StorageTokens::new(Arc::clone(
                    &self.tokens,
                ))))
                .build()
                .map_err(|err| Error::usage(format!("cannot reach OneLake: {err}")))?,
        );
        stores.insert(workspace.to_string(), Arc::clone(&store));
        Ok(store)
    }
}

/// OneLake's Blob endpoint for the Fabric endpoint `api_base`.
fn endpoint_of(api_base: &Url) -> Url {
    if let Some(cloud) = cloud_of(api_base)
        && let Ok(url) = Url::parse(cloud.onelake)
    {
        return url;
    }
    let mut url = api_base.clone();
    url.set_path("/onelake");
    url.set_query(None);
    url
}

/// What object_store's error means to a user: not found (exit 4), refused (exit 3), a
/// precondition (the destination exists), or a failure naming `path`.
pub(crate) fn lake_error(err: object_store::Error, path: &LakePath) -> Error {
    use object_store::Error as E;
    match err {
        E::NotFound { .. } => not_in_onelake(path),
        E::AlreadyExists { .. } | E::Precondition { .. } => destination_exists(path),
        E::Unauthenticated { source, .. } => match source.downcast_ref::<Error>() {
            // The chain's own refusal (no token, or one bound to another endpoint): nothing
            // reached OneLake, and the refusal says what to do.
            Some(own) => own.clone(),
            None => token_refused(path).with_cause(source),
        },
        E::PermissionDenied { source, .. } => access_refused(path).with_cause(source),
        other => Error::runtime(format!("OneLake: {path}: {other}")),
    }
}

/// A path OneLake answered not found (exit 4).
pub fn not_in_onelake(path: &LakePath) -> Error {
    Error::not_found(format!("{path} does not exist in OneLake"))
}

/// OneLake refused the Storage token sent for `path` (exit 3).
pub(crate) fn token_refused(path: &LakePath) -> Error {
    Error::auth(format!("OneLake refused the Storage token for {path}"))
}

/// OneLake refused the caller access to `path` (exit 3).
pub(crate) fn access_refused(path: &LakePath) -> Error {
    Error::new(ErrorKind::Auth, format!("OneLake refused access to {path}"))
}

/// The refusal (exit 2) of a copy onto `destination` (a OneLake or a local path) that exists,
/// without `--overwrite`.
pub fn destination_exists(destination: impl std::fmt::Display) -> Error {
    Error::usage(format!("{destination} exists")).with_hint("give --overwrite to replace it")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_service_has_its_clouds_onelake_and_other_endpoints_their_own() {
        let at = |api: &str| endpoint_of(&Url::parse(api).expect("url")).to_string();
        assert_eq!(
            at("https://api.fabric.microsoft.com/v1"),
            "https://onelake.blob.fabric.microsoft.com/"
        );
        assert_eq!(
            at("https://api.fabric.microsoft.us/v1"),
            "https://onelake.blob.fabric.microsoft.us/"
        );
        assert_eq!(
            at("http://127.0.0.1:8765/v1"),
            "http://127.0.0.1:8765/onelake"
        );
    }
}
