//! Entra tokens for a keyless Azure OpenAI judge: the credential chain that gives this
//! process its Fabric tokens, asked for the Cognitive Services resource instead.

use super::chain::choose_for;
use super::{Resource, Secret, TokenProvider};
use crate::config::Settings;
use crate::error;
use crate::watch::Tracer;
use fabsh_http::chat::{EntraTokens, LlmClient, LlmConfig};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// The chain's provider for Cognitive Services, as the chat client takes it.
struct CognitiveServicesTokens(Arc<dyn TokenProvider>);

impl EntraTokens for CognitiveServicesTokens {
    fn token(
        &self,
    ) -> Pin<Box<dyn Future<Output = Result<Secret, fabsh_http::Error>> + Send + '_>> {
        Box::pin(async move {
            self.0.token(false).await.map_err(|err| {
                let mut failure = fabsh_http::Error::new(
                    fabsh_http::ErrorKind::Auth,
                    format!("no Entra token for the judge model: {}", err.message),
                );
                for cause in &err.causes {
                    failure = failure.with_cause(cause);
                }
                for hint in &err.hints {
                    failure = failure.with_hint(hint.clone());
                }
                failure.with_hint("or give the judge's key with --llm-key (or FABSH_LLM_KEY)")
            })
        })
    }
}

/// A client for `config`'s model; an Azure OpenAI endpoint given no key is called with an
/// Entra token from the credential chain of `settings`.
pub fn model_client(config: LlmConfig, settings: &Settings) -> error::Result<LlmClient> {
    let needs_entra = config.needs_entra();
    let client = LlmClient::new(config)?;
    if !needs_entra {
        return Ok(client);
    }
    let tracer = settings.verbose.then_some(Tracer);
    let chosen = choose_for(settings, Resource::CognitiveServices, tracer)?;
    Ok(client.with_entra(Arc::new(CognitiveServicesTokens(chosen.provider))))
}
