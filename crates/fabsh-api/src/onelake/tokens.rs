//! object_store's view of fabsh's credential chain: a bearer token for the Storage audience,
//! asked of the chain each time object_store wants one (the chain keeps it until it expires).

use crate::auth::TokenProvider;
use object_store::azure::AzureCredential;
use object_store::client::CredentialProvider;
use std::sync::Arc;

/// The chain's Storage tokens, as object_store takes credentials.
pub(super) struct StorageTokens {
    tokens: Arc<dyn TokenProvider>,
}

impl StorageTokens {
    pub(super) fn new(tokens: Arc<dyn TokenProvider>) -> StorageTokens {
        StorageTokens { tokens }
    }
}

impl std::fmt::Debug for StorageTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token.
        write!(f, "StorageTokens({})", self.tokens.source())
    }
}

#[async_trait::async_trait]
impl CredentialProvider for StorageTokens {
    type Credential = AzureCredential;

    async fn get_credential(&self) -> object_store::Result<Arc<AzureCredential>> {
        let token =
            self.tokens
                .token(false)
                .await
                .map_err(|err| object_store::Error::Unauthenticated {
                    path: String::new(),
                    source: Box::new(err),
                })?;
        Ok(Arc::new(AzureCredential::BearerToken(
            token.expose().to_string(),
        )))
    }
}
